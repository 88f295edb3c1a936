"""Record documents: crawled records written as small Czech texts, so that search can find them.

Two kinds of record are crawled but are not pages of any document:

- ``register_record`` — a municipality's RÚIAN register data (``registry_records``, loaded from the VFR files):
  its name and code, okres and kraj, its parts (části obce), streets, address-point and building counts and
  postcodes. One document per municipality, ``ruian:obec:{kód obce}``, grounded to the VFR file(s) its records
  came from (the document's ``url`` is the file of the municipality's own record).
- ``act_metadata`` — an act's e-Sbírka metadata (``act_versions``): citation and title, promulgation, the day it
  takes effect, every version (znění) with its dates and the acts that amended it, and the acts it amends
  itself. One document per act, ``act-metadata:{ELI}``, grounded to the e-Sbírka API record of the act.

Each is rendered here as plain text (pages split by form feeds), stored in the raw store as ``text/plain`` and
recorded as an ordinary document version, so extraction, chunking, NER, embedding and the bundle treat it like
any other document; its ``doc_type`` says it is a record, and ``record_documents`` (migration 0022) names the
record and its sources. :func:`build_record_documents` renders every record and adds a version only where the
text changed (the records stage version, :mod:`mendel.core.stage_versions`, is kept on each version it wrote).

Notice attachments need nothing here: the board crawl stores them as documents (``notice_attachment``) that are
extracted like any file; :func:`notice_links` gives each its parent notice for the bundle.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import date
from urllib.parse import quote

import psycopg
from psycopg.types.json import Jsonb

from mendel.core import stage_versions
from mendel.core.rawstore import RawStore
from mendel.czech.dates import MONTH_FORMS, WORDED_DATE_PATTERN, date_of_match, parse_iso_date

REGISTER_RECORD = "register_record"
ACT_METADATA = "act_metadata"
RECORD_DOCUMENT_TYPES = (REGISTER_RECORD, ACT_METADATA)
CONTENT_TYPE = "text/plain; charset=utf-8"
PAGE_BREAK = "\f"
RUIAN_SOURCE = "ruian"
ESBIRKA_SOURCE = "esbirka"
ANNOUNCED_VERSION = "0000-00-00"  # act_versions.version of the text as promulgated


@dataclass
class RecordDocument:
    doc_id: str
    source: str
    kind: str
    url: str
    title: str
    record: str
    pages: list[str]
    sources: list[dict] = field(default_factory=list)
    published: str | None = None
    citation: str | None = None

    @property
    def body(self) -> bytes:
        return PAGE_BREAK.join(self.pages).encode("utf-8")


# ---------------------------------------------------------------- Czech wording

_MONTH_GENITIVE = {number: forms[0] if number == 9 else forms[1] for number, forms in MONTH_FORMS.items()}


def worded_date(value) -> str:
    """``2026-01-01`` → ``1. ledna 2026``."""
    day = value if isinstance(value, date) else parse_iso_date(value)
    if day is None:
        return ""
    return f"{day.day}. {_MONTH_GENITIVE[day.month]} {day.year}"


def numeric_date(value) -> str:
    day = value if isinstance(value, date) else parse_iso_date(value)
    return f"{day.day}. {day.month}. {day.year}" if day else ""


def both_dates(value) -> str:
    """``1. ledna 2026 (1. 1. 2026)``: people ask either way."""
    return f"{worded_date(value)} ({numeric_date(value)})" if value else ""


def plural(count: int, one: str, few: str, many: str) -> str:
    """``1 adresní místo``, ``3 adresní místa``, ``221 adresních míst``."""
    form = one if count == 1 else few if 2 <= count <= 4 else many
    return f"{number(count)} {form}"


def number(count: int) -> str:
    """``4321`` → ``4 321`` (Czech digit grouping)."""
    return f"{count:,}".replace(",", " ")


def postcode(value: str) -> str:
    """``41115`` → ``411 15 (41115)``: written the Czech way and as the register holds it."""
    digits = (value or "").strip()
    return f"{digits[:3]} {digits[3:]} ({digits})" if len(digits) == 5 and digits.isdigit() else digits


# ---------------------------------------------------------------- RÚIAN: one document per municipality


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


# ---------------------------------------------------------------- e-Sbírka: one document per act

# Act types by how titles start, with the gender of "nabyl/nabyla/nabylo" účinnosti.
ACT_TYPES = (
    ("ústavní zákon", "m"),
    ("zákonné opatření", "n"),
    ("nařízení vlády", "n"),
    ("zákon", "m"),
    ("nařízení", "n"),
    ("vyhláška", "f"),
    ("sdělení", "n"),
    ("usnesení", "n"),
    ("nález", "m"),
    ("rozhodnutí", "n"),
    ("opatření", "n"),
    ("dekret", "m"),
)
# the verb forms a sentence about the act needs, by its gender
_VERBS = {
    "m": {"took_effect": "nabyl", "was": "byl", "ending": "", "amended": "byl změněn (novelizován)"},
    "f": {"took_effect": "nabyla", "was": "byla", "ending": "a", "amended": "byla změněna (novelizována)"},
    "n": {"took_effect": "nabylo", "was": "bylo", "ending": "o", "amended": "bylo změněno (novelizováno)"},
}
_VERSION_KINDS = {
    "AKTUALNI": "aktuální znění",
    "MINULE": "dřívější znění",
    "BUDOUCI": "budoucí znění",
    "VYHLASENE": "vyhlášené znění",
}
HEADING_PAGES = 2
_ADOPTED = re.compile(r"\bze\s+dne\s+" + WORDED_DATE_PATTERN, re.IGNORECASE)


def act_type(*titles: str | None) -> tuple[str, str]:
    """(type in lower case, gender) from the first title that starts with a known type; ("předpis", "m")."""
    for title in titles:
        start = (title or "").strip().lower()
        for name, gender in ACT_TYPES:
            if start.startswith(name):
                return name, gender
    return "předpis", "m"


def adoption_date(heading: str | None) -> date | None:
    """The "ze dne 18. prosince 2025" line under an act's heading in its promulgated text (its date of adoption);
    ``heading``: the text's first pages (a Sbírka PDF has a cover page before the act)."""
    match = _ADOPTED.search(heading or "")
    return date_of_match(match) if match else None


