"""The filter values a bundle knows (``/facets``, the search page's choices), and requests checked against them.

A filter value the bundle does not know is an error the caller sees (``FilterError`` -> 400), not a search that
silently finds nothing. Facets are computed once per loaded bundle (its ``documents.json``).
"""

from __future__ import annotations

import weakref
from collections import Counter
from dataclasses import dataclass, field
from datetime import date

from serving.ranking.filters import SearchFilters

# Czech names of the sources and the family each belongs to (the page groups the source choices by family).
SOURCE_NAMES: dict[str, tuple[str, str]] = {
    "esbirka": ("Sbírka zákonů (e-Sbírka)", "Předpisy"),
    "cnb": ("Česká národní banka", "Předpisy"),
    "nsoud": ("Nejvyšší soud", "Judikatura"),
    "nssoud": ("Nejvyšší správní soud", "Judikatura"),
    "nalus": ("Ústavní soud", "Judikatura"),
    "municipal": ("Obce", "Obce a úřední desky"),
    "boards": ("Úřední desky", "Obce a úřední desky"),
    "ruian": ("Registr územní identifikace (RÚIAN)", "Registry"),
}
FAMILY_ORDER = ("Předpisy", "Judikatura", "Obce a úřední desky", "Registry", "Ostatní")
DOC_TYPE_NAMES = {
    "law": "předpis",
    "decision": "rozhodnutí",
    "notice": "oznámení",
    "notice_attachment": "příloha oznámení",
    "municipal_document": "dokument obce",
    "regulatory_document": "dokument regulátora",
    "ruian_vfr": "výměnný formát RÚIAN",
    "register_record": "záznam registru RÚIAN",
    "act_metadata": "údaje e-Sbírky o předpisu",
}
# Territorial fields a document may carry; the page offers them only when some document has them.
PLACE_FIELDS = ("kraj", "okres", "obec")
SHOWN_VALUE_CHARS = 60


class FilterError(ValueError):
    def __init__(self, name: str, message: str):
        super().__init__(f"{name}: {message}")
        self.name = name
        self.message = message


def shown(value: str) -> str:
    """A caller's value as quoted back in a message: never more than a short prefix of it."""
    return repr(value if len(value) <= SHOWN_VALUE_CHARS else value[:SHOWN_VALUE_CHARS] + "…")


@dataclass
class Facets:
    sources: list[dict] = field(default_factory=list)
    doc_types: list[dict] = field(default_factory=list)
    acts: list[dict] = field(default_factory=list)
    published: dict = field(default_factory=dict)
    places: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def of_documents(cls, documents: dict[str, dict]) -> "Facets":
        sources = Counter(d.get("source") for d in documents.values() if d.get("source"))
        doc_types = Counter(d.get("doc_type") for d in documents.values() if d.get("doc_type"))
        dates = sorted(str(d["published"])[:10] for d in documents.values() if d.get("published"))
        places = {name: sorted({str(d[name]) for d in documents.values() if d.get(name)}) for name in PLACE_FIELDS}
        return cls(
            sources=[
                {"value": s, "label": source_label(s), "family": source_family(s), "documents": n}
                for s, n in sorted(sources.items())
            ],
            doc_types=[
                {"value": t, "label": DOC_TYPE_NAMES.get(t, t), "documents": n} for t, n in sorted(doc_types.items())
            ],
            acts=[
                {"citation": d["citation"], "doc_id": doc_id, "title": d.get("title") or ""}
                for doc_id, d in sorted(documents.items())
                if d.get("citation")
            ],
            published={"from": dates[0] if dates else None, "to": dates[-1] if dates else None},
            places={name: values for name, values in places.items() if values},
        )

    def as_dict(self) -> dict:
        return {
            "sources": self.sources,
            "doc_types": self.doc_types,
            "acts": self.acts,
            "published": self.published,
            "places": self.places,
        }

    def source_families(self) -> list[tuple[str, list[dict]]]:
        """The sources grouped by family, families in a fixed order (for the page's fieldsets)."""
        grouped: dict[str, list[dict]] = {}
        for source in self.sources:
            grouped.setdefault(source["family"], []).append(source)
        return sorted(grouped.items(), key=lambda item: FAMILY_ORDER.index(item[0]))


def source_label(source: str) -> str:
    return SOURCE_NAMES.get(source, (source, ""))[0]


def source_family(source: str) -> str:
    return SOURCE_NAMES.get(source, ("", "Ostatní"))[1]


_cache: "weakref.WeakKeyDictionary[object, Facets]" = weakref.WeakKeyDictionary()


def facets_of(searcher) -> Facets:
    """The facets of a loaded bundle (a Searcher), computed on first use and forgotten with the searcher."""
    found = _cache.get(searcher)
    if found is None:
        found = _cache[searcher] = Facets.of_documents(searcher.documents)
    return found


def checked_filters(
    searcher, source=(), doc_type=(), date_from: date | None = None, date_to: date | None = None, act: str | None = None
) -> SearchFilters:
    """SearchFilters of a request whose every value names something in the bundle (else FilterError)."""
    facets = facets_of(searcher)
    for name, values, known in (
        ("source", source, {s["value"] for s in facets.sources}),
        ("doc_type", doc_type, {t["value"] for t in facets.doc_types}),
    ):
        unknown = [v for v in values if v not in known]
        if unknown:
            raise FilterError(
                name,
                f"unknown value {shown(unknown[0])}; this bundle has: "
                f"{', '.join(sorted(known)) or 'none'} (see /facets)",
            )
    if date_from and date_to and date_from > date_to:
        raise FilterError("date_from", "is after date_to")
    act = act.strip() if act and act.strip() else None
    if act and not SearchFilters(act=act).matching_documents(searcher.documents):
        raise FilterError(
            "act",
            f"{shown(act)} names no document in this bundle (citation such as "
            "'175/2025 Sb.', an ELI or a file number; see /facets)",
        )
    return SearchFilters(source=tuple(source), doc_type=tuple(doc_type), date_from=date_from, date_to=date_to, act=act)


def checked_places(searcher, places: dict[str, str | None]) -> dict[str, str]:
    """The territorial filters asked for, each a value some document of the bundle carries (else FilterError)."""
    asked = {name: value.strip() for name, value in places.items() if value and value.strip()}
    known = facets_of(searcher).places
    for name, value in asked.items():
        if name not in known:
            raise FilterError(name, "no document of this bundle carries this field")
        if value not in known[name]:
            raise FilterError(name, f"unknown value {shown(value)} (see /facets)")
    return asked


def in_places(doc: dict | None, places: dict[str, str]) -> bool:
    return all(doc is not None and str(doc.get(name) or "") == value for name, value in places.items())
