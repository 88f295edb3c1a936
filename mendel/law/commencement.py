"""When an act took effect, as far as its stored versions show it.

An act's earliest stored version is its original wording only when the source says so: e-Sbírka numbers it 1, it
is the promulgated text itself, or the act's stored document is the promulgated text (the Sbírka's verified PDF),
whose wording the first version is. An act known only by later consolidated wordings (a code stored as in force
today) took effect on a day its versions do not show, and what it said before is not in the collection: nothing
may call its earliest stored wording the original or date the act's commencement by it.
"""

from __future__ import annotations

from datetime import date
from typing import Iterable

ANNOUNCED_VERSION = "0000-00-00"  # act_versions.version of the text as promulgated
PROMULGATED_TEXT = "law"  # documents.doc_type of an act whose stored document is the Sbírka's verified PDF


def is_promulgated_text(doc_type: str | None) -> bool:
    """Whether an act's stored document (of ``doc_type``) is its promulgated text, whose wording its earliest
    version is."""
    return doc_type == PROMULGATED_TEXT


def commencement(versions: Iterable[tuple[str, date | None, int | None]], promulgated_stored: bool) -> date | None:
    """The day the act took effect, from ``versions`` — (version, effective from, e-Sbírka's number) of each
    stored version — and whether its stored document is its promulgated text; None where they do not show it."""
    versions = [(version, since, number) for version, since, number in versions if since]
    for version, since, number in versions:
        if version == ANNOUNCED_VERSION or number == 1:
            return since
    return min(since for _, since, _ in versions) if versions and promulgated_stored else None
