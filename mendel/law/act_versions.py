"""e-Sbírka act versions: assembled from the API's fragments and kept in PostgreSQL.

The e-Sbírka spider reads each version's ``/dokumenty-sbirky/{staleUrl}/fragmenty?cisloStranky=N`` pages and hands
them here: :func:`assemble` turns the version's detail and its pages into one record per version (znění) — ELI and
version ELI, citation, effective dates, the amending acts (``novely``), the fragments in order, the provisions
(:mod:`mendel.law.provision_tree`) and the ``odkazyZFragmentu`` cross-references — whose canonical JSON goes to the
raw store; :func:`record_version` keeps it in ``act_versions`` / ``provisions`` / ``act_references`` and
:func:`apply_history` the validity ``/historie`` gives every version. The entity graph reads
:func:`current_references`; the wording on a date is :mod:`mendel.citator.wording`.
"""

from __future__ import annotations

import hashlib
import html
import json
import re

import psycopg
from psycopg.types.json import Jsonb

from mendel.czech.dates import iso, parse_iso_date
from mendel.law.identifiers import ActId, parse_citation, parse_stale_url
from mendel.law.provision_tree import provision_from_anchor, provision_tree

_TAG = re.compile(r"<[^>]+>")

FEED = "esbirka:zmeny-zneni"
FIRST_PAGE = 0  # fragment pages count from 0 (the definition's cisloStranky has minimum 0)


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
    """One act version from its detail (``DokumentSbirkyDetail``, or a ``historie`` entry merged into one) and
    every fragments page, in page order."""
    fragments = [f for page in pages for f in check_page(page)["seznam"]]
    act = parse_stale_url(detail.get("staleUrl"))
    if act is None:
        raise FragmentPageError(f"the act's stale URL {detail.get('staleUrl')!r} is not /{{sbirka}}/{{rok}}/{{číslo}}")
    versions = {v.version for v in (parse_stale_url(f.get("staleUrl")) for f in fragments) if v is not None}
    version = act.version or (versions.pop() if len(versions) == 1 else "")
    versioned = ActId(act.collection, act.year, act.number, version)
    stale_url = versioned.stale_url
    items, references = [], []
    for fragment in fragments:
        links = [link for link in (fragment.get("odkazyZFragmentu") or []) if isinstance(link, dict)]
        items.append(
            {
                "id": fragment.get("id"),
                "eli": fragment.get("eli"),
                "staleUrl": fragment.get("staleUrl"),
                "kind": fragment.get("kodTypuFragmentu"),
                "depth": fragment.get("hloubka"),
                "citation": fragment.get("zkracenaCitace"),
                "text": xhtml_text(fragment.get("xhtml")),
                "effective": fragment.get("jeUcinny"),
                "links": [link.get("odkazId") for link in links],
            }
        )
        for link in links:
            references.append(reference_row(fragment, link))
    return {
        "eli": act.eli,
        "staleUrl": stale_url,
        "version": version,
        "versionEli": versioned.versioned_eli,
        "citation": detail.get("zkracenaCitace") or act.citation,
        "title": detail.get("nazev"),
        "fullCitation": detail.get("uplnaCitace"),
        "versionKind": detail.get("typZneni"),
        "announced": iso(parse_iso_date(detail.get("datumCasVyhlaseni"))),
        "effectiveFrom": iso(parse_iso_date(detail.get("datumUcinnostiZneniOd") or detail.get("datumUcinnostiOd"))),
        "effectiveTo": iso(parse_iso_date(detail.get("datumUcinnostiZneniDo"))),
        "amendedBy": amending_acts(detail.get("novely")),
        "fragments": items,
        "references": references,
        "provisions": provision_tree(items),
    }


def amending_acts(novely) -> list[dict]:
    """``novely`` (``NovelaDokumentuSbirkyZaklad``) as [{citation, eli}], the act named by its stale URL or code."""
    found = []
    for novela in novely or []:
        if not isinstance(novela, dict):
            continue
        act = parse_stale_url(novela.get("staleUrl")) or parse_citation(novela.get("kodDokumentuSbirky"))
        if act is not None:
            found.append({"citation": act.citation, "eli": act.eli})
    return found


