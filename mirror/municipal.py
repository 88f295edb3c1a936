"""Municipal sources for the local mirror: notice boards from real files, obec Blešno's site, the board hosts.

On the origin: the Kadaň OFN feed (one of its six real daily snapshots, 2022–2025: ``MENDEL_MIRROR_KADAN_SNAPSHOT``, or the next
one each start with ``MENDEL_MIRROR_STATE_DIR``), the 182 real MVČR feeds and obec Blešno's PDFs with its REST
backend. On hosts of their own (``{name}.mirror.test``, :class:`BoardHosts`): real exports whose download URL is not
known, and HTML boards whose notices are real but whose page markup is mirror-made (:data:`CMS_LAYOUTS`). Files
are served bytes unchanged; what the mirror makes is listed in mirror/DERIVED_DATA.md, the paths in docs/mirror.md.
"""

from __future__ import annotations

import html
import json
import os
import re
import threading
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

from mendel.czech.dates import iso, numeric_from_iso, ofn_instant_date

from .responses import FileDigests, Response, file_response, html_response, json_response, text_response

KADAN_FEED_URL = "https://www.mesto-kadan.cz/1ad1f16beff952576ae7ddd76a91e163"
KADAN_PAGE = "https://www.mesto-kadan.cz/cs/mestsky-urad/uredni-deska-6.html"
KADAN_FEED_PATHS = (urlsplit(KADAN_FEED_URL).path, "/kadan/uredni-deska.json")
# The real snapshots of the Kadaň feed, oldest first (the last one, 2025-02-28, is the bundled feed itself).
KADAN_SNAPSHOTS = (
    "kadan_history/kadan_2022-01-31.json",
    "kadan_history/kadan_2023-02-01.json",
    "kadan_history/kadan_2023-08-16.json",
    "kadan_history/kadan_2024-07-31.json",
    "kadan_history/kadan_2025-02-19.json",
    "kadan_uredni_deska.json",
)
SNAPSHOT_ENV = "MENDEL_MIRROR_KADAN_SNAPSHOT"
STATE_ENV = "MENDEL_MIRROR_STATE_DIR"
STATE_FILE = "kadan_snapshot.json"
MVCR_FILE = "boards/mvcr_182_boards.json"
MVCR_API = "https://opendata-test.mvcr.cz/api/boards/"
_MVCR_PATH = re.compile(r"^/api/boards/([1-9][0-9]*)$")
BLESNO_PREFIX = "/assets/articles/"
ARTICLE_IDS_PATH = "/articles/ids"
_ARTICLE_ASSETS = re.compile(r"^/articles/([^/]+)/assets$")
_ARTICLE_PDF = re.compile(r"^/articles/([^/]+)/assets/([-a-z0-9]+[.]pdf)$")

MIRROR_HOST_SUFFIX = ".mirror.test"
BLESNO_HOST = "obec-blesno.mirror.test"
# Real board files without a known download URL, served bytes unchanged on hosts of their own:
# host → path → (file under municipal/, media type).
EXPORT_FILES = {
    "hranice.mirror.test": {"/uredni-deska.jsonld": ("boards/hranice_ofn.jsonld", "application/ld+json")},
    "karvina.mirror.test": {
        "/opendata.json": ("boards/karvina_deska.json", "application/json"),
        "/uredni-deska.xml": ("boards/karvina_deska.xml", "application/xml"),
    },
    "kr-zlinsky.mirror.test": {"/uredni-deska.csv": ("boards/zlinsky_kraj_deska.csv", "text/csv; charset=utf-8")},
}


@dataclass(frozen=True)
class ServedBoard:
    """A board the mirror serves from a real file, as its NKOD catalogue describes it."""

    dataset: str  # the tail of the mirror-made dataset IRI
    publisher_ico: str
    publisher_name: str | None  # None where the corpus does not name the publisher
    page_url: str | None  # the board's page on the publisher's site (its "stránka")
    distributions: tuple[tuple[str, str], ...]  # (download URL, EU file type: JSON_LD, JSON, XML, CSV)


