"""An act's versions as searchable passages, and the version every act passage belongs to (search in force).

The act's stored document is chunked like any document and is one version of the act (the promulgated one for a
PDF, the current consolidated one for a DOCX). Every other version whose provisions e-Sbírka gave becomes passages
here, one per § or čl. (or per top unit with none inside), rows of ``chunks`` on the act document's current
version; ``act_passages`` says which provision and which versions each is. A passage is identified by its
provision's wording digest, so only changed provisions are chunked, recognised and embedded again; its page is
where the provision starts in the stored document (0 when it is not found there).

:class:`ActTimelines` gives each chunk of an act its version: ELI, kind (``promulgated`` / ``consolidated``),
validity, and the dates on which search serves it by default (from its own start until the next version with text
starts; the first version with text is served before it takes effect too, marked ``not_yet_in_force``).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import date, timedelta

import psycopg

from mendel.law.provision_tree import normalise_wording

PROMULGATED = "promulgated"
CONSOLIDATED = "consolidated"
SECTION_KINDS = frozenset({"Paragraf", "Clanek"})
SEQ_BASE = 1_000_000  # act passages follow the document's own chunks
VERSION_SEQ = 10_000  # seq = SEQ_BASE + version position * VERSION_SEQ + provision position
_PROVISION_SECTION = re.compile(r"§\s*\d|čl\.\s*[IVXLC\d]", re.IGNORECASE)


@dataclass(frozen=True)
class ActVersion:
    version: str
    eli: str | None
    effective_from: date | None
    effective_to: date | None
    has_text: bool


@dataclass
class ActTimeline:
    """One act's versions, oldest first, and which of them its stored document's text is."""

    doc_id: str
    versions: list[ActVersion]
    document_version: str | None  # the version the document's own chunks are
    document_kind: str  # promulgated (PDF) or consolidated
    passage_versions: set[str] = field(default_factory=set)  # versions with act passages

    def by_key(self, key: str) -> ActVersion | None:
        return next((v for v in self.versions if v.version == key), None)

    def served(self) -> list[ActVersion]:
        """The versions with text in the bundle: the document's and those with passages, oldest first."""
        return [v for v in self.versions if v.version == self.document_version or v.version in self.passage_versions]

    def served_window(self, first: str, last: str) -> tuple[date | None, date | None]:
        """When text running from version ``first`` to ``last`` is served by default: from ``first``'s start
        (open for the act's first version with text) until the day before the next version with text."""
        served = self.served()
        keys = [v.version for v in served]
        if first not in keys or last not in keys:
            return None, None
        start = keys.index(first)
        end = keys.index(last)
        served_from = None if start == 0 else served[start].effective_from
        following = served[end + 1] if end + 1 < len(served) else None
        served_to = (
            following.effective_from - timedelta(days=1)
            if following is not None and following.effective_from is not None
            else None
        )
        return served_from, served_to


def _kind_of(content_type: str | None) -> str:
    return PROMULGATED if (content_type or "").lower() == "application/pdf" else CONSOLIDATED


def document_kinds(conn: psycopg.Connection) -> dict[str, str]:
    """Acts' documents (kind ``law`` or with versions): promulgated (a PDF) or consolidated (a DOCX …)."""
    return {
        doc_id: _kind_of(ctype)
        for doc_id, ctype in conn.execute(
            "SELECT d.doc_id, v.content_type FROM documents d LEFT JOIN document_versions v"
            " ON v.version_id = d.current_version_id WHERE d.doc_type = 'law'"
            " OR EXISTS (SELECT 1 FROM act_versions a WHERE a.doc_id = d.doc_id)"
        )
    }


def timelines(conn: psycopg.Connection) -> dict[str, ActTimeline]:
    """Every act with stored versions and a document, with the versions its passages carry."""
    kinds = document_kinds(conn)
    versions: dict[str, list[ActVersion]] = {}
    for doc_id, key, eli, start, end, has_text in conn.execute(
        "SELECT v.doc_id, v.version, v.version_eli, v.effective_from, v.effective_to,"
        " EXISTS (SELECT 1 FROM provisions p WHERE p.doc_id = v.doc_id AND p.version = v.version)"
        " FROM act_versions v ORDER BY v.doc_id, v.effective_from NULLS FIRST, v.version"
    ):
        versions.setdefault(doc_id, []).append(ActVersion(key, eli, start, end, has_text))
    passages: dict[str, set[str]] = {}
    for doc_id, keys in conn.execute("SELECT doc_id, versions FROM act_passages"):
        passages.setdefault(doc_id, set()).update(keys)
    found = {}
    for doc_id, listed in versions.items():
        if doc_id not in kinds:
            continue  # versions of an act whose document is not stored: nothing to search
        kind = kinds[doc_id]
        own = listed[0] if kind == PROMULGATED else listed[-1]
        found[doc_id] = ActTimeline(doc_id, listed, own.version, kind, passages.get(doc_id, set()))
    return found


