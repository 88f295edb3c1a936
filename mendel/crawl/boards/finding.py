"""Finding a municipality's notice board on its website: which link the site labels as its board, which CMS the site
runs (so which rule set reads the board), and how sure the finder is. Plain functions over what a page shows; the
board finder spider (:mod:`crawlers.spiders.boards.finder`) fetches the pages and applies them.

- **The link** (:func:`board_link`): Czech municipal sites label it "Úřední deska", "Elektronická úřední deska",
  "e-deska"…, and their addresses say ``uredni-deska``, ``edeska``, vismo's ``ud=``, GINIS' ``UDEN``. A link to one
  notice (a detail page, a file), to the board's archive or to a memorial plaque (*pamětní deska*) is not the board.
- **The CMS** (:func:`detect_cms`): the page's ``<meta name="generator">`` matched against the systems' generator
  expressions of ``mendel/data/board_rules_by_cms.yaml``; else its vendor (``<meta name="author">``, the footer's text
  and link hosts) against their vendor expressions; else what the municipal websites list says of the site.
- **The confidence** (:func:`confidence`): what found the link, what named the CMS, and how many of the rows the rule
  set read carry a title and a posting date. A candidate enters the register only when its first read yields such
  notices (:mod:`mendel.crawl.boards.candidates`), whatever its confidence.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from urllib.parse import unquote, urljoin, urlsplit

from mendel.crawl.boards.cms_rules import UNKNOWN_CMS, UNLISTED_SITE, CmsRules

# A board page's address, as Czech municipal sites write it (úřední deska, e-deska, vismo's ud=, GINIS' UDEN).
BOARD_PATH = re.compile(r"uredni[-_ ]?desk|e-?desk|/desk|deska|[?&]ud=|/uden\d*(/|$|[?])", re.IGNORECASE)
# A notice's own page under the board, not the board: a detail view, a file.
NOTICE_PATH = re.compile(r"detail|zobraz_dok|[.](pdf|docx?|odt)$|-\d{3,}[.]html?$", re.IGNORECASE)
# How a site labels the link (compared without accents, in lower case).
BOARD_LABEL = re.compile(r"\b(elektronicka\s+)?ured(ni|\.)\s*desk[ay]\b|\be-?deska\b")
NOT_THE_BOARD = re.compile(r"pametni|archiv|historie|navod|jak\s+na", re.IGNORECASE)
# Outcomes of one site's search, each with its reason; only "confirmed" puts a board in the register.
OUTCOMES = ("confirmed", "no_board_link", "no_rule_set", "layout_unknown", "no_dated_notices", "unreachable")


def footer_pieces(texts: list[str], hosts: list[str]) -> tuple[str, ...]:
    """A footer's text cut where sites separate who made what ("Tvorba webu: Antee s.r.o. | Mapa webu"), and the
    hosts its links point to: each a piece a vendor expression may match from its start."""
    pieces = [p.strip() for t in texts for p in re.split(r"[:|•·©,;]|\s[-–]\s", " ".join(t.split())) if p.strip()]
    return tuple(dict.fromkeys([*pieces, *hosts]))


def plain(text: str | None) -> str:
    """Text without accents, lower case, spaces collapsed: how labels are compared."""
    folded = "".join(c for c in unicodedata.normalize("NFD", text or "") if not unicodedata.combining(c))
    return " ".join(folded.lower().split())


@dataclass(frozen=True)
class BoardLink:
    url: str
    how: str  # label+address | label | address
    label: str


def link_score(text: str, href: str) -> tuple[int, str] | None:
    """How strongly one link says "the notice board" (and by what), or None when it does not."""
    address = unquote(urlsplit(href).path or "") + (f"?{urlsplit(href).query}" if urlsplit(href).query else "")
    if NOTICE_PATH.search(address) or NOT_THE_BOARD.search(plain(text)) or NOT_THE_BOARD.search(plain(address)):
        return None
    labelled, addressed = bool(BOARD_LABEL.search(plain(text))), bool(BOARD_PATH.search(address))
    if labelled and addressed:
        return 3, "label+address"
    if labelled:
        return 2, "label"
    if addressed:
        return 1, "address"
    return None


def board_link(links: list[tuple[str, str]], page_url: str) -> BoardLink | None:
    """The link a page labels as its notice board, among (text, href) pairs: the strongest, then the one most often
    linked, then the shortest address; links to other sites' boards count (a board hosted by a provider)."""
    found: dict[str, list] = {}
    for text, href in links:
        if not href or href.startswith(("#", "mailto:", "tel:", "javascript:")):
            continue
        url = urljoin(page_url, href.strip()).split("#", 1)[0]
        if not url.startswith(("http://", "https://")):
            continue
        scored = link_score(text, url)
        if scored is None:
            continue
        seen = found.setdefault(url, [0, "", "", 0])
        if scored[0] > seen[0]:
            seen[:3] = [scored[0], scored[1], " ".join(text.split())]
        seen[3] += 1
    if not found:
        return None
    url = max(found, key=lambda u: (found[u][0], found[u][3], -len(u)))
    return BoardLink(url=url, how=found[url][1], label=found[url][2])


@dataclass(frozen=True)
class PageSigns:
    """What a page says of the system that made it."""

    generator: str = ""  # <meta name="generator" content=…>
    author: str = ""  # <meta name="author" content=…>
    footer: tuple[str, ...] = ()  # the footer's pieces: its texts (split at ":", "|", "•"…) and its links' hosts


def detect_cms(signs: list[PageSigns], cms_rules: CmsRules, listed: dict | None = None) -> tuple[str, str]:
    """(CMS key, what named it) from the pages' signs, in order: a generator, then a vendor, then the websites list's
    row of the site (``listed``); ``unknown`` when none names a system of the rules."""
    for page in signs:
        if page.generator:
            cms = cms_rules.identify({"generator": page.generator, "author": ""})
            if cms != UNKNOWN_CMS:
                return cms, f"generator meta {page.generator!r}"
    for page in signs:
        for what, text in (("author meta", page.author), *(("footer", piece) for piece in page.footer)):
            if text:
                cms = cms_rules.identify({"generator": "", "author": text})
                if cms != UNKNOWN_CMS:
                    return cms, f"vendor in {what} {text[:80]!r}"
    if listed is not None:
        cms = cms_rules.identify(listed)
        if cms not in (UNKNOWN_CMS, UNLISTED_SITE):
            return cms, "the municipal websites list"
    return UNKNOWN_CMS, "no generator, vendor or websites-list entry names a known system"


LINK_WEIGHT = {"known": 0.5, "label+address": 0.45, "label": 0.35, "address": 0.25}
CMS_WEIGHT = {"generator": 0.3, "vendor": 0.2, "the": 0.1}  # by the first word of what named it


def confidence(link_how: str, cms_how: str, rows: int, dated: int) -> float:
    """0–1: what found the board (a known page, a labelled link, an address), what named its CMS (a generator, a
    vendor, the websites list) and the share of read rows with a title and a posting date."""
    score = LINK_WEIGHT.get(link_how, 0.0) + CMS_WEIGHT.get(cms_how.split(" ", 1)[0], 0.0)
    score += 0.2 * (dated / rows if rows else 0.0)
    return round(min(score, 1.0), 2)
