"""The layout of a PDF's text layer: glyphs snapped back onto their line, lines built as pdfplumber builds its text,
and the legal headings the text rules find checked against how they are set. Where a document sets its headings of
a kind (``§``, ``Čl.``, ``ČÁST`` …) apart — larger than the body text, bold, centred or indented — a line of that
kind set like running text (body size, regular, at the left margin: ``§ 16`` wrapped out of a sentence) is not a
heading (:func:`false_headings`)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from pdfplumber.utils.clustering import cluster_objects
from pdfplumber.utils.text import WORD_EXTRACTOR_KWARGS, WordExtractor, get_line_cluster_key

from mendel.extract.sections import HEADING_RE, heading_kind, line_key

TEXT_OPTIONS = {"x_tolerance": 1.5, "y_tolerance": 3}


def snap_chars(chars: list[dict]) -> list[dict]:
    """Glyphs that continue a word (adjacent, same size, mostly overlapping vertically) but sit a little
    higher or lower, typically because they come from a fallback font, are moved onto the word's line."""
    out: list[dict] = []
    prev: dict | None = None
    for char in chars:
        if prev is not None and char.get("upright", True) and prev.get("upright", True):
            size, prev_size = char.get("size") or 0, prev.get("size") or 0
            dy = char["top"] - prev["top"]
            if (
                size
                and prev_size
                and 0.5 < abs(dy)
                and abs(size - prev_size) <= 0.2 * prev_size
                and abs(char["x0"] - prev["x1"]) <= max(1.0, 0.3 * size)
            ):
                height = min(char["bottom"] - char["top"], prev["bottom"] - prev["top"])
                overlap = min(char["bottom"], prev["bottom"]) - max(char["top"], prev["top"])
                if height > 0 and overlap >= 0.5 * height:
                    char = dict(
                        char,
                        top=char["top"] - dy,
                        bottom=char["bottom"] - dy,
                        doctop=char.get("doctop", char["top"]) - dy,
                        y0=char["y0"] + dy,
                        y1=char["y1"] + dy,
                    )
        out.append(char)
        prev = char
    return out


# --- layout of heading lines ---------------------------------------------------------------------

_BOLD_FONT = re.compile(r"bold|black|heavy|semibold|demi|,b$", re.IGNORECASE)
_WORDS = WordExtractor(**{k: v for k, v in TEXT_OPTIONS.items() if k in WORD_EXTRACTOR_KWARGS})


def text_lines(chars: list[dict]) -> list[tuple[str, list[dict]]]:
    """The page's lines with the glyphs on each, built exactly as pdfplumber's `extract_text` builds its
    text (words, then lines clustered top to bottom), so the texts joined with newlines are that text."""
    if not chars:
        return []
    words = _WORDS.extract_words(chars, return_chars=True)
    tolerance = TEXT_OPTIONS["y_tolerance"] if _WORDS.line_dir in ("ttb", "btt") else TEXT_OPTIONS["x_tolerance"]
    lines = cluster_objects(words, get_line_cluster_key(_WORDS.line_dir), tolerance)
    return [(" ".join(word["text"] for word in line), [c for word in line for c in word["chars"]]) for line in lines]


@dataclass(frozen=True)
class HeadingLine:
    """A line the text rules take for a heading, with how it is set."""

    page_no: int
    key: str  # sections.line_key of the line
    occurrence: int  # how many lines with the same key come before it on the page
    kind: str  # §, Čl., ČÁST, …
    size: float  # median glyph size
    bold: float  # share of glyphs in a bold face
    x0: float  # where the line starts
    left: float  # where most of the page's text starts (its left margin)


def page_heading_lines(page_no: int, lines: list[tuple[str, list[dict]]]) -> list[HeadingLine]:
    """The page's lines that HEADING_RE matches, with their typography and the page's left text margin."""
    starts: Counter[int] = Counter()
    for _, glyphs in lines:
        if glyphs:
            starts[round(min(c["x0"] for c in glyphs))] += len(glyphs)
    if not starts:
        return []
    left = float(starts.most_common(1)[0][0])  # where most of the running text starts
    seen: Counter[str] = Counter()
    found = []
    for text, glyphs in lines:
        key = line_key(text)
        occurrence = seen[key]
        seen[key] += 1
        inked = [c for c in glyphs if c["text"].strip()]
        if not inked or not HEADING_RE.match(text):
            continue
        sizes = sorted(float(c.get("size") or 0) for c in inked)
        found.append(
            HeadingLine(
                page_no,
                key,
                occurrence,
                heading_kind(text),
                size=sizes[len(sizes) // 2],
                bold=sum(bool(_BOLD_FONT.search(c.get("fontname") or "")) for c in inked) / len(inked),
                x0=min(c["x0"] for c in inked),
                left=left,
            )
        )
    return found


def body_size(sizes: Counter) -> float:
    """The most common glyph size: the running text's."""
    return float(sizes.most_common(1)[0][0]) if sizes else 0.0


def set_apart(line: HeadingLine, body: float) -> bool:
    """Larger than the body text, bold, or not starting at the left margin (centred, indented, flush right)."""
    if body <= 0:
        return True
    return line.size >= 1.08 * body or line.bold >= 0.5 or line.x0 - line.left > 1.5 * body


def false_headings(lines: list[HeadingLine], sizes: Counter) -> list[HeadingLine]:
    """Heading-rule lines that layout says are running text: set like the body in a document that sets at
    least two headings of the same kind apart. Without that evidence every heading stays."""
    body = body_size(sizes)
    apart = Counter(line.kind for line in lines if set_apart(line, body))
    return [line for line in lines if apart[line.kind] >= 2 and not set_apart(line, body)]
