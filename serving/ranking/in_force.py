"""Search in force: which of an act's passages a search on a date serves, and what each hit says of its version.

Every chunk of an act carries its version (``mendel.passages.act_passages.ActChunkVersions``): ``version_eli``,
``version_kind`` (``promulgated``: the Sbírka PDF's text; ``consolidated``), ``valid_from`` / ``valid_to`` and
``served_from`` / ``served_to`` (when it is the act's latest text with a start on or before the date). By default a
search on ``at`` keeps an act's chunks whose served window holds ``at`` — the version in force, or, before the act
takes effect, its first version (status ``not_yet_in_force``); ``version="promulgated"`` keeps an act's promulgated
text whatever the date. Chunks of other documents (decisions, notices …) are always kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import numpy as np

from mendel.law.commencement import is_promulgated_text

PROMULGATED = "promulgated"
VERSIONS = (PROMULGATED,)
_OPEN_START = np.iinfo(np.int64).min
_OPEN_END = np.iinfo(np.int64).max


def _day(value: str | None, open_value: int) -> int:
    return date.fromisoformat(value).toordinal() if value else open_value


@dataclass
class VersionColumns:
    """One layer's chunks as arrays: whether each is an act's, its kind and its served window (day numbers)."""

    act: np.ndarray
    promulgated: np.ndarray
    served_from: np.ndarray
    served_to: np.ndarray

    @classmethod
    def of(cls, chunks: list[dict]) -> "VersionColumns":
        # one pass: a bundle's layer parses a row each time it is read (four passes took ~7 s of the real bundle's
        # first search)
        count = len(chunks)
        columns = cls(
            act=np.zeros(count, bool),
            promulgated=np.zeros(count, bool),
            served_from=np.full(count, _OPEN_START, np.int64),
            served_to=np.full(count, _OPEN_END, np.int64),
        )
        for i, chunk in enumerate(chunks):
            if "version_kind" in chunk:
                columns.act[i] = True
                columns.promulgated[i] = chunk["version_kind"] == PROMULGATED
            columns.served_from[i] = _day(chunk.get("served_from"), _OPEN_START)
            columns.served_to[i] = _day(chunk.get("served_to"), _OPEN_END)
        return columns

    def mask(self, at: date, version: str | None = None) -> np.ndarray | None:
        """Chunks a search on ``at`` may return; None when the layer holds no act's chunk."""
        if not self.act.any():
            return None
        if version == PROMULGATED:
            return ~self.act | self.promulgated
        day = at.toordinal()
        return ~self.act | ((self.served_from <= day) & (day <= self.served_to))


def check_version(version: str | None) -> str | None:
    if version is not None and version not in VERSIONS:
        raise ValueError(f"version must be one of {', '.join(VERSIONS)} (or none: the version in force)")
    return version


def combine(allowed: np.ndarray | None, in_force: np.ndarray | None) -> np.ndarray | None:
    if in_force is None:
        return allowed
    return in_force if allowed is None else allowed & in_force


def from_original(document: dict | None) -> bool:
    """Whether an act's versions run from its original wording: its stored document is its promulgated text
    (``mendel.law.commencement``). An act known by later consolidated wordings only may have been in force before
    its earliest stored version."""
    return is_promulgated_text((document or {}).get("doc_type"))


def version_of(chunk: dict, at: date, original: bool = True) -> dict:
    """A hit's version fields on ``at``: ``version_eli`` (of the version in force on ``at`` among those the
    passage's wording belongs to), ``version_kind``, ``valid_from`` / ``valid_to`` and ``status``
    (``in_force``, ``not_yet_in_force``, ``superseded``, ``validity_unknown``; ``before_stored_versions`` before the
    earliest stored version of an act whose versions do not run from its ``original`` wording: :func:`from_original`);
    {} for a chunk of no act."""
    if "version_kind" not in chunk:
        return {}
    eli, start, end = chunk.get("version_eli"), chunk.get("valid_from"), chunk.get("valid_to")
    day = at.isoformat()
    for candidate, since, until in chunk.get("versions") or []:
        if since and since <= day and (until is None or day <= until):
            eli, start, end = candidate, since, until
            break
    if not start:
        status = "validity_unknown"
    elif day < start:
        status = "not_yet_in_force" if original else "before_stored_versions"
    elif end and day > end:
        status = "superseded"
    else:
        status = "in_force"
    fields = {
        "version_eli": eli,
        "version_kind": chunk["version_kind"],
        "valid_from": start,
        "valid_to": end,
        "status": status,
    }
    if chunk.get("provision"):
        fields["provision"] = chunk["provision"]
    if chunk.get("page_of"):
        fields["page_of"] = chunk["page_of"]
    return fields