def _export_url(host: str, path: str) -> str:
    return f"http://{host}{path}"


@lru_cache(maxsize=4)
def _mvcr_feeds(path: Path) -> dict[str, dict]:
    """n → the feed whose iri is the API's /api/boards/{n}."""
    feeds = json.loads(path.read_text(encoding="utf-8"))
    return {
        feed["iri"].removeprefix(MVCR_API): feed
        for feed in feeds
        if isinstance(feed, dict) and str(feed.get("iri", "")).startswith(MVCR_API)
    }


def served_boards(corpus_root: Path) -> list[ServedBoard]:
    """Every board served from a real file: Kadaň, Hranice, Karviná (JSON and XML: one dataset), the Zlínský kraj's
    CSV and the 182 MVČR feeds (publisher IČO from each feed; their names are not in the corpus)."""
    base = Path(corpus_root) / "municipal"
    boards = [
        ServedBoard("00261912/uredni-deska", "00261912", "Město Kadaň", KADAN_PAGE, ((KADAN_FEED_URL, "JSON_LD"),)),
        ServedBoard(
            "00301311/uredni-deska",
            "00301311",
            "Město Hranice",
            "https://www.mesto-hranice.cz/uredni-deska",
            ((_export_url("hranice.mirror.test", "/uredni-deska.jsonld"), "JSON_LD"),),
        ),
        ServedBoard(
            "00297534/uredni-deska",
            "00297534",
            "Statutární město Karviná",
            "https://www.karvina.cz/magistrat/uredni-deska",
            (
                (_export_url("karvina.mirror.test", "/opendata.json"), "JSON"),
                (_export_url("karvina.mirror.test", "/uredni-deska.xml"), "XML"),
            ),
        ),
        ServedBoard(
            "70891320/uredni-deska",
            "70891320",
            "Zlínský kraj",
            "https://www.kr-zlinsky.cz/uredni-deska.asp",
            ((_export_url("kr-zlinsky.mirror.test", "/uredni-deska.csv"), "CSV"),),
        ),
    ]
    if (base / MVCR_FILE).exists():
        for number, feed in sorted(_mvcr_feeds(base / MVCR_FILE).items(), key=lambda item: int(item[0])):
            boards.append(
                ServedBoard(
                    f"{feed['provozovatel']['ičo']}/uredni-deska-mvcr-{number}",
                    feed["provozovatel"]["ičo"],
                    None,
                    feed.get("stránka"),
                    ((feed["iri"], "JSON_LD"),),
                )
            )
    return boards


def kadan_snapshot(corpus_root: Path) -> Path:
    """The Kadaň snapshot served now (see the module docstring)."""
    return Path(corpus_root) / "municipal" / KADAN_SNAPSHOTS[kadan_snapshot_number(corpus_root) - 1]


def kadan_snapshot_number(corpus_root: Path) -> int:
    """Which of the Kadaň snapshots is served now, from 1 (the oldest): what the mirror's other dated changes
    follow too (mirror.municipal_sites)."""
    chosen = os.environ.get(SNAPSHOT_ENV, "").strip()
    if not chosen and os.environ.get(STATE_ENV):
        try:
            chosen = str(json.loads((Path(os.environ[STATE_ENV]) / STATE_FILE).read_text())["served"])
        except (OSError, ValueError, KeyError):
            chosen = ""
    return int(chosen) if chosen.isdigit() and 1 <= int(chosen) <= len(KADAN_SNAPSHOTS) else len(KADAN_SNAPSHOTS)


