"""Municipal websites for the board finder: a home page and a board page for a sample of real municipalities, one
per CMS family that has a rule set (and a few that test the finder's other answers), on hosts of their own
(``{id}.mirror.test``).

Real: the municipalities, the website each runs and the CMS the websites list names for it
(``registry/obecni_weby_cms_2023-11.csv``), each board's notices (the edesky register dump, as the CMS boards of
:mod:`mirror.municipal` serve them) and the national list's row of each (``mendel/data/boards_national.v1.tsv``).
MIRROR-MADE: every page's markup — the home pages, their generator and footer signs, the link labels and the board
layouts (:data:`mirror.municipal.CMS_LAYOUTS`); no real page of these sites is in the corpus. Each home page says so
on its face.

``GET /mirror/municipal/sites.json`` lists the sites as the finder takes them (the national list's key, name and
kód obce, the real domain, the mirror host's home page). Turnov's board changes its layout after the first Kadaň
snapshot (:func:`mirror.municipal.kadan_snapshot_number`): a redesign its rule set does not read.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .municipal import (
    CMS_BOARD_PATH,
    CMS_BOARDS_BY_HOST,
    CMS_LAYOUTS,
    MIRROR_HOST_SUFFIX,
    CmsBoard,
    cms_board_notices,
    kadan_snapshot_number,
    request_host,
)
from .responses import Response, html_response, json_response

SITES_PATH = "/mirror/municipal/sites.json"
MIRROR_MADE = (
    "Stránku vytvořilo zrcadlo Mendel (mirror-made): skutečná oznámení obce v rozvržení, které zrcadlo samo "
    "vymyslelo. Není to web obce."
)


@dataclass(frozen=True)
class DemoSite:
    board: CmsBoard  # the municipality, its real domain, its notices and the layout of its board page
    label: str  # the text of the link to the board on the home page
    href: str = CMS_BOARD_PATH
    generator: str = ""  # the home page's <meta name="generator">
    footer: str = ""  # the home page's footer, where vendors sign
    redesign_from: int | None = None  # the Kadaň snapshot from which its board page has another layout
    why: str = ""  # what the site shows the finder

    @property
    def home(self) -> str:
        return f"http://{self.board.host}/"


def _own(board_id: str, name: str, domain: str, layout: str) -> CmsBoard:
    return CMS_BOARDS_BY_HOST.get(f"{board_id}{MIRROR_HOST_SUFFIX}") or CmsBoard(board_id, name, domain, layout)


DEMO_SITES = (
    DemoSite(
        _own("prerov", "Město Přerov", "prerov.eu", "public4u"),
        "Úřední deska",
        generator="Public4u",
        why="Public4u: its generator meta names the CMS",
    ),
    DemoSite(
        _own("nyrsko", "Město Nýrsko", "mestonyrsko.cz", "sumavanet"),
        "Elektronická úřední deska",
        footer='Vytvořil <a href="https://www.sumavanet.cz/">SumavaNet.CZ</a>',
        why="SumavaNet: no generator, its vendor signs the footer",
    ),
    DemoSite(
        _own("kubova-hut", "Obec Kubova Huť", "kubovahut.cz", "sumavanet"),
        "Vyvěšené dokumenty",
        footer='Web: <a href="https://www.sumavanet.cz/">SumavaNet.CZ</a>',
        why="the board link is not labelled as one; its address says so",
    ),
    DemoSite(
        _own("turnov", "Město Turnov", "turnov.cz", "public4u"),
        "Úřední deska",
        generator="Public4u",
        redesign_from=2,
        why="Public4u, its board page redesigned after the first snapshot: the rule set no longer reads it",
    ),
    DemoSite(
        _own("ostrava", "Město Ostrava", "ostrava.cz", "plone"),
        "Úřední deska",
        generator="Plone - http://plone.org",
        why="Plone: a CMS without a rule set",
    ),
    DemoSite(
        _own("opatovice", "Obec Opatovice nad Labem", "opatovicenadlabem.cz", "plain"),
        "Úřední deska",
        footer='Tvorba webu: <a href="https://www.antee.cz/">Antee s.r.o.</a>',
        why="Antee: the largest vendor family, without a rule set",
    ),
)
SITES_BY_HOST = {site.board.host: site for site in DEMO_SITES}


def home_page(site: DemoSite) -> str:
    name = site.board.edesky_name
    generator = f'<meta name="generator" content="{html.escape(site.generator)}">' if site.generator else ""
    return (
        f'<!DOCTYPE html>\n<html lang="cs"><head><meta charset="UTF-8">{generator}'
        f"<title>{html.escape(name)} – oficiální stránky</title></head><body>\n"
        f'<p class="zrcadlo">{MIRROR_MADE}</p>\n<header><h1>{html.escape(name)}</h1></header>\n'
        '<nav><ul><li><a href="/">Úvod</a></li><li><a href="/aktuality/">Aktuality</a></li>'
        f'<li><a href="{html.escape(site.href)}">{html.escape(site.label)}</a></li>'
        '<li><a href="/kontakty/">Kontakty</a></li><li><a href="/historie/pametni-deska/">Pamětní deska</a></li>'
        "</ul></nav>\n<main><h2>Vítejte</h2></main>\n"
        f"<footer>{site.footer}</footer>\n</body></html>\n"
    )


def redesigned_page(name: str, notices: list[dict]) -> str:
    """A board page after a redesign: the same notices, markup no rule set knows."""
    items = "\n".join(
        f'<div class="karta"><a class="karta-odkaz" href="{html.escape(n["url"] or "")}">{html.escape(n["title"])}</a>'
        f'<time datetime="{n["posted"] or ""}">{n["posted"] or ""}</time></div>'
        for n in notices
    )
    return (
        '<!DOCTYPE html>\n<html lang="cs"><head><meta charset="UTF-8"><meta name="generator" content="Public4u">'
        f"<title>Úřední deska – {html.escape(name)}</title></head><body>\n<h1>Úřední deska</h1>\n"
        f'<section class="deska-karty">\n{items}\n</section>\n</body></html>\n'
    )


@lru_cache(maxsize=1)
def national_rows() -> dict[str, object]:
    """The national list's row of each demo site, by its real domain."""
    from mendel.crawl.boards.national_list import read_table

    domains = {site.board.site for site in DEMO_SITES}
    return {row.website: row for row in read_table() if row.website in domains}


