"""Municipal sources for the local mirror: the Kadaň OFN notice-board feed and obec Blešno's PDFs.

Served paths:

- ``GET /1ad1f16beff952576ae7ddd76a91e163`` → ``municipal/kadan_uredni_deska.json`` unchanged (the feed's real
  download URL on www.mesto-kadan.cz, as used by michalskop/uredni-desky-github); alias
  ``/kadan/uredni-deska.json``. The feed's attachment URLs (``/filemanager/files/{n}.pdf``) are not in the
  corpus and answer 404; the feed bytes are never rewritten.
- ``GET /assets/articles/{page-slug}/{file}.pdf`` → ``municipal/blesno/{text,scanned}/{page-slug}__{file}.pdf``
  (the real static path of the obec Blešno site, tomkre/obec-blesno); ``GET /assets/articles/`` is a
  mirror-only HTML index linking every PDF.
- The same files through the site's REST backend (``ArticleController`` / ``ArticleAssetsController`` of
  tomkre/obec-blesno, which its Angular front end calls):

  - ``GET /articles/ids?prefix={p}`` → JSON list of the article ids starting with ``p`` (the mirror knows the
    articles that have bundled PDFs); without ``prefix`` → 404, as Spring maps it to the unknown article ``ids``
  - ``GET /articles/{id}/assets?type=references`` → JSON ``[{"name": file, "url": url}]``, ``url`` =
    ``http://{Host}/articles/{id}/assets/{file}`` (absolute, built from the request's Host header as Spring's
    ``UriComponentsBuilder`` does); ``[]`` for an unknown article
  - ``GET /articles/{id}/assets/{file}.pdf`` → the PDF (``application/pdf``; file names ``[-a-z0-9]+.pdf``)

Notice boards on host names of their own (:class:`BoardHosts`): a request whose Host is ``{name}.mirror.test``
(RFC 2606 ``.test``: never a real host; crawlers resolve these names to the mirror, see
``crawlers/mirror_hosts.py``) is a request to that board's site, so every board is its own domain for per-domain
politeness. The two boards of the maintained HTML list (``mendel/data/html_boards.yaml``) are **mirror-made page
layouts** over the real Kadaň notices (titles, čísla jednací, dates and attachment links unchanged; no real site
looks exactly like them):

- ``kadan-js.mirror.test``: ``GET /uredni-deska/`` is a page whose notices a script fetches from
  ``GET /uredni-deska/api/informace.json`` and inserts as a table (only a browser sees them);
- ``kadan-html.mirror.test``: ``GET /deska/`` lists the same notices as server-rendered articles.

In scale mode (``MirrorThread(root, scale=1500)``, ``mendel mirror --scale 1500``) the generated boards of
:mod:`mirror.scale` are served on their hosts too.
"""

from __future__ import annotations

import html
import json
import re
import threading
import time
from functools import cached_property
from pathlib import Path
from urllib.parse import parse_qs, quote

from mendel.czech_dates import iso, numeric_from_iso, ofn_instant_date

from .responses import FileDigests, Response, file_response, html_response, json_response, text_response

KADAN_FEED_PATHS = ("/1ad1f16beff952576ae7ddd76a91e163", "/kadan/uredni-deska.json")
BLESNO_PREFIX = "/assets/articles/"
ARTICLE_IDS_PATH = "/articles/ids"
_ARTICLE_ASSETS = re.compile(r"^/articles/([^/]+)/assets$")
_ARTICLE_PDF = re.compile(r"^/articles/([^/]+)/assets/([-a-z0-9]+[.]pdf)$")


