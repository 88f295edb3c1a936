"""A document's title: its metadata title when it reads like one (not ``Microsoft Word - dopis.doc``), else an
act's type line and the lines that go on with it, else the first line that reads like a title."""

from __future__ import annotations

import re

from mendel.extract.sections import HEADING_RE

_ACT_LINE = re.compile(
    r"^(?:Ústavní zákon|ÚSTAVNÍ ZÁKON|Zákon|ZÁKON|Vyhláška|VYHLÁŠKA|Nařízení vlády|NAŘÍZENÍ VLÁDY|Nařízení|NAŘÍZENÍ"
    r"|Obecně závazná vyhláška|OBECNĚ ZÁVAZNÁ VYHLÁŠKA|Opatření obecné povahy|OPATŘENÍ OBECNÉ POVAHY|Sdělení|SDĚLENÍ"
    r"|Usnesení|USNESENÍ|Nález|NÁLEZ|Rozsudek|ROZSUDEK|Rozhodnutí|ROZHODNUTÍ)\b"
)
_TITLE_STOP = re.compile(r"se usnesl|nařizuje|vyhlašuje|stanoví podle|^(?:Parlament|Vláda|Ministerstvo|PREAMBULE)")
_JUNK_TITLE = re.compile(r"^(?:Microsoft Word - |Snímek|Slide|Dokument|Document|dopis$|untitled|Untitled|PowerPoint)")


def good_metadata_title(title: str | None) -> str | None:
    if not title:
        return None
    title = " ".join(str(title).split())
    letters = sum(ch.isalpha() for ch in title)
    if (
        len(title.split()) < 2
        or letters < 6
        or _JUNK_TITLE.match(title)
        or title.lower().endswith((".doc", ".docx", ".pdf"))
    ):
        return None
    return title[:300]


def title_from_text(text: str) -> str | None:
    """An act's type line and the lines that go on with it, else the first line that reads like a title."""
    lines = [line.strip() for line in text.split("\n")[:40]]
    for index, line in enumerate(lines):
        if _ACT_LINE.match(line):
            parts = [line]
            for following in lines[index + 1 : index + 6]:
                if not following or HEADING_RE.match(following) or _TITLE_STOP.search(following):
                    break
                parts.append(following)
            return " ".join(" ".join(parts).split())[:300]
    for line in lines[:15]:
        if len(line.split()) >= 2 and sum(ch.isalpha() for ch in line) >= 8:
            return line[:300]
    return None
