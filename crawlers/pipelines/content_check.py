"""First step for a fetched document: a body that is not what its source publishes (an error page sent with 200, a
page cut short with a matching Content-Length, a PDF without its end) becomes the quarantine of its URL, with the
reason (mendel.crawl.content_checks), and is never stored."""

from __future__ import annotations

from crawlers.items import CrawlOutcome, FetchedDocument
from mendel.crawl.content_checks import Candidate, check_document

MAX_REASON = 500


def content_problem(item: FetchedDocument) -> str | None:
    """Why the item's body is not a real document of its source, or None."""
    reason = check_document(
        Candidate(
            source=item.source,
            url=item.url,
            body=item.body,
            content_type=item.content_type or "",
            doc_type=item.doc_type,
            title=item.title,
            citation=item.citation,
            extra=item.extra or {},
        )
    )
    return f"content: {reason}"[:MAX_REASON] if reason else None


def rejected(item: FetchedDocument, reason: str, stats=None) -> CrawlOutcome:
    """The quarantine that stands for a rejected document (its body dropped)."""
    if stats is not None:
        stats.inc_value("mendel/content_rejected")
    return CrawlOutcome(source=item.source, url=item.url, outcome="quarantined", status=item.http_status, reason=reason)


class ContentCheckPipeline:
    def __init__(self, stats=None):
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler.stats)

    def process_item(self, item, spider=None):
        if not isinstance(item, FetchedDocument):
            return item
        reason = content_problem(item)
        return item if reason is None else rejected(item, reason, self.stats)