def api_record_url(stale_url: str, known_urls: list[str]) -> str:
    """The e-Sbírka API record of the act (``…/dokumenty-sbirky/%2Fsb%2F2025%2F573``), on the API host the crawl
    used (from a fragments page or download URL it fetched)."""
    for url in known_urls:
        for marker in ("/dokumenty-sbirky/", "/souborove-dokumenty/"):
            if marker in (url or ""):
                return f"{url.split(marker)[0]}/dokumenty-sbirky/{quote(stale_url, safe='')}"
    return f"https://www.e-sbirka.cz{stale_url}"


def _version_line(version: dict, number: int) -> str:
    label = f"znění č. {version['version_number'] or number}"
    if version["version"] == ANNOUNCED_VERSION:
        label += " (vyhlášené znění, původní text)"
    elif version["version_kind"] in _VERSION_KINDS:
        label += f" ({_VERSION_KINDS[version['version_kind']]})"
    dates = []
    if version["effective_from"]:
        dates.append(f"účinné od {both_dates(version['effective_from'])}")
    if version["effective_to"]:
        dates.append(f"do {both_dates(version['effective_to'])}")
    line = f"- {label}" + (", " + " ".join(dates) if dates else "")
    if version["version_eli"]:
        line += f"; ELI {version['version_eli']}"
    amended = [a.get("citation") for a in version["amended_by"] or [] if a.get("citation")]
    if amended:
        line += "; změny provedl " + ("předpis " if len(amended) == 1 else "předpisy ") + ", ".join(amended)
    return _sentence(line)


def _sentence(text: str) -> str:
    """``text`` ending with one full stop (a citation "175/2026 Sb." already has it)."""
    return text if text.endswith(".") else text + "."


def act_name(act: dict, versions: list[dict]) -> tuple[str, str, str, str]:
    """(type, gender, "Vyhláška č. 573/2025 Sb.", its subject "o změně …" or '') of an act."""
    kind, gender = act_type(act.get("title"), *(v["title"] for v in versions))
    subject = act.get("title") or next((v["title"] for v in versions if v["title"]), "")
    if subject.lower().startswith(kind):  # "Vyhláška o změně …" → "o změně …"
        subject = subject[len(kind) :].strip(" ,")
    return kind, gender, f"{kind.capitalize()} č. {act['citation']}", subject


