"""Nejvyšší správní soud (vyhledavac.nssoud.cz) for the local mirror: the search form, its result table and
UTF-16-LE texts, built from real ConCo records.

WHAT IS SERVED: the corpus has no NSS decision texts. ConCo's linked file ``ConCo-ref-SupAdmCo.csv`` names 1,514
real NSS decisions that Ústavní soud decisions cite: their docket numbers (as the citing decisions write them),
their decision dates and their CzCDC file names, and which ÚS decisions cite them. The result table lists those
decisions; a decision's "text" renders **only those citation records, labelled as such** — never a decision
text. The document ids (``DokumentOriginal/Text/{id}``) are the mirror's (positions in date order); the decision
form and outcome are not in ConCo, so those cells are empty.

Served paths (the real layout of the DXC search application):

- ``GET /Home/Index?formular=4`` → ``form#findform`` (POST to the same URL) with the anti-forgery field
  ``__RequestVerificationToken`` and condition rows ``vyhledavaciPodminky[i].TechnickyNazev`` —
  ``datumvydanirozhodnuti`` (``…vyhledavaciPodminkaHodnota[0].HodnotaDatumACasOd`` / ``…Do``, ``DD.MM.YYYY
  HH:MM:SS``), ``textDokumentu`` and ``ecli`` (``…HodnotaText``) — and the ``btSubmit`` button.
- ``POST /Home/Index?formular=4`` → a token this server did not issue is 400; otherwise the result page:
  ``Nalezeno záznamů: N``, ``table#tresults`` with the first 40 rows (``input[name$=".ID"]``, decision date,
  docket ``7 Afs 41/2013 - 8``, ``senát NSS``, form, outcome, …, a ``DokumentOriginal/Text/{id}`` link), and the
  page script's ``currParams`` / ``currViewId`` / ``currSort`` / ``moreRowsUrl``.
- ``POST /Home/MyResTRowsCont`` (``vyhledavaciPodminky`` = ``currParams``, ``zobrazeniVysledkuId``, ``pageNum``
  from 1, ``resultOrder``) → the next 20 ``<tr>`` rows; an empty body when there are no more.
- ``GET /DokumentOriginal/Text/{id}`` → the text as UTF-16-LE without a BOM, ``Content-Type: text/plain;
  charset=utf-16`` (the real site's encoding); unknown id → 404.

Newest decisions first. Texts carry an ETag (sha256 of the bytes) and Last-Modified (the CSV's mtime).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import html
import json
import secrets
from pathlib import Path
from urllib.parse import parse_qs

from mendel.czech.dates import format_numeric_date, parse_numeric_date

from .courts import AdministrativeDecision, load_conco
from .responses import Response, html_response

FORM_PATH = "/Home/Index"
MORE_ROWS_PATH = "/Home/MyResTRowsCont"
TEXT_PREFIX = "/DokumentOriginal/Text/"
FIRST_PAGE_ROWS = 40
MORE_ROWS = 20
ID_BASE = 900_000  # mirror ids: ID_BASE + position in date order
CONDITIONS = (
    ("datumvydanirozhodnuti", "Datum vydání rozhodnutí", "DatumACas"),
    ("textDokumentu", "Text dokumentu", "Text"),
    ("ecli", "ECLI", "Text"),
)
MIRROR_NOTE = (
    "Záznam zrcadla Mendel, ne text rozhodnutí: ukázkový korpus neobsahuje texty rozhodnutí Nejvyššího "
    "správního soudu. Níže jsou jen skutečné záznamy datové sady ConCo (Harašta, Novotná, Šavelka; "
    "czech-court-citations-dataset) o tom, která rozhodnutí Ústavního soudu toto rozhodnutí citují."
)


def decision_text(decision: AdministrativeDecision) -> str:
    lines = [
        "Nejvyšší správní soud",
        f"Spisová značka: {decision.docket}",
        f"Datum rozhodnutí: {format_numeric_date(decision.decided)}",
        "",
        MIRROR_NOTE,
        "",
        f"Soubor v datové sadě CzCDC: {decision.file}",
        "Spisová značka, jak ji zapisují citující rozhodnutí: " + "; ".join(decision.dockets),
        "",
        "Citováno v rozhodnutích Ústavního soudu:",
    ]
    for docket, decided, sz in decision.cited_by:
        lines.append(f"- {docket} ze dne {format_numeric_date(decided)} (NALUS: {sz})")
    return "\r\n".join(lines) + "\r\n"


class NssoudSite:
    """Routes of vyhledavac.nssoud.cz; the ConCo records are read on the first request."""

    def __init__(self, corpus_root: Path):
        self.corpus_root = Path(corpus_root)
        self._secret = secrets.token_bytes(32)

    def decisions(self) -> list[AdministrativeDecision]:
        return load_conco(self.corpus_root).administrative  # oldest first: ids are positions

    def handle(self, method: str, path: str, raw_path: str, query: str, headers, body: bytes) -> Response | None:
        lowered = path.lower()
        if lowered == FORM_PATH.lower():
            if method in ("GET", "HEAD"):
                return self.form_page()
            if method == "POST":
                return self.search(body)
            return None
        if lowered == MORE_ROWS_PATH.lower() and method == "POST":
            return self.more_rows(body)
        if lowered.startswith(TEXT_PREFIX.lower()) and method in ("GET", "HEAD"):
            return self.text(path[len(TEXT_PREFIX) :])
        return None

    # -- anti-forgery token

    def _token(self) -> str:
        nonce = secrets.token_bytes(16)
        return base64.urlsafe_b64encode(nonce + hmac.new(self._secret, nonce, hashlib.sha256).digest()[:16]).decode()

    def _valid(self, token: str | None) -> bool:
        try:
            raw = base64.urlsafe_b64decode((token or "").encode())
        except ValueError:
            return False
        return len(raw) == 32 and hmac.compare_digest(
            raw[16:], hmac.new(self._secret, raw[:16], hashlib.sha256).digest()[:16]
        )

    # -- pages

    def form_page(self) -> Response:
        rows = []
        for i, (tech, label, kind) in enumerate(CONDITIONS):
            prefix = f"vyhledavaciPodminky[{i}]"
            value = f"{prefix}.vyhledavaciPodminkaHodnota[0]"
            fields = (
                (
                    f'<input type="text" name="{value}.HodnotaDatumACasOd" value="" />'
                    f'<input type="text" name="{value}.HodnotaDatumACasDo" value="" />'
                )
                if kind == "DatumACas"
                else f'<input type="text" name="{value}.HodnotaText" value="" />'
            )
            rows.append(
                f'<div class="podminka"><input type="hidden" name="{prefix}.TechnickyNazev" value="{tech}" />'
                f'<input type="hidden" name="{prefix}.ZobrazovanyNazev" value="{label}" />'
                f'<input type="hidden" name="{prefix}.DatovyTyp" value="{kind}" />'
                f"<label>{label}</label>{fields}</div>"
            )
        body = (
            '<form id="findform" method="post" action="/Home/Index?formular=4">\n'
            f'<input name="__RequestVerificationToken" type="hidden" value="{self._token()}" />\n'
            + "\n".join(rows)
            + '\n<input type="submit" name="btSubmit" value="Vyhledat" />\n</form>'
        )
        response = html_response(_page("Vyhledávač NSS", body))
        response.etag = None  # a fresh token every time
        return response

    def search(self, body: bytes) -> Response:
        form = {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True).items()}
        if not self._valid(form.get("__RequestVerificationToken")):
            return html_response(
                _page(
                    "Chyba",
                    'The required anti-forgery form field "__RequestVerificationToken" is not present or is not valid.',
                ),
                status=400,
            )
        conditions = []
        for i, (tech, _label, kind) in enumerate(CONDITIONS):
            value = f"vyhledavaciPodminky[{i}].vyhledavaciPodminkaHodnota[0]"
            if kind == "DatumACas":
                od, do = form.get(f"{value}.HodnotaDatumACasOd", ""), form.get(f"{value}.HodnotaDatumACasDo", "")
                if od or do:
                    conditions.append(
                        {
                            "TechnickyNazev": tech,
                            "vyhledavaciPodminkaHodnota": [{"HodnotaDatumACasOd": od, "HodnotaDatumACasDo": do}],
                        }
                    )
            elif form.get(f"{value}.HodnotaText"):
                conditions.append(
                    {
                        "TechnickyNazev": tech,
                        "vyhledavaciPodminkaHodnota": [{"HodnotaText": form[f"{value}.HodnotaText"]}],
                    }
                )
        hits = self.matching(conditions)
        params = json.dumps(conditions, ensure_ascii=True)
        script = (
            "<script>\n"
            f"var currParams = '{_js(params)}';\nvar currViewId = '1';\nvar currSort = 'datum_desc';\n"
            f"var moreRowsUrl = '{MORE_ROWS_PATH}';\n</script>"
        )
        table = (
            '<table id="tresults" class="infinite-scroll"><thead><tr><th>#</th><th></th><th>Datum vydání</th>'
            "<th>Spisová značka</th><th>Senát</th><th>Forma rozhodnutí</th><th>Výrok</th><th></th><th></th>"
            "<th>Účastníci</th><th>Dokumenty</th></tr></thead>\n<tbody>\n"
            + self.rows(hits, 0, FIRST_PAGE_ROWS)
            + "\n</tbody></table>"
        )
        response = html_response(
            _page(
                "Vyhledávač NSS - výsledky",
                f'<div class="pocet">Nalezeno záznamů: {len(hits)}</div>\n{table}\n{script}',
            )
        )
        response.etag = None
        return response

    def matching(self, conditions: list[dict]) -> list[AdministrativeDecision]:
        decisions = self.decisions()
        hits = []
        for position, d in enumerate(decisions):
            ok = True
            for condition in conditions:
                value = (condition.get("vyhledavaciPodminkaHodnota") or [{}])[0]
                tech = condition.get("TechnickyNazev")
                if tech == "datumvydanirozhodnuti":
                    od = parse_numeric_date(value.get("HodnotaDatumACasOd"), allow_time=True)
                    do = parse_numeric_date(value.get("HodnotaDatumACasDo"), allow_time=True)
                    ok = ok and not (od and d.decided < od) and not (do and d.decided > do)
                elif tech == "textDokumentu":
                    words = (value.get("HodnotaText") or "").lower().split()
                    haystack = decision_text(d).lower()
                    ok = ok and all(w in haystack for w in words)
                elif tech == "ecli":
                    ok = False  # ConCo records carry no NSS ECLI
            if ok:
                hits.append((position, d))
        hits.sort(key=lambda item: (item[1].decided, item[0]), reverse=True)
        return [d for _, d in hits]

    def rows(self, hits: list[AdministrativeDecision], start: int, count: int) -> str:
        ids = {d.file: ID_BASE + i for i, d in enumerate(self.decisions(), start=1)}
        out = []
        for n, d in enumerate(hits[start : start + count], start=start):
            doc = ids[d.file]
            out.append(
                f'<tr><td>{n + 1}</td><td><input name="ZobrazeneVysledky[{n}].ID" type="hidden" value="{doc}" /></td>'
                f"<td>{format_numeric_date(d.decided, separator='.', zero_pad=True)}</td>"
                f"<td>{html.escape(d.docket)}</td><td>senát NSS</td><td></td><td></td><td>&nbsp;</td><td>&nbsp;</td>"
                f'<td></td><td><a href="{TEXT_PREFIX}{doc}">Text</a></td></tr>'
            )
        return "\n".join(out)

    def more_rows(self, body: bytes) -> Response:
        form = {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True).items()}
        try:
            conditions = json.loads(form.get("vyhledavaciPodminky") or "[]")
            page = int(form.get("pageNum") or "1")
        except ValueError:
            return html_response("", status=400)
        if not isinstance(conditions, list) or page < 1:
            return html_response("", status=400)
        hits = self.matching([c for c in conditions if isinstance(c, dict)])
        response = html_response(self.rows(hits, FIRST_PAGE_ROWS + (page - 1) * MORE_ROWS, MORE_ROWS))
        response.etag = None
        return response

    def text(self, doc_id: str) -> Response | None:
        if not doc_id.isdigit():
            return None
        index = int(doc_id) - ID_BASE - 1
        decisions = self.decisions()
        if not 0 <= index < len(decisions):
            return None
        decision = decisions[index]
        return Response(
            status=200,
            body=decision_text(decision).encode("utf-16-le"),
            content_type="text/plain; charset=utf-16",
            last_modified=decision.source_mtime,
        )


def _js(text: str) -> str:
    return text.replace("\\", "\\\\").replace("'", "\\'").replace("</", "<\\/")


def _page(title: str, body: str) -> str:
    return (
        f'<!DOCTYPE html>\n<html lang="cs"><head><meta charset="utf-8" /><title>{html.escape(title)}</title>'
        f"</head><body>\n{body}\n</body></html>\n"
    )
