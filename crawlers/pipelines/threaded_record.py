"""The board crawl's content check, hash, raw store and document record as one step on worker threads, with unchanged
and new documents recorded in batches: the board crawl declares it in place of the four steps every other crawl
runs (``crawlers/settings.py``); what is stored and recorded is the same."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psycopg

from crawlers.database_outage import crawl_outage
from crawlers.items import CrawlOutcome, FetchedDocument
from crawlers.pipelines.content_check import MAX_REASON, content_problem, rejected
from crawlers.pipelines.document_record import DocumentRecordPipeline, record_fields
from crawlers.pipelines.raw_store import store_body
from mendel.core.rawstore import RawStore
from mendel.crawl import crawlstate
from mendel.crawl import known as crawl_known
from mendel.crawl.outage import is_outage

logger = logging.getLogger(__name__)


def _first_line(exc: Exception) -> str:
    """The first line of a database error's message (psycopg's carry the statement's context below it)."""
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else ""


class ThreadedDocumentRecordPipeline(DocumentRecordPipeline):
    """Hashing, writing and recording each notice on the reactor thread would stop every download meanwhile: here
    a few worker threads (hashing and file writes release the GIL) each hold a connection of their own, and a body
    is hashed once (the raw store's digest is the item's). A rejected body becomes its quarantine outcome, logged by
    the crawl log step; the notices stored (new or changed) are counted (``mendel/boards/notices_stored``).

    - An item whose bytes are its document's current version and whose fields are the stored ones
      (:func:`mendel.crawl.known.is_unchanged`, against the source's documents read when the crawl opens) is
      confirmed in batches (:func:`mendel.crawl.crawlstate.confirm_unchanged`: the same crawl_log row, ``last_seen``
      and quarantine resolution, one transaction per ``confirm_batch`` items, the rest when the spider closes).
    - A document whose id no document has (:func:`mendel.crawl.known.known_doc_ids`) goes into the raw store and
      is recorded in batches too (:func:`mendel.crawl.crawlstate.record_new_documents`, ``new_batch`` a
      transaction); the item leaves the step as ``stored``. A second item of a document still waiting in a batch
      has the batch written first, so the versions come in the order the items came.
    - A batch the database refuses (not an outage) is written one document at a time; a document that still fails
      is quarantined with the database's error and the others are stored. In an outage the records go to the spool.
    """

    workers = 3
    confirm_batch = 500
    new_batch = 500

    def __init__(self, database_url: str, run_id: str | None, raw_store: str | None = None, stats=None, crawler=None):
        self.store = RawStore(Path(raw_store)) if raw_store else None
        self.stats = stats
        self._local = threading.local()
        self._connections: list[psycopg.Connection] = []
        self._lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None
        self._current: dict[str, crawl_known.CurrentDocument] = {}
        self._confirming: list[dict] = []
        self._known_ids: set[str] | None = None  # every stored doc id (None: new documents take the long way)
        self._new: list[dict] = []  # records of new documents waiting for their batch
        self._pending: set[str] = set()  # their doc ids, until their batch is written
        self._flush_lock = threading.Lock()  # one batch of new documents written at a time
        self._source: str | None = None
        super().__init__(database_url, run_id, crawler)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(
            crawler.settings.get("MENDEL_DATABASE_URL"),
            crawler.settings.get("MENDEL_RUN_ID"),
            crawler.settings.get("MENDEL_RAW_STORE"),
            crawler.stats,
            crawler,
        )

    @property
    def conn(self) -> psycopg.Connection:
        """The calling worker thread's own connection."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = psycopg.connect(self.database_url, autocommit=True)
            self._local.conn = conn
            with self._lock:
                self._connections.append(conn)
        return conn

    @conn.setter
    def conn(self, value) -> None:
        pass  # connections belong to the worker threads

    def open_spider(self, spider=None):
        self._executor = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="mendel-record")
        self._source = getattr(spider or getattr(self.crawler, "spider", None), "source", None)
        if self._source and self.store is not None:
            try:
                with psycopg.connect(self.database_url) as conn:
                    self._current = crawl_known.current_documents(conn, self._source)
                    self._known_ids = crawl_known.known_doc_ids(conn)
            except psycopg.Error as exc:
                if not is_outage(exc):
                    raise
                self._current, self._known_ids = {}, None  # every item takes the full path (and its outage handling)

    def close_spider(self, spider=None):
        if self._executor is not None:
            self._executor.shutdown(wait=True)
        self._flush_new(0)
        self._flush_confirmed(self._take_confirmed(0))
        for conn in self._connections:
            conn.close()

    def _confirm_if_unchanged(self, item) -> bool:
        """Confirm the item in the next batch when recording it would change nothing; True when it was."""
        with self._lock:  # recorded the long way or not: a later item of the document is compared with what it left
            known = self._current.pop(item.doc_id, None)
        if known is None:  # a new document (most of a first crawl): not hashed here, the raw store hashes it
            return False
        sha256 = hashlib.sha256(item.body).hexdigest()
        if not crawl_known.is_unchanged(
            known,
            sha256=sha256,
            url=item.url,
            title=item.title,
            doc_type=item.doc_type,
            citation=item.citation,
            published=item.published,
            listing=item.listing,
        ) or not self.store.exists(sha256):
            return False
        item.sha256, item.raw_path, item.outcome = sha256, str(self.store.path_for(sha256)), "unchanged"
        row = record_fields(item)
        item.body = b""
        with self._lock:
            self._confirming.append(row)
        self._flush_confirmed(self._take_confirmed(self.confirm_batch))
        return True

    def _take_confirmed(self, at_least: int) -> list[dict]:
        with self._lock:
            if len(self._confirming) < max(at_least, 1):
                return []
            rows, self._confirming = self._confirming, []
        return rows

    def _flush_confirmed(self, rows: list[dict]) -> None:
        if rows:
            self._write_or_spool(
                lambda: crawlstate.confirm_unchanged(self.conn, run_id=self.run_id, source=self._source, rows=rows),
                rows,
            )

    def _write_or_spool(self, write, rows: list[dict]) -> bool:
        """``write()`` the records of ``rows``; in a database outage they wait in the spool for the next crawl, as
        the long way's do. False when they were spooled; a database error other than an outage is raised."""
        outage = crawl_outage(self.crawler)
        try:
            write()
            return True
        except psycopg.Error as exc:
            if not is_outage(exc) or outage.spool is None:
                raise
            outage.report(exc)
        for row in rows:
            outage.spool.document(**row)
        return False

    def _record_if_new(self, item, spider=None) -> bool:
        """Put a document not stored yet in the raw store and its record in the next batch; True when it was. A
        document waiting in a batch has the batch written first (its first version before this one)."""
        if self._known_ids is None or crawl_outage(self.crawler).reason is not None:
            return False
        with self._lock:
            new = item.doc_id not in self._known_ids
            waiting = not new and item.doc_id in self._pending
            self._known_ids.add(item.doc_id)
        if not new:
            if waiting:
                self._flush_new(0)
            return False
        self._put_blob(item)
        row = record_fields(item)
        item.outcome, item.body = "stored", b""
        with self._lock:
            self._new.append(row)
            self._pending.add(item.doc_id)
        self._flush_new(self.new_batch)
        return True

    def _flush_new(self, at_least: int) -> None:
        """Write the waiting new documents when at least ``at_least`` wait (0: any), one batch at a time: a caller
        that finds a batch being written waits for it."""
        if at_least and len(self._new) < at_least:
            return
        with self._flush_lock:
            with self._lock:
                if len(self._new) < max(at_least, 1):
                    return
                rows, self._new = self._new, []
            try:
                try:
                    self._write_or_spool(
                        lambda: crawlstate.record_new_documents(
                            self.conn, run_id=self.run_id, source=self._source, rows=rows
                        ),
                        rows,
                    )
                except psycopg.Error as exc:  # not an outage: find the document the database refused
                    logger.warning(
                        "a batch of %d new documents was refused (%s: %s); recording them one at a time",
                        len(rows),
                        type(exc).__name__,
                        _first_line(exc),
                    )
                    self._record_one_at_a_time(rows)
            finally:
                with self._lock:
                    self._pending.difference_update(row["doc_id"] for row in rows)

    def _record_one_at_a_time(self, rows: list[dict]) -> None:
        """The records of a refused batch, each in its own transaction; one the database still refuses is
        quarantined with the database's error (the others are stored)."""
        for number, row in enumerate(rows):
            try:
                written = self._write_or_spool(
                    lambda: crawlstate.record_document(self.conn, run_id=self.run_id, source=self._source, **row), [row]
                )
            except psycopg.Error as exc:
                reason = f"not recorded: {type(exc).__name__}: {_first_line(exc)}"[:MAX_REASON]
                logger.error("%s (%s): %s", row["doc_id"], row["url"], reason)
                crawlstate.log_outcome(
                    self.conn,
                    run_id=self.run_id,
                    source=self._source,
                    url=row["url"],
                    outcome="quarantined",
                    status=row.get("http_status"),
                    sha256=row["sha256"],
                    reason=reason,
                )
                if self.stats is not None:
                    self.stats.inc_value("mendel/outcome/quarantined")
                    self.stats.inc_value("mendel/records_refused")
                    if row.get("doc_type") == "notice":
                        self.stats.inc_value("mendel/boards/notices_stored", -1)
                continue
            if not written:  # the database went away: the rest wait in the spool too
                for rest in rows[number + 1 :]:
                    crawl_outage(self.crawler).spool.document(**rest)
                return

    def store_and_record(self, item: FetchedDocument, spider=None) -> FetchedDocument | CrawlOutcome:
        """The item checked, stored and recorded (on the calling worker thread); a rejected body's quarantine."""
        reason = content_problem(item)
        if reason is not None:
            return rejected(item, reason, self.stats)
        if (
            self.store is not None
            and self._source
            and (self._confirm_if_unchanged(item) or self._record_if_new(item, spider))
        ):
            return item
        if self.store is not None:
            self._put_blob(item)
        return self.record(item, self.conn)

    def _put_blob(self, item) -> None:
        """The item's body into the raw store (hashed once: the store's digest is the item's)."""
        blob = store_body(self.store, item)
        item.sha256, item.raw_path = blob.sha256, str(blob.path)

    async def process_item(self, item, spider=None):
        if not isinstance(item, FetchedDocument):
            return item
        loop = asyncio.get_running_loop()
        item = await loop.run_in_executor(self._executor, self.store_and_record, item, spider)
        if self.stats is not None and item.outcome == "stored" and getattr(item, "doc_type", None) == "notice":
            self.stats.inc_value("mendel/boards/notices_stored")
        return item
