"""The chunks an index is built from, per layer, and the contextual text each is indexed by.

Contextual retrieval: what BM25 indexes and what the embedder sees is the chunk *in context* — the document's
citation and title, the chunk's section path and the document's summary, then the chunk — while what the
bundle stores and search returns is the raw chunk text. The embedder reads the same less web addresses and a
summary the chunk already holds (:func:`dense_text`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

import psycopg

from mendel.index.act_passages import ActChunkVersions

LAYERS = (1, 2, 3)
# Keys of a chunk row in the bundle's chunks.jsonl (L3) and layers/L<n>/chunks.jsonl.
BUNDLE_KEYS = ("chunk_id", "doc_id", "title", "source", "url", "citation", "page_start", "page_end", "section",
               "text", "layer", "parent_id", "seq", "char_start", "char_end")
# An act's chunks also carry their version (mendel.index.act_passages.ActChunkVersions); other chunks do not.
VERSION_KEYS = ("version_eli", "version_kind", "valid_from", "valid_to", "served_from", "served_to", "provision",
                "versions", "page_of")


def contextual_text(citation: str | None, title: str, section: str, document_summary: str, text: str) -> str:
    head = " — ".join(x for x in (citation, title, section) if x)
    return "\n".join(x for x in (head, document_summary, text) if x)


# A web address with the dash that introduces it, and a label line the removal leaves empty.
_WEB_ADDRESS = re.compile(r"[ \t]*(?:[–-][ \t]*)?\bhttps?://\S+")
_EMPTY_LABEL = re.compile(r"^[^\S\n]*(?:Odkaz|URL|Web|Adresa)[^\S\n]*:[^\S\n]*$\n?", re.MULTILINE | re.IGNORECASE)


def _words(text: str) -> str:
    return " ".join(text.split())


def dense_text(citation: str | None, title: str, section: str, document_summary: str, text: str) -> str:
    """What the encoder reads of a chunk: its contextual text less what only costs tokens — web addresses (a
    third of a notice's tokens, meaningless to the model) and the document summary where the chunk already
    holds it (a one-passage notice's summary is its own opening). BM25 keeps the whole contextual text."""
    summary = document_summary
    if summary and _words(summary.rstrip("…")) in _words(text):
        summary = ""
    return _EMPTY_LABEL.sub("", _WEB_ADDRESS.sub("", contextual_text(citation, title, section, summary, text)))


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
    summary: str = ""            # this chunk's own summary (L1: the document's, L2: the section's)
    document_summary: str = ""   # context for every layer
    act_version: dict = field(default_factory=dict, compare=False)  # an act's chunk: its VERSION_KEYS

    @property
    def context_text(self) -> str:
        """What is indexed: citation, title, section path and document summary, then the chunk."""
        return contextual_text(self.citation, self.title, self.section, self.document_summary, self.text)

    @property
    def dense_text(self) -> str:
        """What is embedded: :func:`dense_text`."""
        return dense_text(self.citation, self.title, self.section, self.document_summary, self.text)

    def bundle_row(self) -> dict:
        row = {key: getattr(self, key) for key in BUNDLE_KEYS}
        if self.layer != 3:
            row["summary"] = self.summary
        row.update({key: self.act_version[key] for key in VERSION_KEYS if key in self.act_version})
        return row


_LAYER_QUERY = (
    "SELECT c.chunk_id, c.doc_id, coalesce(d.title, ''), d.source, d.url, d.citation, c.page_start, c.page_end,"
    " c.section_path, c.text, c.layer, c.parent_id, c.seq, c.char_start, c.char_end, coalesce(c.summary, ''),"
    " coalesce(top.summary, '')"
    " FROM chunks c JOIN documents d ON d.doc_id = c.doc_id AND d.current_version_id = c.version_id"
    " LEFT JOIN chunks top ON top.version_id = c.version_id AND top.layer = 1"
    " WHERE d.status = 'active' AND d.doc_type IS DISTINCT FROM 'citation_record' AND c.layer = %s"
    " ORDER BY c.doc_id, c.seq"
)


def load_layer(conn: psycopg.Connection, layer: int = 3) -> list[ChunkRecord]:
    """The live chunks of one layer (current versions of active documents), in bundle order; an act's chunks
    with their version."""
    if layer not in LAYERS:
        raise ValueError(f"layer must be one of {LAYERS}, not {layer!r}")
    records = [ChunkRecord(*row) for row in conn.execute(_LAYER_QUERY, (layer,))]
    versions = ActChunkVersions(conn)
    return [replace(r, act_version=fields) if (fields := versions.fields(r.doc_id, r.chunk_id)) else r
            for r in records]
