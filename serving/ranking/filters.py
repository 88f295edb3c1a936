"""Search filters over the bundle's document metadata (source, type, publication dates, act, place)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from mendel.law.identifiers import canonical_file_number_of

PLACE_FIELDS = ("kraj", "okres", "obec")  # a board's place, which its documents carry in documents.json
COURT_FIELDS = ("court", "court_level")  # a decision's court and its level (mendel.records.court_decisions)
FIELD_FILTERS = (*PLACE_FIELDS, *COURT_FIELDS)  # document fields a filter pins to one of several values


def _key(value: str | None) -> str | None:
    """Citation / identifier comparison key: no whitespace, lower case ("175/2025 Sb." == "175/2025sb.")."""
    return re.sub(r"\s+", "", value).lower() if value else None


def _as_tuple(value) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,) if value else ()
    return tuple(v for v in value if v)


def _as_date(value) -> date | None:
    if value is None or value == "":
        return None
    if isinstance(value, date):
        return value
    return date.fromisoformat(str(value)[:10])


@dataclass(frozen=True)
class SearchFilters:
    """Restrictions on the documents a search may return, matched against the bundle's documents
    (``mendel.index.bundle.read_documents``).

    ``source`` and ``doc_type`` accept any of several values; ``date_from``/``date_to`` bound ``published``
    (inclusive; documents without a date are excluded once either bound is set); ``act`` names an act by
    citation ("175/2025 Sb.", "zákon č. 175/2025 Sb."), ELI ("/eli/cz/sb/2025/175") or file number. ``kraj``,
    ``okres`` and ``obec`` (each any of several values) keep the documents of notice boards in that place
    ("Ústecký kraj", "Chomutov", "Kadaň"; the board register links boards to places, their documents inherit it).
    ``court`` and ``court_level`` (each any of several values) keep the decisions of those courts or levels
    ("Okresní soud v Nymburce"; constitutional, supreme, high, regional, district: mendel.law.courts). A file
    number in ``act`` matches in any of its forms ("II.ÚS 549/06", "II. US 549/2006"; "52 C 99/2024-53" is the
    decision 52 C 99/2024). Unknown values simply match nothing.
    """

    source: tuple[str, ...] = ()
    doc_type: tuple[str, ...] = ()
    date_from: date | None = None
    date_to: date | None = None
    act: str | None = None
    kraj: tuple[str, ...] = ()
    okres: tuple[str, ...] = ()
    obec: tuple[str, ...] = ()
    court: tuple[str, ...] = ()
    court_level: tuple[str, ...] = ()

    @classmethod
    def of(cls, value: "SearchFilters | dict | None") -> "SearchFilters":
        if value is None:
            return cls()
        if isinstance(value, SearchFilters):
            return value
        unknown = set(value) - {"source", "doc_type", "date_from", "date_to", "act", *FIELD_FILTERS}
        if unknown:
            raise ValueError(f"unknown filters: {', '.join(sorted(unknown))}")
        return cls(
            source=_as_tuple(value.get("source")),
            doc_type=_as_tuple(value.get("doc_type")),
            date_from=_as_date(value.get("date_from")),
            date_to=_as_date(value.get("date_to")),
            act=value.get("act") or None,
            **{name: _as_tuple(value.get(name)) for name in FIELD_FILTERS},
        )

    def is_empty(self) -> bool:
        return not (
            self.source
            or self.doc_type
            or self.date_from
            or self.date_to
            or self.act
            or any(getattr(self, name) for name in FIELD_FILTERS)
        )

    def _act_keys(self) -> set[str]:
        from mendel.ner.rules import eli_for
        from serving.query.analyze import references

        value = (self.act or "").strip()
        acts = [value] + [r["act"] for r in references(value) if r["act"]]
        keys = {_key(a) for a in acts} | {_key(eli_for(a)) for a in acts} | {_key(canonical_file_number_of(value))}
        return {k for k in keys if k}

    def matching_documents(self, documents: dict[str, dict]) -> set[str]:
        from mendel.ner.rules import eli_for

        act_keys = self._act_keys() if self.act else set()
        found = set()
        for doc_id, doc in documents.items():
            if self.source and doc.get("source") not in self.source:
                continue
            if self.doc_type and doc.get("doc_type") not in self.doc_type:
                continue
            if any(getattr(self, name) and doc.get(name) not in getattr(self, name) for name in FIELD_FILTERS):
                continue
            if self.date_from or self.date_to:
                try:
                    published = _as_date(doc.get("published"))
                except ValueError:
                    published = None
                if (
                    published is None
                    or (self.date_from and published < self.date_from)
                    or (self.date_to and published > self.date_to)
                ):
                    continue
            if act_keys:
                citation = doc.get("citation")
                doc_keys = {_key(citation), _key(doc_id), _key(eli_for(citation) if citation else None)}
                doc_keys.add(_key(doc.get("file_number")))  # a decision's canonical file number
                if not act_keys & doc_keys:
                    continue
            found.add(doc_id)
        return found
