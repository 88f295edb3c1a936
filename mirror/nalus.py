"""Ústavní soud — NALUS (nalus.usoud.cz) for the local mirror: an ASP.NET WebForms search with real ConCo records.

WHAT IS SERVED: six real NALUS text pages (``courts/nalus_html/*.html``: I. ÚS 2/95, II. ÚS 287/96, I. ÚS 689/05,
II. ÚS 549/06, IV. ÚS 899/15, III. ÚS 1773/19), served byte for byte as ``GetText.aspx?sz={file name}``; a decision
that has one is served by it and never by its ConCo record. Beyond these the corpus has no Ústavní soud decision
texts. What it has are the ConCo citation records
(``courts/citations/ConCo-*.csv``, Harašta et al.): for 24,568 real decisions of the court, their NALUS text key
(the source file name, ``2-866-16_2``), docket number, decision date and the references each decision makes to
other decisions. The result lists show those decisions; a decision's text page renders **only those citation
records, labelled as such** — never a decision text. Derived by the mirror: the docket in NALUS's own spelling
(``II.ÚS 866/16`` from the key), the ECLI by the court's pattern ``ECLI:CZ:US:{year}:{senát}.US.{číslo}.{rok}.
{pořadí}`` (not for plenary opinions, ``St-``), and the result ids. The decision form (nález / usnesení) is not in
ConCo, so ``lblDecisionForm`` is empty.

Served paths (the real layout):

- ``GET /Search/Search.aspx`` → the search form (``form#form1``) with hidden ``__VIEWSTATE``,
  ``__VIEWSTATEGENERATOR``, ``__EVENTVALIDATION``, ``__EVENTTARGET``, ``__EVENTARGUMENT``; sets the
  ``ASP.NET_SessionId`` cookie.
- ``POST /Search/Search.aspx`` → the postback: the view state and event validation must be ones this server
  issued (else 500, as ASP.NET answers a bad view state MAC). Criteria: ``ctl00$MainContent$decidedFrom`` /
  ``decidedTo`` (``D.M.YYYY``, inclusive), ``citace`` (a docket), ``text`` (all words, in the rendered record),
  the decision kinds ``nalezy`` / ``usneseni`` (every non-plenary-opinion decision: ConCo does not tell them
  apart) and ``stanoviska_plena``, ``resultsPageSize`` (20/40/80; default 20). Hits are kept in the session and
  the answer is ``302 → /Search/Results.aspx``; no hits: 200 with ``span#ctl00_MainContent_lbError``.
- ``GET /Search/Results.aspx?page=N`` (N from 0) → banner ``Výsledky 1 - 20 z celkem 41``, rows
  ``tr.resultData0/1`` (``ResultDetail.aspx?id=..`` link with ``II.ÚS 866/16 #2``, the ECLI and date), each
  followed by a row whose ``ShowLink("…/Search/GetText.aspx?sz=2-866-16_2", …)`` names the text page (absolute,
  on the host the request named). Without a session (or a search in it) → ``302 → /Search/Search.aspx``.
- ``GET /Search/GetText.aspx?sz={senát}-{číslo}-{rok}_{n}`` → ``span#lblRegistrySign`` ``II.ÚS 866/16 ze dne
  24. 11. 2016``, ``span#lblDecisionForm``, and in ``table.DocContent td`` the ConCo records (see above).
  Unknown key → 404.

Newest decisions first. Text pages carry an ETag (sha256 of the page) and Last-Modified (the CSV's mtime).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import html
import re
import secrets
import threading
from collections import OrderedDict
from pathlib import Path
from urllib.parse import parse_qs

from mendel.czech.dates import format_numeric_date, parse_numeric_date
from mendel.extract.court_pages import nalus_page

from .courts import CONCO_CATEGORY, ConstitutionalDecision, load_conco
from .responses import Response, html_response

REAL_PAGES = "courts/nalus_html"
SEARCH_PATH = "/Search/Search.aspx"
RESULTS_PATH = "/Search/Results.aspx"
TEXT_PATH = "/Search/GetText.aspx"
FIELD = "ctl00$MainContent$"
PAGE_SIZES = (20, 40, 80)
NO_HITS = "Pro zadaná kritéria nebyly nalezeny žádné záznamy."
MAX_SESSIONS = 500
MIRROR_NOTE = (
    "Záznam zrcadla Mendel, ne text rozhodnutí: ukázkový korpus neobsahuje texty rozhodnutí Ústavního "
    "soudu. Níže jsou jen skutečné záznamy datové sady ConCo (Harašta, Novotná, Šavelka; "
    "czech-court-citations-dataset) o odkazech, které toto rozhodnutí činí na jiná rozhodnutí."
)


def _docket_key(text: str) -> str:
    return re.sub(r"[\s.]", "", text).upper().replace("ÚS", "US")


def record_text(decision: ConstitutionalDecision) -> str:
    """What the text page says, as plain text (the full-text criterion searches it)."""
    lines = [f"{decision.docket} ze dne {format_numeric_date(decision.decided)}", MIRROR_NOTE]
    for ref in decision.references:
        lines.append(reference_line(ref))
    return "\n".join(lines)


def reference_line(ref) -> str:
    line = f"{CONCO_CATEGORY.get(ref.category, ref.category)}: {ref.reference}"
    if ref.linked_court and ref.linked_date:
        line += (
            f" (v datové sadě propojeno: {ref.linked_court}, rozhodnutí ze dne {format_numeric_date(ref.linked_date)})"
        )
    return line


class NalusSite:
    """Routes for ``/Search/*.aspx``; the ConCo records are read on the first request."""

    def __init__(self, corpus_root: Path):
        self.corpus_root = Path(corpus_root)
        self._secret = secrets.token_bytes(32)
        self._sessions: OrderedDict[str, dict] = OrderedDict()
        self._lock = threading.Lock()
        self._ordered: list[ConstitutionalDecision] | None = None
        self._real: dict[str, tuple[Path, ConstitutionalDecision]] | None = None
        self._ids: dict[str, int] = {}

    # -- data

    def real_pages(self) -> dict[str, tuple[Path, ConstitutionalDecision]]:
        """The real text pages by NALUS key (the file name), each with the decision it is the text of."""
        if self._real is None:
            real = {}
            for path in sorted((self.corpus_root / REAL_PAGES).glob("*.html")):
                page = nalus_page(path.read_bytes().decode("utf-8"))
                decided = parse_numeric_date(page.fields["Datum rozhodnutí"]) if page else None
                if page is None or decided is None:
                    continue
                decision = ConstitutionalDecision(
                    path.stem, page.fields["Spisová značka"], decided, [], path.stat().st_mtime
                )
                real[path.stem] = (path, decision)
            self._real = real
        return self._real

    def decisions(self) -> list[ConstitutionalDecision]:
        """Newest first; result ids are positions in the oldest-first order (stable while the CSVs are). A decision
        with a real text page is listed once, by its page's date."""
        if self._ordered is None:
            records = dict(load_conco(self.corpus_root).constitutional)
            records.update({sz: decision for sz, (_, decision) in self.real_pages().items()})
            oldest_first = sorted(records.values(), key=lambda d: (d.decided, d.sz))
            self._ids = {d.sz: i for i, d in enumerate(oldest_first, start=1)}
            self._ordered = list(reversed(oldest_first))
        return self._ordered

    # -- routing

    def handle(self, method: str, path: str, raw_path: str, query: str, headers, body: bytes) -> Response | None:
        lowered = path.lower()
        if lowered == SEARCH_PATH.lower():
            if method in ("GET", "HEAD"):
                return self.search_form(headers)
            if method == "POST":
                return self.postback(headers, body)
            return None
        if lowered == RESULTS_PATH.lower() and method in ("GET", "HEAD"):
            return self.results(headers, query)
        if lowered == TEXT_PATH.lower() and method in ("GET", "HEAD"):
            return self.text_page(query)
        return None

    # -- ASP.NET state

    def _token(self, purpose: str) -> str:
        nonce = secrets.token_bytes(12)
        mac = hmac.new(self._secret, purpose.encode() + nonce, hashlib.sha256).digest()[:16]
        return base64.b64encode(nonce + mac).decode("ascii")

    def _valid(self, purpose: str, token: str | None) -> bool:
        try:
            raw = base64.b64decode(token or "", validate=True)
        except ValueError:
            return False
        nonce, mac = raw[:12], raw[12:]
        expected = hmac.new(self._secret, purpose.encode() + nonce, hashlib.sha256).digest()[:16]
        return len(raw) == 28 and hmac.compare_digest(mac, expected)

    @staticmethod
    def _session_id(headers) -> str | None:
        m = re.search(r"(?:^|;\s*)ASP\.NET_SessionId=([A-Za-z0-9]+)", headers.get("Cookie") or "")
        return m.group(1) if m else None

    def _session(self, headers) -> tuple[str, bool]:
        sid = self._session_id(headers)
        if sid:
            return sid, False
        return secrets.token_hex(12), True

    def _remember(self, sid: str, state: dict) -> None:
        with self._lock:
            self._sessions[sid] = state
            self._sessions.move_to_end(sid)
            while len(self._sessions) > MAX_SESSIONS:
                self._sessions.popitem(last=False)

    # -- pages

    def search_form(self, headers) -> Response:
        sid, new = self._session(headers)
        sizes = "".join(f'<option value="{n}"{" selected" if n == 20 else ""}>{n}</option>' for n in PAGE_SIZES)
        hidden = {
            "__EVENTTARGET": "",
            "__EVENTARGUMENT": "",
            "__VIEWSTATE": self._token("viewstate"),
            "__VIEWSTATEGENERATOR": "8D0E13E6",
            "__EVENTVALIDATION": self._token("eventvalidation"),
        }
        inputs = "\n".join(
            f'<input type="hidden" name="{k}" id="{k}" value="{html.escape(v)}" />' for k, v in hidden.items()
        )
        checkbox = lambda name, label, on=True: (  # noqa: E731 - a one-line form helper
            f'<input id="ctl00_MainContent_{name}" type="checkbox" name="{FIELD}{name}"{" checked" if on else ""} />'
            f'<label for="ctl00_MainContent_{name}">{label}</label>'
        )
        text = lambda name: f'<input name="{FIELD}{name}" type="text" id="ctl00_MainContent_{name}" />'  # noqa: E731
        body = (
            '<form method="post" action="./Search.aspx" id="form1">\n' + inputs + "\n"
            f"<div>Text: {text('text')} Spisová značka: {text('citace')}</div>\n"
            f"<div>Datum rozhodnutí od {text('decidedFrom')} do {text('decidedTo')}</div>\n"
            f"<div>{checkbox('nalezy', 'Nálezy')} {checkbox('usneseni', 'Usnesení')} "
            f"{checkbox('stanoviska_plena', 'Stanoviska pléna')}</div>\n"
            f"<div>{checkbox('naveti', 'Návětí')} {checkbox('vyrok', 'Výrok')} {checkbox('oduvodneni', 'Odůvodnění')} "
            f"{checkbox('odlisne_stanovisko', 'Odlišné stanovisko', on=False)}</div>\n"
            f'<div>Počet výsledků na stránce <select name="{FIELD}resultsPageSize" '
            f'id="ctl00_MainContent_resultsPageSize">{sizes}</select></div>\n'
            f'<input type="submit" name="{FIELD}but_search" value="Vyhledat" id="ctl00_MainContent_but_search" />\n'
            "</form>"
        )
        response = html_response(_page("NALUS - Vyhledávání", body))
        response.etag = None  # a fresh view state every time: not cacheable
        if new:
            response.headers["Set-Cookie"] = f"ASP.NET_SessionId={sid}; path=/; HttpOnly; SameSite=Lax"
        return response

    def postback(self, headers, body: bytes) -> Response:
        form = {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True).items()}
        if not (
            self._valid("viewstate", form.get("__VIEWSTATE"))
            and self._valid("eventvalidation", form.get("__EVENTVALIDATION"))
        ):
            return html_response(
                _page(
                    "Runtime Error",
                    "<h2>Server Error in '/' Application.</h2><p>Validation of viewstate MAC failed.</p>",
                ),
                status=500,
            )
        hits = self.search(form)
        size = int(form.get(FIELD + "resultsPageSize") or 20)
        size = size if size in PAGE_SIZES else 20
        sid, new = self._session(headers)
        self._remember(sid, {"hits": [d.sz for d in hits], "size": size})
        cookie = {"Set-Cookie": f"ASP.NET_SessionId={sid}; path=/; HttpOnly; SameSite=Lax"} if new else {}
        if not hits:
            response = html_response(
                _page(
                    "NALUS - Vyhledávání", f'<span id="ctl00_MainContent_lbError" class="labelError">{NO_HITS}</span>'
                )
            )
            response.headers.update(cookie)
            return response
        return Response(
            status=302, body=b"", content_type="text/html; charset=utf-8", headers={"Location": RESULTS_PATH, **cookie}
        )

    def search(self, form: dict) -> list[ConstitutionalDecision]:
        on = lambda name: (form.get(FIELD + name) or "").lower() in ("on", "true", "1")  # noqa: E731
        decided_from = parse_numeric_date(form.get(FIELD + "decidedFrom"))
        decided_to = parse_numeric_date(form.get(FIELD + "decidedTo"))
        citace = _docket_key(form.get(FIELD + "citace") or "")
        words = [w.lower() for w in (form.get(FIELD + "text") or "").split()]
        kinds = {"St"} if on("stanoviska_plena") else set()
        ordinary = on("nalezy") or on("usneseni")
        hits = []
        for d in self.decisions():
            plenary_opinion = d.sz.startswith("St-")
            if (plenary_opinion and "St" not in kinds) or (not plenary_opinion and not ordinary):
                continue
            if decided_from and d.decided < decided_from or decided_to and d.decided > decided_to:
                continue
            if citace and _docket_key(d.docket) != citace and _docket_key(d.docket_as_recorded) != citace:
                continue
            if words:
                haystack = record_text(d).lower()
                if not all(w in haystack for w in words):
                    continue
            hits.append(d)
        return hits

    def results(self, headers, query: str) -> Response:
        sid = self._session_id(headers)
        with self._lock:
            state = self._sessions.get(sid) if sid else None
        if state is None:
            return Response(
                status=302, body=b"", content_type="text/html; charset=utf-8", headers={"Location": SEARCH_PATH}
            )
        raw = (parse_qs(query).get("page") or ["0"])[0]
        page = int(raw) if raw.isdigit() else 0
        size, szs = state["size"], state["hits"]
        pages = max((len(szs) + size - 1) // size, 1)
        chunk = szs[page * size : (page + 1) * size]
        self.decisions()
        by_sz = {d.sz: d for d in self._ordered or []}
        host = headers.get("Host") or "nalus.usoud.cz"
        rows = []
        for offset, sz in enumerate(chunk):
            d = by_sz[sz]
            position = page * size + offset + 1
            counter = d.parts.get("ordinal") or "1"
            text_url = f"http://{host}{TEXT_PATH}?sz={sz}"
            rows.append(
                f"<tr class='resultData{offset % 2}'>\n  <td></td>\n"
                f"  <td><a href='ResultDetail.aspx?id={self._ids[sz]}&amp;pos={position}&amp;cnt={len(szs)}"
                f"&amp;typ=result'>{html.escape(d.docket)} #{counter}</a><br />{d.ecli or ''}<br />"
                f"{format_numeric_date(d.decided)}</td>\n</tr>\n"
                f"<tr class='resultData{offset % 2}' valign=\"top\">\n"
                f'  <td><img onclick=\'javascript:ShowLink("{text_url}", "Odkaz", "")\' alt=\'Odkaz\' /></td>\n</tr>'
            )
        first = page * size + 1
        banner = (
            f'<span class="resultsInfo">Výsledky {first} - {first + len(chunk) - 1} z celkem {len(szs)}</span>'
            if chunk
            else f'<span class="resultsInfo">Výsledky 0 - 0 z celkem {len(szs)}</span>'
        )
        pager = " ".join(
            f'<a href="Results.aspx?page={n}">{n + 1}</a>' if n != page else f"<span>{n + 1}</span>"
            for n in range(pages)
        )
        table = '<table class="resultsTable">\n' + "\n".join(rows) + "\n</table>"
        response = html_response(_page("NALUS - Výsledky", f'{banner}\n{table}\n<div class="pager">{pager}</div>'))
        response.etag = None  # the session's search, not a resource
        return response

    def text_page(self, query: str) -> Response | None:
        sz = (parse_qs(query).get("sz") or [""])[0]
        real = self.real_pages().get(sz)
        if real is not None:  # the decision's own page, unchanged
            path = real[0]
            return Response(
                body=path.read_bytes(), content_type="text/html; charset=utf-8", last_modified=path.stat().st_mtime
            )
        records = load_conco(self.corpus_root).constitutional
        decision = records.get(sz)
        if decision is None:
            return None
        sign = f"{decision.docket} ze dne {format_numeric_date(decision.decided)}"
        items = "\n".join(f"<li>{html.escape(reference_line(ref))}</li>" for ref in decision.references)
        body = (
            f'<span id="lblRegistrySign">{html.escape(sign)}</span><br />\n'
            '<span id="lblDecisionForm"></span><span id="lblParallelQuotation"></span>'
            '<span id="lblPopularName"></span>\n'
            f'<input type="hidden" name="registrySignHidden" value="{html.escape(decision.docket)} '
            f'#{decision.parts.get("ordinal") or 1} ze dne {format_numeric_date(decision.decided)}" />\n'
            '<table><tr><td class="DocContent">\n'
            f"<p>{html.escape(MIRROR_NOTE)}</p>\n"
            f"<p>Spisová značka podle datové sady: {html.escape(decision.docket_as_recorded)}</p>\n"
            f"<ul>\n{items}\n</ul>\n</td></tr></table>"
        )
        return html_response(_page(decision.docket, body), last_modified=decision.source_mtime)


def _page(title: str, body: str) -> str:
    return (
        f'<!DOCTYPE html>\n<html lang="cs"><head><meta charset="utf-8" /><title>{html.escape(title)}</title>'
        f"</head><body>\n{body}\n</body></html>\n"
    )
