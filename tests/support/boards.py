"""Board crawl helpers: notices as the board spider yields them, the record step run over them, and a crawl runner
against a scale-mode mirror whose board hosts' requests are observed."""

from __future__ import annotations

import json
from types import SimpleNamespace

from scrapy.settings import Settings as ScrapySettings

from assets.boards.register_read import read_register
from crawlers.database_outage import crawl_outage
from crawlers.items import FetchedDocument
from crawlers.pipelines.threaded_record import ThreadedDocumentRecordPipeline
from mendel.core.config import Settings
from mirror.municipal import observe_robots_txt
from mirror.scale import HTML_LIST_PATH
from tests.support.crawl import crawl_runner


def notice(
    number: int, title: str | None = None, text: str | None = None, published: str = "2026-11-02"
) -> FetchedDocument:
    body = {
        "iri": f"https://deska.example/info/{number}",
        "název": {"cs": title or f"Oznámení {number}"},
        "popis": text or f"Veřejná vyhláška o opatření obecné povahy číslo {number}.",
    }
    return FetchedDocument(
        source="boards",
        doc_id=f"https://deska.example/info/{number}",
        url=f"https://deska.example/info/{number}",
        body=json.dumps(body, ensure_ascii=False).encode(),
        content_type="application/ld+json",
        title=title or f"Oznámení {number}",
        doc_type="notice",
        citation=f"ČJ {number}/2026",
        published=published,
        listing="https://deska.example/feed.jsonld",
    )


def crawl(
    database_url: str,
    raw_store: str,
    run_id: str,
    items: list[FetchedDocument],
    fast: bool = True,
    batch: int = 2,
    spool=None,
) -> list[str]:
    """The record step over ``items``; ``fast``: with its batches (of ``batch`` unchanged and of ``batch`` new
    documents), else one transaction a document."""
    spider = SimpleNamespace(source="boards" if fast else None)
    crawler = SimpleNamespace(
        spider=spider,
        settings=ScrapySettings({"MENDEL_RUN_ID": run_id}),
        stats=SimpleNamespace(set_value=lambda *a, **k: None, inc_value=lambda *a, **k: None),
        engine=None,
    )
    step = ThreadedDocumentRecordPipeline(database_url, run_id, raw_store, crawler=crawler)
    step.confirm_batch = step.new_batch = batch
    crawl_outage(crawler)._spool = spool  # the run's spool, where writes go when the database is gone
    step.open_spider(spider)
    try:
        return [step.store_and_record(item, spider).outcome for item in items]
    finally:
        step.close_spider(spider)


def scaled_crawl(mirror, monkeypatch, tmp_path, database_url):
    """A crawl runner against a scale-mode mirror (its board hosts' requests observed), the register it serves and
    the mirror's generated board of each host."""
    observe_robots_txt(mirror.server)
    run = crawl_runner(monkeypatch, tmp_path, database_url, mirror.base_url)
    register = read_register(
        Settings(profile="demo", mirror_url=mirror.base_url, html_boards=mirror.base_url + HTML_LIST_PATH)
    )
    return run, register, {b.host: b for b in mirror.server.scale.boards}
