"""e-Sbírka act versions assembled from the API's fragments, and e-Sbírka's own cross-references.

The e-Sbírka spider reads ``/dokumenty-sbirky/{staleUrl}/fragmenty?cisloStranky=N`` for each act (1,000
fragments a page) and hands the pages here: :func:`assemble` turns the act detail and the pages into one record
per act version (znění) — ELI, citation, effective dates, the fragments in order with their citations, and the
``odkazyZFragmentu`` cross-references — whose canonical JSON goes to the raw store; :func:`record_version` keeps
it in ``act_versions`` / ``act_references`` (migration 0010). The act's text stays the document the crawl
stores (its PDF or DOCX); these tables describe its versions and what they cite. The entity graph reads
:func:`current_references`.
"""

from __future__ import annotations

import hashlib
import html
import json
import re

import psycopg
from psycopg.types.json import Jsonb

from mendel.czech_dates import iso, parse_iso_date
from mendel.legal_ids import ActId, parse_stale_url

_TAG = re.compile(r"<[^>]+>")


_PROVISION_PARTS = {"par": "§ {}", "cl": "čl. {}", "odst": "odst. {}", "pism": "písm. {})", "bod": "bod {}"}


def provision_from_anchor(anchor: str | None) -> str:
    """A stale-URL anchor as a provision, in LAW_REF norm form: ``par_12-odst_3-pism_a`` → ``§ 12 odst. 3 písm.
    a)``; ``cast_1-hlava_2`` (structure above a section) → ``''``."""
    parts = []
    for piece in (anchor or "").split("-"):
        key, _, value = piece.partition("_")
        if key in ("par", "cl"):
            parts = [_PROVISION_PARTS[key].format(value.split(":")[0])]
        elif key in _PROVISION_PARTS and parts and value:
            parts.append(_PROVISION_PARTS[key].format(value))
    return " ".join(parts)


def xhtml_text(xhtml: str | None) -> str:
    """A fragment's ``xhtml`` as plain text (tags dropped, entities decoded, spaces collapsed)."""
    return re.sub(r"\s+", " ", html.unescape(_TAG.sub("", xhtml or ""))).strip()


class FragmentPageError(ValueError):
    """A fragments page is not a ``FragmentSeznam``."""


def check_page(payload) -> dict:
    """The page as the API defines it (``{seznam: [...], pocetStranek: n}``), or FragmentPageError."""
    if not isinstance(payload, dict) or not isinstance(payload.get("seznam"), list):
        raise FragmentPageError("not a FragmentSeznam: no 'seznam' list")
    pages = payload.get("pocetStranek")
    if isinstance(pages, bool) or not isinstance(pages, int) or pages < 0:
        raise FragmentPageError(f"not a FragmentSeznam: pocetStranek is {pages!r}")
    if not all(isinstance(f, dict) for f in payload["seznam"]):
        raise FragmentPageError("not a FragmentSeznam: a fragment is not an object")
    return payload


def assemble(detail: dict, pages: list[dict]) -> dict:
    """One act version from its detail (``DokumentSbirkyDetail``) and every fragments page, in page order."""
    fragments = [f for page in pages for f in check_page(page)["seznam"]]
    act = parse_stale_url(detail.get("staleUrl"))
    if act is None:
        raise FragmentPageError(f"the act's stale URL {detail.get('staleUrl')!r} is not /{{sbirka}}/{{rok}}/{{číslo}}")
    versions = {v.version for v in (parse_stale_url(f.get("staleUrl")) for f in fragments) if v is not None}
    version = act.version or (versions.pop() if len(versions) == 1 else "")
    stale_url = ActId(act.collection, act.year, act.number, version).stale_url
    items, references = [], []
    for fragment in fragments:
        links = [link for link in (fragment.get("odkazyZFragmentu") or []) if isinstance(link, dict)]
        items.append({
            "id": fragment.get("id"), "eli": fragment.get("eli"), "staleUrl": fragment.get("staleUrl"),
            "kind": fragment.get("kodTypuFragmentu"), "depth": fragment.get("hloubka"),
            "citation": fragment.get("zkracenaCitace"), "text": xhtml_text(fragment.get("xhtml")),
            "effective": fragment.get("jeUcinny"), "links": [link.get("odkazId") for link in links],
        })
        for link in links:
            references.append(reference_row(fragment, link))
    return {
        "eli": act.eli, "staleUrl": stale_url, "version": version, "citation": detail.get("zkracenaCitace")
        or act.citation, "title": detail.get("nazev"), "fullCitation": detail.get("uplnaCitace"),
        "versionKind": detail.get("typZneni"), "announced": iso(parse_iso_date(detail.get("datumCasVyhlaseni"))),
        "effectiveFrom": iso(parse_iso_date(detail.get("datumUcinnostiZneniOd") or detail.get("datumUcinnostiOd"))),
        "effectiveTo": iso(parse_iso_date(detail.get("datumUcinnostiZneniDo"))),
        "fragments": items, "references": references,
    }


def reference_row(fragment: dict, link: dict) -> dict:
    """One ``odkazyZFragmentu`` entry, with the cited act resolved to its ELI and citation."""
    target = link.get("cil") or link.get("zdroj") or {}
    stale = target.get("staleUrl") if isinstance(target, dict) else None
    parsed = parse_stale_url(stale)
    return {
        "odkazId": link.get("odkazId"), "fragmentId": fragment.get("id"), "fragmentEli": fragment.get("eli"),
        "fragmentCitation": fragment.get("zkracenaCitace"), "kind": link.get("kodTypuVazbyOdkazu"),
        "targetStaleUrl": stale, "targetEli": parsed.eli if parsed else None,
        "targetCitation": parsed.citation if parsed else None, "targetProvision": parsed.anchor if parsed else None,
        "targetExternal": (target.get("odkaz") or target.get("celex")) if isinstance(target, dict) else None,
    }