def act_metadata_pages(act: dict, versions: list[dict], amends: list[str]) -> list[str]:
    """An act's e-Sbírka metadata as Czech text."""
    kind, gender, named, subject = act_name(act, versions)
    # The citation stands once in the text (and in the title): a short record repeating it would outrank the
    # act's own provisions for every query that names the act.
    lines = [
        _sentence(f"Údaje e-Sbírky o předpisu {named}" + (f", {subject}" if subject else "")),
        f"ELI {act['eli']}.",
    ]
    verbs = _VERBS[gender]
    announced = next((v["announced"] for v in versions if v["announced"]), None)
    if announced:
        lines.append(
            f"Vyhlášení: {kind} {verbs['was']} vyhlášen{verbs['ending']} ve Sbírce dne "
            f"{both_dates(announced)} (datum vyhlášení)."
        )
        # a Czech act is valid (platný) from the day it is promulgated; people also say "platí" for in effect
        lines.append(f"Platnost: {kind} {verbs['took_effect']} platnosti dnem vyhlášení, {worded_date(announced)}.")
    if act.get("adopted"):
        lines.append(f"Datum přijetí (ze dne): {both_dates(act['adopted'])}, podle vyhlášeného textu.")
    announced_version = next((v for v in versions if v["version"] == ANNOUNCED_VERSION), None)
    dated = [v["effective_from"] for v in versions if v["effective_from"]]
    effective = (announced_version or {}).get("effective_from") or (min(dated) if dated else None)
    if effective:
        lines.append(
            f"Účinnost: {kind} {verbs['took_effect']} účinnosti dnem {both_dates(effective)}"
            f" (den nabytí účinnosti, datum účinnosti)."
        )
    ends = [v["effective_to"] for v in versions if v["effective_to"]]
    if ends and all(v["effective_to"] for v in versions if v["effective_from"]):
        lines.append(f"Poslední evidované znění je účinné do {both_dates(max(ends))}.")
    lines.append("")
    ordered = sorted(versions, key=lambda v: (v["effective_from"] or date.min, v["version"]))
    lines.append(f"Znění předpisu v e-Sbírce ({len(ordered)}):")
    lines += [_version_line(v, n) for n, v in enumerate(ordered, start=1)]
    lines.append("")
    amending = list(dict.fromkeys(a["citation"] for v in ordered for a in v["amended_by"] or [] if a.get("citation")))
    if amending:
        lines.append(
            _sentence(
                f"Novely: {kind} {verbs['amended']} "
                + ("předpisem " if len(amending) == 1 else "předpisy ")
                + ", ".join(amending)
            )
        )
    else:
        lines.append("Novely: e-Sbírka u tohoto předpisu neeviduje žádný novelizující předpis.")
    if amends:
        lines.append(_sentence("Tento předpis mění (novelizuje): " + ", ".join(amends)))
    lines.append("")
    lines.append(f"Zdroj: e-Sbírka, záznam předpisu {act['stale_url']} (API dokumenty-sbirky) a jeho znění.")
    return ["\n".join(lines)]


