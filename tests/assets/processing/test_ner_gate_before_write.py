"""The NER gate runs before recognition: a failing gate leaves entities, mentions, relations and every
chunk's ner_done_at byte-for-byte as they were; a passing gate then recognises the held-back chunks."""

from __future__ import annotations

import hashlib

import psycopg
import pytest
import yaml

from mendel.nightly import chunk_stage, recognise_stage
from tests.support.index import add_act, pages_text
from tests.support.nightly import E2E_COURT_GOLD

DUMPS = {
    "entities": "SELECT * FROM entities ORDER BY entity_id",
    "mentions": "SELECT * FROM mentions ORDER BY chunk_id, start_char, end_char",
    "relations": "SELECT * FROM relations ORDER BY relation_id",
    "chunk_ner_state": "SELECT chunk_id, ner_done_at FROM chunks ORDER BY chunk_id",
}


def table_digests(url: str) -> dict[str, tuple[str, int]]:
    """md5 and byte count of each table's COPY output, in a fixed order."""
    digests = {}
    with psycopg.connect(url) as conn, conn.cursor() as cur:
        for name, query in DUMPS.items():
            data = bytearray()
            with cur.copy(f"COPY ({query}) TO STDOUT") as copy:
                for block in copy:
                    data += block
            digests[name] = (hashlib.md5(bytes(data)).hexdigest(), len(data))
    return digests


@pytest.fixture
def half_recognised(fresh_db):
    """One amending act recognised (entities, mentions, relations stored), a second one chunked and pending."""
    with psycopg.connect(fresh_db) as conn:
        add_act(conn, "/eli/cz/sb/2025/285", [pages_text("285-2025", (12,))], "285/2025 Sb.")
        conn.commit()
        chunk_stage.chunk_pending(conn)
        assert recognise_stage.recognise_pending(conn)["relations"] > 0
        add_act(conn, "/eli/cz/sb/2025/285-b", [pages_text("285-2025", (17,))], "286/2025 Sb.")
        conn.commit()
        chunk_stage.chunk_pending(conn)
        assert conn.execute("SELECT count(*) FROM chunks WHERE ner_done_at IS NULL").fetchone()[0] > 0
    return fresh_db


def _materialize(url: str, home, thresholds_path=None):
    from dagster import materialize

    from assets.processing.recognition import legal_entities
    from orchestration.resources import MendelResource

    resource = MendelResource(
        home=str(home),
        database_url=url,
        ner_thresholds_path=str(thresholds_path) if thresholds_path else None,
        ner_court_gold=E2E_COURT_GOLD,
    )
    return materialize([legal_entities], resources={"mendel": resource}, raise_on_error=False)


def _gate_and_metadata(result):
    [check] = [e.event_specific_data for e in result.all_events if e.event_type_value == "ASSET_CHECK_EVALUATION"]
    [mat] = [
        e.event_specific_data.materialization
        for e in result.all_events
        if e.event_type_value == "ASSET_MATERIALIZATION"
    ]
    return check.passed, {k: v.value for k, v in mat.metadata.items()}


def test_failing_gate_changes_no_ner_table(half_recognised, tmp_path):
    impossible = tmp_path / "impossible.yaml"
    impossible.write_text(yaml.safe_dump({"LAW_REF": {"precision": 1.01}}), encoding="utf-8")
    before = table_digests(half_recognised)
    assert before["entities"][1] > 0 and before["relations"][1] > 0

    failed = _materialize(half_recognised, tmp_path / "home", impossible)
    passed, metadata = _gate_and_metadata(failed)
    assert not passed and not failed.success
    assert metadata["recognised"] is False and metadata["chunks"] == 0 and metadata["held_back_chunks"] > 0
    assert table_digests(half_recognised) == before

    held_back = metadata["held_back_chunks"]
    recognised = _materialize(half_recognised, tmp_path / "home")  # the shipped thresholds
    passed, metadata = _gate_and_metadata(recognised)
    assert passed and recognised.success
    assert metadata["recognised"] is True and metadata["chunks"] == held_back
    after = table_digests(half_recognised)
    assert after["mentions"] != before["mentions"] and after["chunk_ner_state"] != before["chunk_ner_state"]
    with psycopg.connect(half_recognised) as conn:
        assert conn.execute("SELECT count(*) FROM chunks WHERE ner_done_at IS NULL").fetchone()[0] == 0
