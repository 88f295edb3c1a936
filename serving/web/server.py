"""Running the API: a configured uvicorn server over the latest published bundle (one process: the hot reload
swaps bundles in place), its cross-encoder from ``MENDEL_RERANK_MODEL``."""

from __future__ import annotations

from pathlib import Path

from serving.web.api import QueryLog, create_app
from serving.web.holder import DEFAULT_RELOAD_INTERVAL
from serving.web.querylog import drop_query_strings_from_access_log


def reranker_from_env(environ=None):
    """The cross-encoder named by ``MENDEL_RERANK_MODEL`` (a local model directory), or None when unset.
    A directory that cannot be loaded is an error at start-up, not on the first request."""
    import os

    path = (environ if environ is not None else os.environ).get("MENDEL_RERANK_MODEL", "").strip()
    if not path:
        return None
    from serving.ranking.rerank import CrossEncoder

    return CrossEncoder.load(path)


def make_server(
    bundles_dir: Path,
    host: str = "127.0.0.1",
    port: int = 8000,
    embedder=None,
    query_log: QueryLog | None = None,
    reload_interval: float = DEFAULT_RELOAD_INTERVAL,
    log_level: str = "info",
    reranker=None,
    raw_dir: Path | None = None,
    database_url: str | None = None,
):
    """A configured ``uvicorn.Server`` (call ``.run()``; set ``.should_exit`` to stop it). ``reranker``
    defaults to ``MENDEL_RERANK_MODEL`` (rerank stays off when that is unset)."""
    import uvicorn

    if embedder is None:
        # Load the model before the first request rather than during it (and only once under concurrency).
        from mendel.index.embed import get_embedder

        embedder = get_embedder()
    if reranker is None:
        reranker = reranker_from_env()
    app = create_app(
        bundles_dir,
        embedder=embedder,
        query_log=query_log,
        reload_interval=reload_interval,
        reranker=reranker,
        raw_dir=raw_dir,
        database_url=database_url,
    )
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level, workers=1, access_log=True)
    drop_query_strings_from_access_log()  # after Config: it (re)configures uvicorn's loggers
    return uvicorn.Server(config)


def serve(
    bundles_dir: Path,
    host: str = "127.0.0.1",
    port: int = 8000,
    embedder=None,
    query_log: QueryLog | None = None,
    reload_interval: float = DEFAULT_RELOAD_INTERVAL,
    log_level: str = "info",
    reranker=None,
) -> None:
    """Serve the API with uvicorn until interrupted (one process: the hot reload swaps bundles in place)."""
    make_server(
        bundles_dir,
        host=host,
        port=port,
        embedder=embedder,
        query_log=query_log,
        reload_interval=reload_interval,
        log_level=log_level,
        reranker=reranker,
    ).run()