# ---------------------------------------------------------------- the passages


def _units(rows: list[dict]) -> list[list[dict]]:
    """A version's provisions cut into passages: each § / čl. with its subtree; a top unit with no § / čl. in
    it (a příloha, text outside sections) whole; the structure above sections (část, hlava) only as their
    own rows, which hold a designation and a heading, not wording of their own."""
    units = []
    position = 0
    while position < len(rows):
        row = rows[position]
        end = position + (row["last_seq"] - row["seq"])
        inside = rows[position + 1 : end + 1]
        if row["kind"] in SECTION_KINDS or not any(r["kind"] in SECTION_KINDS for r in inside):
            units.append(rows[position : end + 1])
            position = end + 1
        else:
            position += 1
    return units


def _wording(row: dict) -> str:
    return normalise_wording(" ".join(p for p in (row.get("heading"), row.get("text")) if p))


def passage_text(unit: list[dict]) -> str:
    """The passage as stored: the provision's label, its heading and wording, then each sub-provision's."""
    head = unit[0]
    lines = [head["provision_id"]]
    lines += [normalise_wording(head["heading"])] if head.get("heading") else []
    lines += [normalise_wording(head["text"])] if head.get("text") else []
    lines += [w for w in (_wording(row) for row in unit[1:]) if w]
    return "\n".join(line for line in lines if line)


def passage_id(doc_id: str, provision_id: str, wording_sha: str, first_version: str) -> str:
    return hashlib.sha256(f"act:{doc_id}:{provision_id}:{wording_sha}:{first_version}".encode()).hexdigest()[:32]


def _provisions(conn: psycopg.Connection, doc_id: str) -> dict[str, list[dict]]:
    by_version: dict[str, list[dict]] = {}
    keys = ("provision_id", "kind", "seq", "last_seq", "heading", "text", "wording_sha")
    for version, *row in conn.execute(
        "SELECT version, provision_id, kind, seq, last_seq, heading, text, wording_sha FROM provisions"
        " WHERE doc_id = %s ORDER BY version, seq",
        (doc_id,),
    ):
        by_version.setdefault(version, []).append(dict(zip(keys, row)))
    return by_version


def _act_passages(conn: psycopg.Connection, timeline: ActTimeline) -> list[dict]:
    """The passages of one act's versions other than its document's, each provision's unchanged wording over
    consecutive versions being one passage."""
    from mendel.law.provision_pages import PageLocator

    provisions = _provisions(conn, timeline.doc_id)
    others = [v for v in timeline.versions if v.has_text and v.version != timeline.document_version]
    if not others:
        return []
    own_units = {unit[0]["provision_id"]: unit for unit in _units(provisions.get(timeline.document_version, []))}
    locator = PageLocator(conn, timeline.doc_id)
    runs: dict[tuple[str, str], dict] = {}
    previous: set[tuple[str, str]] = set()
    passages = []
    for position, version in enumerate(others):
        current = set()
        for unit in _units(provisions[version.version]):
            key = (unit[0]["provision_id"], unit[0]["wording_sha"])
            current.add(key)
            if key in previous:
                runs[key]["versions"].append(version.version)
                continue
            # where the provision starts in the stored document: by the document's own wording of it, else
            # by this one
            page = locator.locate(own_units.get(key[0], [])) or locator.locate(unit)
            run = {
                "chunk_id": passage_id(timeline.doc_id, key[0], key[1], version.version),
                "provision_id": key[0],
                "wording_sha": key[1],
                "versions": [version.version],
                "text": passage_text(unit),
                "page": page["page"] if page else 0,
                "located": page is not None,
                "seq": SEQ_BASE + position * VERSION_SEQ + unit[0]["seq"],
            }
            runs[key] = run
            passages.append(run)
        previous = current
    return passages


