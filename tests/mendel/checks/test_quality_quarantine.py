"""Per-document quarantine on the hard quality checks, as Dagster runs them: one document whose page was
double-encoded (real Nejvyšší soud decision, UTF-8 read as windows-1252) among four good ones is quarantined
with its failed expectation and examples and kept out of chunks; the hard check passes on that run and the
next; the decision's next, good version is checked afresh and chunked. A failing share of new versions over
the threshold blocks and records nothing."""

from __future__ import annotations

import psycopg
import pytest

from mendel.checks.quality.review import review_database
from mendel.checks.quality.thresholds import load_thresholds
from mendel.core.config import SAMPLE_CORPUS
from mendel.core.rawstore import RawStore
from mendel.crawl import crawlstate
from mendel.index.corpus import load_layer
from tests.support.courts import DECISION_ID, double_encoded_decision, good_decision
from tests.support.runs import check_evaluations, materialized_keys

ACTS = ("87-2024", "88-2024", "89-2024")


def _store(conn, store: RawStore, doc_id: str, source: str, data: bytes, content_type: str) -> None:
    blob = store.put(data)
    crawlstate.record_document(
        conn,
        run_id=None,
        source=source,
        doc_id=doc_id,
        url=f"https://example.invalid/{source}/{doc_id}",
        sha256=blob.sha256,
        byte_size=len(data),
        content_type=content_type,
    )


@pytest.fixture
def corpus(fresh_db, tmp_path):
    from orchestration.resources import MendelResource

    resource = MendelResource(home=str(tmp_path / "home"), database_url=fresh_db)
    store = resource.raw_store()
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        for act in ACTS:
            _store(
                conn,
                store,
                f"/eli/cz/sb/{act}",
                "esbirka",
                (SAMPLE_CORPUS / "esbirka" / "pdf" / f"{act}.pdf").read_bytes(),
                "application/pdf",
            )
        _store(conn, store, "ECLI:good", "nsoud", good_decision(), "text/html; charset=utf-8")
        _store(conn, store, DECISION_ID, "nsoud", double_encoded_decision(), "text/html; charset=utf-8")
    return resource


def _run(resource):
    from dagster import materialize

    from assets.processing.extraction import document_chunks, document_pages

    return materialize([document_pages, document_chunks], resources={"mendel": resource}, raise_on_error=False)


def _hard(result) -> tuple[bool, dict]:
    from assets.processing.extraction import QUALITY_HARD

    check = check_evaluations(result)[QUALITY_HARD]
    return check.passed, {k: v.value for k, v in check.metadata.items()}


def _chunked_docs(conn) -> set[str]:
    return {d for (d,) in conn.execute("SELECT DISTINCT doc_id FROM chunks")}


@pytest.mark.slow
def test_bad_document_is_quarantined_and_its_fixed_version_comes_back(corpus):
    first = _run(corpus)
    assert first.success and materialized_keys(first) == {"document_pages", "document_chunks"}
    passed, meta = _hard(first)
    assert passed and meta["failed"] == "pages.no_mojibake"  # seen, but one document of five
    assert meta["new_versions"] == 5 and meta["new_failing"] == 1 and meta["new_failing_share"] == 0.2
    assert meta["quarantined_documents"] == 1
    [entry] = meta["quarantine"]
    assert entry["doc_id"] == DECISION_ID and entry["expectations"] == ["pages.no_mojibake"]
    assert entry["examples"][0].startswith(f"{DECISION_ID} p. 1: mojibake=") and "Å¡" in entry["examples"][0]

    with psycopg.connect(corpus.database_url) as conn:
        [(version, expectations, examples)] = conn.execute(
            "SELECT version_id, expectations, examples FROM quality_quarantine WHERE doc_id = %s", (DECISION_ID,)
        ).fetchall()
        assert expectations == ["pages.no_mojibake"] and "Å¡" in examples[0]
        assert conn.execute(
            "SELECT reason FROM quarantine WHERE stage = 'quality' AND doc_id = %s", (DECISION_ID,)
        ).fetchone() == ("failed hard expectations: pages.no_mojibake",)
        assert _chunked_docs(conn) == {f"/eli/cz/sb/{a}" for a in ACTS} | {"ECLI:good"}
        assert (
            conn.execute("SELECT count(*) FROM document_versions WHERE quality_checked_at IS NULL").fetchone()[0] == 0
        )

    second = _run(corpus)  # the quarantined version is not validated again: nothing fails, nothing blocks
    assert second.success
    passed, meta = _hard(second)
    assert passed and meta["failed"] == "none" and meta["new_versions"] == 0 and meta["rows_documents"] == 4
    with psycopg.connect(corpus.database_url) as conn:
        assert DECISION_ID not in _chunked_docs(conn)

    with psycopg.connect(corpus.database_url, autocommit=True) as conn:  # fixed at the source: a new version
        _store(
            conn,
            corpus.raw_store(),
            DECISION_ID,
            "nsoud",
            good_decision().replace(b"</body>", b"<p>Opraveno.</p></body>"),
            "text/html; charset=utf-8",
        )
    third = _run(corpus)
    assert third.success
    passed, meta = _hard(third)
    assert passed and meta["new_versions"] == 1 and meta["new_failing"] == 0 and meta["quarantine"] == []
    with psycopg.connect(corpus.database_url) as conn:
        current = conn.execute("SELECT current_version_id FROM documents WHERE doc_id = %s", (DECISION_ID,)).fetchone()[
            0
        ]
        assert current != version
        passages = [r for r in load_layer(conn, 3) if r.doc_id == DECISION_ID]  # what the indexes are built from
        assert passages
        assert {
            v for (v,) in conn.execute("SELECT DISTINCT version_id FROM chunks WHERE doc_id = %s", (DECISION_ID,))
        } == {current}


def test_failing_share_over_threshold_blocks_and_records_nothing(fresh_db):
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        for doc_id, text in (
            ("good", "Nejvyšší soud rozhodl ve věci žalobce " * 5),
            ("bad-1", "NejvyÅ¡Å¡Ã­ soud rozhodl " * 5),
            ("bad-2", "Ĺ˝aloba byla zamĂ­tnuta " * 5),
        ):
            crawlstate.record_document(
                conn,
                run_id=None,
                source="test",
                doc_id=doc_id,
                url=f"https://example.invalid/{doc_id}",
                sha256=doc_id * 4,
                byte_size=len(text),
                content_type="text/plain",
            )
            conn.execute(
                "INSERT INTO pages (version_id, page_no, text) SELECT current_version_id, 1, %s"
                " FROM documents WHERE doc_id = %s",
                (text, doc_id),
            )
        thresholds = load_thresholds()
        blocked = review_database(conn, thresholds)
        assert blocked.new_versions == 3 and blocked.new_failing == 2 and not blocked.passed("hard")
        assert {f.doc_id for f in blocked.failing} == {"bad-1", "bad-2"} and not blocked.recorded
        assert conn.execute("SELECT count(*) FROM quality_quarantine").fetchone()[0] == 0
        assert (
            conn.execute("SELECT count(*) FROM document_versions WHERE quality_checked_at IS NULL").fetchone()[0] == 3
        )

        thresholds["quarantine"] = {"max_new_failing_share": 0.7}  # the same corpus under a looser threshold
        accepted = review_database(conn, thresholds)
        assert accepted.passed("hard") and accepted.recorded
        assert {d for (d,) in conn.execute("SELECT doc_id FROM quality_quarantine")} == {"bad-1", "bad-2"}
