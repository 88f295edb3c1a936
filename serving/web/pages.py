"""The search page for people: server-rendered Czech HTML that works without JavaScript (a GET form).

``/``      the query box, filters (source family, publication dates, in force on a date or the promulgated
           wording, act, and kraj / okres / obec when the bundle's documents carry them), results grouped by
           document (each with its best passages, the query's words marked, an act's version: ELI, validity, not
           yet in force / superseded), how many were found and pages of them, an honest empty state (saying when
           the filters alone leave nothing) and the search's coverage notice when the searcher reports one;
``/page``  one page of a hit's original: the PDF page as an image with the passage's lines and the query's
           words boxed over it, the passage as text below, and the original file one link away. A passage of an
           act's version whose pages the stored original is not (a consolidated version over the promulgated PDF)
           is shown as text, saying so, never over another version's page.

Every link from a result to its page and back carries the whole search (query, date, filters, page). Form errors
are shown in the page (status 400); the JSON API keeps its problem details.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Callable
from urllib.parse import quote, urlencode

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException as StarletteHTTPException

from mendel.czech.dates import numeric_from_iso
from mendel.czech.wording import full_stop
from mendel.passages.act_passages import SEQ_BASE
from mendel.records.model import RECORD_DOCUMENT_TYPES
from serving.ranking.in_force import PROMULGATED, from_original, version_of
from serving.web.evidence import excerpt_window, query_terms, segments, term_spans
from serving.web.facets import COURT_FIELDS, PLACE_FIELDS, FilterError, checked_filters, facets_of
from serving.web.labels import (
    STATUS_BADGES,
    VERSION_KIND_LABELS,
    VERSION_KIND_OF,
    doc_type_label,
    plural,
    source_label,
)
from serving.web.originals import NotAPdf, OriginalMissing, Originals, PageOutOfRange
from serving.web.results import run_search
from serving.web.source_links import source_url

HERE = Path(__file__).parent
PAGE_SIZES = (10, 20, 50)
MAX_QUERY_CHARS = 1000
MAX_FIELD_CHARS = 200
PAGE_TEXT_CHARS = 60_000  # a document page shown as text: about 30 printed pages, then cut (a code is one "page")
MAX_RESULT_PAGE = 100
RESULT_PAGE = "strana"  # the results page a link names ("page" is the document's page in the page view)
FIELD_NAMES = {
    "q": "Dotaz",
    "date_from": "Vydáno od",
    "date_to": "Vydáno do",
    "at": "Platné ke dni",
    "act": "Předpis nebo spisová značka",
    "source": "Zdroj",
    "kraj": "Kraj",
    "okres": "Okres",
    "obec": "Obec",
    "court": "Soud",
    "court_level": "Stupeň soudu",
    "k": "Dokumentů na stránku",
    "version": "Znění",
}
SEARCH_FIELDS = ("q", "date_from", "date_to", "at", "act", "version", *PLACE_FIELDS, *COURT_FIELDS, "k")

templates = Jinja2Templates(directory=str(HERE / "templates"))


def document_path(doc_id: str) -> str:
    """The API path of a document: ELIs keep their slashes (/documents/eli/cz/…), anything else is escaped."""
    return "/documents/" + quote(doc_id.lstrip("/"), safe="/:")


def czech_date(value) -> str:
    """A date (or ISO text) as the page shows it, ``1. 2. 2024``; anything else as it came."""
    return numeric_from_iso(str(value), default=str(value)) if value else ""


def citator_knows(reference: str | None) -> bool:
    """Whether the citator understands ``reference`` (an act, a provision, a court's file number or ECLI): only
    then is it linked there; an office's reference number is not."""
    from mendel.citator.targets import parse_target

    return bool(reference) and parse_target(reference) is not None


templates.env.filters.update(
    document_path=document_path,
    czech_date=czech_date,
    source_label=source_label,
    doc_type_label=doc_type_label,
    full_stop=full_stop,
)
templates.env.globals.update(
    record_document_types=RECORD_DOCUMENT_TYPES,
    version_kind_labels=VERSION_KIND_LABELS,
    version_kind_of=VERSION_KIND_OF,
    status_badges=STATUS_BADGES,
    plural=plural,
    source_url=source_url,
)


def load_templates() -> None:
    """Compile the pages' templates now rather than on a person's first request."""
    for name in ("search.html", "page.html", "message.html", "citator.html", "ustanoveni.html"):
        templates.get_template(name)


def search_params(params) -> list[tuple[str, str]]:
    """The search a request carries (query, filters, date, page size, results page), without empty values: what
    every link from its results and back keeps."""
    kept = [(name, params.get(name)) for name in SEARCH_FIELDS if params.get(name)]
    kept[1:1] = [("source", value) for value in params.getlist("source") if value]
    if params.get(RESULT_PAGE, "").isdigit() and int(params[RESULT_PAGE]) > 1:
        kept.append((RESULT_PAGE, params[RESULT_PAGE]))
    return [(name, value[:MAX_QUERY_CHARS].replace("\x00", "")) for name, value in kept]


def with_search(path: str, search: list[tuple[str, str]], **extra) -> str:
    return path + "?" + urlencode([*extra.items(), *search])


def _date(form: dict, name: str, errors: dict[str, str]) -> date | None:
    raw = (form.get(name) or "").strip()
    if not raw:
        return None
    try:
        return date.fromisoformat(raw)
    except ValueError:
        errors[name] = "Zadejte datum ve tvaru RRRR-MM-DD."
        return None


class PageUnavailable(Exception):
    """No bundle is loaded: a page answers 503 in HTML, not as the API's problem."""


def add_pages(app: FastAPI, live_searcher: Callable, originals: Originals) -> None:
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")

    def render(request: Request, name: str, context: dict, status: int = 200) -> HTMLResponse:
        return templates.TemplateResponse(
            request, name, context, status_code=status, headers={"Content-Language": "cs"}
        )

    @app.exception_handler(PageUnavailable)
    async def unavailable(request: Request, exc: PageUnavailable):
        return render(request, "unavailable.html", {}, status=503)

    def page_searcher():
        """The live searcher, or the page saying search is not ready yet (no bundle loaded)."""
        try:
            return live_searcher()
        except StarletteHTTPException:
            raise PageUnavailable() from None

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def search_page(request: Request):
        searcher = page_searcher()
        params = request.query_params
        form = {name: params.get(name, "") for name in SEARCH_FIELDS}
        form["source"] = params.getlist("source")
        facets = facets_of(searcher)
        errors: dict[str, str] = {}
        query = form["q"].strip()
        for name in ("q", "act", *PLACE_FIELDS, *COURT_FIELDS):
            limit = MAX_QUERY_CHARS if name == "q" else MAX_FIELD_CHARS
            if len(form[name]) > limit or "\x00" in form[name]:
                errors[name] = f"Nejvýše {limit} znaků, bez znaků NUL."
                form[name] = ""
        if any(len(s) > MAX_FIELD_CHARS for s in form["source"]):
            errors["source"] = "Neznámý zdroj."
            form["source"] = []
        date_from, date_to, at = (_date(form, name, errors) for name in ("date_from", "date_to", "at"))
        if form["version"] not in ("", PROMULGATED):
            errors["version"] = "Neznámé znění."
            form["version"] = ""
        k = int(form["k"]) if form["k"].isdigit() and int(form["k"]) in PAGE_SIZES else PAGE_SIZES[0]
        raw_page = params.get(RESULT_PAGE, "")
        results_page = min(int(raw_page), MAX_RESULT_PAGE) if raw_page.isdigit() and int(raw_page) >= 1 else 1
        search = search_params(params)
        context = {
            "form": form,
            "facets": facets,
            "errors": errors,
            "field_names": FIELD_NAMES,
            "k": k,
            "page_sizes": PAGE_SIZES,
            "bundle": searcher.path.name,
            "searched": False,
            "payload": None,
            "cards": [],
            "without_filters": with_search("/", [("q", form["q"])]),
        }
        if "q" in params and not query and not errors:
            errors["q"] = "Zadejte, co hledáte."
        if errors or not query:
            return render(request, "search.html", context, status=400 if errors else 200)
        try:
            filters = checked_filters(
                searcher,
                source=form["source"],
                date_from=date_from,
                date_to=date_to,
                act=form["act"],
                places={name: form[name] for name in PLACE_FIELDS},
                courts={name: form[name] for name in COURT_FIELDS},
            )
        except FilterError as exc:
            errors[exc.name] = {
                "source": "Tento zdroj v kolekci není.",
                "act": "Takový předpis ani spisovou značku kolekce neobsahuje.",
                "date_from": "Datum „od“ je po datu „do“.",
            }.get(exc.name, "Neznámá hodnota.")
            return render(request, "search.html", context, status=400)
        payload, _ = run_search(
            searcher,
            query,
            k=k,
            page=results_page,
            group=True,
            filters=filters,
            at=at,
            version=form["version"] or None,
        )
        cards = [document_card(group, searcher, originals, search) for group in payload["documents"]]
        first = (results_page - 1) * k
        base = [(name, value) for name, value in search if name != RESULT_PAGE]

        def results_url(number: int) -> str:
            return with_search("/", base + ([(RESULT_PAGE, str(number))] if number > 1 else []))

        context.update(
            searched=True,
            payload=payload,
            cards=cards,
            terms=query_terms(query),
            shown_from=first + 1,
            shown_to=first + len(cards),
            previous_url=results_url(results_page - 1) if results_page > 1 else None,
            next_url=results_url(results_page + 1) if results_page < payload["pages"] else None,
        )
        return render(request, "search.html", context)

    @app.get("/page", response_class=HTMLResponse, include_in_schema=False)
    def page_view(request: Request):
        searcher = page_searcher()
        params = request.query_params
        search = search_params(params)
        doc_id = params.get("doc", "")[:MAX_FIELD_CHARS]
        query = params.get("q", "")[:MAX_QUERY_CHARS].replace("\x00", "")
        doc = searcher.documents.get(doc_id)
        back_url = with_search("/", search) if query else "/"
        if doc is None:
            return render(
                request,
                "message.html",
                {
                    "title": "Dokument nenalezen",
                    "message": "Tento dokument v kolekci není.",
                    "bundle": searcher.path.name,
                    "back_url": back_url,
                },
                status=404,
            )
        page = int(params["page"]) if params.get("page", "").isdigit() else 1
        chunk = _chunk(searcher, doc_id, params.get("chunk", ""))
        passage_text = chunk["text"] if chunk else None
        first, last = (chunk["page_start"], chunk["page_end"]) if chunk else (page, page)
        try:
            at = date.fromisoformat(params.get("at", ""))
        except ValueError:
            at = date.today()
        version = version_of(chunk, at, from_original(doc)) if chunk else {}
        context = {
            "doc": doc,
            "doc_id": doc_id,
            "page": page,
            "query": query,
            "chunk": chunk,
            "version": version,
            "other_version": _of_another_version(chunk),
            "passage": segments(passage_text, [tuple(s) for s in _spans(query, passage_text)])
            if passage_text
            else None,
            "back_url": back_url,
            "evidence": None,
            "pages": None,
            "problem": None,
            "page_text": None,
            "bundle": searcher.path.name,
            "source_url": source_url(doc.get("url"), doc.get("source")),
            "search": search,
        }
        if context["other_version"]:
            located = chunk.get("page_of")
            context["stored_kind"] = located or (
                "consolidated" if doc.get("doc_type") == "law_consolidated" else PROMULGATED
            )
            context["stored_page_url"] = (
                with_search("/page", search, doc=doc_id, page=chunk["page_start"]) if located else None
            )
            return render(request, "page.html", _with_links(context))
        try:
            context["pages"] = originals.page_count(doc)
            context["evidence"] = originals.page_evidence(doc, page, passage_text, first, last, query)
        except OriginalMissing:
            context["problem"] = "Originál tohoto dokumentu není na serveru uložen; zobrazujeme text z kolekce."
        except NotAPdf:
            context["problem"] = "Originál není PDF, nemá tedy stránky k zobrazení; zobrazujeme text z kolekce."
        except PageOutOfRange as exc:
            context["problem"] = f"Dokument má jen {plural(exc.pages, 'stranu', 'strany', 'stran')}."
            return render(request, "page.html", _with_links(context), status=404)
        if context["problem"] and chunk is None:  # no passage asked for: the page's text, as the collection has it
            context["page_text"] = page_text(searcher, doc_id, page)
        return render(request, "page.html", _with_links(context))


def document_card(group: dict, searcher, originals: Originals, search: list[tuple[str, str]]) -> dict:
    """One result card: a document, its best passages (excerpt around the marked words, the whole passage, its
    page's link) and the links of the document."""
    doc = searcher.documents.get(group["doc_id"]) or {}
    passages = []
    is_pdf = originals.is_pdf(doc) if doc.get("sha256") else False
    for hit in group["passages"]:
        spans = [tuple(s) for s in hit["highlights"]]
        start, end = excerpt_window(hit["text"], spans)
        passages.append(
            {
                "hit": hit,
                "excerpt": segments(hit["text"], spans, start, end),
                "cut_start": start > 0,
                "cut_end": end < len(hit["text"]),
                "full": segments(hit["text"], spans) if (start, end) != (0, len(hit["text"])) else None,
                "page_url": with_search("/page", search, doc=hit["doc_id"], page=hit["page"], chunk=hit["chunk_id"]),
                "own_page": is_pdf and not _of_another_version(hit),
            }
        )
    return {
        "group": group,
        "hit": group["passages"][0],
        "doc": doc,
        "passages": passages,
        "citator_ref": group["citation"] if citator_knows(group["citation"]) else None,
        "has_original": bool(doc.get("sha256")),
        "is_pdf": is_pdf,
    }


def _of_another_version(chunk: dict | None) -> bool:
    """A passage of an act's version other than the stored original's (its ``provision`` says it is the wording of
    one provision in that version): the original's pages are another version's."""
    return bool(chunk and chunk.get("provision") and chunk.get("version_kind"))


def _spans(query: str, text: str | None) -> list[tuple[int, int]]:
    return term_spans(query, text) if query and text else []


def page_text(searcher, doc_id: str, page: int, limit: int = PAGE_TEXT_CHARS) -> dict:
    """The stored document's own passages on ``page`` in their order, up to ``limit`` characters: ``passages``
    (section, text), ``shown`` and ``total`` passages (a whole code stored as one page is cut, and says so). An
    act's passages of its other versions (``SEQ_BASE`` on) are not this document's text."""
    chunks = searcher.chunks
    every = sorted(
        (c for c in (chunks[i] for i in searcher.doc_chunks.get(doc_id, [])) if (c.get("seq") or 0) < SEQ_BASE),
        key=lambda c: (c["page_start"], c.get("char_start") or 0, c.get("seq") or 0),
    )
    on_page = [c for c in every if c["page_start"] <= page <= c["page_end"]]
    shown, size = [], 0
    for chunk in on_page:
        if shown and size + len(chunk["text"]) > limit:
            break
        shown.append({"section": chunk.get("section") or "", "text": chunk["text"], "chunk_id": chunk["chunk_id"]})
        size += len(chunk["text"])
    return {"passages": shown, "shown": len(shown), "total": len(on_page), "whole": len(on_page) == len(every)}


def _chunk(searcher, doc_id: str, chunk_id: str) -> dict | None:
    if not chunk_id:
        return None
    chunks = searcher.chunks
    return next((chunks[i] for i in searcher.doc_chunks.get(doc_id, []) if chunks[i]["chunk_id"] == chunk_id), None)


def _with_links(context: dict) -> dict:
    """Previous / next page links that keep the passage and the search."""

    def link(number: int) -> str:
        view = {"doc": context["doc_id"], "page": number}
        if context["chunk"]:
            view["chunk"] = context["chunk"]["chunk_id"]
        return with_search("/page", context["search"], **view)

    pages, page = context["pages"], context["page"]
    context["previous_url"] = link(page - 1) if pages and page > 1 else None
    context["next_url"] = link(page + 1) if pages and page < pages else None
    return context
