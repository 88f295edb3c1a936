"""One search as every client receives it: the API's /search body, the search page and `mendel search --json`
are all this payload, so a hit has the same fields wherever it is read.

A search ranks ``RANKED`` passages (more when a page asks for more); the payload counts them (``total``: passages,
or documents when grouped), and gives one page of them: ``k`` passages, or ``k`` documents each with its best
``PASSAGES_PER_DOCUMENT`` passages (``documents``) and those passages as ``results``."""

from __future__ import annotations

import math
from datetime import date

from serving.ranking.search import CANDIDATES
from serving.web.evidence import query_terms, term_spans
from serving.web.labels import doc_type_label
from serving.web.source_links import source_url

RANKED = CANDIDATES  # passages ranked for every page: the search's own depth, so page 1 is what it always was
MAX_RANKED = 500  # a far page of many passages ranks no deeper than this
PASSAGES_PER_DOCUMENT = 3


# What a hit's document is, beyond its text: its kind (a record is labelled as one, never as a decision or an act's
# text), for a record document or a notice attachment where it comes from, for a notice its attachments, and
# whether it is served from its last good version.
GROUNDING_KEYS = ("record", "record_sources", "notice", "attachments", "last_good_version")

# What every client's hit carries besides the searcher's Hit: name -> (type, default, description). The API's hit
# model declares them (serving.web.models).
HIT_ADDITIONS: dict[str, tuple] = {
    "highlights": (
        list[list[int]],
        [],
        "[start, end) character offsets in text of the words matching the query's terms",
    ),
    "kind": (str | None, None, "the document's type (documents.json doc_type)"),
    "kind_label": (str | None, None, "the document's type in Czech"),
    "record": (str | None, None, "a record document: the record it renders (ruian:obec:564729, esbirka:/sb/2025/573)"),
    "record_sources": (list[dict] | None, None, "a record document: the files and API records it is from"),
    "notice": (dict | None, None, "a notice's attachment: the notice (doc_id, title, url, board) it hangs on"),
    "last_good_version": (
        dict | None,
        None,
        "the document's newest version is quarantined (failed hard quality checks): the hit is from its last good "
        "version (sha256), with the quarantined version's sha256, since when and why",
    ),
    "attachments": (
        list[dict] | None,
        None,
        "a notice: its attachments in order (doc_id, name, stored: whether it was fetched and is searchable)",
    ),
    "source_url": (
        str | None,
        None,
        "the document's address on its source's own site (none where no real address is known: the demo "
        "mirror's made-up board hosts)",
    ),
}


def document_kind(doc: dict | None) -> dict:
    """``kind`` (documents.json ``doc_type``), its Czech ``kind_label`` and the document's grounding fields."""
    doc = doc or {}
    kind = doc.get("doc_type")
    return {
        "kind": kind,
        "kind_label": doc_type_label(kind),
        **{key: doc[key] for key in GROUNDING_KEYS if doc.get(key)},
    }


def hit_record(hit, terms: frozenset[str]) -> dict:
    """A hit's fields, plus ``highlights``: [start, end) offsets in its text of the query's terms."""
    record = hit.to_dict()
    record["highlights"] = [[start, end] for start, end in term_spans(terms, hit.text)]
    record["source_url"] = source_url(hit.url, hit.source)
    return record


def search_payload(
    query: str,
    bundle_version: str,
    hits: list,
    details: dict,
    not_applied: list[str] | None = None,
    at: date | None = None,
) -> dict:
    terms = query_terms(query)
    payload = {
        "query": query,
        "bundle": bundle_version,
        "scope": details.get("scope"),
        "layer": details.get("layer", 3),
        "subqueries": details.get("subqueries", []),
        "results": [hit_record(h, terms) for h in hits],
    }
    coverage = details.get("coverage", getattr(hits, "coverage", None))
    if coverage is not None:
        payload["coverage"] = coverage
    payload["at"] = at.isoformat() if at is not None else None
    payload["not_applied"] = list(not_applied or [])
    return payload


IN_FORCE_OPTIONS = ("at", "version")


def by_document(hits: list) -> list[tuple[list, int]]:
    """Hits grouped by document in the order of each document's best hit: (its best ``PASSAGES_PER_DOCUMENT``
    hits, how many more of its passages were ranked)."""
    groups: dict[str, list] = {}
    for hit in hits:
        groups.setdefault(hit.doc_id, []).append(hit)
    return [(found[:PASSAGES_PER_DOCUMENT], max(0, len(found) - PASSAGES_PER_DOCUMENT)) for found in groups.values()]


DOCUMENT_KEYS = ("doc_id", "title", "source", "url", "source_url", "citation", "kind", "kind_label")


def run_search(
    searcher,
    query: str,
    k: int = 10,
    filters=None,
    at: date | None = None,
    version: str | None = None,
    page: int = 1,
    group: bool = False,
    **options,
) -> tuple[dict, list]:
    """Search ``searcher`` and build the payload of one page; returns it and that page's hits (for the query log).

    ``filters`` (``serving.ranking.filters.SearchFilters``: sources, kinds, dates, act, place) restrict the passages
    every ranked list draws from, so a filter never hides a match. ``at`` (default: today) is the date an act's
    passages are in force on, ``version="promulgated"`` asks for acts' promulgated text instead
    (``serving.ranking.in_force``); the payload echoes the date searched. A searcher that does not apply them says so
    in ``details["not_applied"]``, and so does the payload (both backends apply them)."""
    details: dict = {}
    at = at or date.today()
    ranked = min(MAX_RANKED, max(RANKED, k if group else page * k))
    hits = searcher.search(query, k=ranked, filters=filters, details=details, at=at, version=version, **options)
    if (details.get("coverage") or {}).get("empty"):
        hits = []  # below the relevance floor with nothing matching: no hits (the coverage block says why)
    not_applied = [name for name in details.get("not_applied", ()) if name in IN_FORCE_OPTIONS]
    first = (page - 1) * k
    if group:
        groups = by_document(hits)
        total, groups = len(groups), groups[first : first + k]
        shown = [hit for passages, _ in groups for hit in passages]
    else:
        total, shown = len(hits), hits[first : first + k]
    payload = search_payload(query, searcher.path.name, shown, details, not_applied, at)
    payload["version"] = version
    for record in payload["results"]:
        record.update(document_kind(searcher.documents.get(record["doc_id"])))
    if group:
        records = iter(payload["results"])
        payload["documents"] = []
        for passages, more in groups:
            found = [next(records) for _ in passages]
            payload["documents"].append(
                {
                    **{key: found[0].get(key) for key in DOCUMENT_KEYS},
                    "score": found[0]["score"],
                    "passages": found,
                    "more": more,
                }
            )
    payload.update(total=total, page=page, pages=math.ceil(total / k), per_page=k, grouped=group)
    if details.get("filters") is not None:
        payload["filters"] = details["filters"]
    return payload, shown
