"""A bulk write of vectors sets the chunks' HNSW index aside and builds it again
(mendel.nightly.embed_stage.embed_pending): the database ends as the row-by-row writes leave it, the index included."""

import psycopg
import pytest

from mendel.nightly import chunk_stage, embed_stage
from tests.support.index import RecordingEmbedder, add_document, ns_decisions


def _embedded_state(url: str, bulk_above: int, monkeypatch) -> tuple[list, list]:
    monkeypatch.setattr(embed_stage, "BULK_VECTOR_WRITES", bulk_above)
    with psycopg.connect(url) as conn:
        for decision in ns_decisions()[:4]:
            add_document(conn, decision["ecli"], [decision["full_text"]], title=decision["title"])
        conn.commit()
        chunk_stage.chunk_pending(conn)
        stats = embed_stage.embed_pending(conn, RecordingEmbedder())
        assert stats["chunks"] > 4
        vectors = conn.execute(
            "SELECT chunk_id, layer, embedding::text, embedded_hash FROM chunks ORDER BY chunk_id"
        ).fetchall()
        indexes = conn.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'chunks' ORDER BY indexname"
        ).fetchall()
    return vectors, indexes


@pytest.fixture
def second_db(pg_server_url):
    import uuid

    from mendel.core import db

    url = db.create_database(pg_server_url, f"t_{uuid.uuid4().hex[:12]}")
    db.migrate(url)
    return url


def test_bulk_vector_writes_end_as_row_by_row_ones_with_the_index_rebuilt(fresh_db, second_db, monkeypatch):
    row_by_row = _embedded_state(fresh_db, bulk_above=10**9, monkeypatch=monkeypatch)
    bulk = _embedded_state(second_db, bulk_above=1, monkeypatch=monkeypatch)
    assert bulk == row_by_row
    assert any("USING hnsw" in definition for _, definition in bulk[1])
    assert all(vector is not None for _, _, vector, _ in bulk[0])


def test_a_failed_bulk_write_keeps_the_index(fresh_db, monkeypatch):
    monkeypatch.setattr(embed_stage, "BULK_VECTOR_WRITES", 1)

    def failing(conn, batch_versions=200, doc_ids=None):
        raise RuntimeError("disk full")

    monkeypatch.setattr(embed_stage, "_embed_upper_layers", failing)
    with psycopg.connect(fresh_db) as conn:
        decision = ns_decisions()[0]
        add_document(conn, decision["ecli"], [decision["full_text"]], title=decision["title"])
        conn.commit()
        chunk_stage.chunk_pending(conn)
        hnsw = "SELECT indexname FROM pg_indexes WHERE tablename = 'chunks' AND indexdef ILIKE '%USING hnsw%'"
        before = sorted(r[0] for r in conn.execute(hnsw))
        with pytest.raises(RuntimeError, match="disk full"):
            embed_stage.embed_pending(conn, RecordingEmbedder())
        # every vector index of the table (the passages', the sections' and the documents') is still there
        assert sorted(r[0] for r in conn.execute(hnsw)) == before and len(before) == 3
        # the passages' vectors went back with the drop: the next run writes them
        assert conn.execute("SELECT count(*) FROM chunks WHERE layer = 3 AND embedding IS NOT NULL").fetchone()[0] == 0
