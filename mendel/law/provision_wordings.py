"""How people say what one provision settles, for the encoder: a table of everyday wordings per § / čl. of the
acts people ask about most ("89/2012 Sb." § 2874 → "sázka s kamarádem o peníze", …).

A heading's lay wordings (:mod:`mendel.law.heading_wordings`) are shared by every provision under it, so they
bring a group of neighbours near a question but never tell them apart; a provision's own wordings say what it
settles that its neighbours do not. They are derived text, written from each provision's text and headings
alone: the encoder reads them beside the passage (``mendel.index.corpus.dense_text``), never BM25, never the
stored or shown text.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from mendel.data import DATA_DIR, read_table
from mendel.law.heading_wordings import heading_wordings

PROVISION_WORDINGS_FILE = DATA_DIR / "provision_wordings.v1.yaml"
PROVISION_WORDINGS_MAX = 4  # a provision's own wordings at most: the file's order, the first written first
_PROVISION = re.compile(r"^(?:§|čl\.)", re.IGNORECASE)


def provision_key(designation: str) -> str:
    """ "§ 2389m", "Čl. 15", "čl.  15" → one spelling ("§ 2389m", "čl. 15")."""
    return " ".join(designation.lower().replace("§", "§ ").replace("čl.", "čl. ").split())


@functools.lru_cache(maxsize=4)
def wordings_by_provision(path: Path = PROVISION_WORDINGS_FILE) -> dict[tuple[str, str], tuple[str, ...]]:
    """(act citation, provision key) → the provision's own wordings, at most ``PROVISION_WORDINGS_MAX``."""
    data = read_table(path) or {}
    found: dict[tuple[str, str], tuple[str, ...]] = {}
    for citation, provisions in (data.get("acts") or {}).items():
        for designation, wordings in (provisions or {}).items():
            unique = tuple(dict.fromkeys(str(w).strip() for w in wordings or () if str(w).strip()))
            if unique:
                found[(" ".join(str(citation).split()), provision_key(str(designation)))] = unique[
                    :PROVISION_WORDINGS_MAX
                ]
    return found


def provision_of(citation: str | None, section: str) -> tuple[str, str] | None:
    """The table's key of the provision a passage of the act ``citation`` belongs to: the last part of its
    section path, when that is a § or čl.; None for any other passage."""
    last = (section or "").rsplit(" > ", 1)[-1].strip()
    if not citation or not _PROVISION.match(last):
        return None
    return " ".join(citation.split()), provision_key(last)


def provision_wordings(citation: str | None, section: str, path: Path = PROVISION_WORDINGS_FILE) -> list[str]:
    """The own wordings of the provision a passage of the act ``citation`` belongs to (:func:`provision_of`)."""
    key = provision_of(citation, section)
    return list(wordings_by_provision(path).get(key, ())) if key else []


def lay_wordings(citation: str | None, section: str) -> list[str]:
    """What the encoder reads beside an act's passage: the provision's own wordings, then its heading's."""
    own = provision_wordings(citation, section)
    return own + [w for w in heading_wordings(section) if w not in own]
