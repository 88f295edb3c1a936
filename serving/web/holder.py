"""The live searcher of the API, replaced atomically when a new bundle is published.

At most every ``reload_interval`` seconds a request reads ``bundles/CURRENT`` (one small file); when it names a new
version, the new bundle is loaded and warmed (:func:`warm`) in a background thread and the reference is swapped once
it is ready. Each
request takes the searcher once at its start, so requests in flight finish on the bundle they began with and
nothing is dropped during a swap. A bundle that fails to load is logged and skipped; the previous one stays live.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from mendel.index import bundle
from serving.ranking.search import Searcher
from serving.web.facets import facets_of
from serving.web.pages import load_templates

log = logging.getLogger("mendel.serving.api")

DEFAULT_RELOAD_INTERVAL = 2.0


class SearcherHolder:
    """The live Searcher, replaced atomically when a new bundle is published.

    ``current()`` is what requests call: cheap (a monotonic-clock compare, and a read of CURRENT at most
    every ``reload_interval`` seconds). With nothing loaded yet it loads in the calling request (there is
    nothing else to serve); otherwise the new bundle loads in a background thread while requests keep the
    old one.
    """

    def __init__(
        self,
        bundles_dir: Path,
        embedder=None,
        reload_interval: float = DEFAULT_RELOAD_INTERVAL,
        verify: bool = True,
        searcher_factory: Callable[..., Searcher] = Searcher,
        reranker=None,
    ):
        self.bundles_dir = Path(bundles_dir)
        self.embedder = embedder
        self.reranker = reranker  # a serving.ranking.rerank.CrossEncoder every loaded bundle shares; None: no rerank
        self.reload_interval = reload_interval
        self.verify = verify
        self._factory = searcher_factory
        self._searcher: Searcher | None = None
        self.loaded_at: datetime | None = None
        self.failed: dict[str, str] = {}  # version -> error; not retried until CURRENT names another version
        self.last_error: str | None = None
        self._load_lock = threading.Lock()
        self._checked = float("-inf")

    @property
    def searcher(self) -> Searcher | None:
        return self._searcher

    def current(self) -> Searcher | None:
        self._maybe_reload()
        return self._searcher

    def _maybe_reload(self) -> None:
        now = time.monotonic()
        if now - self._checked < self.reload_interval:
            return
        self._checked = now
        version = bundle.current_version(self.bundles_dir)
        loaded = self._searcher
        if version is None or version in self.failed or (loaded is not None and loaded.path.name == version):
            return
        if loaded is None:
            self.reload()
        elif self._load_lock.acquire(blocking=False):
            thread = threading.Thread(target=self._reload_and_release, name="mendel-bundle-reload", daemon=True)
            try:
                thread.start()
            except BaseException:
                self._load_lock.release()
                raise

    def _reload_and_release(self) -> None:
        try:
            self._load()
        finally:
            self._load_lock.release()

    def reload(self) -> bool:
        """Load CURRENT now if it is not the live bundle; True when a bundle is live afterwards."""
        with self._load_lock:
            return self._load()

    def _load(self) -> bool:
        version = bundle.current_version(self.bundles_dir)
        live = self._searcher
        if version is None:
            return live is not None
        if (live is not None and live.path.name == version) or version in self.failed:
            return live is not None
        started = time.monotonic()
        try:
            path = bundle.current_bundle(self.bundles_dir, verify=self.verify)
            version = path.name
            if live is not None and live.path.name == version:
                return True
            extra = {"reranker": self.reranker} if self.reranker is not None else {}
            searcher = self._factory(path, embedder=self.embedder, **extra)
            for number in (1, 2):  # load L1/L2 now, off the request path; a broken layer fails the bundle
                if hasattr(searcher, "layer"):
                    searcher.layer(number)
            warm(searcher)
        except Exception as exc:  # a broken bundle must not take the live one down
            self.failed[version] = f"{type(exc).__name__}: {exc}"
            self.last_error = f"bundle {version}: {self.failed[version]}"
            log.exception(
                "bundle %s failed to load; still serving %s", version, live.path.name if live is not None else "nothing"
            )
            return live is not None
        self._searcher = searcher  # a single reference assignment: atomic for readers
        self.loaded_at = datetime.now(timezone.utc)
        self.last_error = None
        log.info(
            "serving bundle %s (%d chunks, loaded in %.2f s)%s",
            version,
            len(searcher.chunks),
            time.monotonic() - started,
            f", replacing {live.path.name}" if live is not None else "",
        )
        return True


def warm(searcher) -> None:
    """Load what the first search and the first page would otherwise load while a person waits: the searcher's
    lazy state (one search runs it all) and the facets the page offers. A bundle is live, and ready, only after."""
    if hasattr(searcher, "warm"):
        searcher.warm()
    facets_of(searcher)
    load_templates()