def advance_kadan_snapshot() -> int | None:
    """A mirror starting with ``MENDEL_MIRROR_STATE_DIR`` set serves the snapshot after the one it served last
    time (the first one the first time; the latest stays once reached). Returns the snapshot number, or None."""
    state_dir = os.environ.get(STATE_ENV)
    if not state_dir:
        return None
    state = Path(state_dir) / STATE_FILE
    try:
        served = int(json.loads(state.read_text())["served"])
    except (OSError, ValueError, KeyError):
        served = 0
    served = min(served + 1, len(KADAN_SNAPSHOTS))
    state.parent.mkdir(parents=True, exist_ok=True)
    state.write_text(json.dumps({"served": served, "file": KADAN_SNAPSHOTS[served - 1]}))
    return served


class MunicipalSite:
    def __init__(self, corpus_root: Path, digests: FileDigests):
        self.digests = digests
        self.corpus_root = Path(corpus_root)
        base = self.corpus_root / "municipal"
        self.mvcr_file = base / MVCR_FILE
        self.blesno: dict[str, Path] = {}
        for kind in ("text", "scanned"):
            for pdf in sorted((base / "blesno" / kind).glob("*.pdf")):
                slug, sep, name = pdf.name.partition("__")
                if sep:
                    self.blesno[f"{BLESNO_PREFIX}{slug}/{name}"] = pdf
        advance_kadan_snapshot()

    def handle(self, method: str, path: str, raw_path: str, query: str, headers, body: bytes) -> Response | None:
        if method not in ("GET", "HEAD"):
            return None
        if path in KADAN_FEED_PATHS:
            feed = kadan_snapshot(self.corpus_root)
            return file_response(feed, "application/json", self.digests) if feed.exists() else None
        mvcr = _MVCR_PATH.match(path)
        if mvcr and self.mvcr_file.exists():
            feed = _mvcr_feeds(self.mvcr_file).get(mvcr.group(1))
            return json_response(feed, content_type="application/ld+json") if feed is not None else None
        if path == CMS_LIST_PATH:
            return json_response(cms_html_list())
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
            slug, name = key[len(BLESNO_PREFIX) :].split("/", 1)
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
            return json_response(
                [
                    {"name": name, "url": f"http://{host}/articles/{quote(slug)}/assets/{quote(name)}"}
                    for name in self.articles().get(slug, [])
                ]
            )
        m = _ARTICLE_PDF.match(path)
        if m:
            pdf = self.blesno.get(f"{BLESNO_PREFIX}{m.group(1)}/{m.group(2)}")
            return file_response(pdf, "application/pdf", self.digests) if pdf else None
        return None

    def blesno_index(self) -> Response:
        items = "\n".join(
            f'<li><a href="{html.escape(p)}">{html.escape(p[len(BLESNO_PREFIX) :])}</a></li>'
            for p in sorted(self.blesno)
        )
        return html_response(
            '<!DOCTYPE html>\n<html lang="cs"><head><meta charset="UTF-8">'
            "<title>Obec Blešno - dokumenty (zrcadlo)</title></head><body>\n"
            f"<ul>\n{items}\n</ul>\n</body></html>\n"
        )


# ---------------------------------------------------------------- notice boards on hosts of their own

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
    return {
        "informace": [
            {
                "nazev": _cs(n.get("název")),
                "url": n.get("url"),
                "cj": n.get("číslo_jednací"),
                "sz": n.get("spisová_značka"),
                "vyveseno": iso(ofn_instant_date(n.get("vyvěšení"))),
                "relevantni_do": iso(ofn_instant_date(n.get("relevantní_do"))),
                "prilohy": [{"nazev": _cs(d.get("název")), "url": d.get("url")} for d in n.get("dokument") or []],
            }
            for n in notices
        ]
    }


def js_board_page(name: str, ico: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="cs"><head><meta charset="UTF-8">'
        f"<title>{html.escape(name)} – úřední deska</title></head><body>\n<h1>Úřední deska</h1>\n"
        f'<p class="provozovatel">{html.escape(name)}, IČO {html.escape(ico)}</p>\n'
        f'<div id="deska" data-zdroj="{JS_BOARD_API}"><p>Načítám úřední desku…</p></div>\n'
        "<noscript>Úřední deska se zobrazí jen se zapnutým JavaScriptem.</noscript>\n"
        f"<script>{_BOARD_SCRIPT}</script>\n</body></html>\n"
    )