def index_act_versions(conn: psycopg.Connection) -> dict:
    """Make the act passages of every act with more than one version with text match the stored versions:
    new wordings are inserted (to be recognised and embedded), passages whose wording went are deleted (their
    mentions and vectors with them), unchanged ones only get their list of versions updated. Acts whose
    document is not chunked yet wait for it."""
    stats = {"acts": 0, "passages": 0, "new": 0, "removed": 0, "unchanged": 0}
    documents = dict(
        (
            (doc_id, version_id)
            for doc_id, version_id in conn.execute(
                "SELECT d.doc_id, d.current_version_id FROM documents d JOIN document_versions v"
                " ON v.version_id = d.current_version_id WHERE d.status = 'active' AND v.chunked_at IS NOT NULL"
            )
        )
    )
    stored: dict[str, set[str]] = {}
    for doc_id, chunk in conn.execute("SELECT doc_id, chunk_id FROM act_passages"):
        stored.setdefault(doc_id, set()).add(chunk)
    for doc_id, timeline in sorted(timelines(conn).items()):
        passages = _act_passages(conn, timeline) if doc_id in documents else []
        wanted = {p["chunk_id"] for p in passages}
        gone = stored.get(doc_id, set()) - wanted
        known = stored.get(doc_id, set()) & wanted
        with conn.transaction(), conn.cursor() as cur:
            if gone:
                cur.execute("DELETE FROM chunks WHERE chunk_id = ANY(%s)", (sorted(gone),))
            if passages:
                version_id = documents[doc_id]
                cur.executemany(
                    "INSERT INTO chunks (chunk_id, version_id, doc_id, layer, seq, page_start, page_end,"
                    " section_path, char_start, char_end, text, content_hash)"
                    " VALUES (%s, %s, %s, 3, %s, %s, %s, %s, 0, 0, %s, %s)"
                    " ON CONFLICT (chunk_id) DO UPDATE SET version_id = EXCLUDED.version_id, seq = EXCLUDED.seq,"
                    " page_start = EXCLUDED.page_start, page_end = EXCLUDED.page_end",
                    [
                        (
                            p["chunk_id"],
                            version_id,
                            doc_id,
                            p["seq"],
                            p["page"],
                            p["page"],
                            p["provision_id"],
                            p["text"],
                            hashlib.sha256(p["text"].encode()).hexdigest(),
                        )
                        for p in passages
                    ],
                )
                cur.executemany(
                    "INSERT INTO act_passages (chunk_id, doc_id, provision_id, wording_sha, versions, page_located)"
                    " VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (chunk_id) DO UPDATE"
                    " SET versions = EXCLUDED.versions, page_located = EXCLUDED.page_located",
                    [
                        (p["chunk_id"], doc_id, p["provision_id"], p["wording_sha"], p["versions"], p["located"])
                        for p in passages
                    ],
                )
        if passages or gone:
            stats["acts"] += bool(passages)
            stats["passages"] += len(passages)
            stats["new"] += len(wanted - known)
            stats["unchanged"] += len(known)
            stats["removed"] += len(gone)
    return stats


# ---------------------------------------------------------------- every act chunk's version


def _iso(value: date | None) -> str | None:
    return value.isoformat() if value else None


class ActChunkVersions:
    """The version fields of every chunk of an act (the bundle's chunk rows carry them; search filters by
    them): ``version_eli``, ``version_kind``, ``valid_from``, ``valid_to``, ``served_from``, ``served_to``,
    and for an act passage its ``provision``, ``versions`` ([eli, from, to] of each version with its wording)
    and ``page_of`` (``promulgated``: the page is the promulgated PDF's)."""

    def __init__(self, conn: psycopg.Connection):
        self.timelines = timelines(conn)
        self.kinds = document_kinds(conn)
        self.passages = {
            chunk: (provision, list(versions), located)
            for chunk, provision, versions, located in conn.execute(
                "SELECT chunk_id, provision_id, versions, page_located FROM act_passages"
            )
        }

    def fields(self, doc_id: str, chunk_id: str) -> dict:
        """What a chunk of ``doc_id`` carries; {} for a document that is not an act."""
        timeline = self.timelines.get(doc_id)
        if timeline is None:
            kind = self.kinds.get(doc_id)
            return {"version_kind": kind} if kind else {}
        passage = self.passages.get(chunk_id)
        if passage is None:  # the document's own text
            own = timeline.by_key(timeline.document_version)
            served_from, served_to = timeline.served_window(own.version, own.version)
            return {
                "version_eli": own.eli,
                "version_kind": timeline.document_kind,
                "valid_from": _iso(own.effective_from),
                "valid_to": _iso(own.effective_to),
                "served_from": _iso(served_from),
                "served_to": _iso(served_to),
            }
        provision, keys, located = passage
        versions = [v for v in (timeline.by_key(k) for k in keys) if v is not None]
        if not versions:
            return {"version_kind": CONSOLIDATED, "provision": provision}
        served_from, served_to = timeline.served_window(versions[0].version, versions[-1].version)
        return {
            "version_eli": versions[0].eli,
            "version_kind": CONSOLIDATED,
            "valid_from": _iso(versions[0].effective_from),
            "valid_to": _iso(versions[-1].effective_to),
            "served_from": _iso(served_from),
            "served_to": _iso(served_to),
            "provision": provision,
            "versions": [[v.eli, _iso(v.effective_from), _iso(v.effective_to)] for v in versions],
            "page_of": timeline.document_kind if located else None,
        }
