"""What a board's listing turns out to be, and its notices in OFN form.

A catalogue board names a download URL and a format, but publishers do not always publish what the standard
("Úřední desky" 2021-07-20) describes. :func:`read_listing` looks at the bytes and reads one of:

- ``ofn``: the standard — a JSON object with an ``informace`` list;
- ``flat_json``: a JSON array whose first element describes the board (``typ``, ``stránka``, ``provozovatel``)
  and whose other elements are notices with the standard's names without diacritics (``nazev``, ``vyveseni``,
  ``relevantni_do``, ``url`` — the notice's file —, ``odbor``), as Karviná's pre-OFN export;
- ``ud_xml``: an XML ``<ud>`` of ``<item id="…">`` elements (``NAZEV``, ``TYP``, ``VYVESENO``, ``STAZENO``,
  ``ZDROJ``, ``URL`` relative to the export), Karviná's XML export;
- ``ofn_csv``: a CSV table with the standard's names as columns, one notice a row (``informace_url``, ``název``,
  ``vyvěšení``, ``relevantní_do``, ``anotace``, the board in ``stránka`` / ``provozovatel_*``), the Zlínský kraj's.

Each export notice becomes an OFN notice object built only from what the export says; one that lacks what a notice
needs (a title, a readable date of posting) is returned with the reason instead, and the crawl quarantines it. An
export notice without an IRI gets a stable id of its own (:func:`export_notice_id`), never its position.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from urllib.parse import urljoin

from mendel.czech.dates import find_date, iso

OFN_CONTEXT = "https://ofn.gov.cz/úřední-desky/2021-07-20/kontexty/úřední-deska.jsonld"
NOTICE_TYPES = ["Digitální objekt", "Informace na úřední desce"]


class NotABoard(ValueError):
    """The listing is none of the layouts read here (the reason says what it looked like)."""


@dataclass(frozen=True)
class Item:
    position: int
    notice: dict | None  # in OFN form; None when the item is not a notice
    reason: str | None = None  # why it is not
    notice_id: str | None = None  # an export notice's id when it has neither an IRI nor a page of its own


@dataclass
class Listing:
    layout: str  # ofn | flat_json | ud_xml | ofn_csv
    feed: dict  # the board as the standard describes it (@context, stránka, provozovatel, iri when given)
    items: list[Item] = field(default_factory=list)


def _instant(value) -> dict | None:
    """A date however the export writes it (ISO, ISO with time, d. m. yyyy, an OFN instant) → an OFN instant."""
    if isinstance(value, dict):
        if value.get("nespecifikovaný") is True:
            return {"typ": "Časový okamžik", "nespecifikovaný": True}
        value = value.get("datum") or value.get("datum_a_čas")
    day = iso(find_date(value)) if isinstance(value, str) else None
    return {"typ": "Časový okamžik", "datum": day} if day else None


def _text(value) -> str | None:
    return " ".join(value.split()) if isinstance(value, str) and value.strip() else None


def export_notice(
    title, posted, until, *, url=None, file_url=None, file_name=None, reference=None, agenda=None, description=None
) -> tuple[dict | None, str | None]:
    """An OFN notice from an export's fields, or (None, reason) when it lacks a title or a date of posting."""
    title = _text(title)
    if not title:
        return None, "no title"
    posted_instant = _instant(posted)
    if posted_instant is None or "datum" not in posted_instant:
        if posted is None or posted == "":
            return None, "no date of posting"
        if posted_instant is not None:
            return None, "the date of posting is given as unspecified"
        return None, f"unreadable date of posting {str(posted)[:40]!r}"
    notice: dict = {"typ": list(NOTICE_TYPES)}
    if url:
        notice["url"] = url
    notice["název"] = {"cs": title}
    if _text(description):
        notice["popis"] = {"cs": _text(description)}
    notice["vyvěšení"] = posted_instant
    until_instant = _instant(until)
    if until_instant is not None:
        notice["relevantní_do"] = until_instant
    if _text(reference):
        notice["číslo_jednací"] = _text(reference)
    if _text(agenda):
        notice["agenda"] = [{"typ": "Agenda", "název": {"cs": _text(agenda)}}]
    if file_url:
        notice["dokument"] = [{"typ": "Digitální objekt", "název": {"cs": _text(file_name) or title}, "url": file_url}]
    return notice, None


def export_notice_id(feed_url: str, key: str) -> str:
    """A notice of an export that has neither an IRI nor a page of its own: the export plus a digest of what
    identifies the notice in it (its id or its file), so that it keeps its id when the export changes order."""
    return f"{feed_url}#{hashlib.sha256(key.encode('utf-8')).hexdigest()[:16]}"


# ---------------------------------------------------------------- the layouts