def static_board_page(name: str, ico: str, notices: list[dict]) -> str:
    articles = []
    for n in notices:
        facts = [
            ("Vyvěšeno", numeric_from_iso(iso(ofn_instant_date(n.get("vyvěšení"))), "nespecifikováno")),
            ("Relevantní do", numeric_from_iso(iso(ofn_instant_date(n.get("relevantní_do"))), "nespecifikováno")),
        ]
        facts += [
            (label, n[key])
            for label, key in (("Číslo jednací", "číslo_jednací"), ("Spisová značka", "spisová_značka"))
            if n.get(key)
        ]
        facts_html = "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in facts)
        files = "".join(
            f'<li><a href="{html.escape(d["url"])}">{html.escape(_cs(d.get("název")))}</a></li>'
            for d in n.get("dokument") or []
            if isinstance(d.get("url"), str)
        )
        articles.append(
            f'<article class="oznameni"><h2><a href="{html.escape(n.get("url") or "")}">'
            f"{html.escape(_cs(n.get('název')))}</a></h2><dl>{facts_html}</dl>"
            f'<ul class="prilohy">{files}</ul></article>'
        )
    body = "\n".join(articles)
    return (
        '<!DOCTYPE html>\n<html lang="cs"><head><meta charset="UTF-8">'
        f"<title>{html.escape(name)} – úřední deska</title></head><body>\n<h1>Úřední deska</h1>\n"
        f'<p class="provozovatel">{html.escape(name)}, IČO {html.escape(ico)}</p>\n'
        f'<div class="uredni-deska">\n{body}\n</div>\n</body></html>\n'
    )


