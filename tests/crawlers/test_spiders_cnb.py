"""The ČNB spider run for real (a Scrapy subprocess) against the local mirror: listing pages (``.page-cnt``) →
documents; every document the corpus lacks is answered 404 and must be recorded, not dropped."""

from __future__ import annotations

import json
import shutil
from urllib.parse import urlsplit

import pytest

from crawlers.spiders import cnb as cnb_spider
from mendel.core.config import SAMPLE_CORPUS
from mendel.core.rawstore import RawStore
from mirror.server import MirrorThread
from tests.support.crawl import crawl_runner, documents, logged, only

STATE = json.loads((SAMPLE_CORPUS / "cnb" / "ingest-state.json").read_text(encoding="utf-8"))
BENCHMARKS = "https://www.cnb.cz/cs/dohled-financni-trh/vykon-dohledu/dohledova-uredni-sdeleni-a-benchmarky/"
ENFORCEMENT = "https://www.cnb.cz/cs/dohled-financni-trh/vykon-dohledu/pravomocna-rozhodnuti/"


@pytest.fixture
def crawl(tmp_path, fresh_db, mirror, monkeypatch):
    return crawl_runner(monkeypatch, tmp_path, fresh_db, mirror.base_url)


@pytest.mark.e2e
def test_cnb_reads_every_listing_stores_the_pdf_it_has_records_each_missing_one_then_304(crawl, tmp_path, monkeypatch):
    # The real ČNB index, plus one PDF at a listed file name. The corpus has no ČNB PDF: a real Sbírka PDF stands
    # in to exercise listing → PDF (its bytes are presented as ČNB content nowhere but in this test).
    corpus = tmp_path / "corpus"
    (corpus / "cnb" / "documents").mkdir(parents=True)
    for name in ("coverage.json", "ingest-state.json"):
        shutil.copy(SAMPLE_CORPUS / "cnb" / name, corpus / "cnb" / name)
    stand_in = SAMPLE_CORPUS / "esbirka" / "pdf" / "573-2025.pdf"
    shutil.copy(stand_in, corpus / "cnb" / "documents" / "dohledovy_benchmark_2025_01.pdf")
    path = (
        "/export/sites/cnb/cs/dohled-financni-trh/.galleries/vykon_dohledu/dohledove_benchmarky/download/"
        "dohledovy_benchmark_2025_01.pdf"
    )
    linked = set(STATE["completedBenchmarkUrls"]) | {u for u in STATE["completedEnforcementUrls"] if u != ENFORCEMENT}
    missing = {urlsplit(u).path for u in linked} - {path}
    with MirrorThread(corpus) as site:
        monkeypatch.setenv("MENDEL_MIRROR_URL", site.base_url)
        first = crawl("cnb", "cnb-1")
        # Every other link is answered 404 (the corpus has the index, not the bytes) and logged, not dropped.
        only(first, stored=1, quarantined=len(missing))
        assert first["listing_failed"] == 0
        rows = logged(crawl.database_url, "cnb-1")
        assert {urlsplit(url).path for url, outcome, *_ in rows if outcome == "quarantined"} == missing
        assert {(status, reason) for _url, outcome, status, reason in rows if outcome == "quarantined"} == {
            (404, "HTTP 404")
        }
        docs = documents(crawl.database_url, "cnb")
        assert set(docs) == {f"cnb:{path}"}
        doc = docs[f"cnb:{path}"]
        assert doc["title"] == "Dohledový benchmark č. 1/2025" and doc["doc_type"] == "regulatory_document"
        assert doc["content_type"] == "application/pdf" and doc["published"] is None  # the name gives a year only
        assert urlsplit(doc["url"]).path == path
        assert RawStore(crawl.home / "raw").get(doc["sha256"]) == stand_in.read_bytes()

        again = crawl("cnb", "cnb-2", MENDEL_CNB_LISTINGS=BENCHMARKS)
        only(again, unchanged=1, quarantined=len(STATE["completedBenchmarkUrls"]) - 1)
        statuses = {
            status for _url, outcome, status, _ in logged(crawl.database_url, "cnb-2") if outcome == "unchanged"
        }
        assert statuses == {304}


def test_cnb_listing_dates():
    assert cnb_spider.listing_date("20. 1. 2025") == ("2025-01-20", 2025)
    assert cnb_spider.listing_date(" 2025 ") == (None, 2025)
    assert cnb_spider.listing_date("31. 2. 2025") == (None, 2025)
    assert cnb_spider.listing_date("") == (None, None)
    assert cnb_spider.document_id("https://www.cnb.cz/export/a/b.pdf") == "cnb:/export/a/b.pdf"
