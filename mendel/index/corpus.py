"""The chunks an index is built from, per layer, and the contextual text each is indexed by: BM25 and the embedder
read a chunk in context (citation, title, section path, document summary, then the chunk), while the bundle stores
and search returns the raw chunk text.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field, replace

import psycopg

from mendel.law.provision_wordings import lay_wordings
from mendel.passages.act_passages import ActChunkVersions

LAYERS = (1, 2, 3)
# Keys of a chunk row in the bundle's chunks.jsonl (L3) and layers/L<n>/chunks.jsonl.
BUNDLE_KEYS = (
    "chunk_id",
    "doc_id",
    "title",
    "source",
    "url",
    "citation",
    "page_start",
    "page_end",
    "section",
    "text",
    "layer",
    "parent_id",
    "seq",
    "char_start",
    "char_end",
)
# An act's chunks also carry their version (mendel.passages.act_passages.ActChunkVersions); other chunks do not.
VERSION_KEYS = (
    "version_eli",
    "version_kind",
    "valid_from",
    "valid_to",
    "served_from",
    "served_to",
    "provision",
    "versions",
    "page_of",
)


def contextual_text(citation: str | None, title: str, section: str, document_summary: str, text: str) -> str:
    head = " — ".join(x for x in (citation, title, section) if x)
    return "\n".join(x for x in (head, document_summary, text) if x)


# A web address with the dash that introduces it, and a label line the removal leaves empty.
_WEB_ADDRESS = re.compile(r"[ \t]*(?:[–-][ \t]*)?\bhttps?://\S+")
_EMPTY_LABEL = re.compile(r"^[^\S\n]*(?:Odkaz|URL|Web|Adresa)[^\S\n]*:[^\S\n]*$\n?", re.MULTILINE | re.IGNORECASE)


def _words(text: str) -> str:
    return " ".join(text.split())


# A labelled line ("Název: …") whose value may repeat the title the head already gives.
_LABELLED = re.compile(r"^[^\W\d][^:\n]{0,40}:\s*(.*)$")


def _without_repeats(text: str, title: str, boilerplate: frozenset[str]) -> str:
    """``text`` less the lines that only repeat: the title (as the notice's ``Název:`` line, ~12 % of the
    corpus's tokens) and the listing's boilerplate (:func:`boilerplate_lines`)."""
    title = _words(title)
    first_word = title.split(" ", 1)[0]
    kept = []
    for line in text.split("\n"):
        # only a line holding the title's first word, or long enough to be boilerplate, can repeat (whitespace
        # normalising only shortens a line): most lines skip the normalising
        if (title and first_word in line) or (boilerplate and len(line) >= BOILERPLATE_MIN_CHARS):
            words = _words(line)
            labelled = _LABELLED.match(words)
            if (title and (words == title or (labelled and labelled.group(1) == title))) or words in boilerplate:
                continue
        kept.append(line)
    return "\n".join(kept)


def dense_text(
    citation: str | None,
    title: str,
    section: str,
    document_summary: str,
    text: str,
    boilerplate: frozenset[str] = frozenset(),
) -> str:
    """What the encoder reads of a chunk: its contextual text less what only costs tokens — web addresses (a
    third of a notice's tokens, meaningless to the model), the document summary where the chunk already
    holds it (a one-passage notice's summary is its own opening), a line repeating the title of the head, and
    the lines of ``boilerplate`` (whitespace-normalised). BM25 keeps the whole contextual text. A decision's
    summary stays even where it is only its header of fields ("Soud: … Jednací číslo: …"): left out, it cost dense
    recall@10 on the dev questions 0.820 → 0.719 (decisions, 80 % of the passages, came closer to lay questions
    than the acts that answer them)."""
    summary = document_summary
    if summary and _words(summary.rstrip("…")) in _words(text):
        summary = ""
    text = contextual_text(citation, title, section, summary, _without_repeats(text, title, boilerplate))
    if "http" not in text:  # what the two patterns remove starts with a web address
        return text
    return _EMPTY_LABEL.sub("", _WEB_ADDRESS.sub("", text))


# A line that many documents of one listing carry word for word says nothing of any one of them: a board's
# standard disclaimer under every notice (2,137 of the Zlín region's 2,836 notices carry the same 460-character
# description). Long lines only: a short repeated line (an agenda, a department) still tells a notice's kind.
BOILERPLATE_MIN_DOCUMENTS = 10
BOILERPLATE_MIN_CHARS = 120


def boilerplate_lines(conn: psycopg.Connection, records: list["ChunkRecord"]) -> dict[str, frozenset[str]]:
    """Per document of a listing (a board), the lines (whitespace-normalised) that at least
    ``BOILERPLATE_MIN_DOCUMENTS`` active documents of its listing hold, each at least ``BOILERPLATE_MIN_CHARS``
    long; documents without boilerplate are left out."""
    listing_of = dict(
        conn.execute(
            "SELECT doc_id, listing FROM documents WHERE status = 'active'"
            " AND listing IS NOT NULL AND doc_id = ANY(%s)",
            (sorted({r.doc_id for r in records}),),
        )
    )
    holders: dict[tuple[str, str], set[str]] = {}
    for record in records:
        listing = listing_of.get(record.doc_id)
        if listing is None:
            continue
        for line in record.text.split("\n"):
            words = _words(line)
            if len(words) >= BOILERPLATE_MIN_CHARS:
                holders.setdefault((listing, words), set()).add(record.doc_id)
    found: dict[str, set[str]] = {}
    for (_, line), documents in holders.items():
        if len(documents) >= BOILERPLATE_MIN_DOCUMENTS:
            for doc_id in documents:
                found.setdefault(doc_id, set()).add(line)
    return {doc_id: frozenset(lines) for doc_id, lines in found.items()}


def dense_texts(conn: psycopg.Connection, records: list["ChunkRecord"]) -> list[str]:
    """What the encoder reads of each record (:func:`dense_text`), its listing's boilerplate left out."""
    boilerplate = boilerplate_lines(conn, records)
    return [r.dense_text_without(boilerplate.get(r.doc_id, frozenset())) for r in records]


@dataclass(frozen=True)
class ChunkRecord:
    chunk_id: str
    doc_id: str
    title: str
    source: str
    url: str
    citation: str | None
    page_start: int
    page_end: int
    section: str
    text: str
    layer: int = 3
    parent_id: str | None = None
    seq: int = 0
    char_start: int = 0
    char_end: int = 0
    summary: str = ""  # this chunk's own summary (L1: the document's, L2: the section's)
    document_summary: str = ""  # context for every layer
    act_version: dict = field(default_factory=dict, compare=False)  # an act's chunk: its VERSION_KEYS

    @property
    def context_text(self) -> str:
        """What is indexed: citation, title, section path and document summary, then the chunk."""
        return contextual_text(self.citation, self.title, self.section, self.document_summary, self.text)

    @property
    def dense_text(self) -> str:
        """What is embedded of a chunk without boilerplate: :func:`dense_text` (:func:`dense_texts` for a corpus)."""
        return self.dense_text_without(frozenset())

    def dense_text_without(self, boilerplate: frozenset[str]) -> str:
        text = dense_text(self.citation, self.title, self.section, self.document_summary, self.text, boilerplate)
        # an act's provision: how people say what it and its heading settle (derived; the encoder's alone)
        wordings = lay_wordings(self.citation, self.section) if self.act_version else []
        return f"{text}\n{'; '.join(wordings)}" if wordings else text

    def bundle_row(self) -> dict:
        row = {key: getattr(self, key) for key in BUNDLE_KEYS}
        if self.layer != 3:
            row["summary"] = self.summary
        row.update({key: self.act_version[key] for key in VERSION_KEYS if key in self.act_version})
        return row


# The chunks an index holds: served versions of active documents (mendel.crawl.last_good), citation records apart.
# Each statement spells the filter out (statements are literal strings, never spliced).
_LAYER_QUERY = (
    "SELECT c.chunk_id, c.doc_id, coalesce(d.title, ''), d.source, d.url, d.citation, c.page_start, c.page_end,"
    " c.section_path, c.text, c.layer, c.parent_id, c.seq, c.char_start, c.char_end, coalesce(c.summary, ''),"
    " coalesce(top.summary, '')"
    " FROM chunks c JOIN documents d ON d.doc_id = c.doc_id"
    " AND coalesce(d.served_version_id, d.current_version_id) = c.version_id"
    " LEFT JOIN chunks top ON top.version_id = c.version_id AND top.layer = 1"
    " WHERE d.status = 'active' AND d.doc_type IS DISTINCT FROM 'citation_record' AND c.layer = %s"
    " ORDER BY c.doc_id, c.seq, c.chunk_id"
)
_LAYER_QUERY_OF_DOCUMENTS = (
    "SELECT c.chunk_id, c.doc_id, coalesce(d.title, ''), d.source, d.url, d.citation, c.page_start, c.page_end,"
    " c.section_path, c.text, c.layer, c.parent_id, c.seq, c.char_start, c.char_end, coalesce(c.summary, ''),"
    " coalesce(top.summary, '')"
    " FROM chunks c JOIN documents d ON d.doc_id = c.doc_id"
    " AND coalesce(d.served_version_id, d.current_version_id) = c.version_id"
    " LEFT JOIN chunks top ON top.version_id = c.version_id AND top.layer = 1"
    " WHERE d.status = 'active' AND d.doc_type IS DISTINCT FROM 'citation_record' AND c.layer = %s"
    " AND c.doc_id = ANY(%s)"
    " ORDER BY c.doc_id, c.seq, c.chunk_id"
)


def load_layer(conn: psycopg.Connection, layer: int = 3, doc_ids=None) -> list[ChunkRecord]:
    """The live chunks of one layer (served versions of active documents: mendel.crawl.last_good), in bundle
    order; an act's chunks with their version. ``doc_ids``: only those documents' chunks."""
    if layer not in LAYERS:
        raise ValueError(f"layer must be one of {LAYERS}, not {layer!r}")
    if doc_ids is None:
        rows = conn.execute(_LAYER_QUERY, (layer,))
    else:
        rows = conn.execute(_LAYER_QUERY_OF_DOCUMENTS, (layer, list(doc_ids)))
    records = [ChunkRecord(*row) for row in rows]
    versions = ActChunkVersions(conn)
    records = [
        replace(r, act_version=fields) if (fields := versions.fields(r.doc_id, r.chunk_id)) else r for r in records
    ]
    return with_heading_paths(conn, with_section_headings(records)) if layer == 3 else records


# A division's designation as a line of its own ("HLAVA DRUHÁ", "Díl 1"), and the heading line under it.
_DESIGNATION_LINE = re.compile(r"^(?:ČÁST|HLAVA|DÍL|ODDÍL|PODODDÍL|Část|Hlava|Díl|Oddíl|Pododdíl)\s+\S+$")
_HEADING_LINE_MAX = 120


def section_headings(records: list[ChunkRecord]) -> dict[str, dict[str, str]]:
    """Per document, the heading printed under each division's designation, keyed by the division's path
    (``ČÁST DRUHÁ > HLAVA I`` -> ``MANŽELSTVÍ``; a code repeats ``HLAVA I`` in every part): a short line that is
    not a provision, a number or a sentence, read from a passage whose section path holds the division, or, for
    a division opening inside a passage, given to the next passage of the document whose path holds it."""
    found: dict[str, dict[str, str]] = {}
    pending: dict[tuple[str, str], str] = {}  # (document, designation) -> heading of a division opened mid-passage
    for r in sorted(records, key=lambda r: (r.doc_id, r.seq)):
        if " > " not in r.section and not _DESIGNATION_LINE.match(r.section):
            continue
        parts = [" ".join(part.split()) for part in r.section.split(" > ")]
        for i, part in enumerate(parts):
            heading = pending.pop((r.doc_id, part), None)
            if heading:
                found.setdefault(r.doc_id, {}).setdefault(" > ".join(parts[: i + 1]), heading)
        lines = [line.strip() for line in r.text.split("\n") if line.strip()]
        for designation, heading in zip(lines, lines[1:]):
            designation = " ".join(designation.split())
            if (
                _DESIGNATION_LINE.match(designation)
                and len(heading) <= _HEADING_LINE_MAX
                and heading[:1].isalpha()
                and not heading.startswith(("§", "Čl.", "čl."))
                and not heading.endswith((".", ",", ";", ":"))
                and not _DESIGNATION_LINE.match(heading)
            ):
                heading = " ".join(heading.split())
                if designation in parts:
                    path = " > ".join(parts[: parts.index(designation) + 1])
                    found.setdefault(r.doc_id, {}).setdefault(path, heading)
                else:
                    pending[(r.doc_id, designation)] = heading
    return found


def with_section_headings(records: list[ChunkRecord]) -> list[ChunkRecord]:
    """Each division of a passage's section path with its heading (``HLAVA DRUHÁ MOC ZÁKONODÁRNÁ > Čl. 16``),
    where its document prints one under that division; the last part of the path, what references look up, is
    left as it is."""
    headings = section_headings(records)
    if not headings:
        return records
    out = []
    for r in records:
        known = headings.get(r.doc_id)
        parts = [" ".join(part.split()) for part in r.section.split(" > ")] if known else []
        if len(parts) > 1:
            named = [
                f"{part} {known[path]}" if (path := " > ".join(parts[: i + 1])) in known else part
                for i, part in enumerate(parts[:-1])
            ] + parts[-1:]
            if named != parts:
                r = replace(r, section=" > ".join(named))
        out.append(r)
    return out


# The units above a § in an act's provision tree (mendel.law.provision_tree), by their key in a provision's path.
_STRUCTURE_LABELS = {"cast": "část", "hlava": "hlava", "dil": "díl", "oddil": "oddíl", "pododdil": "pododdíl"}
_PROVISION_LABEL = re.compile(r"^(?:§+\s*\d+[a-z]?|čl\.\s*[IVXLC\d]+[a-z]?)$", re.IGNORECASE)


def heading_paths(conn: psycopg.Connection, doc_ids: list[str]) -> dict[str, dict[str, str]]:
    """Per act with a provision tree, its § / čl. -> the structure above it with the headings
    (``část 4 Relativní majetková práva > hlava 2 Závazky z právních jednání > díl 1 Převod vlastnického práva``),
    from the newest version the tree is stored for; provisions with no structure above them are left out."""
    out: dict[str, dict[str, str]] = {}
    newest = conn.execute(
        "SELECT DISTINCT ON (doc_id) doc_id, version FROM provisions WHERE doc_id = ANY(%s)"
        " ORDER BY doc_id, version DESC",
        (sorted(set(doc_ids)),),
    ).fetchall()
    for doc_id, version in newest:
        rows = conn.execute(
            "SELECT provision_id, parent_id, path, coalesce(heading, '') FROM provisions"
            " WHERE doc_id = %s AND version = %s ORDER BY seq",
            (doc_id, version),
        ).fetchall()
        paths = structure_paths(rows)
        if paths:
            out[doc_id] = paths
    return out


def structure_paths(rows: list[tuple[str, str | None, str, str]]) -> dict[str, str]:
    """§ / čl. -> the část / hlava / díl / oddíl above it, each with its heading, then the heading over the provision
    (``… > hlava 5 Trestné činy proti majetku > Krádež``: what a reader asks about is often only there), from one
    version's provision rows (provision id, parent id, path, heading) in the order the act prints them."""
    by_id = {provision_id: (parent, path, heading) for provision_id, parent, path, heading in rows}
    paths: dict[str, str] = {}
    group_heading: dict[str | None, str] = {}  # division -> the heading over its §§ since the last one printed
    for provision_id, parent, _, own in rows:
        if not _PROVISION_LABEL.match(provision_id):
            continue
        # A heading printed above a § heads the §§ after it until the next heading (the codes' group headings:
        # "Nález" over §§ 1051-1062 of the civil code), though the tree stores it on the first alone.
        own = group_heading[parent] = own or group_heading.get(parent, "")
        above = []
        while parent in by_id:
            grand, path, heading = by_id[parent]
            key, _, value = path.rsplit("/", 1)[-1].partition("_")
            if key in _STRUCTURE_LABELS:
                above.append(" ".join(f"{_STRUCTURE_LABELS[key]} {value} {heading or ''}".split()))
            parent = grand
        parts = list(reversed(above))
        own = " ".join((own or "").split())
        if own and not (parts and parts[-1].endswith(own)):  # a § headed as its division is read once
            parts.append(own)
        if parts:
            paths[provision_id] = " > ".join(parts)
    return paths


def with_heading_paths(conn: psycopg.Connection, records: list[ChunkRecord]) -> list[ChunkRecord]:
    """The passages of a § or čl. of an act with a provision tree carry the structure above it with its headings
    in their section path (``… > oddíl 1 Koupě > § 2079``), so BM25 and the encoder read the part of the code a
    provision belongs to; the path still ends in the provision, as references look it up."""
    acts = sorted({r.doc_id for r in records if r.act_version})
    paths = heading_paths(conn, acts) if acts else {}
    if not paths:
        return records
    out = []
    for r in records:
        provision = r.section.rsplit(" > ", 1)[-1].strip()
        above = paths.get(r.doc_id, {}).get(" ".join(provision.split()))
        out.append(replace(r, section=f"{above} > {provision}") if above else r)
    return out


# Per document of a layer, a digest of everything its chunk rows and indexed texts are made of (the fields of
# ChunkRecord: the chunks' own columns, the text through its content_hash, the document's title, source, address
# and citation, the document summary), computed in the database without reading a text; an act's version fields
# and, in layer 3, the heading paths of its provisions are added in Python (layer_digests). The headings a
# passage's section path gains from its document's text (with_section_headings) follow from the texts and
# section paths digested here.
_DIGEST_QUERY = (
    "SELECT c.doc_id, md5(string_agg(concat_ws(chr(31), c.chunk_id, c.page_start, c.page_end, c.section_path,"
    " c.content_hash, c.layer, coalesce(c.parent_id, chr(1)), c.seq, c.char_start, c.char_end,"
    " md5(coalesce(c.summary, ''))), chr(30) ORDER BY c.seq, c.chunk_id)) || md5(concat_ws(chr(31),"
    " coalesce(d.title, ''), d.source, d.url, coalesce(d.citation, chr(1)), md5(coalesce(top.summary, ''))))"
    " FROM chunks c JOIN documents d ON d.doc_id = c.doc_id"
    " AND coalesce(d.served_version_id, d.current_version_id) = c.version_id"
    " LEFT JOIN chunks top ON top.version_id = c.version_id AND top.layer = 1"
    " WHERE d.status = 'active' AND d.doc_type IS DISTINCT FROM 'citation_record' AND c.layer = %s"
    " GROUP BY c.doc_id, d.title, d.source, d.url, d.citation, top.summary"
)
# the same digests for some documents only (the ones marked changed: mendel.index.change_marks)
_DIGEST_QUERY_OF_DOCUMENTS = _DIGEST_QUERY.replace(" GROUP BY", " AND c.doc_id = ANY(%s) GROUP BY", 1)


def layer_digests(conn: psycopg.Connection, layer: int = 3) -> dict[str, str]:
    """doc_id -> a digest of what :func:`load_layer` returns of the document (rows and indexed texts), without
    loading them: a changed digest is a changed document."""
    return layer_digests_of(conn, layer)[0]


def layer_digests_of(conn: psycopg.Connection, layer: int = 3, doc_ids=None) -> tuple[dict[str, str], set[str]]:
    """:func:`layer_digests` of ``doc_ids`` (every document when None), with the documents examined. An act's version
    fields and heading paths come from its act tables, whose writes mark its document (migration 0040): an act is
    examined when it is among ``doc_ids``."""
    if layer not in LAYERS:
        raise ValueError(f"layer must be one of {LAYERS}, not {layer!r}")
    if doc_ids is None:
        digests = dict(conn.execute(_DIGEST_QUERY, (layer,)))
        examined = set(digests)
    else:
        examined = set(doc_ids)
        digests = dict(conn.execute(_DIGEST_QUERY_OF_DOCUMENTS, (layer, sorted(examined)))) if examined else {}
        if not digests:
            return digests, examined
    versions = ActChunkVersions(conn)
    acts = sorted((set(versions.timelines) | set(versions.kinds)) & set(digests))
    fields: dict[str, list] = {}
    for doc_id, chunk_id in conn.execute(
        "SELECT c.doc_id, c.chunk_id FROM chunks c JOIN documents d ON d.doc_id = c.doc_id"
        " AND coalesce(d.served_version_id, d.current_version_id) = c.version_id"
        " WHERE d.status = 'active' AND d.doc_type IS DISTINCT FROM 'citation_record' AND c.layer = %s"
        " AND c.doc_id = ANY(%s) ORDER BY c.doc_id, c.seq, c.chunk_id",
        (layer, acts),
    ):
        fields.setdefault(doc_id, []).append([chunk_id, versions.fields(doc_id, chunk_id)])
    # layer 3's section paths carry the structure above an act's provisions with its headings (with_heading_paths)
    paths = heading_paths(conn, sorted(fields)) if layer == 3 and fields else {}
    for doc_id, found in paths.items():
        fields.setdefault(doc_id, []).append(["heading_paths", found])
    for doc_id, listed in fields.items():
        if doc_id in digests:
            extra = hashlib.sha256(json.dumps(listed, sort_keys=True, default=str).encode()).hexdigest()
            digests[doc_id] += extra
    return digests, examined