def act_metadata_documents(conn: psycopg.Connection) -> list[RecordDocument]:
    """One ``act_metadata`` document per act with versions in ``act_versions`` (whose text is not withdrawn)."""
    rows = conn.execute(
        "SELECT v.doc_id, v.version, v.stale_url, v.citation, v.title, v.version_kind, v.announced, v.effective_from,"
        " v.effective_to, v.version_eli, v.amended_by, v.version_number, v.page_etags, v.published_at,"
        " d.title, d.url, d.published, (SELECT string_agg(p.text, E'\n' ORDER BY p.page_no) FROM pages p"
        "  WHERE p.version_id = d.current_version_id AND p.page_no <= %s)"
        " FROM act_versions v LEFT JOIN documents d ON d.doc_id = v.doc_id"
        " WHERE coalesce(d.status, 'active') = 'active' ORDER BY v.doc_id, v.version",
        (HEADING_PAGES,),
    ).fetchall()
    acts: dict[str, dict] = {}
    versions: dict[str, list[dict]] = defaultdict(list)
    keys = (
        "version",
        "stale_url",
        "citation",
        "title",
        "version_kind",
        "announced",
        "effective_from",
        "effective_to",
        "version_eli",
        "amended_by",
        "version_number",
        "page_etags",
        "published_at",
    )
    for row in rows:
        doc_id, values = row[0], dict(zip(keys, row[1:14]))
        doc_title, doc_url, doc_published, heading_pages = row[14:]
        versions[doc_id].append(values)
        acts.setdefault(
            doc_id,
            {
                "eli": doc_id,
                "title": doc_title,
                "url": doc_url,
                "published": doc_published,
                "heading_pages": heading_pages,
                "citation": values["citation"],
            },
        )
    amended_acts: dict[str, list[str]] = defaultdict(list)  # amending act ELI -> citations of acts it changed
    for doc_id, act_versions in versions.items():
        for version in act_versions:
            for amending in version["amended_by"] or []:
                if amending.get("eli") and acts[doc_id]["citation"] not in amended_acts[amending["eli"]]:
                    amended_acts[amending["eli"]].append(acts[doc_id]["citation"])
    documents = []
    for doc_id, act in acts.items():
        act_versions = versions[doc_id]
        stale_url = min((v["stale_url"] for v in act_versions), key=len).split("#")[0]
        stale_url = "/".join(stale_url.split("/")[:4])  # /sb/2025/573 without the version date
        known = [act["url"]] + [url for v in act_versions for url in sorted(v["page_etags"] or {})]
        act["api_url"], act["stale_url"] = api_record_url(stale_url, known), stale_url
        act["adopted"] = adoption_date(act["heading_pages"])
        _, _, named, subject = act_name(act, act_versions)
        documents.append(
            RecordDocument(
                doc_id=f"act-metadata:{doc_id}",
                source=ESBIRKA_SOURCE,
                kind=ACT_METADATA,
                url=act["api_url"],
                title=f"{named}" + (f", {subject}" if subject else "") + " – údaje e-Sbírky (účinnost, znění, novely)",
                record=f"esbirka:{stale_url}",
                pages=act_metadata_pages(act, act_versions, amended_acts.get(doc_id, [])),
                sources=[
                    {
                        "doc_id": doc_id,
                        "url": act["api_url"],
                        "act_url": act["url"],
                        "versions": [v["version"] for v in act_versions],
                    }
                ],
                published=act["published"].isoformat() if act["published"] else None,
            )
        )
    return documents


# ---------------------------------------------------------------- writing them


def build_record_documents(conn: psycopg.Connection, store: RawStore) -> dict:
    """Render every record document; a text that changed becomes a new version (extracted and chunked next), an
    unchanged one keeps its version (and takes the current records stage version); a record that is gone is
    withdrawn. Returns the counts."""
    current = stage_versions.register(conn, "records")
    documents = ruian_documents(conn) + act_metadata_documents(conn)
    stats = {
        "documents": len(documents),
        "new_versions": 0,
        "unchanged": 0,
        "carried_over": 0,
        "withdrawn": 0,
        "stage_version": current,
        "by_kind": dict(Counter(d.kind for d in documents)),
    }
    existing = {
        doc_id: (sha, made_by, status)
        for doc_id, sha, made_by, status in conn.execute(
            "SELECT d.doc_id, v.sha256, v.record_version, d.status FROM documents d"
            " LEFT JOIN document_versions v ON v.version_id = d.current_version_id WHERE d.doc_type = ANY(%s)",
            (list(RECORD_DOCUMENT_TYPES),),
        )
    }
    for document in documents:
        body = document.body
        digest = hashlib.sha256(body).hexdigest()
        sha, made_by, status = existing.get(document.doc_id, (None, None, None))
        with conn.transaction():
            _upsert_document(conn, document)
            if sha == digest:
                stats["unchanged"] += 1
                if made_by != current:
                    conn.execute(
                        "UPDATE document_versions SET record_version = %s WHERE doc_id = %s AND sha256 = %s",
                        (current, document.doc_id, digest),
                    )
                    stats["carried_over"] += 1
            else:
                blob = store.put(
                    body,
                    meta={
                        "url": document.url,
                        "content_type": CONTENT_TYPE,
                        "source": document.source,
                        "record": document.record,
                    },
                )
                _add_version(conn, document.doc_id, blob.sha256, len(body), current)
                stats["new_versions"] += 1
    produced = [d.doc_id for d in documents]
    with conn.transaction():
        stats["withdrawn"] = conn.execute(
            "UPDATE documents SET status = 'withdrawn' WHERE doc_type = ANY(%s) AND status = 'active'"
            " AND NOT (doc_id = ANY(%s))",
            (list(RECORD_DOCUMENT_TYPES), produced),
        ).rowcount
    return stats


