"""One search as every client receives it: the API's /search body, the search page and `mendel search --json`
are all this payload, so a hit has the same fields wherever it is read."""

from __future__ import annotations

from datetime import date

from serving.web.evidence import query_terms, term_spans
from serving.web.facets import DOC_TYPE_NAMES, in_places

# A territorial filter is applied to the ranked hits (the searcher filters by source, type, date and act):
# look this many times deeper so k hits of the place are usually among them.
PLACE_DEPTH = 5
MAX_DEPTH = 500


# What a hit's document is, beyond its text: its kind (a record is labelled as one, never as a decision or an act's
# text) and, for a record document or a notice attachment, where it comes from.
GROUNDING_KEYS = ("record", "record_sources", "notice")

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
}


def document_kind(doc: dict | None) -> dict:
    """``kind`` (documents.json ``doc_type``), its Czech ``kind_label`` and the document's grounding fields."""
    doc = doc or {}
    kind = doc.get("doc_type")
    return {
        "kind": kind,
        "kind_label": DOC_TYPE_NAMES.get(kind, kind) if kind else None,
        **{key: doc[key] for key in GROUNDING_KEYS if doc.get(key)},
    }


def hit_record(hit, terms: frozenset[str]) -> dict:
    """A hit's fields, plus ``highlights``: [start, end) offsets in its text of the query's terms."""
    record = hit.to_dict()
    record["highlights"] = [[start, end] for start, end in term_spans(terms, hit.text)]
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


def run_search(
    searcher,
    query: str,
    k: int = 10,
    filters=None,
    places: dict[str, str] | None = None,
    at: date | None = None,
    version: str | None = None,
    **options,
) -> tuple[dict, list]:
    """Search ``searcher`` and build the payload; returns it and the hits (for the query log).

    ``at`` (default: today) is the date an act's passages are in force on, ``version="promulgated"`` asks for
    acts' promulgated text instead (``serving.ranking.in_force``); the payload echoes the date searched. A searcher that
    does not apply them says so in ``details["not_applied"]``, and so does the payload (both backends apply them)."""
    details: dict = {}
    depth = min(k * PLACE_DEPTH, MAX_DEPTH) if places else k
    at = at or date.today()
    hits = searcher.search(query, k=depth, filters=filters, details=details, at=at, version=version, **options)
    if (details.get("coverage") or {}).get("empty"):
        hits = []  # below the relevance floor with nothing matching: no hits (the coverage block says why)
    if places:
        hits = [h for h in hits if in_places(searcher.documents.get(h.doc_id), places)][:k]
    not_applied = [name for name in details.get("not_applied", ()) if name in IN_FORCE_OPTIONS]
    payload = search_payload(query, searcher.path.name, hits, details, not_applied, at)
    payload["version"] = version
    for record in payload["results"]:
        record.update(document_kind(searcher.documents.get(record["doc_id"])))
    return payload, hits
