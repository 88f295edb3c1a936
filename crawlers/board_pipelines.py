"""The board crawl's document records, written from worker threads.

A board crawl stores tens of thousands of small notices; recording each (one PostgreSQL transaction) on the reactor
thread would stop every download for the length of each commit. :class:`ThreadedDocumentRecordPipeline` is the
project's :class:`crawlers.pipelines.DocumentRecordPipeline` run on a few worker threads, each with its own
connection, so the crawl keeps downloading while the database commits. The board spider puts it in the place of
the plain one (``BoardsSpider.update_settings``); what is recorded is the same.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

import psycopg

from crawlers.pipelines import DocumentRecordPipeline

PLAIN = "crawlers.pipelines.DocumentRecordPipeline"
THREADED = "crawlers.board_pipelines.ThreadedDocumentRecordPipeline"


class ThreadedDocumentRecordPipeline(DocumentRecordPipeline):
    workers = 3

    def __init__(self, database_url: str, run_id: str | None):
        self._local = threading.local()
        self._connections: list[psycopg.Connection] = []
        self._lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None
        super().__init__(database_url, run_id)

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

    def close_spider(self, spider=None):
        if self._executor is not None:
            self._executor.shutdown(wait=True)
        for conn in self._connections:
            conn.close()

    async def process_item(self, item, spider=None):
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, DocumentRecordPipeline.process_item, self, item, spider)


def with_threaded_records(pipelines: dict) -> dict:
    """The project's pipelines with the document record step run on worker threads (same order, same steps)."""
    pipelines = dict(pipelines)
    if PLAIN in pipelines:
        pipelines[THREADED] = pipelines.pop(PLAIN)
    return pipelines
