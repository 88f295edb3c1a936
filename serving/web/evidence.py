"""Where a hit answers the query: character spans of the query's terms in a text, an excerpt around them, and
the boxes of a hit's passage and terms on a PDF page (for the page view).

Terms are matched as BM25 indexes them (``mendel.czech.analyzer``: lower case, no diacritics, light stemming,
legal tokens such as ``§ 5`` or ``175/2025`` whole), so a mark shows a word that the lexical list matched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mendel.czech.analyzer import TOKEN_RE, analyze

# The analyser's tokens, found in the original (not lower-cased) text so offsets stay those of the text.
_TOKEN_ANY_CASE = re.compile(TOKEN_RE.pattern, re.IGNORECASE | re.UNICODE)
EXCERPT_CHARS = 420


def query_terms(query: str) -> frozenset[str]:
    return frozenset(analyze(query))


def term_spans(query: str | frozenset[str], text: str) -> list[tuple[int, int]]:
    """[start, end) character offsets in ``text`` of every token whose index term is one of the query's."""
    terms = query_terms(query) if isinstance(query, str) else query
    if not terms or not text:
        return []
    spans = []
    matches: dict[str, bool] = {}  # token -> is a query term (a text repeats its words)
    for match in _TOKEN_ANY_CASE.finditer(text):
        token = match.group()
        hit = matches.get(token)
        if hit is None:
            found = analyze(token)
            hit = matches[token] = bool(found) and found[0] in terms
        if hit:
            spans.append(match.span())
    return spans


def excerpt_window(text: str, spans: list[tuple[int, int]], size: int = EXCERPT_CHARS) -> tuple[int, int]:
    """[start, end) of the ``size``-character window of ``text`` holding the most marked spans (the start when
    none), widened to word boundaries."""
    if len(text) <= size:
        return 0, len(text)
    best_start, best_count = 0, -1
    for i, (start, _) in enumerate(spans):
        begin = max(0, start - size // 5)
        count = sum(1 for s, e in spans[i:] if e <= begin + size)
        if count > best_count:
            best_start, best_count = begin, count
    start = min(best_start, len(text) - size)
    end = start + size
    if start > 0:
        space = text.find(" ", start, start + 30)
        start = space + 1 if space != -1 else start
    if end < len(text):
        space = text.rfind(" ", end - 30, end)
        end = space if space != -1 else end
    return start, end


def segments(text: str, spans: list[tuple[int, int]], start: int = 0, end: int | None = None) -> list[tuple[str, bool]]:
    """``text[start:end]`` cut into (piece, marked) runs; the HTML escapes each piece and wraps marked ones."""
    end = len(text) if end is None else end
    pieces: list[tuple[str, bool]] = []
    cursor = start
    for s, e in sorted(spans):
        s, e = max(s, start), min(e, end)
        if e <= s or s < cursor:
            continue
        if s > cursor:
            pieces.append((text[cursor:s], False))
        pieces.append((text[s:e], True))
        cursor = e
    if cursor < end:
        pieces.append((text[cursor:end], False))
    return pieces


# --- on a PDF page ----------------------------------------------------------------------------------------


@dataclass
class Box:
    """A rectangle on the page as fractions of its width and height, from the top left."""

    left: float
    top: float
    width: float
    height: float

    def as_percent(self) -> dict[str, float]:
        return {k: round(v * 100, 3) for k, v in vars(self).items()}


@dataclass
class PageEvidence:
    passage: list[Box] = field(default_factory=list)  # the lines of the hit's passage on this page
    terms: list[Box] = field(default_factory=list)  # query terms inside the passage (or the page)
    located: bool = False  # the passage was found in the page's own text
    note: str = ""
    image_size: tuple[int, int] = (0, 0)  # the rendered PNG's pixels (for the img's width/height)


_ANCHOR_LENGTHS = (48, 24, 12)


def _compact(text: str) -> tuple[str, list[int]]:
    """``text`` without whitespace, and each kept character's offset in ``text``."""
    kept = [(i, c) for i, c in enumerate(text) if not c.isspace()]
    return "".join(c for _, c in kept), [i for i, _ in kept]


def _find_anchor(haystack: str, passage: str, from_end: bool) -> tuple[int, int] | None:
    """Compact offsets [start, end) in ``haystack`` of the passage's opening (or closing) characters, trying
    shorter anchors and later starting points when the extractions differ (hyphenation, ligatures)."""
    for length in _ANCHOR_LENGTHS:
        for shift in range(0, min(len(passage), 4 * length), length):
            anchor = passage[-(shift + length) : len(passage) - shift] if from_end else passage[shift : shift + length]
            if len(anchor) < min(length, 8):
                continue
            where = haystack.rfind(anchor) if from_end else haystack.find(anchor)
            if where != -1:
                # the anchor sits `shift` characters inside the passage: move the boundary out by as much
                return (where, where + length + shift) if from_end else (max(0, where - shift), where + length)
    return None


def locate_passage(page_text: str, passage: str, starts_here: bool, ends_here: bool) -> tuple[int, int] | None:
    """[start, end) in ``page_text`` of the part of ``passage`` on this page: from its opening when the passage
    starts on this page (else the page top) to its close when it ends here (else the page end). None when an
    anchor is not in the page's text (another extraction, OCR)."""
    compact, offsets = _compact(page_text)
    target, _ = _compact(passage)
    if not compact or not target:
        return None
    start, end = 0, len(compact)
    if starts_here:
        found = _find_anchor(compact, target, from_end=False)
        if found is None:
            return None
        start = found[0]
    if ends_here:
        found = _find_anchor(compact[start:], target, from_end=True)
        if found is None:
            return None
        end = start + found[1]
    if end <= start:
        return None
    return offsets[start], offsets[end - 1] + 1
