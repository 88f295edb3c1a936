"""Which searcher serves: ``MENDEL_SERVING_BACKEND`` names the bundle backend (``serving.ranking.search``, the
default) or the PostgreSQL one (``serving.ranking.pg_search``)."""

from __future__ import annotations

import functools
import os
from typing import Callable

from mendel.index import bundle

BACKEND_ENV = "MENDEL_SERVING_BACKEND"
BACKENDS = ("bundle", "postgres")


class BackendError(RuntimeError):
    """The database cannot serve searches (no lexemes or embeddings, or an unknown backend name)."""


def backend_name(environ=None) -> str:
    """``MENDEL_SERVING_BACKEND``: ``bundle`` (the default) or ``postgres``."""
    value = ((environ if environ is not None else os.environ).get(BACKEND_ENV) or "bundle").strip().lower()
    if value not in BACKENDS:
        raise BackendError(f"{BACKEND_ENV}={value!r}: expected one of {', '.join(BACKENDS)}")
    return value


def searcher_factory(settings=None, environ=None) -> Callable[..., object]:
    """What builds the searcher of a bundle path (``SearcherHolder(searcher_factory=...)``) for the configured
    backend: ``serving.ranking.search.Searcher`` for ``bundle``; for ``postgres`` a
    ``serving.ranking.pg_search.PostgresSearcher`` over the configured database (the bundle path names the version
    only)."""
    if backend_name(environ) == "bundle":
        from serving.ranking.search import Searcher

        return Searcher
    from mendel.core import db
    from serving.ranking.pg_search import PostgresSearcher

    return functools.partial(PostgresSearcher, database_url=db.ready_url(settings))


def open_searcher(settings=None, environ=None):
    """The searcher of the latest published bundle for the configured backend (the CLI's)."""
    from mendel.core.config import get_settings

    settings = settings or get_settings()
    return searcher_factory(settings, environ)(bundle.current_bundle(settings.bundles_dir))
