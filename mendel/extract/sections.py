"""Czech legal structure headings found at line starts (ČÁST, HLAVA, DÍL, ODDÍL, §, Čl.)."""

from __future__ import annotations

import re
from dataclasses import dataclass

# Order = depth in the hierarchy; § and Čl. are the leaves.
HEADING_LEVELS = {"ČÁST": 1, "HLAVA": 2, "DÍL": 3, "ODDÍL": 4, "§": 5, "Čl.": 5}

HEADING_RE = re.compile(
    r"^[ \t]*(?:"
    r"(?P<part>ČÁST|HLAVA|DÍL|ODDÍL)[ \t]+(?P<part_no>[A-ZÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ]+|\d+)[ \t]*$"
    r"|(?P<para>§)[ \t]*(?P<para_no>\d+[a-z]?)[ \t]*$"
    r"|(?P<article>Čl\.|Článek)[ \t]+(?P<article_no>[IVXLC]+|\d+[a-z]?)[ \t]*$"
    r")",
    re.MULTILINE,
)


@dataclass(frozen=True)
class Heading:
    offset: int  # character offset of the heading line in the document text
    kind: str
    label: str


def find_headings(text: str) -> list[Heading]:
    headings = []
    for match in HEADING_RE.finditer(text):
        if match.group("part"):
            kind, label = match.group("part"), f"{match.group('part')} {match.group('part_no')}"
        elif match.group("para"):
            kind, label = "§", f"§ {match.group('para_no')}"
        else:
            kind, label = "Čl.", f"Čl. {match.group('article_no')}"
        headings.append(Heading(match.start() + len(match.group(0)) - len(match.group(0).lstrip()), kind, label))
    return headings


def section_paths(headings: list[Heading]) -> list[tuple[int, str]]:
    """(offset, path) where each heading opens a section; the path joins the open ancestors with ' > '."""
    stack: list[tuple[int, str]] = []
    paths = []
    for heading in headings:
        level = HEADING_LEVELS[heading.kind]
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, heading.label))
        paths.append((heading.offset, " > ".join(label for _, label in stack)))
    return paths
