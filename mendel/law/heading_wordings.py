"""How people say what a provision's heading names, for the encoder: the legal vocabulary's lay wordings of the
heading over an act's provision ("Výživné rozvedeného manžela" → "alimenty pro bývalou manželku", "výživné po
rozvodu", …).

The vocabulary maps legal wordings, many of them the codes' own headings, to the ways people say them; the bridge
reads it on the query's side. Read on the passage's side too, the encoder places a provision nearer the lay
questions its heading answers even when the question says it in words of its own. The wordings are derived text: they
go into what the encoder reads of a passage (``mendel.index.corpus.dense_text``), never into a passage's stored
or shown text, nor into BM25's.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from mendel.data import read_table
from mendel.law.vocabulary import VOCABULARY_FILE, phrase_key

HEADING_WORDINGS_MAX = 10  # wordings a passage carries at most: the file's order, the first written first
# a division's designation before its heading in a section path ("pododdíl 2 Zvláštní ustanovení o nájmu bytu")
_DESIGNATION = re.compile(r"^(?:část|hlava|díl|oddíl|pododdíl)\s+\S+\s*", re.IGNORECASE)
_PROVISION = re.compile(r"^(?:§|čl\.)", re.IGNORECASE)


@functools.lru_cache(maxsize=4)
def wordings_by_heading(path: Path = VOCABULARY_FILE) -> dict[tuple[str, ...], tuple[str, ...]]:
    """The vocabulary's lay wordings by the key of the legal wording they stand for (areas only: the equivalents
    and abbreviations are no headings)."""
    data = read_table(path)
    found: dict[tuple[str, ...], list[str]] = {}
    for entries in (data.get("areas") or {}).values():
        for legal, wordings in entries.items():
            key = phrase_key(str(legal))
            if key:
                known = found.setdefault(key, [])
                known.extend(w for w in wordings if w not in known)
    return {key: tuple(wordings) for key, wordings in found.items()}


def heading_wordings(section: str, path: Path = VOCABULARY_FILE) -> list[str]:
    """The lay wordings of the heading a provision's passage stands under: the part of its section path just
    before the § or čl. (its own or group heading, else the division above it without its designation)."""
    parts = [part.strip() for part in section.split(" > ")]
    if len(parts) < 2 or not _PROVISION.match(parts[-1]):
        return []
    heading = _DESIGNATION.sub("", parts[-2])
    return list(wordings_by_heading(path).get(phrase_key(heading), ())[:HEADING_WORDINGS_MAX])
