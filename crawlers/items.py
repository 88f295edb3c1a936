"""What spiders hand to the item pipelines: fetched documents, the outcomes of URLs that stored none, and the other
facts a crawl records (notice links, deferred attachments, act versions, the register's pages)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class FetchedDocument:
    source: str
    doc_id: str  # ELI, ECLI or a source-specific key
    url: str
    body: bytes
    content_type: str
    title: str | None = None
    doc_type: str | None = None
    citation: str | None = None
    published: str | None = None  # ISO date
    http_status: int = 200
    etag: str | None = None
    last_modified: str | None = None
    extra: dict = field(default_factory=dict)
    # The complete listing (feed, article index) that names this document; see crawlstate.sync_listing.
    listing: str | None = None
    # Filled by the pipelines.
    sha256: str | None = None
    raw_path: str | None = None
    outcome: str | None = None  # stored | unchanged


@dataclass
class CrawlOutcome:
    """A discovered URL that ends without a document to store: unchanged (a 304, not due), quarantined with its
    reason, or disallowed (mendel.crawl.crawlstate.log_outcome)."""

    source: str
    url: str
    outcome: str
    status: int | None = None
    reason: str | None = None
    etag: str | None = None
    last_modified: str | None = None
    sha256: str | None = None

    def fields(self) -> dict:
        """What :func:`mendel.crawl.crawlstate.log_outcome` takes, the source aside."""
        return dict(
            url=self.url,
            outcome=self.outcome,
            status=self.status,
            reason=self.reason,
            etag=self.etag,
            last_modified=self.last_modified,
            sha256=self.sha256,
        )


@dataclass
class ListingAnswered:
    """A listing URL whose last try failed answered again: its open crawl quarantine is resolved."""

    source: str
    url: str


@dataclass
class ListingBudget:
    """Requests a crawl will send for a listing (its board page, feed, index) to the host that published ``url``:
    counted against the host's budget before any attachment (crawlers.middlewares.host_budget)."""

    url: str
    requests: int = 1


@dataclass
class DeferredAttachment:
    """An attachment over its host's budget: not requested in this run, asked for first by the next one."""

    source: str
    url: str
    reason: str


@dataclass
class NoticeLinks:
    """The notices a board lists in one read, each with its attachments in order: (notice doc_id, [(attachment
    doc_id, name), …])."""

    listing: str
    links: list = field(default_factory=list)


@dataclass
class ActHistory:
    """An act's version history as e-Sbírka gives it (mendel.law.act_versions.apply_history)."""

    doc_id: str
    history: dict


@dataclass
class ActVersion:
    """One act version assembled from its fragment pages (mendel.law.act_versions.record_version)."""

    source: str
    doc_id: str
    url: str  # its first fragments page
    record: dict
    page_etags: dict
    published: str | None = None


@dataclass
class ActVersionUnchanged:
    """Every fragments page of a version answered 304: the stored version is confirmed."""

    url: str  # its first fragments page


@dataclass
class CataloguePage:
    """One page of the catalogue's answer to the register query (SPARQL result rows); ``last``: no page follows."""

    offset: int
    rows: list
    last: bool


@dataclass
class BoardList:
    """The maintained list of boards as fetched from the URL that names it."""

    location: str
    text: str


@dataclass
class DayRead:
    """Every page of one publication day of a day-by-day source was read (mendel.crawl.open_data_days); ``close``:
    the day is older than the source's publication lag, so this read closes it."""

    source: str
    day: str  # ISO date
    pages: int
    records: int
    close: bool


@dataclass
class BoardCandidate:
    """What the board finder found on one site of the national list (mendel.crawl.boards.candidates): the page the
    site labels as its notice board, its CMS and rule set, how many rows the first read found with a title and a
    posting date, and the outcome (mendel.crawl.boards.finding.OUTCOMES) with its reason."""

    list_key: str
    site: str
    start_url: str
    outcome: str
    reason: str | None = None
    name: str | None = None
    obec_kod: str | None = None
    board_url: str | None = None
    cms: str | None = None
    rules_from: str | None = None
    confidence: float = 0.0
    evidence: dict = field(default_factory=dict)
    notices_read: int = 0
    notices_dated: int = 0
