"""The recognition stage in worker processes (mendel.nightly.recognise_stage): the same mentions as recognised in
one process, on real decisions of the sample corpus; a recogniser failure comes back as one quarantined chunk."""

import psycopg
import pytest

from mendel.nightly import chunk_stage, recognise_stage
from tests.support.index import add_document, ns_decisions


def _mentions(url: str, workers: int) -> tuple[dict, list]:
    with psycopg.connect(url) as conn:
        for decision in ns_decisions()[:6]:
            add_document(conn, decision["ecli"], [decision["full_text"]], title=decision["title"])
        conn.commit()
        chunk_stage.chunk_pending(conn)
        stats = recognise_stage.recognise_pending(conn, batch_size=8, workers=workers)
        rows = conn.execute(
            "SELECT c.doc_id, c.seq, m.entity_id, m.start_char, m.end_char, m.surface FROM mentions m"
            " JOIN chunks c USING (chunk_id) ORDER BY 1, 2, 4, 3"
        ).fetchall()
    return stats, rows


@pytest.fixture
def second_db(pg_server_url):
    import uuid

    from mendel.core import db

    url = db.create_database(pg_server_url, f"t_{uuid.uuid4().hex[:12]}")
    db.migrate(url)
    return url


def test_workers_find_what_one_process_finds(fresh_db, second_db, monkeypatch):
    monkeypatch.setattr(recognise_stage, "POOL_MIN_CHUNKS", 1)  # the pool even for a few decisions
    started = []
    real_pool = recognise_stage.ProcessPoolExecutor

    def counted_pool(*args, **kwargs):
        started.append(kwargs["max_workers"])
        return real_pool(*args, **kwargs)

    monkeypatch.setattr(recognise_stage, "ProcessPoolExecutor", counted_pool)
    alone_stats, alone = _mentions(fresh_db, workers=1)
    assert started == []
    pooled_stats, pooled = _mentions(second_db, workers=2)
    assert started == [2]
    assert pooled == alone and len(alone) > 20
    assert pooled_stats["chunks"] == alone_stats["chunks"] > 16  # more than two batches of 8
    assert pooled_stats["by_label"] == alone_stats["by_label"]


@pytest.mark.parametrize(
    ("texts", "failing"),
    [
        (["Podle § 2 zákona č. 89/2012 Sb.", "rozbitý text", "usnesení sp. zn. 22 Cdo 1/2020"], [1]),
        (["rozbitý", "rozbitý"], [0, 1]),
        (["bez entit"], []),
    ],
)
def test_a_failing_text_costs_only_itself(monkeypatch, texts, failing):
    from mendel.ner import component

    real = component.recognise

    def fragile(batch, default_act=None, **kwargs):
        if any("rozbitý" in text for text in batch):
            raise ValueError("recogniser bug")
        return real(batch, default_act=default_act, **kwargs)

    monkeypatch.setattr(component, "recognise", fragile)
    found = recognise_stage.recognise_batch([(text, None) for text in texts])
    assert [i for i, f in enumerate(found) if isinstance(f, recognise_stage.RecognitionFailure)] == failing
    assert all(
        f == recognise_stage.RecognitionFailure("ValueError", "recogniser bug") for f in map(found.__getitem__, failing)
    )
    assert all(isinstance(f, list) for i, f in enumerate(found) if i not in failing)