def canonical_bytes(record: dict) -> bytes:
    """The same version always serialises to the same bytes (its sha256 tells a changed version)."""
    return json.dumps(record, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")


def sha256(record: dict) -> str:
    return hashlib.sha256(canonical_bytes(record)).hexdigest()


# ---------------------------------------------------------------- PostgreSQL

def page_validators(conn: psycopg.Connection) -> dict[str, str]:
    """ETag per fragments page URL, from every stored act version."""
    validators: dict[str, str] = {}
    for (pages,) in conn.execute("SELECT page_etags FROM act_versions"):
        validators.update({url: etag for url, etag in (pages or {}).items() if etag})
    return validators


def page_counts(conn: psycopg.Connection) -> dict[str, int]:
    """How many fragments pages each stored version had, by the URL of its first page."""
    counts = {}
    for (pages,) in conn.execute("SELECT page_etags FROM act_versions"):
        urls = sorted(pages or {})
        for url in urls:
            if url.endswith("cisloStranky=1"):
                counts[url] = len(urls)
    return counts


def record_version(conn: psycopg.Connection, record: dict, digest: str, page_etags: dict[str, str],
                   doc_id: str | None = None) -> str:
    """Keep one assembled version: 'stored' when it is new or changed, 'unchanged' when the same sha256 is
    already there (only its page ETags and ``checked_at`` are refreshed)."""
    doc_id = doc_id or record["eli"]
    with conn.transaction():
        row = conn.execute("SELECT sha256 FROM act_versions WHERE doc_id = %s AND version = %s",
                           (doc_id, record["version"])).fetchone()
        if row is not None and row[0] == digest:
            conn.execute("UPDATE act_versions SET page_etags = %s, checked_at = now() WHERE doc_id = %s AND version = %s",
                         (Jsonb(page_etags), doc_id, record["version"]))
            return "unchanged"
        conn.execute("DELETE FROM act_versions WHERE doc_id = %s AND version = %s", (doc_id, record["version"]))
        conn.execute(
            "INSERT INTO act_versions (doc_id, version, stale_url, citation, title, version_kind, announced,"
            " effective_from, effective_to, fragment_count, reference_count, sha256, page_etags)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (doc_id, record["version"], record["staleUrl"], record["citation"], record["title"],
             record["versionKind"], record["announced"], record["effectiveFrom"], record["effectiveTo"],
             len(record["fragments"]), len(record["references"]), digest, Jsonb(page_etags)))
        seen = set()
        for ref in record["references"]:
            if not isinstance(ref["odkazId"], int) or ref["odkazId"] in seen:
                continue  # a link without an id (or a repeated one) cannot be told apart
            seen.add(ref["odkazId"])
            conn.execute(
                "INSERT INTO act_references (doc_id, version, odkaz_id, fragment_id, fragment_eli, fragment_citation,"
                " kind, target_stale_url, target_eli, target_citation, target_provision, target_external)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (doc_id, record["version"], ref["odkazId"], ref["fragmentId"], ref["fragmentEli"],
                 ref["fragmentCitation"], ref["kind"], ref["targetStaleUrl"], ref["targetEli"],
                 ref["targetCitation"], ref["targetProvision"], ref["targetExternal"]))
    return "stored"


def confirm_unchanged(conn: psycopg.Connection, first_page_url: str) -> int:
    """Every fragments page answered 304: the versions holding that page were confirmed (``checked_at``)."""
    return conn.execute("UPDATE act_versions SET checked_at = now() WHERE page_etags ? %s",
                        (first_page_url,)).rowcount


def current_references(conn: psycopg.Connection) -> list[dict]:
    """Cross-references of every active act's latest version: what the entity graph adds as act→act edges.

    The latest version is the one with the latest effective date (the announced text when there is no other).
    ``source_norm`` / ``target_norm`` are LAW_REF norms (``90/2024 Sb.``, ``119/2002 Sb. § 5 odst. 1``).
    """
    rows = conn.execute(
        "WITH latest AS (SELECT DISTINCT ON (v.doc_id) v.doc_id, v.version, v.citation FROM act_versions v"
        "  LEFT JOIN documents d ON d.doc_id = v.doc_id WHERE coalesce(d.status, 'active') = 'active'"
        "  ORDER BY v.doc_id, v.effective_from DESC NULLS LAST, v.version DESC)"
        " SELECT l.doc_id, l.citation, r.fragment_citation, r.fragment_eli, r.kind, r.target_eli, r.target_citation,"
        "  r.target_provision FROM latest l JOIN act_references r USING (doc_id, version)"
        " WHERE r.target_eli IS NOT NULL ORDER BY l.doc_id, r.odkaz_id").fetchall()
    keys = ("source_eli", "source_citation", "fragment_citation", "fragment_eli", "kind", "target_eli",
            "target_citation", "target_provision")
    found = []
    for row in rows:
        ref = dict(zip(keys, row))
        provision = provision_from_anchor(ref["target_provision"])
        ref["source_norm"] = ref["source_citation"]
        ref["target_norm"] = f"{ref['target_citation']} {provision}" if provision else ref["target_citation"]
        found.append(ref)
    return found
