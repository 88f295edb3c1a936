"""Czech legal structure: headings found at line starts and the section tree they open.

A heading is a whole line: `ČÁST PRVNÍ`, `ČÁST DVACÁTÁ PRVNÍ`, `HLAVA II`, `Díl 1`, `Oddíl 2`, `Pododdíl 3`,
`§ 5`, `§ 74d`, `Čl. I`, `Článek 3.`, `Příloha č. 1`. Their rank orders the tree: ČÁST > HLAVA > DÍL > ODDÍL >
PODODDÍL > (generic headings) > § / Čl.; an annex (PŘÍLOHA) ranks with ČÁST. A reference that wraps onto a
line of its own (`§ 5 odst. 2`, `čl. 3 písm. a)`) is not a heading: the line must end after the number.
For PDFs, `build_sections` also leaves out the lines that layout shows to be running text
(`mendel.extract.pdf_layout.false_headings`) and stops sections where back matter begins.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass

from mendel.extract.model import Section

# Rank in the hierarchy: a heading closes every open section of the same or a deeper rank.
HEADING_LEVELS = {
    "PŘÍLOHA": 1,
    "ČÁST": 1,
    "HLAVA": 2,
    "DÍL": 3,
    "ODDÍL": 4,
    "PODODDÍL": 5,
    "§": 7,
    "Čl.": 7,
}
GENERIC_LEVEL = 6  # generic headings (DOCX/HTML heading styles) sit between the divisions and § / Čl.

_UPPER = "A-ZÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ"
_ORDINAL = rf"[{_UPPER}]+(?:[ \t]+[{_UPPER}]+){{0,2}}"  # PRVNÍ, DVACÁTÁ PRVNÍ, I, XIV
_NUMBER = r"\d+[a-z]?"
_ORDINAL_WORD = (
    r"(?:[Pp]rvní|[Dd]ruh[áý]|[Tt]řetí|[Čč]tvrt[áý]|[Pp]át[áý]|[Šš]est[áý]|[Ss]edm[áý]|[Oo]sm[áý]"
    r"|[Dd]evát[áý]|[Dd]esát[áý])"
)

HEADING_RE = re.compile(
    r"^[ \t]*(?:"
    rf"(?P<part>ČÁST|HLAVA|DÍL|ODDÍL|PODODDÍL)[ \t]+(?P<part_no>{_ORDINAL}|{_NUMBER})\.?[ \t]*$"
    rf"|(?P<part_t>Část|Hlava|Díl|Oddíl|Pododdíl)[ \t]+(?P<part_t_no>{_NUMBER}|[IVXLC]+|{_ORDINAL_WORD})\.?[ \t]*$"
    rf"|(?P<para>§)[ \t]*(?P<para_no>{_NUMBER})(?P<para_dot>\.)?[ \t]*$"
    rf"|(?P<article>Čl\.|Článek|ČLÁNEK)[ \t]*(?P<article_no>[IVXLC]+|{_NUMBER})\.?[ \t]*$"
    rf"|(?P<annex>Příloha|PŘÍLOHA)(?:[ \t]+(?:č\.|Č\.)[ \t]*(?P<annex_no>{_NUMBER}))?"
    r"(?P<annex_rest>[ \t]+k[ \t][^\n]{1,120})?[ \t]*$"
    r")",
    re.MULTILINE,
)


@dataclass(frozen=True)
class Heading:
    offset: int  # character offset of the heading line in the document text
    kind: str
    label: str


def _heading(match: re.Match) -> Heading:
    offset = match.start() + len(match.group(0)) - len(match.group(0).lstrip())
    if match.group("part"):
        kind = match.group("part")
        return Heading(offset, kind, f"{kind} {' '.join(match.group('part_no').split())}")
    if match.group("part_t"):
        word = match.group("part_t")
        return Heading(offset, word.upper(), f"{word} {match.group('part_t_no')}")
    if match.group("para"):
        return Heading(offset, "§", f"§ {match.group('para_no')}")
    if match.group("article"):
        return Heading(offset, "Čl.", f"Čl. {match.group('article_no')}")
    number = match.group("annex_no")
    return Heading(offset, "PŘÍLOHA", f"Příloha č. {number}" if number else "Příloha")


def heading_kind(line: str) -> str:
    """The kind (ČÁST, §, Čl., …) of a line HEADING_RE matches."""
    match = HEADING_RE.match(line)
    if match is None:
        raise ValueError(f"not a heading line: {line!r}")
    return _heading(match).kind


def line_key(line: str) -> str:
    """A line compared across text-layer reading and normalisation: NFC, whitespace collapsed."""
    return " ".join(unicodedata.normalize("NFC", line).split())


def line_offsets(text: str, wanted: set[tuple[str, int]]) -> list[int]:
    """Offsets (first non-space character) of the lines of `text` named by (line_key, how many lines with
    that key come before it)."""
    seen: dict[str, int] = {}
    found = []
    position = 0
    for line in text.split("\n"):
        key = line_key(line)
        count = seen.get(key, 0)
        seen[key] = count + 1
        if (key, count) in wanted:
            found.append(position + len(line) - len(line.lstrip()))
        position += len(line) + 1
    return found


_SENTENCE_END = '.:;!?)"”“'


def _after_sentence(text: str, offset: int) -> bool:
    """The line before `offset` is empty or ends a sentence (so `§ 16.` there is a heading, not the end of a
    reference wrapped onto its own line: `... stanoví-li tak\n§ 16.`)."""
    line_start = text.rfind("\n", 0, offset) + 1
    if line_start == 0:
        return True
    previous = text[text.rfind("\n", 0, line_start - 1) + 1 : line_start - 1].strip()
    return not previous or previous[-1] in _SENTENCE_END


def find_headings(text: str) -> list[Heading]:
    headings = []
    for match in HEADING_RE.finditer(text):
        heading = _heading(match)
        if match.group("para_dot") and not _after_sentence(text, heading.offset):
            continue
        headings.append(heading)
    return headings


def section_paths(headings: list[Heading]) -> list[tuple[int, str]]:
    """(offset, path) where each heading opens a section; the path joins the open ancestors with ' > '."""
    stack: list[tuple[int, str]] = []
    paths = []
    for heading in headings:
        level = HEADING_LEVELS.get(heading.kind, GENERIC_LEVEL)
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, heading.label))
        paths.append((heading.offset, " > ".join(label for _, label in stack)))
    return paths


@dataclass(frozen=True)
class ExtraHeading:
    """A heading known from layout (a DOCX heading style, an HTML <h2>, a notice): its own rank."""

    offset: int
    label: str
    level: float = GENERIC_LEVEL
    kind: str = "heading"


def build_sections(
    text: str,
    page_starts: list[int],
    extra: list[ExtraHeading] | None = None,
    not_headings: set[int] | None = None,
    body_end: int | None = None,
) -> list[Section]:
    """The section tree of `text` (pages joined with "\\n\\n"; `page_starts` = where each page begins).

    A section runs from its heading to the next heading of the same or a higher rank (trailing whitespace
    trimmed), and no further than `body_end` (where back matter such as a publisher's imprint starts).
    `extra` headings at an offset where a rule heading also starts are dropped: the rule wins. Rule
    headings at the offsets in `not_headings` (layout says they are running text) are left out.
    """
    skip = not_headings or set()
    items: list[tuple[int, float, str, str]] = [
        (h.offset, float(HEADING_LEVELS[h.kind]), h.kind, h.label) for h in find_headings(text) if h.offset not in skip
    ]
    rule_offsets = {offset for offset, *_ in items}
    for heading in extra or []:
        if heading.offset not in rule_offsets and heading.label.strip():
            items.append((heading.offset, float(heading.level), heading.kind, " ".join(heading.label.split())))
    items.sort(key=lambda item: (item[0], item[1]))

    starts = page_starts or [0]
    stack: list[tuple[float, int]] = []  # (rank, index into sections)
    opened: list[tuple[int, float, str, str, int | None, int, str]] = []
    ends: list[int] = []
    for offset, rank, kind, label in items:
        while stack and stack[-1][0] >= rank:
            _, index = stack.pop()
            ends[index] = offset
        parent = stack[-1][1] if stack else None
        depth = opened[parent][5] + 1 if parent is not None else 1
        path = f"{opened[parent][6]} > {label}" if parent is not None else label
        opened.append((offset, rank, kind, label, parent, depth, path))
        ends.append(body_end if body_end is not None and offset < body_end else len(text))
        stack.append((rank, len(opened) - 1))

    sections = []
    for (offset, _, kind, label, parent, depth, path), end in zip(opened, ends):
        while end > offset and text[end - 1].isspace():
            end -= 1
        last = max(offset, end - 1)
        sections.append(
            Section(
                kind=kind,
                label=label,
                path=path,
                depth=depth,
                page_start=max(1, bisect.bisect_right(starts, offset)),
                page_end=max(1, bisect.bisect_right(starts, last)),
                char_start=offset,
                char_end=end,
                parent=parent,
            )
        )
    return sections
