"""Running headers and footers (``Strana 3 Akt č. 175 / 2025 Sb.``, page numbers) repeated on most pages of a
document, found and dropped; headings are never dropped."""

from __future__ import annotations

import re
from collections import Counter

from mendel.extract.sections import HEADING_RE

_DIGITS = re.compile(r"\d+")
_EDGE_LINES = 3


_PUNCT = re.compile(r"[^\w#]+")


def _line_key(line: str) -> str:
    """A line with numbers as "#", punctuation dropped and words sorted, so that OCR'd and typeset headers
    compare equal, and so do the mirrored headers of even and odd pages (`Strana 2 Akt č. 87 / 2024 Sb.`,
    `Akt č. 87 / 2024 Sb. Strana 3`)."""
    return " ".join(sorted(_PUNCT.sub(" ", _DIGITS.sub(" # ", line)).lower().split()))


def strip_running_lines(texts: list[str]) -> list[str]:
    """Drop the lines among each page's first and last three that recur (numbers aside) on at least 40 % of
    the pages (and on at least 2 when they carry a number, else 3): running headers, footers and page
    numbers. Headings are never dropped."""
    with_text = [t for t in texts if t.strip()]
    if len(with_text) < 3:
        return texts
    counts: Counter[str] = Counter()
    for text in with_text:
        lines = [line for line in text.split("\n") if line.strip()]
        edge = set(lines[:_EDGE_LINES] + lines[-_EDGE_LINES:])
        counts.update({_line_key(line) for line in edge})
    share = int(0.4 * len(with_text) + 0.999)
    running = {key for key, n in counts.items() if key and n >= max(2 if "#" in key else 3, share)}
    if not running:
        return texts
    out = []
    for text in texts:
        lines = text.split("\n")
        filled = [i for i, line in enumerate(lines) if line.strip()]
        edges = set(filled[:_EDGE_LINES] + filled[-_EDGE_LINES:])
        out.append(
            "\n".join(
                line
                for i, line in enumerate(lines)
                if not (i in edges and _line_key(line) in running and not HEADING_RE.match(line))
            )
        )
    return out
