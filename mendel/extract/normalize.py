"""Text normalisation for extracted pages, with a map back to the original offsets.

`normalize_with_map(text)` returns the normalised text and, for every one of its characters, the offset of
the original character it came from (a composed "č" points at the "c" of "c + combining caron", a collapsed
run of spaces at its first space, an expanded ligature's letters all at the ligature). The map never goes
backwards, so `bisect` on it finds the normalised position of an original offset.

Steps, in order: line ends to "\\n"; NFC; de-hyphenation of words split at a line end (`zá-\\nkon` ->
`zákon`, only when the next line goes on in lower case, so `Frýdek-\\nMístek` and list dashes stay);
soft hyphens, zero-width and control characters dropped; ligatures expanded; every kind of space to " ";
runs of spaces to one; no spaces at line ends or starts; at most one blank line; no outer whitespace.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Callable

_LINE_ENDS = re.compile(r"\r\n?|[\u2028\u2029\x0b\x0c\x85]")
_COMBINING = re.compile(r".[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+", re.DOTALL)
_HYPHEN_BREAK = re.compile(r"(?<=[^\W\d_])[-\u00ad\u2010][ \t\u00a0]*\n[ \t\u00a0]*(?=[^\W\d_])")
_DROP = re.compile(r"[\u00ad\u200b\u200c\u200d\u2060\ufeff\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f]+")
_LIGATURES = {"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"}
_LIGATURE_RE = re.compile("[" + "".join(_LIGATURES) + "]")
_SPACES = re.compile(r"[\t\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]")
_SPACE_RUNS = re.compile(r" {2,}")
_LINE_EDGE_SPACES = re.compile(r" +\n|\n +")
_BLANK_LINES = re.compile(r"\n{3,}")

Replacement = Callable[[re.Match], str]


def _sub(pattern: re.Pattern, repl: str | Replacement, text: str, mapping: list[int]) -> tuple[str, list[int]]:
    """re.sub that carries the offset map: replacement characters point at the start of what they replace."""
    parts: list[str] = []
    new_map: list[int] = []
    last = 0
    for match in pattern.finditer(text):
        start, end = match.span()
        replacement = repl if isinstance(repl, str) else repl(match)
        if replacement == match.group(0):
            continue
        parts.append(text[last:start])
        new_map.extend(mapping[last:start])
        parts.append(replacement)
        anchor = mapping[start] if start < len(mapping) else (mapping[-1] + 1 if mapping else 0)
        new_map.extend([anchor] * len(replacement))
        last = end
    if last == 0 and not parts:
        return text, mapping
    parts.append(text[last:])
    new_map.extend(mapping[last:])
    return "".join(parts), new_map


def _dehyphenate(match: re.Match) -> str:
    following = match.string[match.end()] if match.end() < len(match.string) else ""
    return "" if following.islower() else match.group(0)


def _nfc_everything(text: str, mapping: list[int]) -> tuple[str, list[int]]:
    """Character by character NFC for the rare text the combining-mark pass leaves unnormalised."""
    parts, new_map = [], []
    for index, char in enumerate(text):
        normal = unicodedata.normalize("NFC", char)
        parts.append(normal)
        new_map.extend([mapping[index]] * len(normal))
    return "".join(parts), new_map


def normalize_with_map(text: str) -> tuple[str, list[int]]:
    mapping = list(range(len(text)))
    text, mapping = _sub(_LINE_ENDS, "\n", text, mapping)
    text, mapping = _sub(_COMBINING, lambda m: unicodedata.normalize("NFC", m.group(0)), text, mapping)
    if not unicodedata.is_normalized("NFC", text):
        text, mapping = _nfc_everything(text, mapping)
    text, mapping = _sub(_HYPHEN_BREAK, _dehyphenate, text, mapping)
    text, mapping = _sub(_DROP, "", text, mapping)
    text, mapping = _sub(_LIGATURE_RE, lambda m: _LIGATURES[m.group(0)], text, mapping)
    text, mapping = _sub(_SPACES, " ", text, mapping)
    text, mapping = _sub(_SPACE_RUNS, " ", text, mapping)
    text, mapping = _sub(_LINE_EDGE_SPACES, "\n", text, _shift_to_newline(text, mapping))
    text, mapping = _sub(_BLANK_LINES, "\n\n", text, mapping)
    start, end = len(text) - len(text.lstrip()), len(text.rstrip())
    return text[start:end], mapping[start:end]


def _shift_to_newline(text: str, mapping: list[int]) -> list[int]:
    # " \n" and "\n " both become "\n"; _sub anchors the replacement at the match start, so for " +\n" the
    # new "\n" would point at the space. Point it at the newline instead by moving the anchor.
    mapping = list(mapping)
    for match in _LINE_EDGE_SPACES.finditer(text):
        if text[match.start()] == " ":
            mapping[match.start()] = mapping[match.end() - 1]
    return mapping


def normalize_text(text: str) -> str:
    return normalize_with_map(text)[0]


_MEANINGFUL = re.compile(r"[^\W_]", re.UNICODE)
_CID = re.compile(r"\(cid:\d+\)")


def meaningful_chars(text: str) -> int:
    """Letters and digits, not counting pdfminer's `(cid:NN)` placeholders for unmapped glyphs."""
    return len(_MEANINGFUL.findall(_CID.sub("", text)))


# Tesseract reads "§" as "S" (or "$") before a number that a legal reference follows.
_OCR_PARAGRAPH = re.compile(
    r"(?<![\w§])[S$](?= ?\d{1,4}[a-z]?\b(?:,| a| až| odst\.| písm\.| zákona| vyhlášky| nařízení| ZVZ| obč))"
)


def fix_ocr_text(text: str) -> str:
    """Czech-legal OCR fixes that keep the length: `S 12 odst. 3` -> `§ 12 odst. 3`."""
    return _OCR_PARAGRAPH.sub("§", text)
