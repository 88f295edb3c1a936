"""The search page for people: server-rendered Czech HTML that works without JavaScript (a GET form).

``/``      the query box, filters (source family, publication dates, in force on a date or the promulgated
           wording, act, and kraj / okres / obec when the bundle's documents carry them), result cards with the
           query's words marked in the passage and an act's version (ELI, validity, not yet in force /
           superseded), an honest empty state and the search's coverage notice when the searcher reports one;
``/page``  one page of a hit's original: the PDF page as an image with the passage's lines and the query's
           words boxed over it, the passage as text below, and the original file one link away.

Form errors are shown in the page (status 400); the JSON API keeps its problem details.
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
from serving.ranking.in_force import PROMULGATED
from serving.web.evidence import excerpt_window, query_terms, segments, term_spans
from serving.web.facets import PLACE_FIELDS, FilterError, checked_filters, checked_places, facets_of, source_label
from serving.web.originals import NotAPdf, OriginalMissing, Originals, PageOutOfRange
from serving.web.results import run_search

HERE = Path(__file__).parent
PAGE_SIZES = (10, 20, 50)
MAX_QUERY_CHARS = 1000
MAX_FIELD_CHARS = 200
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
    "k": "Počet výsledků",
    "version": "Znění",
}
# an act hit's version (serving.ranking.in_force.version_of): its kind, and a badge for a status worth a warning
VERSION_KIND_LABELS = {"promulgated": "vyhlášené znění", "consolidated": "konsolidované znění"}
STATUS_BADGES = {"not_yet_in_force": "Dosud neúčinné", "superseded": "Již neúčinné znění"}

templates = Jinja2Templates(directory=str(HERE / "templates"))


def document_path(doc_id: str) -> str:
    """The API path of a document: ELIs keep their slashes (/documents/eli/cz/…), anything else is escaped."""
    return "/documents/" + quote(doc_id.lstrip("/"), safe="/:")


def czech_date(value) -> str:
    """A date (or ISO text) as the page shows it, ``1. 2. 2024``; anything else as it came."""
    return numeric_from_iso(str(value), default=str(value)) if value else ""


templates.env.filters.update(document_path=document_path, czech_date=czech_date, source_label=source_label)
templates.env.globals.update(version_kind_labels=VERSION_KIND_LABELS, status_badges=STATUS_BADGES)


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
        form = {
            name: params.get(name, "")
            for name in ("q", "date_from", "date_to", "at", "act", "k", "version", *PLACE_FIELDS)
        }
        form["source"] = params.getlist("source")
        facets = facets_of(searcher)
        errors: dict[str, str] = {}
        query = form["q"].strip()
        for name in ("q", "act", *PLACE_FIELDS):
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
            "originals_pdf": set(),
        }
        if "q" in params and not query and not errors:
            errors["q"] = "Zadejte, co hledáte."
        if errors or not query:
            return render(request, "search.html", context, status=400 if errors else 200)
        try:
            filters = checked_filters(
                searcher, source=form["source"], date_from=date_from, date_to=date_to, act=form["act"]
            )
            places = checked_places(searcher, {name: form[name] for name in PLACE_FIELDS})
        except FilterError as exc:
            errors[exc.name] = {
                "source": "Tento zdroj v kolekci není.",
                "act": "Takový předpis ani spisovou značku kolekce neobsahuje.",
                "date_from": "Datum „od“ je po datu „do“.",
            }.get(exc.name, "Neznámá hodnota.")
            return render(request, "search.html", context, status=400)
        payload, _ = run_search(
            searcher, query, k=k, filters=filters, places=places, at=at, version=form["version"] or None
        )
        terms = query_terms(query)
        cards = []
        for hit in payload["results"]:
            spans = [tuple(s) for s in hit["highlights"]]
            start, end = excerpt_window(hit["text"], spans)
            doc = searcher.documents.get(hit["doc_id"]) or {}
            view = {"doc": hit["doc_id"], "page": hit["page"], "chunk": hit["chunk_id"], "q": query}
            cards.append(
                {
                    "hit": hit,
                    "doc": doc,
                    "excerpt": segments(hit["text"], spans, start, end),
                    "cut_start": start > 0,
                    "cut_end": end < len(hit["text"]),
                    "full": segments(hit["text"], spans) if (start, end) != (0, len(hit["text"])) else None,
                    "page_url": "/page?" + urlencode(view),
                    "has_original": bool(doc.get("sha256")),
                    "is_pdf": originals.is_pdf(doc) if doc.get("sha256") else False,
                }
            )
        context.update(searched=True, payload=payload, cards=cards, terms=terms)
        return render(request, "search.html", context)

    @app.get("/page", response_class=HTMLResponse, include_in_schema=False)
    def page_view(request: Request):
        searcher = page_searcher()
        params = request.query_params
        doc_id = params.get("doc", "")[:MAX_FIELD_CHARS]
        query = params.get("q", "")[:MAX_QUERY_CHARS].replace("\x00", "")
        doc = searcher.documents.get(doc_id)
        if doc is None:
            return render(
                request,
                "message.html",
                {"title": "Dokument nenalezen", "message": "Tento dokument v kolekci není."},
                status=404,
            )
        page = int(params["page"]) if params.get("page", "").isdigit() else 1
        chunk = _chunk(searcher, doc_id, params.get("chunk", ""))
        passage_text = chunk["text"] if chunk else None
        first, last = (chunk["page_start"], chunk["page_end"]) if chunk else (page, page)
        context = {
            "doc": doc,
            "doc_id": doc_id,
            "page": page,
            "query": query,
            "chunk": chunk,
            "passage": segments(passage_text, [tuple(s) for s in _spans(query, passage_text)])
            if passage_text
            else None,
            "back_url": "/?" + urlencode({"q": query}) if query else "/",
            "evidence": None,
            "pages": None,
            "problem": None,
            "bundle": searcher.path.name,
        }
        try:
            context["pages"] = originals.page_count(doc)
            context["evidence"] = originals.page_evidence(doc, page, passage_text, first, last, query)
        except OriginalMissing:
            context["problem"] = "Originál tohoto dokumentu není na serveru uložen; zobrazujeme nalezený text."
        except NotAPdf:
            context["problem"] = "Originál není PDF, nemá tedy stránky k zobrazení; zobrazujeme nalezený text."
        except PageOutOfRange as exc:
            context["problem"] = f"Dokument má jen {exc.pages} stran."
            return render(request, "page.html", _with_links(context), status=404)
        return render(request, "page.html", _with_links(context))


def _spans(query: str, text: str | None) -> list[tuple[int, int]]:
    return term_spans(query, text) if query and text else []


def _chunk(searcher, doc_id: str, chunk_id: str) -> dict | None:
    if not chunk_id:
        return None
    chunks = searcher.chunks
    return next((chunks[i] for i in searcher.doc_chunks.get(doc_id, []) if chunks[i]["chunk_id"] == chunk_id), None)


def _with_links(context: dict) -> dict:
    """Previous / next page links that keep the passage and query."""

    def link(number: int) -> str:
        view = {"doc": context["doc_id"], "page": number, "q": context["query"]}
        if context["chunk"]:
            view["chunk"] = context["chunk"]["chunk_id"]
        return "/page?" + urlencode(view)

    pages, page = context["pages"], context["page"]
    context["previous_url"] = link(page - 1) if pages and page > 1 else None
    context["next_url"] = link(page + 1) if pages and page < pages else None
    return context
