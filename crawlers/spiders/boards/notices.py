"""A notice in OFN form, whatever board it came from: the document stored for it, and an attachment body's kind.

A notice becomes a document of its own — the notice's JSON object (with the feed's ``@context`` added when the notice
has none, so it stands alone as JSON-LD), UTF-8, ``application/ld+json``; ``doc_id`` = the notice ``iri``, else its
own page, else the export's id for it (an OFN notice without either: ``{feed iri}#{index}``).
"""

from __future__ import annotations

import json

from mendel.czech.dates import iso, ofn_instant_date

DOCUMENT_MAGIC = {
    b"%PDF": "application/pdf",
    b"PK\x03\x04": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    b"\xd0\xcf\x11\xe0": "application/msword",
}


def czech_text(value) -> str | None:
    """An OFN multilingual text (``{"cs": "...", "en": ...}``) or a plain string → the Czech text."""
    if isinstance(value, dict):
        value = value.get("cs") or next((v for v in value.values() if isinstance(v, str) and v.strip()), None)
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


def notice_document(feed: dict, notice: dict, index: int, feed_url: str) -> dict:
    """What to store for one notice of a feed: ``doc_id``, ``url``, ``body`` and metadata."""
    feed_key = feed.get("iri") if isinstance(feed.get("iri"), str) and feed.get("iri") else feed_url
    iri = notice.get("iri")
    doc_id = iri if isinstance(iri, str) and iri else f"{feed_key}#{index}"
    documents = notice.get("dokument") if isinstance(notice.get("dokument"), list) else []
    operator = feed.get("provozovatel") if isinstance(feed.get("provozovatel"), dict) else {}
    body = notice if "@context" in notice or "@context" not in feed else {"@context": feed["@context"], **notice}
    attachments = [
        {"url": d["url"], "name": czech_text(d.get("název"))}
        for d in documents
        if isinstance(d, dict) and isinstance(d.get("url"), str)
    ]
    return {
        "doc_id": doc_id,
        "url": notice.get("url") if isinstance(notice.get("url"), str) else doc_id,
        "body": json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8"),
        "title": czech_text(notice.get("název")),
        "published": iso(ofn_instant_date(notice.get("vyvěšení"))),
        "citation": notice.get("číslo_jednací") if isinstance(notice.get("číslo_jednací"), str) else None,
        "attachments": attachments,
        "extra": {
            "feed": feed_key,
            "index": index,
            "board": feed.get("stránka"),
            "publisher_ico": operator.get("ičo"),
            "relevant_until": iso(ofn_instant_date(notice.get("relevantní_do"))),
            "file_mark": notice.get("spisová_značka"),
            "attachments": [a["url"] for a in attachments],
        },
    }


def sniff_document_type(body: bytes, declared: str) -> str | None:
    """The media type of an attachment body, or None when it is not a document (an HTML error page...)."""
    for magic, kind in DOCUMENT_MAGIC.items():
        if body.startswith(magic):
            return declared if declared and declared not in ("application/octet-stream", "text/html") else kind
    head = body[:512].lstrip().lower()
    if declared == "text/html" or head.startswith((b"<!doctype html", b"<html")):
        return None
    return declared or "application/octet-stream"
