"""The law as it stands, for people: server-rendered Czech pages over the same PostgreSQL answers as the JSON
routes in :mod:`serving.web.law_routes` (GET forms, no JavaScript).

``/ustanoveni?ref=&at=``  the wording of a provision on a date, its version (ELI, validity), amending act and the
                          changes against the version before, words marked with ``<ins>`` / ``<del>``; or why
                          there is no wording (not yet in force, no such provision on that date, …);
``/citator?ref=``         the documents citing a provision, an act, a file number or an ECLI, by source family,
                          newest first, each with the citing sentence, its page and a link to the page view.
"""

from __future__ import annotations

import difflib
from datetime import date
from typing import Callable
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from serving.web.law_routes import MAX_REF_CHARS, Connections
from serving.web.pages import czech_date, templates

FAMILY_NAMES = {"acts": "Předpisy", "decisions": "Soudní rozhodnutí", "notices": "Úřední desky", "other": "Ostatní"}
# Who found a citation (a passage's origins, mendel.citator.cites.WITNESSES), in Czech.
WITNESS_NAMES = {
    "mention": "rozpoznávač v textu",
    "court_metadata": "metadata soudu",
    "odkaz": "odkaz e-Sbírky",
    "record": "záznam o citaci",
    "amends": "novelizující předpis",
    "repeals": "zrušující předpis",
}


def word_changes(before: str, after: str) -> list[tuple[str, str]]:
    """``after`` against ``before`` as (text, kind) pieces, kind ``same``, ``del`` or ``ins``, word by word."""
    old, new = before.split(), after.split()
    pieces: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if op == "equal":
            pieces.append((" ".join(old[i1:i2]), "same"))
            continue
        if i2 > i1:
            pieces.append((" ".join(old[i1:i2]), "del"))
        if j2 > j1:
            pieces.append((" ".join(new[j1:j2]), "ins"))
    return pieces


def provision_status(answer: dict) -> str:
    """The answer's status as one Czech sentence (the library's message is English)."""
    act = (answer.get("act") or {}).get("citation") or answer.get("ref", "")
    what = answer.get("provision_ref") or act
    at = czech_date(answer.get("at"))
    dated = [v for v in answer.get("versions") or [] if v.get("effective_from")]
    first = czech_date(dated[0]["effective_from"]) if dated else ""
    status = answer["status"]
    if status == "not_a_reference":
        return "Zadaný text nenazývá žádný předpis Sbírky zákonů. Zkuste např. „§ 4 vyhlášky č. 573/2025 Sb.“."
    if status == "unknown_act":
        return f"Žádné znění předpisu {act} není uloženo (kolekce ho ze e-Sbírky nestáhla)."
    if status == "not_yet_announced":
        announced = czech_date(answer.get("announced"))
        return f"Předpis {act} ke dni {at} ještě neexistoval (vyhlášen byl {announced}); " + (
            f"účinnosti nabývá dnem {first}."
            if answer.get("commencement")
            else f"nejstarší uložené znění je z {first}."
        )
    if status == "not_yet_in_force":
        return f"Předpis {act} ke dni {at} ještě nebyl účinný: účinnosti nabývá dnem {first}."
    if status == "before_stored_versions":
        return (
            f"Znění předpisu {act} účinné ke dni {at} kolekce nemá: nejstarší uložené znění je účinné od {first}, "
            "dřívější znění v kolekci nejsou."
        )
    if status == "no_longer_in_force":
        return (
            f"Ke dni {at} nebylo účinné žádné znění předpisu {act}: poslední skončilo dnem "
            f"{czech_date(dated[-1]['effective_to'])}."
        )
    if status == "no_such_provision":
        elsewhere = answer.get("exists_in") or []
        return f"Znění předpisu {act} účinné ke dni {at} ustanovení {what} neobsahuje" + (
            f"; je v zněních {', '.join(elsewhere)}." if elsewhere else "; nemá ho žádné uložené znění."
        )
    if status == "validity_unknown":
        return (
            f"U předpisu {act} nejsou známa data účinnosti pokrývající den {at}; zobrazujeme známé znění, "
            "zda bylo k tomuto dni účinné, nevíme."
        )
    known = answer.get("known_as_of")
    return f"{what}: znění účinné ke dni {at}" + (
        f", jak ho e-Sbírka uváděla při poslední kontrole {czech_date(known)}; předpisy vyhlášené od té doby je mohou"
        " změnit."
        if known
        else "."
    )


def document_view_url(doc_id: str, page: int | None) -> str:
    return "/page?" + urlencode({"doc": doc_id, **({"page": page} if page else {})})


def _ref(request: Request, errors: dict[str, str]) -> str:
    ref = request.query_params.get("ref", "")
    if len(ref) > MAX_REF_CHARS or "\x00" in ref:
        errors["ref"] = f"Nejvýše {MAX_REF_CHARS} znaků, bez znaků NUL."
        return ""
    ref = ref.strip()
    if "ref" in request.query_params and not ref:
        errors["ref"] = "Zadejte ustanovení, předpis nebo spisovou značku."
    return ref


def law_pages_router(
    database_url: str | Callable[[], str] | None = None, bundle_version: Callable[[], str | None] | None = None
) -> APIRouter:
    """The two pages; ``database_url`` (or a function giving it) defaults to the configured database;
    ``bundle_version`` gives the live bundle's version for the footer."""
    from mendel.citator.cites import cites
    from mendel.citator.wording import provision_at

    connections = Connections(database_url)
    router = APIRouter(include_in_schema=False)

    def render(request: Request, name: str, context: dict, status: int = 200) -> HTMLResponse:
        return templates.TemplateResponse(
            request,
            name,
            {"bundle": bundle_version() if bundle_version else None, **context},
            status_code=status,
            headers={"Content-Language": "cs"},
        )

    @router.get("/ustanoveni", response_class=HTMLResponse)
    def provision_page(request: Request):
        errors: dict[str, str] = {}
        ref = _ref(request, errors)
        raw_at = request.query_params.get("at", "").strip()[:20]
        at = date.today()
        if raw_at:
            try:
                at = date.fromisoformat(raw_at)
            except ValueError:
                errors["at"] = "Zadejte datum ve tvaru RRRR-MM-DD."
        context = {"form": {"ref": ref, "at": raw_at or at.isoformat()}, "errors": errors, "answer": None}
        if errors or not ref:
            return render(request, "ustanoveni.html", context, status=400 if errors else 200)
        answer = connections.run(lambda conn: provision_at(conn, ref, at))
        changes = {
            c["provision"]: word_changes(c["before"], c["after"]) for c in (answer.get("diff") or {}).get("changed", [])
        }
        context.update(answer=answer, status_text=provision_status(answer), changes=changes)
        status = {"not_a_reference": 400, "unknown_act": 404}.get(answer["status"], 200)
        return render(request, "ustanoveni.html", context, status=status)

    @router.get("/citator", response_class=HTMLResponse)
    def citator_page(request: Request):
        errors: dict[str, str] = {}
        ref = _ref(request, errors)
        context = {
            "form": {"ref": ref},
            "errors": errors,
            "answer": None,
            "family_names": FAMILY_NAMES,
            "witness_names": WITNESS_NAMES,
            "document_view_url": document_view_url,
        }
        if errors or not ref:
            return render(request, "citator.html", context, status=400 if errors else 200)
        answer = connections.run(lambda conn: cites(conn, ref, limit=20))
        context["answer"] = answer
        return render(request, "citator.html", context, status=400 if answer["status"] == "not_a_reference" else 200)

    return router