class MunicipalSite:
    def __init__(self, corpus_root: Path, digests: FileDigests):
        self.digests = digests
        base = Path(corpus_root) / "municipal"
        self.kadan_feed = base / "kadan_uredni_deska.json"
        self.blesno: dict[str, Path] = {}
        for kind in ("text", "scanned"):
            for pdf in sorted((base / "blesno" / kind).glob("*.pdf")):
                slug, sep, name = pdf.name.partition("__")
                if sep:
                    self.blesno[f"{BLESNO_PREFIX}{slug}/{name}"] = pdf

    def handle(self, method: str, path: str, raw_path: str, query: str, headers, body: bytes) -> Response | None:
        if method not in ("GET", "HEAD"):
            return None
        if path in KADAN_FEED_PATHS and self.kadan_feed.exists():
            return file_response(self.kadan_feed, "application/json", self.digests)
        if path == BLESNO_PREFIX.rstrip("/") or path == BLESNO_PREFIX:
            return self.blesno_index()
        pdf = self.blesno.get(path)
        if pdf is not None:
            return file_response(pdf, "application/pdf", self.digests)
        if path.startswith("/articles/"):
            return self.blesno_api(path, query, headers)
        return None

    # ---------------------------------------------------------------- obec Blešno REST backend

    def articles(self) -> dict[str, list[str]]:
        """Article id → its bundled PDF file names."""
        found: dict[str, list[str]] = {}
        for key in sorted(self.blesno):
            slug, name = key[len(BLESNO_PREFIX):].split("/", 1)
            found.setdefault(slug, []).append(name)
        return found

    def blesno_api(self, path: str, query: str, headers) -> Response | None:
        params = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
        if path == ARTICLE_IDS_PATH:
            if "prefix" not in params:
                return None
            return json_response([slug for slug in self.articles() if slug.startswith(params["prefix"])])
        m = _ARTICLE_ASSETS.match(path)
        if m and params.get("type") == "references":
            host = (headers.get("Host") if headers is not None else None) or "localhost"
            slug = m.group(1)
            return json_response([{"name": name, "url": f"http://{host}/articles/{quote(slug)}/assets/{quote(name)}"}
                                  for name in self.articles().get(slug, [])])
        m = _ARTICLE_PDF.match(path)
        if m:
            pdf = self.blesno.get(f"{BLESNO_PREFIX}{m.group(1)}/{m.group(2)}")
            return file_response(pdf, "application/pdf", self.digests) if pdf else None
        return None

    def blesno_index(self) -> Response:
        items = "\n".join(f'<li><a href="{html.escape(p)}">{html.escape(p[len(BLESNO_PREFIX):])}</a></li>'
                          for p in sorted(self.blesno))
        return html_response('<!DOCTYPE html>\n<html lang="cs"><head><meta charset="UTF-8">'
                             "<title>Obec Blešno - dokumenty (zrcadlo)</title></head><body>\n"
                             f"<ul>\n{items}\n</ul>\n</body></html>\n")


# ---------------------------------------------------------------- notice boards on hosts of their own

MIRROR_HOST_SUFFIX = ".mirror.test"
KADAN_JS_HOST = "kadan-js.mirror.test"
KADAN_HTML_HOST = "kadan-html.mirror.test"
JS_BOARD_PATH = "/uredni-deska/"
JS_BOARD_API = "/uredni-deska/api/informace.json"
STATIC_BOARD_PATH = "/deska/"
BROWSER_OWN_REQUESTS = (JS_BOARD_API, "/favicon.ico")

# The script of a JavaScript board: fetch the notices, insert them as a table, mark the board loaded (or failed).
_BOARD_SCRIPT = """
(async function () {
  const deska = document.getElementById("deska");
  try {
    const odpoved = await fetch(deska.dataset.zdroj, {headers: {"Accept": "application/json"}});
    const data = await odpoved.json();
    const tabulka = document.createElement("table");
    tabulka.className = "informace";
    tabulka.createTHead().innerHTML = "<tr><th>Název</th><th>Číslo jednací</th><th>Spisová značka</th>" +
      "<th>Vyvěšeno</th><th>Relevantní do</th><th>Přílohy</th></tr>";
    const telo = tabulka.createTBody();
    const datum = function (iso) {
      if (!iso) { return "nespecifikováno"; }
      const [r, m, d] = iso.split("-");
      return Number(d) + ". " + Number(m) + ". " + r;
    };
    for (const info of data.informace) {
      const radek = telo.insertRow();
      radek.className = "informace";
      const bunka = function (trida, text) {
        const td = radek.insertCell(); td.className = trida; td.textContent = text || ""; return td;
      };
      const nazev = bunka("nazev", "");
      const odkaz = document.createElement("a"); odkaz.href = info.url; odkaz.textContent = info.nazev;
      nazev.appendChild(odkaz);
      bunka("cj", info.cj); bunka("sz", info.sz);
      bunka("vyveseno", datum(info.vyveseno)).dataset.datum = info.vyveseno || "";
      bunka("relevantni-do", datum(info.relevantni_do)).dataset.datum = info.relevantni_do || "";
      const prilohy = bunka("prilohy", "");
      for (const priloha of info.prilohy) {
        const a = document.createElement("a"); a.href = priloha.url; a.textContent = priloha.nazev;
        prilohy.appendChild(a);
      }
    }
    deska.replaceChildren(tabulka);
    deska.dataset.stav = "nacteno";
  } catch (chyba) {
    deska.textContent = "Úřední desku se nepodařilo načíst.";
    deska.dataset.stav = "chyba";
  }
})();
"""