def _flat_json(value: list, feed_url: str) -> Listing:
    header = value[0] if value and isinstance(value[0], dict) and "informace" not in value[0] else {}
    feed = {
        "@context": OFN_CONTEXT,
        "stránka": header.get("stránka"),
        "provozovatel": header.get("provozovatel") if isinstance(header.get("provozovatel"), dict) else {},
    }
    listing = Listing("flat_json", feed)
    for position, item in enumerate(value[1:] if header else value, start=1 if header else 0):
        if not isinstance(item, dict):
            listing.items.append(Item(position, None, "notice is not a JSON object"))
            continue
        file_url = item.get("url") if isinstance(item.get("url"), str) and item.get("url") else None
        agenda = " – ".join(t for t in item.get("informace") or [] if isinstance(t, str) and t != "Digitální objekt")
        notice, reason = export_notice(
            item.get("nazev"),
            item.get("vyveseni"),
            item.get("relevantni_do"),
            file_url=file_url,
            agenda=" / ".join(filter(None, [agenda, item.get("odbor")])),
        )
        listing.items.append(
            Item(
                position,
                notice,
                reason,
                export_notice_id(feed_url, file_url or json.dumps(item, sort_keys=True, ensure_ascii=False)),
            )
        )
    return listing


def _ud_xml(root: ET.Element, feed_url: str) -> Listing:
    listing = Listing("ud_xml", {"@context": OFN_CONTEXT, "provozovatel": {}})
    for position, item in enumerate(root):

        def field_text(tag: str) -> str | None:
            node = item.find(tag)
            return node.text if node is not None else None

        relative = _text(field_text("URL"))
        file_url = urljoin(feed_url, relative) if relative else None
        notice, reason = export_notice(
            field_text("NAZEV"),
            field_text("VYVESENO"),
            field_text("STAZENO"),
            file_url=file_url,
            agenda=" / ".join(filter(None, [_text(field_text("TYP")), _text(field_text("ZDROJ"))])),
        )
        key = f"item:{item.get('id')}" if item.get("id") else (file_url or ET.tostring(item, encoding="unicode"))
        listing.items.append(Item(position, notice, reason, export_notice_id(feed_url, key)))
    return listing


def _ofn_csv(text: str, feed_url: str) -> Listing:
    rows = list(csv.DictReader(io.StringIO(text)))
    first = rows[0] if rows else {}
    provozovatel = {"typ": first.get("provozovatel_typ") or "Osoba", "ičo": first.get("provozovatel_ičo")}
    if first.get("provozovatel_název"):
        provozovatel["název"] = {"cs": first["provozovatel_název"]}
    listing = Listing(
        "ofn_csv", {"@context": OFN_CONTEXT, "stránka": first.get("stránka"), "provozovatel": provozovatel}
    )
    for position, row in enumerate(rows):
        page = _text(row.get("informace_url"))
        notice, reason = export_notice(
            row.get("název"), row.get("vyvěšení"), row.get("relevantní_do"), url=page, description=row.get("anotace")
        )
        listing.items.append(
            Item(position, notice, reason, None if page else export_notice_id(feed_url, f"id:{row.get('id')}"))
        )
    return listing


def read_listing(body: bytes, feed_url: str) -> Listing:
    """The listing behind a board's download URL, whatever layout of the ones above it has."""
    text = body.decode("utf-8-sig", errors="replace")
    head = text.lstrip()[:1]
    if head in "{[":
        try:
            value = json.loads(text)
        except ValueError as exc:
            raise NotABoard(f"JSON that does not parse: {exc}") from exc
        if isinstance(value, dict) and isinstance(value.get("informace"), list):
            listing = Listing("ofn", value)
            listing.items = [
                Item(i, n) if isinstance(n, dict) else Item(i, None, "notice is not a JSON object")
                for i, n in enumerate(value["informace"])
            ]
            return listing
        if isinstance(value, list) and value:
            return _flat_json(value, feed_url)
        raise NotABoard("JSON without a list of notices")
    if head == "<":
        if text.lstrip()[:15].lower().startswith(("<!doctype html", "<html")):
            raise NotABoard("an HTML page, not a feed or an export")
        try:
            root = ET.fromstring(body)
        except ET.ParseError as exc:
            raise NotABoard(f"XML that does not parse: {exc}") from exc
        if root.tag == "ud" and all(child.tag == "item" for child in root):
            return _ud_xml(root, feed_url)
        raise NotABoard(f"XML whose root is <{root.tag}>, not a notice board export")
    header = text.split("\n", 1)[0]
    if "název" in header and "vyvěšení" in header and "," in header:
        return _ofn_csv(text, feed_url)
    raise NotABoard("neither OFN JSON-LD nor a known export (JSON array, <ud> XML, CSV with the OFN columns)")