class BoardHosts:
    """Requests to ``*.mirror.test`` hosts: the Kadaň HTML boards, the real export files, Blešno's site (passed on
    to :class:`MunicipalSite`), and the scale-mode boards when there are any."""

    def __init__(self, corpus_root: Path, digests: FileDigests, scale=None):
        self.corpus_root = Path(corpus_root)
        self.digests = digests
        self.scale = scale  # a mirror.scale.ScaleBoards, or None
        # Scale mode: when each board host was asked for something (time.monotonic()), to measure politeness.
        self.arrivals: dict[str, list[tuple[float, str]]] = {}
        self._lock = threading.Lock()

    def note_arrival(self, host: str, path: str) -> None:
        with self._lock:
            self.arrivals.setdefault(host, []).append((time.monotonic(), path))

    def politeness(self, delay: float = 1.0, host_key=None) -> dict:
        """Requests per board host and the gaps between two requests to one host — every request the host saw:
        robots.txt too when the server counts it (:func:`observe_robots_txt`), and what Chromium fetched for a
        JavaScript board (its page, the page's script fetching the notices). ``host_key``: what counts as one host
        (a shared hosting provider's customers as the provider); each host name on its own by default."""
        with self._lock:
            grouped: dict[str, list[float]] = {}
            for h, hits in self.arrivals.items():
                grouped.setdefault(host_key(h) if host_key else h, []).extend(t for t, _ in hits)
            arrivals = {h: sorted(times) for h, times in grouped.items()}
            robots = sum(1 for hits in self.arrivals.values() for _, path in hits if path == "/robots.txt")
            browser = sum(1 for hits in self.arrivals.values() for _, path in hits if path in BROWSER_OWN_REQUESTS)
        host_gaps = {h: sorted(b - a for a, b in zip(t, t[1:])) for h, t in arrivals.items()}
        gaps = sorted(g for each in host_gaps.values() for g in each)

        def quantile(values: list[float], q: float) -> float | None:
            return round(values[min(len(values) - 1, int(q * len(values)))], 3) if values else None

        per_host_min = sorted(g[0] for g in host_gaps.values() if g)
        per_host_median = sorted(quantile(g, 0.5) for g in host_gaps.values() if g)
        busiest = max(arrivals.items(), key=lambda item: len(item[1]), default=(None, []))
        return {
            "hosts": len(arrivals),
            "requests": sum(len(t) for t in arrivals.values()),
            "gaps": len(gaps),
            "robots_txt_requests": robots,
            "browser_own_requests": browser,
            "min_gap_s": quantile(gaps, 0),
            "p01_gap_s": quantile(gaps, 0.01),
            "p05_gap_s": quantile(gaps, 0.05),
            "median_gap_s": quantile(gaps, 0.5),
            "delay_s": delay,
            "gaps_under_delay": sum(1 for g in gaps if g < delay),
            # Per host: the smallest of the hosts' own minimum gaps, the median of their median gaps.
            "per_host_min_gap_s": {"min": quantile(per_host_min, 0), "median": quantile(per_host_min, 0.5)},
            "per_host_median_gap_s": {"min": quantile(per_host_median, 0), "median": quantile(per_host_median, 0.5)},
            # The least wall time politeness allows: the busiest host's requests, one delay apart.
            "busiest_host": busiest[0],
            "busiest_host_requests": len(busiest[1]),
            "politeness_floor_s": round(max(0, len(busiest[1]) - 1) * delay, 1),
            # The real hosts the mirror stood in for (published_hosts): each on its own.
            "published_hosts": {
                h: {
                    "requests": len(arrivals[h]),
                    "min_gap_s": quantile(host_gaps[h], 0),
                    "median_gap_s": quantile(host_gaps[h], 0.5),
                }
                for h in sorted(arrivals)
                if not h.endswith(MIRROR_HOST_SUFFIX)
            },
        }

    def kadan_notices(self, feed: Path) -> list[dict]:
        return _notices(feed, feed.stat().st_mtime_ns)

    def handle(self, method: str, path: str, raw_path: str, query: str, headers, body: bytes) -> Response | None:
        host = request_host(headers)
        if self.scale is not None and not host.endswith(MIRROR_HOST_SUFFIX):
            published = published_hosts(self.corpus_root).get(path)
            if published is not None:  # a real host's URL re-rooted onto the origin: counted as that host's
                self.note_arrival(published, path)
            return self.scale.handle_mirror_path(method, path)
        if not host.endswith(MIRROR_HOST_SUFFIX):
            return None
        if self.scale is not None:  # measured for benchmarks; a long-running demo mirror keeps nothing
            self.note_arrival(host, path)
        if host == BLESNO_HOST:
            return None  # the site's REST backend: MunicipalSite answers (Host header and all)
        if method not in ("GET", "HEAD"):
            return text_response("405 Method Not Allowed\n", status=405)
        export = EXPORT_FILES.get(host, {}).get(path)
        if export is not None:
            return file_response(self.corpus_root / "municipal" / export[0], export[1], self.digests)
        cms_board = CMS_BOARDS_BY_HOST.get(host)
        if cms_board is not None and path == CMS_BOARD_PATH:
            return html_response(cms_board_page(self.corpus_root, cms_board))
        if host in (KADAN_JS_HOST, KADAN_HTML_HOST):
            feed = kadan_snapshot(self.corpus_root)
            modified = feed.stat().st_mtime
            if host == KADAN_JS_HOST and path == JS_BOARD_PATH:
                return html_response(js_board_page("Město Kadaň", "00261912"), last_modified=modified)
            if host == KADAN_JS_HOST and path == JS_BOARD_API:
                return json_response(board_api(self.kadan_notices(feed)), last_modified=modified)
            if host == KADAN_HTML_HOST and path == STATIC_BOARD_PATH:
                return html_response(
                    static_board_page("Město Kadaň", "00261912", self.kadan_notices(feed)), last_modified=modified
                )
        if self.scale is not None:
            board = self.scale.by_host.get(host)
            if board is not None:
                response = self.scale.handle_board(board, path)
                if response is not None:
                    return response
        return text_response("404 Not Found\n", status=404)