def request_host(headers) -> str:
    """The Host header without its port, lower-case ('' when absent)."""
    host = (headers.get("Host") if headers is not None else None) or ""
    return host.rsplit(":", 1)[0].strip().lower() if not host.startswith("[") else ""


def _cs(value) -> str:
    if isinstance(value, dict):
        return value.get("cs") or ""
    return value if isinstance(value, str) else ""


def board_api(notices: list[dict]) -> dict:
    """The JSON a JavaScript board's script reads (a mirror-made API shape), from OFN notices."""
    return {"informace": [{
        "nazev": _cs(n.get("název")), "url": n.get("url"), "cj": n.get("číslo_jednací"),
        "sz": n.get("spisová_značka"), "vyveseno": iso(ofn_instant_date(n.get("vyvěšení"))),
        "relevantni_do": iso(ofn_instant_date(n.get("relevantní_do"))),
        "prilohy": [{"nazev": _cs(d.get("název")), "url": d.get("url")} for d in n.get("dokument") or []],
    } for n in notices]}


def js_board_page(name: str, ico: str) -> str:
    return ('<!DOCTYPE html>\n<html lang="cs"><head><meta charset="UTF-8">'
            f"<title>{html.escape(name)} – úřední deska</title></head><body>\n<h1>Úřední deska</h1>\n"
            f'<p class="provozovatel">{html.escape(name)}, IČO {html.escape(ico)}</p>\n'
            f'<div id="deska" data-zdroj="{JS_BOARD_API}"><p>Načítám úřední desku…</p></div>\n'
            "<noscript>Úřední deska se zobrazí jen se zapnutým JavaScriptem.</noscript>\n"
            f"<script>{_BOARD_SCRIPT}</script>\n</body></html>\n")


def static_board_page(name: str, ico: str, notices: list[dict]) -> str:
    articles = []
    for n in notices:
        facts = [("Vyvěšeno", numeric_from_iso(iso(ofn_instant_date(n.get("vyvěšení"))), "nespecifikováno")),
                 ("Relevantní do", numeric_from_iso(iso(ofn_instant_date(n.get("relevantní_do"))), "nespecifikováno"))]
        facts += [(label, n[key]) for label, key in (("Číslo jednací", "číslo_jednací"),
                                                     ("Spisová značka", "spisová_značka")) if n.get(key)]
        facts_html = "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in facts)
        files = "".join(f'<li><a href="{html.escape(d["url"])}">{html.escape(_cs(d.get("název")))}</a></li>'
                        for d in n.get("dokument") or [] if isinstance(d.get("url"), str))
        articles.append(f'<article class="oznameni"><h2><a href="{html.escape(n.get("url") or "")}">'
                        f'{html.escape(_cs(n.get("název")))}</a></h2><dl>{facts_html}</dl>'
                        f'<ul class="prilohy">{files}</ul></article>')
    body = "\n".join(articles)
    return ('<!DOCTYPE html>\n<html lang="cs"><head><meta charset="UTF-8">'
            f"<title>{html.escape(name)} – úřední deska</title></head><body>\n<h1>Úřední deska</h1>\n"
            f'<p class="provozovatel">{html.escape(name)}, IČO {html.escape(ico)}</p>\n'
            f'<div class="uredni-deska">\n{body}\n</div>\n</body></html>\n')


