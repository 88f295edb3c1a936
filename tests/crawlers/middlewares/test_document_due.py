"""Which document requests go out (crawlers.middlewares.document_due): every one is counted as discovered; one for a
URL gone on its last tries whose backoff has not ended is logged quarantined again (same reason, no status) and never
sent, one for a document that answered within the spider's revalidation window is logged unchanged (not due) and
never sent; the conditional headers come from the validators the URL answered with last time."""

from datetime import datetime, timedelta, timezone

import psycopg
import scrapy
from scrapy.utils.test import get_crawler

from crawlers.extensions.known_documents import KnownDocumentsExtension
from crawlers.items import CrawlOutcome
from crawlers.middlewares.conditional_request import ConditionalRequestMiddleware
from crawlers.middlewares.document_due import DocumentDueMiddleware
from crawlers.spiders.base import MendelSpider
from mendel.crawl import crawlstate


class _Spider(MendelSpider):
    name = "due-probe"
    source = "boards"


def test_held_back_and_not_due_urls_are_logged_without_a_request(fresh_db):
    held, fresh, due_not = "https://a.cz/gone.pdf", "https://a.cz/new.pdf", "https://a.cz/seen.pdf"
    now = datetime.now(timezone.utc)
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        crawlstate.log_outcome(
            conn, run_id="r8", source="boards", url=held, outcome="quarantined", status=404, reason="HTTP 404"
        )
        crawlstate.record_document(
            conn,
            run_id="r8",
            source="boards",
            doc_id="seen",
            url=due_not,
            sha256="0" * 64,
            byte_size=1,
            content_type="application/pdf",
            etag='"v1"',
        )
    crawler = get_crawler(_Spider, {"MENDEL_DATABASE_URL": fresh_db})
    spider = _Spider.from_crawler(crawler)
    crawler.spider = spider
    crawler.stats.open_spider()
    spider.revalidate_after = timedelta(days=7)
    KnownDocumentsExtension(crawler).spider_opened(spider)
    assert spider.known.held_back(held) and spider.known.not_due(due_not, spider.revalidate_after)

    requests = [spider.document_request(url, spider.parse) for url in (held, fresh, due_not)]
    out = list(DocumentDueMiddleware(crawler).process_spider_output(None, requests))
    assert isinstance(out[1], scrapy.Request) and out[1].url == fresh
    assert out[0] == CrawlOutcome(source="boards", url=held, outcome="quarantined", reason="HTTP 404")
    assert out[2].outcome == "unchanged" and out[2].status is None and out[2].reason.startswith("not due: answered")
    assert spider.discovered == 3 and crawler.stats.get_value("mendel/held_back") == 1
    assert crawler.stats.get_value("mendel/not_due") == 1
    assert now - timedelta(minutes=5) < spider.known.confirmed[due_not]

    # Asked for again once due: conditionally, with the validators it answered with.
    spider.revalidate_after = None
    (request,) = DocumentDueMiddleware(crawler).process_spider_output(
        None, [spider.document_request(due_not, spider.parse)]
    )
    ConditionalRequestMiddleware(crawler).process_request(request, spider)
    assert request.headers.get("If-None-Match") == b'"v1"'
