"""The law as it stands, over HTTP: ``GET /provisions?ref=&at=`` (the wording of a provision on a date, its version,
validity, amending act and the diff against the version before) and ``GET /citations?ref=`` (what cites a
provision, an act, a court file number or an ECLI). Both read PostgreSQL, not the bundle: versions and citations
are kept there by the nightly run (``mendel.citator.wording``, ``mendel.citator.cites``).

Answers that are about the law (not yet in force, no such provision on that date) are 200 with their ``status``;
a ``ref`` that names nothing is a ``not-a-reference`` problem (400), an act with no stored version an ``unknown-act``
one (404).
"""

from __future__ import annotations

import queue
import threading
from datetime import date
from typing import Callable

import psycopg
from fastapi import APIRouter, Query

from serving.web.models import CitationsAnswer, ProvisionAnswer
from serving.web.problems import KNOWN_PARAMETERS_ONLY, PROBLEM, ProblemError

MAX_REF_CHARS = 300
NOT_BLANK = r"\S"  # an empty and a blank value are one kind of bad input
POOL_SIZE = 4


class Connections:
    """A few open read-only connections, reused between requests (a connection costs more than a lookup)."""

    def __init__(self, database_url: str | Callable[[], str] | None = None, size: int = POOL_SIZE):
        self._url = database_url
        self._resolved: str | None = database_url if isinstance(database_url, str) else None
        self._idle: queue.LifoQueue = queue.LifoQueue(maxsize=size)
        self._lock = threading.Lock()

    def url(self) -> str:
        with self._lock:
            if self._resolved is None:
                if callable(self._url):
                    self._resolved = self._url()
                else:
                    from mendel.core import db
                    from mendel.core.config import get_settings

                    self._resolved = db.database_url(get_settings())
            return self._resolved

    def run(self, work: Callable[[psycopg.Connection], dict]) -> dict:
        """``work(conn)`` on an idle connection (a broken one is replaced once)."""
        for attempt in (1, 2):
            try:
                conn = self._idle.get_nowait()
            except queue.Empty:
                conn = psycopg.connect(self.url(), autocommit=True)
            try:
                result = work(conn)
            except psycopg.OperationalError:
                conn.close()
                if attempt == 2:
                    raise
                continue
            try:
                self._idle.put_nowait(conn)
            except queue.Full:
                conn.close()
            return result
        raise AssertionError("unreachable")


def law_router(database_url: str | Callable[[], str] | None = None) -> APIRouter:
    """The routes; ``database_url`` (or a function giving it) defaults to the configured database."""
    from mendel.citator.cites import cites
    from mendel.citator.wording import provision_at

    connections = Connections(database_url)
    router = APIRouter(tags=["law"])

    @router.get(
        "/provisions",
        dependencies=KNOWN_PARAMETERS_ONLY,
        response_model=ProvisionAnswer,
        response_model_exclude_unset=True,  # what the answer has: a status says which parts there are
        summary="the wording of a provision on a date, with its version and the last change",
        responses={400: PROBLEM, 404: PROBLEM},
    )
    def provisions(
        ref: str = Query(
            ...,
            min_length=1,
            max_length=MAX_REF_CHARS,
            pattern=NOT_BLANK,
            description='a provision or an act: "§ 4 vyhlášky č. 573/2025 Sb."',
        ),
        at: date | None = Query(None, description="the date (YYYY-MM-DD); default today"),
    ):
        answer = connections.run(lambda conn: provision_at(conn, ref, at or date.today()))
        if answer["status"] == "not_a_reference":
            raise ProblemError("not-a-reference", answer["message"])
        if answer["status"] == "unknown_act":
            raise ProblemError("unknown-act", answer["message"])
        return answer

    @router.get(
        "/citations",
        dependencies=KNOWN_PARAMETERS_ONLY,
        response_model=CitationsAnswer,
        response_model_exclude_unset=True,
        summary="documents and passages citing a provision, an act, a file number or an ECLI",
        responses={400: PROBLEM},
    )
    def citations(
        ref: str = Query(
            ...,
            min_length=1,
            max_length=MAX_REF_CHARS,
            pattern=NOT_BLANK,
            description='"§ 2 odst. 1 zákona č. 90/2024 Sb.", "IV. ÚS 393/00", an ECLI',
        ),
        limit: int = Query(20, ge=1, le=200, description="citing documents listed per source family"),
    ):
        answer = connections.run(lambda conn: cites(conn, ref, limit=limit))
        if answer["status"] == "not_a_reference":
            raise ProblemError("not-a-reference", answer["message"])
        return answer

    return router