@lru_cache(maxsize=2)
def published_hosts(corpus_root: Path) -> dict[str, str]:
    """Path on the mirror's origin → the real host that published it, for the 182 MVČR feeds (the API's
    ``/api/boards/{n}``) and their attachments (www.mvcr.cz, www.hzscr.cz, www.policie.cz): how scale mode counts
    requests re-rooted onto the origin per real host."""
    path = Path(corpus_root) / "municipal" / MVCR_FILE
    if not path.exists():
        return {}
    hosts = {}
    for feed in _mvcr_feeds(path).values():
        for url in [
            feed["iri"],
            *(
                d.get("url")
                for n in feed.get("informace") or []
                if isinstance(n, dict)
                for d in n.get("dokument") or []
                if isinstance(d, dict)
            ),
        ]:
            if isinstance(url, str) and urlsplit(url).hostname:
                hosts.setdefault(urlsplit(url).path, urlsplit(url).hostname.lower())
    return hosts


@lru_cache(maxsize=8)
def _notices(feed: Path, modified_ns: int) -> list[dict]:
    value = json.loads(feed.read_text(encoding="utf-8"))
    return [n for n in value.get("informace", []) if isinstance(n, dict)]


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


# ---------------------------------------------------------------- HTML boards by CMS (real notices, made-up markup)

CMS_LIST_PATH = "/mirror/cms/html-boards.json"
CMS_BOARD_PATH = "/uredni-deska/"
EDESKY_FILE = "registry/edesky_boards_2024-05.sql"


PRAHA7_ARCHIVE = "boards/praha7_archive/uredni_deska_2017.json"  # under municipal/


@dataclass(frozen=True)
class CmsBoard:
    id: str  # host {id}.mirror.test, list id
    edesky_name: str  # the board's name (in the edesky register, table urad, for the boards whose notices it has)
    site: str  # the municipality's website domain, as the websites list has it
    layout: str  # a key of CMS_LAYOUTS: the CMS the websites list names for the site
    source: str = "edesky"  # where its notices come from: the edesky dump, or "praha7" (the Praha 7 archive)

    @property
    def host(self) -> str:
        return f"{self.id}{MIRROR_HOST_SUFFIX}"

    @property
    def url(self) -> str:
        return f"http://{self.host}{CMS_BOARD_PATH}"


CMS_BOARDS = (
    CmsBoard("prerov", "Město Přerov", "prerov.eu", "public4u"),
    CmsBoard("prostejov", "Město Prostějov", "prostejov.eu", "public4u"),
    CmsBoard("trutnov", "Město Trutnov", "trutnov.cz", "public4u"),
    CmsBoard("kubova-hut", "Obec Kubova Huť", "kubovahut.cz", "sumavanet"),
    CmsBoard("nyrsko", "Město Nýrsko", "mestonyrsko.cz", "sumavanet"),
    CmsBoard("ostrava", "Město Ostrava", "ostrava.cz", "plone"),
    # praha7.cz is not in the websites list (it names only p7.mepnet.cz, without a CMS): no rule set applies.
    CmsBoard("praha7", "Městská část Praha 7", "praha7.cz", "plain", source="praha7"),
)
CMS_BOARDS_BY_HOST = {b.host: b for b in CMS_BOARDS}


def _copy_rows(sql: str, table: str) -> list[dict]:
    """The rows of one ``COPY public.{table} (…) FROM stdin;`` block of a PostgreSQL dump (text format)."""
    start = sql.index(f"COPY public.{table} (")
    header, body = sql[start:].split("\n", 1)
    columns = [c.strip() for c in header[header.index("(") + 1 : header.index(")")].split(",")]
    unescape = {"\\t": "\t", "\\n": "\n", "\\\\": "\\"}
    rows = []
    for line in body.split("\n\\.\n", 1)[0].splitlines():
        values = [
            None if v == "\\N" else re.sub(r"\\[tn\\]", lambda m: unescape[m.group(0)], v) for v in line.split("\t")
        ]
        rows.append(dict(zip(columns, values)))
    return rows