def site_list() -> dict:
    rows = national_rows()
    sites = []
    for site in DEMO_SITES:
        row = rows.get(site.board.site)
        sites.append(
            {
                "list_key": row.key if row else f"site:{site.board.site}",
                "name": row.name if row else site.board.edesky_name,
                "obec_kod": (row.obec_kod or None) if row else None,
                "site": site.board.site,
                "start_url": site.home,
                "known_board": False,
            }
        )
    return {"sites": sites}


class MunicipalWebsites:
    """The demo sites' home and board pages (GET/HEAD on their hosts), and their list on any host."""

    def __init__(self, corpus_root: Path):
        self.corpus_root = Path(corpus_root)

    def handle(self, method: str, path: str, raw_path: str, query: str, headers, body: bytes) -> Response | None:
        if method not in ("GET", "HEAD"):
            return None
        if path == SITES_PATH:
            return json_response(site_list())
        site = SITES_BY_HOST.get(request_host(headers))
        if site is None:
            return None
        if path == "/":
            return html_response(home_page(site))
        if path == site.href:
            notices = cms_board_notices(self.corpus_root, site.board)
            if site.redesign_from is not None and kadan_snapshot_number(self.corpus_root) >= site.redesign_from:
                return html_response(redesigned_page(site.board.edesky_name, notices))
            return html_response(CMS_LAYOUTS[site.board.layout](site.board.edesky_name, notices))
        return None