def reference_row(fragment: dict, link: dict) -> dict:
    """One ``odkazyZFragmentu`` entry, with the cited act resolved to its ELI and citation."""
    target = link.get("cil") or link.get("zdroj") or {}
    stale = target.get("staleUrl") if isinstance(target, dict) else None
    parsed = parse_stale_url(stale)
    return {
        "odkazId": link.get("odkazId"),
        "fragmentId": fragment.get("id"),
        "fragmentEli": fragment.get("eli"),
        "fragmentCitation": fragment.get("zkracenaCitace"),
        "kind": link.get("kodTypuVazbyOdkazu"),
        "targetStaleUrl": stale,
        "targetEli": parsed.eli if parsed else None,
        "targetCitation": parsed.citation if parsed else None,
        "targetProvision": parsed.anchor if parsed else None,
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
            if url.endswith(f"cisloStranky={FIRST_PAGE}"):
                counts[url] = len(urls)
    return counts


def record_version(
    conn: psycopg.Connection,
    record: dict,
    digest: str,
    page_etags: dict[str, str],
    doc_id: str | None = None,
    published: str | None = None,
) -> str:
    """Keep one assembled version with its provisions: 'stored' when it is new or changed, 'unchanged' when the
    same sha256 is already there (only its page ETags, publication time and ``checked_at`` are refreshed).
    ``published``: e-Sbírka's publication time of the version (``zmeny-zneni``)."""
    doc_id = doc_id or record["eli"]
    with conn.transaction():
        row = conn.execute(
            "SELECT sha256 FROM act_versions WHERE doc_id = %s AND version = %s", (doc_id, record["version"])
        ).fetchone()
        if row is not None and row[0] == digest:
            conn.execute(
                "UPDATE act_versions SET page_etags = %s, checked_at = now(),"
                " published_at = coalesce(%s, published_at) WHERE doc_id = %s AND version = %s",
                (Jsonb(page_etags), published, doc_id, record["version"]),
            )
            return "unchanged"
        conn.execute("DELETE FROM act_versions WHERE doc_id = %s AND version = %s", (doc_id, record["version"]))
        conn.execute(
            "INSERT INTO act_versions (doc_id, version, stale_url, citation, title, version_kind, announced,"
            " effective_from, effective_to, fragment_count, reference_count, sha256, page_etags, version_eli,"
            " amended_by, published_at)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (
                doc_id,
                record["version"],
                record["staleUrl"],
                record["citation"],
                record["title"],
                record["versionKind"],
                record["announced"],
                record["effectiveFrom"],
                record["effectiveTo"],
                len(record["fragments"]),
                len(record["references"]),
                digest,
                Jsonb(page_etags),
                record.get("versionEli"),
                Jsonb(record.get("amendedBy") or []),
                published,
            ),
        )
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO provisions (doc_id, version, provision_id, path, kind, parent_id, seq, last_seq, depth,"
                " heading, text, wording_sha, fragment_ids)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                [
                    (
                        doc_id,
                        record["version"],
                        p["id"],
                        p["path"],
                        p["kind"],
                        p["parent"],
                        p["seq"],
                        p["last_seq"],
                        p["depth"],
                        p["heading"],
                        p["text"],
                        p["wording_sha"],
                        [f for f in p["fragments"] if isinstance(f, int)],
                    )
                    for p in record.get("provisions") or []
                ],
            )
        seen = set()
        for ref in record["references"]:
            if not isinstance(ref["odkazId"], int) or ref["odkazId"] in seen:
                continue  # a link without an id (or a repeated one) cannot be told apart
            seen.add(ref["odkazId"])
            conn.execute(
                "INSERT INTO act_references (doc_id, version, odkaz_id, fragment_id, fragment_eli, fragment_citation,"
                " kind, target_stale_url, target_eli, target_citation, target_provision, target_external)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (
                    doc_id,
                    record["version"],
                    ref["odkazId"],
                    ref["fragmentId"],
                    ref["fragmentEli"],
                    ref["fragmentCitation"],
                    ref["kind"],
                    ref["targetStaleUrl"],
                    ref["targetEli"],
                    ref["targetCitation"],
                    ref["targetProvision"],
                    ref["targetExternal"],
                ),
            )
    return "stored"