@lru_cache(maxsize=2)
def edesky_notices(sql_file: Path) -> dict[str, list[dict]]:
    """board name → its notices in the edesky dump, newest first: {title, posted (ISO date), url, files [(name,
    url)]} — the dump's values, nothing added."""
    sql = Path(sql_file).read_text(encoding="utf-8")
    names = {row["id"]: " ".join((row["nazev"] or "").split()) for row in _copy_rows(sql, "urad")}
    # A file belongs to the notice whose page its URL anchors on (…/dokument/{n}#priloha_{m}): the dump's
    # dokument.oznameni_id holds the board's id, not the notice's.
    files: dict[str, list[tuple[str, str]]] = {}
    for row in _copy_rows(sql, "dokument"):
        pair = (row["nazev"] or "", row["url"] or "")
        if pair[1] and pair not in files.setdefault(pair[1].split("#", 1)[0], []):
            files[pair[1].split("#", 1)[0]].append(pair)
    boards: dict[str, list[dict]] = {}
    for row in _copy_rows(sql, "oznameni"):
        boards.setdefault(names.get(row["urad_id"], ""), []).append(
            {
                "title": row["nazev"] or "",
                "posted": (row["datum_vyveseni"] or "")[:10] or None,
                "url": row["url"],
                "until": (row["datum_relevance"] or "")[:10] or None,
                "files": files.get(row["url"], []),
            }
        )
    for notices in boards.values():
        notices.sort(key=lambda n: (n["posted"] or "", n["url"] or ""), reverse=True)
    return boards


def _day(iso_day: str | None, style: str) -> str:
    if not iso_day:
        return ""
    year, month, day = iso_day.split("-")
    return f"{day}.{month}.{year}" if style == "padded" else f"{int(day)}. {int(month)}. {year}"


def _public4u_page(name: str, notices: list[dict]) -> str:
    rows = "\n".join(
        f'<tr class="dokument"><td class="nazev"><a href="{html.escape(n["url"] or "")}">{html.escape(n["title"])}'
        f'</a></td><td class="cislo-jednaci"></td><td class="vyveseno">{_day(n["posted"], "padded")}</td>'
        f'<td class="sejmuto">{_day(n["until"], "padded")}</td><td class="prilohy">'
        + "".join(f'<a href="{html.escape(u)}">{html.escape(f)}</a>' for f, u in n["files"])
        + "</td></tr>"
        for n in notices
    )
    return (
        '<!DOCTYPE html>\n<html lang="cs"><head><meta charset="UTF-8"><meta name="generator" content="Public4u">'
        f"<title>Úřední deska – {html.escape(name)}</title></head><body>\n<h1>Úřední deska</h1>\n"
        '<div id="uredni-deska"><table class="seznam-dokumentu"><thead><tr><th>Název</th><th>Číslo jednací</th>'
        f"<th>Vyvěšeno</th><th>Sejmuto</th><th>Přílohy</th></tr></thead><tbody>\n{rows}\n</tbody></table></div>\n"
        "</body></html>\n"
    )


