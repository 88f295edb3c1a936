"""The quality checks as Dagster runs them: `document_pages` and `document_chunks` materialised over a
prepared database whose raw store holds a real law, a real Nejvyšší soud decision page that its web server
double-encoded (UTF-8 bytes re-encoded as if they were windows-1252: the page itself says "NejvyÅ¡Å¡Ã­") under
two documents, and every bad input that tests/support/bad_input.py makes.

First run: every bad input is quarantined with its reason and the run goes on; the blocking hard check
fails on the mojibake (two of the three live documents: a broken source, not one document), with the Great
Expectations result in its metadata, so `document_chunks` is not built. After the decisions are withdrawn, the
second run passes the check and builds the chunks.
"""

from __future__ import annotations

import re

import psycopg
import pytest

from mendel.core.config import SAMPLE_CORPUS
from mendel.core.rawstore import RawStore
from mendel.crawl import crawlstate
from tests.support.bad_input import CASES
from tests.support.courts import DECISION_ID, double_encoded_decision
from tests.support.runs import check_evaluations, events, materialized_keys

LAW = SAMPLE_CORPUS / "esbirka" / "pdf" / "87-2024.pdf"
BAD = [(build, reason) for build, limits, reason in CASES if limits is None]
DOUBLE_ENCODED = (DECISION_ID, f"{DECISION_ID}:served-twice")  # one document alone never blocks a run


def _store(conn, store: RawStore, doc_id: str, source: str, data: bytes, content_type: str | None) -> None:
    blob = store.put(data)
    crawlstate.record_document(
        conn,
        run_id=None,
        source=source,
        doc_id=doc_id,
        url=f"https://example.invalid/{source}/{len(data)}-{blob.sha256[:8]}",
        sha256=blob.sha256,
        byte_size=len(data),
        content_type=content_type,
    )


@pytest.fixture
def prepared(fresh_db, tmp_path):
    from orchestration.resources import MendelResource

    resource = MendelResource(home=str(tmp_path / "home"), database_url=fresh_db)
    store = resource.raw_store()
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        _store(conn, store, "/eli/cz/sb/2024/87", "esbirka", LAW.read_bytes(), "application/pdf")
        for doc_id in DOUBLE_ENCODED:
            _store(conn, store, doc_id, "nsoud", double_encoded_decision(), "text/html; charset=utf-8")
        for build, _ in BAD:
            data, content_type = build()
            _store(conn, store, f"bad:{build.__name__}", "municipal", data, content_type)
    return resource


def test_failing_hard_check_blocks_chunks_and_bad_input_is_quarantined(prepared):
    from dagster import AssetCheckSeverity, materialize

    from assets.processing.extraction import QUALITY_HARD, QUALITY_SOFT, document_chunks, document_pages

    first = materialize([document_pages, document_chunks], resources={"mendel": prepared}, raise_on_error=False)
    assert not first.success
    assert materialized_keys(first) == {"document_pages"}  # the pages are kept, nothing downstream is built
    pages = next(e for e in events(first, "ASSET_MATERIALIZATION")).event_specific_data.materialization.metadata
    assert pages["versions"].value == 3 and pages["quarantined"].value == len(BAD)

    with psycopg.connect(prepared.database_url) as conn:
        reasons = dict(conn.execute("SELECT doc_id, reason FROM quarantine WHERE stage = 'extract'").fetchall())
        assert conn.execute("SELECT count(*) FROM chunks").fetchone()[0] == 0
    for build, pattern in BAD:
        assert re.search(pattern, reasons[f"bad:{build.__name__}"]), (build.__name__, reasons[f"bad:{build.__name__}"])

    checks = check_evaluations(first)
    hard, soft = checks[QUALITY_HARD], checks[QUALITY_SOFT]
    assert not hard.passed and hard.severity == AssetCheckSeverity.ERROR and hard.blocking
    assert soft.severity == AssetCheckSeverity.WARN and not soft.blocking
    meta = {k: v.value for k, v in hard.metadata.items()}
    assert meta["failed"] == "pages.no_mojibake"
    assert meta["rows_documents"] == 3 and meta["evaluated"] == len(meta["expectations"]) > 5
    [mojibake] = [x for x in meta["expectations"] if x["name"] == "no_mojibake"]
    assert mojibake["success"] is False and mojibake["expectation"] == "expect_column_values_to_be_null"
    assert mojibake["unexpected_count"] == 2 and mojibake["observed_value"] < 1.0
    assert meta["blocking"] == "2 of 3 live documents fail hard expectations (66.7% > max_failing_share 10%)"
    assert mojibake["unexpected_examples"][0].startswith(f"{DECISION_ID} p. 1: mojibake=")
    assert "Å¡" in mojibake["unexpected_examples"][0]
    assert "| pages | no_mojibake" in meta["summary"]
    # the soft suite sees the same page: its Czech letters turned into mojibake
    assert (
        not soft.passed
        and {k: v.value for k, v in soft.metadata.items()}["failed"] == "documents.czech_character_share"
    )

    with psycopg.connect(prepared.database_url, autocommit=True) as conn:
        conn.execute("UPDATE documents SET status = 'withdrawn' WHERE doc_id = ANY(%s)", (list(DOUBLE_ENCODED),))
    second = materialize([document_pages, document_chunks], resources={"mendel": prepared}, raise_on_error=False)
    assert second.success
    assert {name: c.passed for name, c in check_evaluations(second).items()} == {QUALITY_HARD: True, QUALITY_SOFT: True}
    assert materialized_keys(second) == {"document_pages", "document_chunks"}
    with psycopg.connect(prepared.database_url) as conn:
        assert conn.execute("SELECT count(DISTINCT doc_id) FROM chunks").fetchone()[0] == 1
