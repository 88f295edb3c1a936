"""A municipality's RÚIAN register data as a record document (``register_record``): its name and code, okres and
kraj, its parts (části obce), streets, address-point and building counts and postcodes, read from
``registry_records`` (loaded from the VFR files). One document per municipality, ``ruian:obec:{kód obce}``,
grounded to the VFR file(s) its records came from (its ``url`` is the file of the municipality's own record)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import psycopg

from mendel.czech.wording import both_dates, number, plural, postcode
from mendel.records.model import REGISTER_RECORD, RecordDocument

RUIAN_SOURCE = "ruian"


@dataclass
class Part:
    code: str
    name: str
    address_points: int = 0
    buildings: int = 0
    postcodes: Counter = field(default_factory=Counter)


@dataclass
class MunicipalityRecord:
    code: str
    name: str
    data: dict
    version_id: int | None
    parts: dict[str, Part] = field(default_factory=dict)
    streets: list[str] = field(default_factory=list)
    address_points: int = 0
    buildings: int = 0
    buildings_by_kind: Counter = field(default_factory=Counter)
    postcodes: Counter = field(default_factory=Counter)
    version_ids: set[int] = field(default_factory=set)


_ADDRESS_POINTS = (
    # An address point's municipality: through its building and the building's part, else through its street.
    "WITH so AS (SELECT code, parent_code AS part, version_id FROM registry_records"
    "  WHERE source = %(s)s AND kind = 'stavebni_objekt'),"
    " part AS (SELECT code, parent_code AS obec FROM registry_records WHERE source = %(s)s AND kind = 'cast_obce'),"
    " street AS (SELECT code, parent_code AS obec FROM registry_records WHERE source = %(s)s AND kind = 'ulice')"
    " SELECT coalesce(part.obec, street.obec), part.code, a.data->>'psc', count(*),"
    "  array_agg(DISTINCT a.version_id) FILTER (WHERE a.version_id IS NOT NULL)"
    " FROM registry_records a LEFT JOIN so ON so.code = a.parent_code LEFT JOIN part ON part.code = so.part"
    " LEFT JOIN street ON street.code = a.data->>'ulice_kod'"
    " WHERE a.source = %(s)s AND a.kind = 'adresni_misto' GROUP BY 1, 2, 3"
)
_BUILDINGS = (
    # a building is in a municipality through its part; buildings without a house number have no part in RÚIAN
    "SELECT part.parent_code, so.parent_code, so.data->>'typ_kod', count(*), array_agg(DISTINCT so.version_id)"
    "  FILTER (WHERE so.version_id IS NOT NULL)"
    " FROM registry_records so JOIN registry_records part ON part.source = so.source AND part.kind = 'cast_obce'"
    "  AND part.code = so.parent_code WHERE so.source = %(s)s AND so.kind = 'stavebni_objekt' GROUP BY 1, 2, 3"
)
# typ_kod of a building: which house number it carries
HOUSE_NUMBER_KINDS = {"1": "s číslem popisným", "2": "s číslem evidenčním"}


def municipality_records(conn: psycopg.Connection, source: str = RUIAN_SOURCE) -> list[MunicipalityRecord]:
    """Every municipality in ``registry_records`` with its parts, streets, buildings, address points and
    postcodes gathered (the register as loaded: newest file wins per record)."""
    found = {
        code: MunicipalityRecord(code, name or code, data or {}, version_id)
        for code, name, data, version_id in conn.execute(
            "SELECT code, name, data, version_id FROM registry_records WHERE source = %s AND kind = 'obec'"
            " ORDER BY code",
            (source,),
        )
    }
    for record in found.values():
        if record.version_id is not None:
            record.version_ids.add(record.version_id)
    for kind in ("cast_obce", "ulice"):
        for code, name, parent, version_id in conn.execute(
            "SELECT code, name, parent_code, version_id FROM registry_records WHERE source = %s AND kind = %s"
            " ORDER BY name, code",
            (source, kind),
        ):
            record = found.get(parent)
            if record is None:
                continue
            if kind == "cast_obce":
                record.parts[code] = Part(code, name or code)
            elif name and name not in record.streets:
                record.streets.append(name)
            if version_id is not None:
                record.version_ids.add(version_id)
    for obec, part_code, house_number_kind, count, versions in conn.execute(_BUILDINGS, {"s": source}):
        record = found.get(obec)
        if record is None:
            continue
        record.buildings += count
        record.buildings_by_kind[house_number_kind] += count
        record.version_ids.update(versions or ())
        if part_code in record.parts:
            record.parts[part_code].buildings += count
    for obec, part_code, psc, count, versions in conn.execute(_ADDRESS_POINTS, {"s": source}):
        record = found.get(obec)
        if record is None:
            continue
        record.address_points += count
        record.version_ids.update(versions or ())
        if psc:
            record.postcodes[psc] += count
        part = record.parts.get(part_code)
        if part is not None:
            part.address_points += count
            if psc:
                part.postcodes[psc] += count
    return list(found.values())


def _place(code: str) -> dict:
    """Kind, okres and kraj of a municipality from the generated register (mendel/data/municipalities.tsv)."""
    from mendel.registers.municipalities import register

    municipality = register().by_code.get(code)
    if municipality is None:
        return {}
    return {"kind": municipality.kind, "okres": municipality.okres, "kraj": municipality.kraj}


def _postcodes(counts: Counter) -> str:
    return ", ".join(postcode(p) for p in sorted(counts))


def municipality_pages(record: MunicipalityRecord, files: list[dict]) -> list[str]:
    """The municipality's register data as Czech text: page 1 the facts, page 2 (when it has any) its streets."""
    place = _place(record.code)
    kind = place.get("kind") or "obec"
    name = record.name
    where = ", ".join(
        x
        for x in (
            f"okres {place['okres']}"
            if place.get("okres")
            else (f"kód okresu {record.data['okres_kod']}" if record.data.get("okres_kod") else ""),
            place.get("kraj") or "",
        )
        if x
    )
    parts = sorted(record.parts.values(), key=lambda p: p.name)
    lines = [f"{kind.capitalize()} {name} – údaje Registru územní identifikace, adres a nemovitostí (RÚIAN)", ""]
    facts = [f"{kind.capitalize()} {name}, kód obce {record.code}" + (f", {where}" if where else "") + "."]
    if record.data.get("nuts_lau"):
        facts.append(f"Kód NUTS/LAU: {record.data['nuts_lau']}.")
    if record.data.get("plati_od"):
        facts.append(f"Záznam obce v registru platí od {both_dates(record.data['plati_od'])}.")
    lines.append(" ".join(facts))
    lines.append("")
    if parts:
        lines.append(f"Části obce {name} ({len(parts)}): " + ", ".join(p.name for p in parts) + ".")
        lines.append(f"Obec {name} má {plural(len(parts), 'část obce', 'části obce', 'částí obce')}.")
    else:
        lines.append(f"Registr u obce {name} neuvádí žádné části obce.")
    lines.append("")
    buildings = plural(record.buildings, "stavební objekt", "stavební objekty", "stavebních objektů")
    by_kind = [
        f"{number(record.buildings_by_kind[k])} {label}"
        for k, label in HOUSE_NUMBER_KINDS.items()
        if record.buildings_by_kind[k]
    ]
    lines.append(
        f"Adresní místa: obec {name} má v registru "
        f"{plural(record.address_points, 'adresní místo', 'adresní místa', 'adresních míst')} a "
        f"{buildings} s číslem domovním" + (f" ({', '.join(by_kind)})" if len(by_kind) > 1 else "") + "."
    )
    if record.postcodes:
        label = "Poštovní směrovací číslo (PSČ)" if len(record.postcodes) == 1 else "Poštovní směrovací čísla (PSČ)"
        lines.append(f"{label} obce {name}: {_postcodes(record.postcodes)}.")
    lines.append("")
    for part in parts:
        details = [
            f"kód části obce {part.code}",
            plural(part.address_points, "adresní místo", "adresní místa", "adresních míst"),
            plural(part.buildings, "stavební objekt", "stavební objekty", "stavebních objektů") + " s číslem domovním",
        ]
        if part.postcodes:
            details.append(f"PSČ {_postcodes(part.postcodes)}")
        lines.append(f"Část obce {part.name} ({name}): " + ", ".join(details) + ".")
    if record.streets:
        lines.append("")
        lines.append(f"Obec {name} má v registru {plural(len(record.streets), 'ulici', 'ulice', 'ulic')}.")
    else:
        lines.append("")
        lines.append(
            f"Registr u obce {name} nevede žádné ulice: adresy se zde udávají názvem části obce a číslem popisným."
        )
    lines.append("")
    # the files by name (their URLs, which name the host they were read from, are in the grounding, not the text)
    lines.append(
        "Zdroj: RÚIAN, výměnný formát (VFR) – "
        + "; ".join(
            f"soubor {f['file']}" + (f" ({f['title']})" if f.get("title") not in (None, f["file"]) else "")
            for f in files
        )
        + "."
    )
    pages = ["\n".join(lines)]
    if record.streets:
        pages.append(
            f"Ulice v obci {name} ({len(record.streets)}), podle registru RÚIAN:\n\n"
            + ", ".join(sorted(record.streets))
            + "."
        )
    return pages


