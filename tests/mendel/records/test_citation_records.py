"""Court records without decision text (the mirror's Ústavní soud and NSS pages built from ConCo citation records)
are documents of kind citation_record: kept for the citator, never chunked or indexed, so search never returns
their text as a decision."""

from __future__ import annotations

import psycopg
import pytest

from mendel.core.config import SAMPLE_CORPUS
from mendel.core.rawstore import RawStore
from mendel.extract.document import extract_document
from mendel.index import bundle
from mendel.nightly import chunk_stage, extract_stage
from mendel.records.citation_records import CITATION_RECORD, is_citation_record
from mirror.nalus import NalusSite
from mirror.nssoud import NssoudSite
from tests.support.index import RecordingEmbedder, add_document, ns_decisions, run_index

PLACEHOLDER = "Záznam zrcadla"


@pytest.fixture(scope="module")
def record_pages() -> dict:
    """The bytes the mirror serves for one real Ústavní soud record and one real NSS record."""
    nalus = NalusSite(SAMPLE_CORPUS)
    decision = next(d for d in nalus.decisions() if d.sz not in nalus.real_pages())  # a ConCo record, not a page
    nalus_page = nalus.text_page(f"sz={decision.sz}")
    nss = NssoudSite(SAMPLE_CORPUS)
    nss_page = next(page for page in (nss.text(str(900_000 + i)) for i in range(50)) if page is not None)
    return {
        "nalus": (nalus_page.body, nalus_page.content_type, decision.docket),
        "nss": (nss_page.body, nss_page.content_type, None),
    }


def test_records_are_recognised_from_their_extracted_text(record_pages):
    for body, content_type, _ in record_pages.values():
        text = extract_document(body, content_type).text
        assert PLACEHOLDER in text and is_citation_record(text)


def test_decisions_and_acts_are_not_records():
    for decision in ns_decisions():
        assert not is_citation_record(decision["full_text"])
    assert not is_citation_record("Zákon č. 175/2025 Sb. o podpoře bydlení … text rozhodnutí soudu je závazný")


def test_extraction_marks_a_record_and_keeps_its_pages(fresh_db, tmp_path, record_pages):
    body, content_type, docket = record_pages["nalus"]
    store = RawStore(tmp_path / "raw")
    blob = store.put(body)
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO documents (doc_id, source, url, title, doc_type, citation)"
            " VALUES ('us:1', 'nalus', 'https://nalus.test/1', 'x', 'decision', %s)",
            (docket,),
        )
        version = conn.execute(
            "INSERT INTO document_versions (doc_id, sha256, byte_size, content_type)"
            " VALUES ('us:1', %s, %s, %s) RETURNING version_id",
            (blob.sha256, len(body), content_type),
        ).fetchone()[0]
        conn.execute("UPDATE documents SET current_version_id = %s WHERE doc_id = 'us:1'", (version,))
        stats = extract_stage.extract_pending(conn, store)
        assert stats["citation_records"] == 1
        assert conn.execute("SELECT doc_type FROM documents WHERE doc_id = 'us:1'").fetchone()[0] == CITATION_RECORD
        assert conn.execute("SELECT count(*) FROM pages WHERE version_id = %s", (version,)).fetchone()[0] >= 1
        assert chunk_stage.chunk_pending(conn)["versions"] == 0
        assert conn.execute("SELECT count(*) FROM chunks WHERE doc_id = 'us:1'").fetchone()[0] == 0


def test_no_placeholder_text_is_indexed(fresh_db, tmp_path, record_pages):
    """A record stored as a "decision" (as the spiders store them), next to a real decision: after the index
    stages no layer of the bundle holds the record's text, and the record is listed as a citation_record."""
    conn = psycopg.connect(fresh_db, autocommit=True)
    try:
        for name, (body, content_type, docket) in record_pages.items():
            text = extract_document(body, content_type).text
            add_document(conn, f"{name}:record", [text], title=f"{name} record", source=name, citation=docket)
        real = ns_decisions()[0]
        add_document(conn, real["ecli"], [real["full_text"][:3000]], title=real["title"], citation=real["case_number"])
        result = run_index(conn, tmp_path, RecordingEmbedder())
        assert result["chunks"]["citation_records_marked"] == 2
        bundle_dir = tmp_path / "bundles" / result["bundle"]["version"]
        texts = []
        for layer in (1, 2, 3):
            texts += list(bundle.layer_rows(bundle_dir, layer))
        assert texts and all(PLACEHOLDER not in c["text"] for c in texts)
        assert {c["doc_id"] for c in texts} == {real["ecli"]}
        kinds = {d["doc_id"]: d["doc_type"] for d in bundle.read_documents(bundle_dir)}
        assert kinds == {"nalus:record": CITATION_RECORD, "nss:record": CITATION_RECORD, real["ecli"]: "decision"}

        # a later crawl storing the record as a "decision" again is corrected, and nothing is chunked for it
        conn.execute("UPDATE documents SET doc_type = 'decision' WHERE doc_id = 'nalus:record'")
        again = chunk_stage.chunk_pending(conn)
        assert again["citation_records_marked"] == 1 and again["versions"] == 0
        assert conn.execute("SELECT count(*) FROM chunks WHERE doc_id LIKE '%:record'").fetchone()[0] == 0
    finally:
        conn.close()