def _sumavanet_page(name: str, notices: list[dict]) -> str:
    items = "\n".join(
        f'<li class="deska-polozka"><h3><a href="{html.escape(n["url"] or "")}">{html.escape(n["title"])}</a></h3>'
        f'<p class="data">Vyvěšeno: <span class="vyveseno">{_day(n["posted"], "spaced")}</span>'
        + (f' Sejmutí: <span class="sejmuti">{_day(n["until"], "spaced")}</span>' if n["until"] else "")
        + "</p>"
        + (
            '<div class="soubory">'
            + "".join(f'<a href="{html.escape(u)}">{html.escape(f)}</a>' for f, u in n["files"])
            + "</div>"
            if n["files"]
            else ""
        )
        + "</li>"
        for n in notices
    )
    return (
        '<!DOCTYPE html>\n<html lang="cs"><head><meta charset="UTF-8"><meta name="author" content="SumavaNet.CZ">'
        f"<title>{html.escape(name)} - úřední deska</title></head><body>\n<h2>Úřední deska</h2>\n"
        f'<ul class="deska-seznam">\n{items}\n</ul>\n</body></html>\n'
    )


def _plone_page(name: str, notices: list[dict]) -> str:
    items = "\n".join(
        f'<article class="tileItem"><h2 class="tileHeadline"><a href="{html.escape(n["url"] or "")}">'
        f'{html.escape(n["title"])}</a></h2><span class="documentPublished">{_day(n["posted"], "padded")}</span>'
        "</article>"
        for n in notices
    )
    return (
        '<!DOCTYPE html>\n<html lang="cs"><head><meta charset="UTF-8"><meta name="generator" content="Plone">'
        f"<title>Úřední deska — {html.escape(name)}</title></head><body>\n"
        f'<div id="content-core">\n{items}\n</div>\n</body></html>\n'
    )


def _plain_page(name: str, notices: list[dict]) -> str:
    rows = "\n".join(
        f"<tr><td>{html.escape(n['title'])}</td><td>{_day(n['posted'], 'spaced')}</td>"
        f"<td>{_day(n['until'], 'spaced')}</td></tr>"
        for n in notices
    )
    return (
        '<!DOCTYPE html>\n<html lang="cs"><head><meta charset="UTF-8">'
        f"<title>Úřední deska – {html.escape(name)}</title></head><body>\n<h1>Úřední deska</h1>\n"
        "<table><thead><tr><th>Název</th><th>Vyvěšeno</th><th>Do</th></tr></thead><tbody>\n"
        f"{rows}\n</tbody></table>\n</body></html>\n"
    )


# CMS (the key of mendel/data/board_rules_by_cms.yaml) → the mirror-made page of a board on it; "plain" for a site
# whose CMS the websites list does not name.
CMS_LAYOUTS = {"public4u": _public4u_page, "sumavanet": _sumavanet_page, "plone": _plone_page, "plain": _plain_page}


@lru_cache(maxsize=2)
def praha7_notices(archive: Path) -> list[dict]:
    """The Praha 7 archive's notices, newest first: title and dates as archived (it has no notice URLs, no files)."""
    rows = json.loads(Path(archive).read_text(encoding="utf-8"))
    notices = [
        {
            "title": r.get("official_desk_name") or "",
            "posted": r.get("official_desk_date"),
            "url": None,
            "until": r.get("official_desk_date_until"),
            "files": [],
        }
        for r in rows
        if isinstance(r, dict)
    ]
    return sorted(notices, key=lambda n: n["posted"] or "", reverse=True)


def cms_board_notices(corpus_root: Path, board: CmsBoard) -> list[dict]:
    if board.source == "praha7":
        return praha7_notices(Path(corpus_root) / "municipal" / PRAHA7_ARCHIVE)
    return edesky_notices(Path(corpus_root) / EDESKY_FILE).get(board.edesky_name, [])


def cms_board_page(corpus_root: Path, board: CmsBoard) -> str:
    return CMS_LAYOUTS[board.layout](board.edesky_name, cms_board_notices(corpus_root, board))


def cms_html_list() -> dict:
    """The CMS boards as a maintained HTML-board list: no rules, each read with its site's CMS rule set."""
    return {
        "boards": [
            {
                "id": b.id,
                "name": f"{b.edesky_name} (mirror-made {b.layout} page over its real notices)",
                "url": b.url,
                "site": b.site,
            }
            for b in CMS_BOARDS
        ]
    }
