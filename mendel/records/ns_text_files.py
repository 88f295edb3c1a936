"""Nejvyšší soud decisions kept as text files (the sample corpus's ``courts/ns_full/``): where the header ends and
the decision text begins, and the header fields as the file labels them.

``rozhodnuti-*.txt`` start with the NS site's header ("Label: value" lines between blank lines; a právní věta on
the lines after its label), then the text. ``NS1–3.txt`` are decisions of the Sbírka soudních rozhodnutí: three
title lines (the last is the ECLI), the Sbírka's header (a value may go on over the next lines: the list of
provisions) and, after "Sbírkový text rozhodnutí:", the text. The mirror serves these files as the NS site's pages;
the held-out evaluation of the recogniser scores their text against their listed provisions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

NS_HEADER = (
    "Název judikátu",
    "Právní věta",
    "Soud",
    "Spisová značka",
    "Datum rozhodnutí",
    "Typ rozhodnutí",
    "Heslo",
    "Dotčené předpisy",
    "Kategorie rozhodnutí",
    "Publikováno ve sbírce pod číslem",
    "Důvod dovolání",
)
SBIRKA_HEADER = (
    "Číslo",
    "Právní věta",
    "Soud",
    "Datum rozhodnutí",
    "Spisová značka",
    "Číslo rozhodnutí",
    "Číslo sešitu",
    "Typ rozhodnutí",
    "Hesla",
    "Předpisy",
    "Druh",
)
SBIRKA_TEXT = "Sbírkový text rozhodnutí:"
_LABELLED = re.compile(r"^(?P<label>[^:\n]{2,40}):[ \t]*(?P<value>.*)$")
_ECLI = re.compile(r"ECLI:CZ:NS:\d{4}:[\w.]+")


def _label(line: str, labels: tuple[str, ...]) -> tuple[str, str] | None:
    m = _LABELLED.match(line)
    return (m.group("label").strip(), m.group("value").strip()) if m and m.group("label").strip() in labels else None


def site_header(lines: list[str]) -> tuple[list[tuple[str, str]], int]:
    """The NS site's header fields and the line the text starts at."""
    header: list[tuple[str, str]] = []
    continuing = False  # inside a value that goes on over the next lines (a právní věta, a two-line name)
    for index, line in enumerate(lines):
        labelled = _label(line, NS_HEADER)
        if labelled:
            header.append(labelled)
            continuing = True
        elif not line.strip():
            continuing = continuing and not header[-1][1]  # a blank line ends a value that has begun
        elif continuing:
            header[-1] = (header[-1][0], f"{header[-1][1]} {line.strip()}".strip())
        else:
            return header, index
    return header, len(lines)


def sbirka_header(lines: list[str]) -> tuple[list[tuple[str, str]], int]:
    """The Sbírka's header fields (after the three title lines) and the line the text starts at."""
    header: list[tuple[str, str]] = []
    for index, line in enumerate(lines):
        if line.strip() == SBIRKA_TEXT:
            return header, index + 1
        labelled = _label(line, SBIRKA_HEADER)
        if labelled:
            header.append(labelled)
        elif line.strip() and header:
            header[-1] = (header[-1][0], f"{header[-1][1]}\n{line.strip()}".strip())
    return header, len(lines)


@dataclass(frozen=True)
class TextFile:
    header: list[tuple[str, str]]  # (label, value) in the file's order
    text: str  # the decision text after the header
    ecli: str | None  # only the one a Sbírka file's title lines give


def read_text_file(path: Path) -> TextFile:
    """A file's header fields and its text."""
    lines = path.read_text(encoding="utf-8").replace("\r\n", "\n").split("\n")
    ecli = None
    if path.name.startswith("NS"):
        found = _ECLI.search(" ".join(lines[:3]))
        ecli = found.group(0) if found else None
        header, start = sbirka_header(lines[3:])
        start += 3
    else:
        header, start = site_header(lines)
    return TextFile(header, "\n".join(lines[start:]).strip("\n"), ecli)