def _source_files(conn: psycopg.Connection, version_ids: set[int]) -> dict[int, dict]:
    rows = conn.execute(
        "SELECT v.version_id, d.doc_id, d.url, d.title, d.published FROM document_versions v"
        " JOIN documents d ON d.doc_id = v.doc_id WHERE v.version_id = ANY(%s)",
        (sorted(version_ids),),
    ).fetchall()
    return {
        version_id: {
            "doc_id": doc_id,
            "url": url,
            "file": url.rsplit("/", 1)[-1],
            "title": title,
            "published": published.isoformat() if published else None,
        }
        for version_id, doc_id, url, title, published in rows
    }


def ruian_documents(conn: psycopg.Connection) -> list[RecordDocument]:
    """One ``register_record`` document per municipality in the loaded register."""
    records = municipality_records(conn)
    files = _source_files(conn, set().union(*(r.version_ids for r in records)) if records else set())
    documents = []
    for record in records:
        own = files.get(record.version_id)
        # the municipality's own file first, then the other files (change batches) its records came from
        record_files = ([own] if own else []) + sorted(
            (files[v] for v in record.version_ids if v in files and files[v] is not own),
            key=lambda f: (f["published"] or "", f["doc_id"]),
        )
        record_files = list({f["doc_id"]: f for f in record_files}.values())
        kind = (_place(record.code).get("kind") or "obec").capitalize()
        documents.append(
            RecordDocument(
                doc_id=f"ruian:obec:{record.code}",
                source=RUIAN_SOURCE,
                kind=REGISTER_RECORD,
                url=own["url"] if own else (record_files[0]["url"] if record_files else ""),
                title=f"{kind} {record.name} (kód obce {record.code}) – záznam registru RÚIAN",
                record=f"ruian:obec:{record.code}",
                pages=municipality_pages(record, record_files),
                sources=[{k: f[k] for k in ("doc_id", "url", "file", "published")} for f in record_files],
                published=own["published"] if own else None,
            )
        )
    return documents