def apply_history(conn: psycopg.Connection, doc_id: str, history: dict) -> int:
    """The validity, number and amending acts ``/historie`` gives each version, written to the stored versions
    (a new version ends the one before it, which e-Sbírka does not republish). Returns the versions updated."""
    updated = 0
    for entry in history.get("historie") or []:
        if not isinstance(entry, dict):
            continue
        act = parse_stale_url(entry.get("staleUrl"))
        if act is None:
            continue
        updated += conn.execute(
            "UPDATE act_versions SET effective_from = coalesce(%s, effective_from), effective_to = %s,"
            " version_number = %s, amended_by = %s, version_kind = coalesce(%s, version_kind)"
            " WHERE doc_id = %s AND version = %s",
            (
                iso(parse_iso_date(entry.get("datumUcinnostiZneniOd"))),
                iso(parse_iso_date(entry.get("datumUcinnostiZneniDo"))),
                entry.get("cisloZneni") if isinstance(entry.get("cisloZneni"), int) else None,
                Jsonb(amending_acts(entry.get("novely"))),
                entry.get("typZneni"),
                doc_id,
                act.version,
            ),
        ).rowcount
    return updated


def feed_position(conn: psycopg.Connection, feed: str = FEED) -> str | None:
    """The publication time up to which the change feed was taken in (ISO 8601), None before the first crawl."""
    row = conn.execute("SELECT last_published FROM change_feeds WHERE feed = %s", (feed,)).fetchone()
    return row[0].isoformat() if row else None


def advance_feed(conn: psycopg.Connection, last_published: str | None, feed: str = FEED) -> None:
    """Record that every version published up to ``last_published`` is in (a later time only; None: just
    checked)."""
    if last_published is None:
        conn.execute("UPDATE change_feeds SET checked_at = now() WHERE feed = %s", (feed,))
        return
    conn.execute(
        "INSERT INTO change_feeds (feed, last_published) VALUES (%s, %s) ON CONFLICT (feed) DO UPDATE"
        " SET last_published = greatest(change_feeds.last_published, EXCLUDED.last_published), checked_at = now()",
        (feed, last_published),
    )


def confirm_unchanged(conn: psycopg.Connection, first_page_url: str) -> int:
    """Every fragments page answered 304: the versions holding that page were confirmed (``checked_at``)."""
    return conn.execute("UPDATE act_versions SET checked_at = now() WHERE page_etags ? %s", (first_page_url,)).rowcount


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
        " WHERE r.target_eli IS NOT NULL ORDER BY l.doc_id, r.odkaz_id"
    ).fetchall()
    keys = (
        "source_eli",
        "source_citation",
        "fragment_citation",
        "fragment_eli",
        "kind",
        "target_eli",
        "target_citation",
        "target_provision",
    )
    found = []
    for row in rows:
        ref = dict(zip(keys, row))
        provision = provision_from_anchor(ref["target_provision"])
        ref["source_norm"] = ref["source_citation"]
        ref["target_norm"] = f"{ref['target_citation']} {provision}" if provision else ref["target_citation"]
        found.append(ref)
    return found


def summary(conn: psycopg.Connection) -> dict:
    """What the crawl keeps of act versions, for the nightly run's metadata: versions, acts with more than one,
    provisions, provisions whose wording a later version changed, and how far the change feed was taken in."""
    versions, acts, several, amended = conn.execute(
        "SELECT count(*), count(DISTINCT doc_id), count(*) FILTER (WHERE n > 1),"
        " (SELECT count(*) FROM act_versions WHERE jsonb_array_length(amended_by) > 0)"
        " FROM (SELECT doc_id, count(*) OVER (PARTITION BY doc_id) AS n FROM act_versions) v"
    ).fetchone()
    provisions = conn.execute("SELECT count(*) FROM provisions").fetchone()[0]
    changed = conn.execute(
        "WITH ordered AS (SELECT doc_id, version, lag(version) OVER (PARTITION BY doc_id ORDER BY effective_from"
        "  NULLS FIRST, version) AS previous FROM act_versions)"
        " SELECT count(*) FROM ordered o JOIN provisions n ON n.doc_id = o.doc_id AND n.version = o.version"
        " JOIN provisions p ON p.doc_id = o.doc_id AND p.version = o.previous AND p.provision_id = n.provision_id"
        " WHERE p.wording_sha <> n.wording_sha"
    ).fetchone()[0]
    feeds = conn.execute("SELECT max(last_published) FROM change_feeds").fetchone()[0]
    return {
        "versions": versions,
        "acts": acts,
        "versions_of_acts_with_several": several,
        "versions_with_amending_act": amended,
        "provisions": provisions,
        "provisions_changed_by_a_later_version": changed,
        "feed_taken_in_until": feeds.isoformat() if feeds else "never",
    }
