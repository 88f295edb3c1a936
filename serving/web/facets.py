"""The filter values a bundle can answer for (``/facets``, the search page's choices), and requests checked against
them.

Only documents with passages count: a source, kind, act or place whose documents have none (a citation record, an
act's metadata) could never return a hit, so it is not offered, and asking for it is an error. A filter value the
bundle does not know is an error the caller sees (``FilterError`` -> 400), not a search that silently finds nothing.
Facets are computed once per loaded bundle.
"""

from __future__ import annotations

import weakref
from collections import Counter
from dataclasses import dataclass, field
from datetime import date

from mendel.law.courts import LEVEL_LABELS, level_rank
from mendel.law.identifiers import parse_citation
from serving.ranking.filters import COURT_FIELDS, FIELD_FILTERS, PLACE_FIELDS, SearchFilters

__all__ = ["COURT_FIELDS", "FIELD_FILTERS", "PLACE_FIELDS", "Facets", "FilterError", "checked_filters", "facets_of"]
from serving.web.labels import FAMILY_ORDER, doc_type_label, source_family, source_label

SHOWN_VALUE_CHARS = 60


class FilterError(ValueError):
    def __init__(self, name: str, message: str):
        super().__init__(f"{name}: {message}")
        self.name = name
        self.message = message


def shown(value: str) -> str:
    """A caller's value as quoted back in a message: never more than a short prefix of it."""
    return repr(value if len(value) <= SHOWN_VALUE_CHARS else value[:SHOWN_VALUE_CHARS] + "…")


def is_act(doc: dict) -> bool:
    """A document that is an act of the Sbírka: its citation is an act's (not a court's or an office's number)."""
    citation = (doc.get("citation") or "").strip()
    parsed = parse_citation(citation) if citation else None
    return parsed is not None and parsed.citation == citation


@dataclass
class Facets:
    sources: list[dict] = field(default_factory=list)
    doc_types: list[dict] = field(default_factory=list)
    acts: list[dict] = field(default_factory=list)
    published: dict = field(default_factory=dict)
    places: dict[str, list[str]] = field(default_factory=dict)
    courts: dict[str, list] = field(default_factory=dict)  # court_level: [{value, label, documents}], court: [names]
    searchable: dict[str, dict] = field(default_factory=dict, repr=False)  # the documents with passages

    @classmethod
    def of_documents(cls, documents: dict[str, dict], with_passages=None) -> "Facets":
        """The facets of ``documents`` that have passages (``with_passages``: their ids; every one when None)."""
        searchable = {d: doc for d, doc in documents.items() if with_passages is None or d in with_passages}
        docs = searchable.values()
        sources = Counter(d.get("source") for d in docs if d.get("source"))
        doc_types = Counter(d.get("doc_type") for d in docs if d.get("doc_type"))
        dates = sorted(str(d["published"])[:10] for d in docs if d.get("published"))
        places = {name: sorted({str(d[name]) for d in docs if d.get(name)}) for name in PLACE_FIELDS}
        levels = Counter(d["court_level"] for d in docs if d.get("court_level"))
        courts = {
            "court_level": [
                {"value": level, "label": LEVEL_LABELS.get(level, level), "documents": n}
                for level, n in sorted(levels.items(), key=lambda item: level_rank(item[0]))
            ],
            "court": sorted({str(d["court"]) for d in docs if d.get("court")}),
        }
        return cls(
            sources=[
                {"value": s, "label": source_label(s), "family": source_family(s), "documents": n}
                for s, n in sorted(sources.items())
            ],
            doc_types=[{"value": t, "label": doc_type_label(t), "documents": n} for t, n in sorted(doc_types.items())],
            acts=[
                {"citation": d["citation"], "doc_id": doc_id, "title": d.get("title") or ""}
                for doc_id, d in sorted(searchable.items())
                if is_act(d)
            ],
            published={"from": dates[0] if dates else None, "to": dates[-1] if dates else None},
            places={name: values for name, values in places.items() if values},
            courts={name: values for name, values in courts.items() if values},
            searchable=searchable,
        )

    def as_dict(self) -> dict:
        return {
            "sources": self.sources,
            "doc_types": self.doc_types,
            "acts": self.acts,
            "published": self.published,
            "places": self.places,
            "courts": self.courts,
        }

    def source_families(self) -> list[tuple[str, list[dict]]]:
        """The sources grouped by family, families in a fixed order (for the page's fieldsets)."""
        grouped: dict[str, list[dict]] = {}
        for source in self.sources:
            grouped.setdefault(source["family"], []).append(source)
        return sorted(grouped.items(), key=lambda item: FAMILY_ORDER.index(item[0]))


_cache: "weakref.WeakKeyDictionary[object, Facets]" = weakref.WeakKeyDictionary()


def facets_of(searcher) -> Facets:
    """The facets of a loaded bundle (a searcher), computed on first use and forgotten with the searcher."""
    found = _cache.get(searcher)
    if found is None:
        found = _cache[searcher] = Facets.of_documents(searcher.documents, searcher.passage_doc_ids)
    return found


def checked_filters(
    searcher,
    source=(),
    doc_type=(),
    date_from: date | None = None,
    date_to: date | None = None,
    act: str | None = None,
    places: dict[str, str | None] | None = None,
    courts: dict[str, str | None] | None = None,
) -> SearchFilters:
    """SearchFilters of a request whose every value names something the bundle can answer from (else
    FilterError); ``places``: kraj / okres / obec, ``courts``: court / court_level, each a value some document with
    passages carries."""
    facets = facets_of(searcher)
    for name, values, known in (
        ("source", source, {s["value"] for s in facets.sources}),
        ("doc_type", doc_type, {t["value"] for t in facets.doc_types}),
    ):
        unknown = [v for v in values if v not in known]
        if unknown:
            raise FilterError(
                name,
                f"unknown value {shown(unknown[0])}, or one with no passages to search; this bundle has: "
                f"{', '.join(sorted(known)) or 'none'} (see /facets)",
            )
    if date_from and date_to and date_from > date_to:
        raise FilterError("date_from", "is after date_to")
    act = act.strip() if act and act.strip() else None
    if act and not SearchFilters(act=act).matching_documents(facets.searchable):
        raise FilterError(
            "act",
            f"{shown(act)} names no document with passages in this bundle (citation such as "
            "'175/2025 Sb.', an ELI or a file number; see /facets)",
        )
    asked = {name: value.strip() for name, value in (places or {}).items() if value and value.strip()}
    for name, value in asked.items():
        if name not in facets.places:
            raise FilterError(name, "no document of this bundle carries this field")
        if value not in facets.places[name]:
            raise FilterError(name, f"unknown value {shown(value)} (see /facets)")
    court_asked = {name: value.strip() for name, value in (courts or {}).items() if value and value.strip()}
    for name, value in court_asked.items():
        known = [v["value"] if isinstance(v, dict) else v for v in facets.courts.get(name, [])]
        if not known:
            raise FilterError(name, "no decision of this bundle with passages carries this field")
        if value not in known:
            raise FilterError(
                name, f"unknown value {shown(value)}; this bundle has: {', '.join(known[:12])} (see /facets)"
            )
    asked.update(court_asked)
    return SearchFilters(
        source=tuple(source),
        doc_type=tuple(doc_type),
        date_from=date_from,
        date_to=date_to,
        act=act,
        **{name: (value,) for name, value in asked.items()},
    )
