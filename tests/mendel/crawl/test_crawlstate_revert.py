"""A document whose bytes go back to an earlier version (A -> B -> A) is that version again: current, logged as
stored (the document changed), and chunked anew downstream — its chunks went when B became current. The texts are
two real Nejvyšší soud decisions of the sample corpus standing in for two readings of one document."""

from __future__ import annotations

import psycopg

from mendel.core.rawstore import RawStore
from mendel.crawl import crawlstate
from mendel.nightly.chunk_stage import chunk_pending
from mendel.nightly.extract_stage import extract_pending
from mendel.records.citation_records import CITATION_RECORD
from tests.support.index import ns_decisions

DOC = "test/revert"


def _record(conn, store: RawStore, text: str, doc_type: str | None = None) -> crawlstate.FetchRecord:
    data = text.encode("utf-8")
    blob = store.put(data)
    return crawlstate.record_document(
        conn,
        run_id=None,
        source="test",
        doc_id=DOC,
        url="https://example.invalid/d",
        sha256=blob.sha256,
        byte_size=len(data),
        content_type="text/plain",
        doc_type=doc_type,
    )


def _state(conn) -> tuple[int, set[int], int]:
    current = conn.execute("SELECT current_version_id FROM documents WHERE doc_id = %s", (DOC,)).fetchone()[0]
    chunk_versions = {v for (v,) in conn.execute("SELECT DISTINCT version_id FROM chunks WHERE doc_id = %s", (DOC,))}
    versions = conn.execute("SELECT count(*) FROM document_versions WHERE doc_id = %s", (DOC,)).fetchone()[0]
    return current, chunk_versions, versions


def _process(conn, store: RawStore) -> dict:
    extract_pending(conn, store)
    return chunk_pending(conn)


def test_bytes_of_an_earlier_version_make_it_current_and_chunked_again(fresh_db, tmp_path):
    first, second = (d["full_text"] for d in ns_decisions()[:2])
    store = RawStore(tmp_path / "raw")
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        a = _record(conn, store, first)
        assert a.outcome == "stored"
        _process(conn, store)
        assert _state(conn) == (a.version_id, {a.version_id}, 1)

        b = _record(conn, store, second)
        assert b.outcome == "stored" and b.version_id != a.version_id
        _process(conn, store)
        assert _state(conn) == (b.version_id, {b.version_id}, 2)  # A's chunks went with it

        again = _record(conn, store, first)
        assert (again.outcome, again.version_id) == ("stored", a.version_id)
        assert _process(conn, store)["versions"] == 1  # A chunked anew, no third version
        current, chunked, versions = _state(conn)
        assert (current, chunked, versions) == (a.version_id, {a.version_id}, 2)
        texts = " ".join(
            t for (t,) in conn.execute("SELECT text FROM chunks WHERE doc_id = %s AND layer = 3 ORDER BY seq", (DOC,))
        )
        assert first.split()[5] in texts and texts.split()[:3] == first.split()[:3]

        same = _record(conn, store, first)  # the same bytes once more: nothing changed
        assert (same.outcome, same.version_id) == ("unchanged", a.version_id)
        assert _process(conn, store)["versions"] == 0
        outcomes = [
            o
            for (o,) in conn.execute(
                "SELECT outcome FROM crawl_log WHERE url = %s ORDER BY id", ("https://example.invalid/d",)
            )
        ]
        assert outcomes == ["stored", "stored", "stored", "unchanged"]


def test_a_citation_record_fetched_again_unchanged_is_not_marked_changed(fresh_db, tmp_path):
    """The listing calls every court page a decision; the extraction found this one a citation record. Fetching the
    same bytes again must leave it a record and its change mark alone (it was re-indexed every night)."""
    first, second = (d["full_text"] for d in ns_decisions()[:2])
    store = RawStore(tmp_path / "raw")
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        _record(conn, store, first, "decision")
        conn.execute("UPDATE documents SET doc_type = %s WHERE doc_id = %s", (CITATION_RECORD, DOC))
        kind_and_mark = "SELECT doc_type, changed_txid FROM documents WHERE doc_id = %s"
        before = conn.execute(kind_and_mark, (DOC,)).fetchone()

        again = _record(conn, store, first, "decision")
        assert again.outcome == "unchanged"
        assert conn.execute(kind_and_mark, (DOC,)).fetchone() == before

        changed = _record(conn, store, second, "decision")
        assert changed.outcome == "stored"  # new bytes are judged anew: the listing's kind until extraction says
        assert conn.execute(kind_and_mark, (DOC,)).fetchone()[0] == "decision"