def _upsert_document(conn: psycopg.Connection, document: RecordDocument) -> None:
    conn.execute(
        "INSERT INTO documents (doc_id, source, url, title, doc_type, citation, published)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (doc_id) DO UPDATE SET url = EXCLUDED.url,"
        " title = EXCLUDED.title, doc_type = EXCLUDED.doc_type, citation = EXCLUDED.citation,"
        " published = EXCLUDED.published, status = 'active', last_seen = now()",
        (
            document.doc_id,
            document.source,
            document.url,
            document.title,
            document.kind,
            document.citation,
            document.published,
        ),
    )
    conn.execute(
        "INSERT INTO record_documents (doc_id, kind, record, sources) VALUES (%s, %s, %s, %s)"
        " ON CONFLICT (doc_id) DO UPDATE SET kind = EXCLUDED.kind, record = EXCLUDED.record,"
        " sources = EXCLUDED.sources",
        (document.doc_id, document.kind, document.record, Jsonb(document.sources)),
    )


def _add_version(conn: psycopg.Connection, doc_id: str, sha256: str, size: int, made_by: str) -> None:
    row = conn.execute(
        "INSERT INTO document_versions (doc_id, sha256, content_type, byte_size, record_version)"
        " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (doc_id, sha256) DO NOTHING RETURNING version_id",
        (doc_id, sha256, CONTENT_TYPE, size, made_by),
    ).fetchone()
    if row is None:  # the text went back to an earlier version's: that version is current again, chunked anew
        row = conn.execute(
            "UPDATE document_versions SET chunked_at = NULL, record_version = %s"
            " WHERE doc_id = %s AND sha256 = %s RETURNING version_id",
            (made_by, doc_id, sha256),
        ).fetchone()
    conn.execute("UPDATE documents SET current_version_id = %s WHERE doc_id = %s", (row[0], doc_id))


# ---------------------------------------------------------------- what the bundle says of them


def record_grounding(conn: psycopg.Connection) -> dict[str, dict]:
    """doc_id → {"record": …, "record_sources": [...]} for the active record documents."""
    return {
        doc_id: {"record": record, "record_sources": sources}
        for doc_id, record, sources in conn.execute(
            "SELECT r.doc_id, r.record, r.sources FROM record_documents r JOIN documents d USING (doc_id)"
            " WHERE d.status = 'active'"
        )
    }


def notice_links(conn: psycopg.Connection) -> dict[str, dict]:
    """attachment doc_id → {"notice": {doc_id, title, url, board}}: the notice (and its board) each stored notice
    attachment belongs to, so its hits name their parent notice."""
    rows = conn.execute(
        "SELECT DISTINCT ON (a.attachment_doc_id) a.attachment_doc_id, n.doc_id, n.title, n.url,"
        " coalesce(b.name, a.board), a.name FROM notice_attachments a JOIN documents n ON n.doc_id = a.notice_doc_id"
        " JOIN documents d ON d.doc_id = a.attachment_doc_id AND d.status = 'active'"
        " LEFT JOIN boards b ON b.url = a.board AND b.removed_at IS NULL"
        " ORDER BY a.attachment_doc_id, n.status = 'active' DESC, a.seen_at DESC"
    ).fetchall()
    return {
        attachment: {"notice": {"doc_id": notice, "title": title, "url": url, "board": board, "attachment_name": name}}
        for attachment, notice, title, url, board, name in rows
    }


__all__ = [
    "ACT_METADATA",
    "RECORD_DOCUMENT_TYPES",
    "REGISTER_RECORD",
    "RecordDocument",
    "act_metadata_documents",
    "act_metadata_pages",
    "act_type",
    "adoption_date",
    "build_record_documents",
    "municipality_pages",
    "municipality_records",
    "notice_links",
    "record_grounding",
    "ruian_documents",
]