class BoardHosts:
    """Requests to ``*.mirror.test`` hosts: the Kadaň HTML boards, and the scale-mode boards when there are any."""

    def __init__(self, corpus_root: Path, digests: FileDigests, scale=None):
        self.kadan_feed = Path(corpus_root) / "municipal" / "kadan_uredni_deska.json"
        self.digests = digests
        self.scale = scale  # a mirror.scale.ScaleBoards, or None
        # Scale mode: when each board host was asked for something (time.monotonic()), to measure politeness.
        self.arrivals: dict[str, list[tuple[float, str]]] = {}
        self._lock = threading.Lock()

    def note_arrival(self, host: str, path: str) -> None:
        with self._lock:
            self.arrivals.setdefault(host, []).append((time.monotonic(), path))

    def politeness(self, delay: float = 1.0) -> dict:
        """Requests per board host and the gaps between two requests to one host — every request the host saw:
        robots.txt too when the server counts it (:func:`observe_robots_txt`), and what Chromium fetched for a
        JavaScript board (its page, the page's script fetching the notices)."""
        with self._lock:
            arrivals = {h: sorted(t for t, _ in hits) for h, hits in self.arrivals.items()}
            robots = sum(1 for hits in self.arrivals.values() for _, path in hits if path == "/robots.txt")
            browser = sum(1 for hits in self.arrivals.values() for _, path in hits if path in BROWSER_OWN_REQUESTS)
        gaps = sorted(b - a for times in arrivals.values() for a, b in zip(times, times[1:]))

        def quantile(q: float) -> float | None:
            return round(gaps[min(len(gaps) - 1, int(q * len(gaps)))], 3) if gaps else None

        return {"hosts": len(arrivals), "requests": sum(len(t) for t in arrivals.values()), "gaps": len(gaps),
                "robots_txt_requests": robots, "browser_own_requests": browser,
                "min_gap_s": quantile(0), "p01_gap_s": quantile(0.01), "p05_gap_s": quantile(0.05),
                "median_gap_s": quantile(0.5), "delay_s": delay,
                "gaps_under_delay": sum(1 for g in gaps if g < delay)}

    @cached_property
    def kadan_notices(self) -> list[dict]:
        feed = json.loads(self.kadan_feed.read_text(encoding="utf-8"))
        return [n for n in feed.get("informace", []) if isinstance(n, dict)]

    def handle(self, method: str, path: str, raw_path: str, query: str, headers, body: bytes) -> Response | None:
        host = request_host(headers)
        if self.scale is not None and not host.endswith(MIRROR_HOST_SUFFIX):
            return self.scale.handle_mirror_path(method, path)
        if not host.endswith(MIRROR_HOST_SUFFIX):
            return None
        if self.scale is not None:  # measured for benchmarks; a long-running demo mirror keeps nothing
            self.note_arrival(host, path)
        if method not in ("GET", "HEAD"):
            return text_response("405 Method Not Allowed\n", status=405)
        if host in (KADAN_JS_HOST, KADAN_HTML_HOST):
            modified = self.kadan_feed.stat().st_mtime
            if host == KADAN_JS_HOST and path == JS_BOARD_PATH:
                return html_response(js_board_page("Město Kadaň", "00261912"), last_modified=modified)
            if host == KADAN_JS_HOST and path == JS_BOARD_API:
                return json_response(board_api(self.kadan_notices), last_modified=modified)
            if host == KADAN_HTML_HOST and path == STATIC_BOARD_PATH:
                return html_response(static_board_page("Město Kadaň", "00261912", self.kadan_notices),
                                     last_modified=modified)
        if self.scale is not None:
            board = self.scale.by_host.get(host)
            if board is not None:
                response = self.scale.handle_board(board, path)
                if response is not None:
                    return response
        return text_response("404 Not Found\n", status=404)


def observe_robots_txt(server) -> None:
    """Count the board hosts' robots.txt requests in ``server.board_hosts.politeness()`` too (the mirror answers
    robots.txt before any site sees the request)."""
    route = server.route

    def counted_route(method, path, raw_path, query, headers, body):
        host = request_host(headers)
        if path == "/robots.txt" and host.endswith(MIRROR_HOST_SUFFIX) and server.board_hosts.scale is not None:
            server.board_hosts.note_arrival(host, path)
        return route(method, path, raw_path, query, headers, body)

    server.route = counted_route
