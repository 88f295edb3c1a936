"""The incremental quality review (mendel.checks.quality.review) against a validation of the whole corpus, on a
corpus that changes between runs: new documents, a new version of a quarantined one, a re-extraction, a withdrawn
document, changed thresholds, and runs the hard check blocks. At every step both reviews see the same database;
the whole-corpus one runs in a transaction that is rolled back, the incremental one records what it records. The
check metadata, the verdicts, the failing documents and what is recorded must be the same; a run where nothing
changed validates nothing (Great Expectations is not even loaded)."""

from __future__ import annotations

import psycopg
import pytest

from mendel.checks.quality import suites
from mendel.checks.quality.review import QualityReview, review_database
from mendel.checks.quality.stored_shares import review_version
from mendel.checks.quality.thresholds import SEVERITIES, load_thresholds
from mendel.crawl import crawlstate

GOOD = "Nejvyšší soud rozhodl ve věci žalobce o náhradě škody způsobené výkonem veřejné moci. " * 4
SHORT = "Usnesení."  # too few letters for the Czech share: a missing value, not a failing one
MOJIBAKE = "NejvyÅ¡Å¡Ã­ soud rozhodl ve vÄ›ci Å¾alobce. " * 4
SECTION = ("§", "§ 1", 1, 1, 1, 0, 10)  # kind, label, depth, page_start, page_end, char_start, char_end


def _document(conn, doc_id: str, pages: list, sections: list = (), sha: str | None = None) -> int:
    """A document's new current version with its pages ((text, ocr confidence or None) or text) and sections,
    stamped extracted as the extract stage does."""
    crawlstate.record_document(
        conn,
        run_id=None,
        source="test",
        doc_id=doc_id,
        url=f"https://example.invalid/{doc_id}",
        sha256=sha or f"{doc_id}-v1",
        byte_size=1,
        content_type="text/plain",
    )
    version = conn.execute("SELECT current_version_id FROM documents WHERE doc_id = %s", (doc_id,)).fetchone()[0]
    _extract(conn, version, pages, sections)
    return version


def _extract(conn, version: int, pages: list, sections: list = ()) -> None:
    with conn.transaction():
        conn.execute("DELETE FROM pages WHERE version_id = %s", (version,))
        conn.execute("DELETE FROM sections WHERE version_id = %s", (version,))
        for number, page in pages:
            text, confidence = page if isinstance(page, tuple) else (page, None)
            conn.execute(
                "INSERT INTO pages (version_id, page_no, text, is_ocr, ocr_confidence) VALUES (%s, %s, %s, %s, %s)",
                (version, number, text, confidence is not None, confidence),
            )
        for kind, label, depth, page_start, page_end, char_start, char_end in sections:
            conn.execute(
                "INSERT INTO sections (version_id, depth, kind, label, path, page_start, page_end,"
                " char_start, char_end) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (version, depth, kind, label, label, page_start, page_end, char_start, char_end),
            )
        conn.execute("UPDATE document_versions SET extracted_at = clock_timestamp() WHERE version_id = %s", (version,))


def _seen(review: QualityReview) -> dict:
    return {
        "metadata": {severity: review.check_metadata(severity) for severity in SEVERITIES},
        "passed": {severity: review.passed(severity) for severity in SEVERITIES},
        "failing": [f.as_dict() for f in review.failing],
        "unattributed": review.unattributed,
        "new_versions": review.new_versions,
        "recorded": review.recorded,
    }


def _state(conn) -> dict:
    return {
        "quarantined": conn.execute(
            "SELECT version_id, doc_id, expectations, examples, resolved_at IS NULL FROM quality_quarantine"
            " ORDER BY version_id"
        ).fetchall(),
        "served": conn.execute(
            "SELECT doc_id, served_version_id FROM documents WHERE served_version_id IS NOT NULL ORDER BY doc_id"
        ).fetchall(),
        "unchecked": conn.execute(
            "SELECT version_id FROM document_versions WHERE quality_checked_at IS NULL ORDER BY version_id"
        ).fetchall(),
    }


def _both(url: str, thresholds: dict) -> dict:
    """The whole-corpus review (rolled back, with the state it would leave) and then the incremental one, on the
    same database; asserts they agree and returns what they saw."""
    with psycopg.connect(url) as conn:  # not autocommit: the review's transactions are savepoints of this one
        full = _seen(review_database(conn, thresholds, incremental=False))
        full_state = _state(conn)
        conn.rollback()
    with psycopg.connect(url, autocommit=True) as conn:
        incremental = _seen(review_database(conn, thresholds))
        assert incremental == full
        assert _state(conn) == full_state
    return incremental


@pytest.fixture
def thresholds():
    return load_thresholds()


def test_incremental_review_equals_the_whole_corpus_review_on_a_changing_corpus(fresh_db, thresholds, monkeypatch):
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        for n in range(8):
            _document(conn, f"good-{n}", [(1, GOOD), (2, GOOD)], [SECTION, ("Čl.", "Čl. 2", 2, 1, 2, 5, 40)])
        _document(conn, "short", [(1, SHORT)])
        _document(conn, "scan", [(1, (GOOD, 0.41)), (2, (GOOD, 0.97)), (3, "")])
        _document(conn, "broken", [(1, GOOD), (2, MOJIBAKE)])  # hard: one new document of 11, quarantined
        crawlstate.record_document(
            conn,
            run_id=None,
            source="test",
            doc_id="unextracted",
            url="https://example.invalid/unextracted",
            sha256="unextracted-v1",
            byte_size=1,
            content_type="text/plain",
        )

    first = _both(fresh_db, thresholds)
    assert first["passed"] == {"hard": True, "soft": False} and first["recorded"]
    assert [f["doc_id"] for f in first["failing"]] == ["broken"]
    hard = first["metadata"]["hard"]
    assert hard["rows_documents"] == 11 and hard["new_versions"] == 11 and hard["quarantined_documents"] == 1

    with psycopg.connect(fresh_db, autocommit=True) as conn:
        _document(conn, "broken", [(1, GOOD), (2, GOOD)], sha="broken-v2")  # fixed at the source
        _document(conn, "gap", [(1, GOOD), (3, GOOD)], [("heading", "Úvod", 7, 1, 1, 0, 20)])  # hard + soft
        _document(conn, "kinds", [(1, GOOD)], [("KAPITOLA", "Kapitola 1", 1, 1, 1, 0, 5)])  # hard
        scan = conn.execute("SELECT current_version_id FROM documents WHERE doc_id = 'scan'").fetchone()[0]
        _extract(conn, scan, [(1, (GOOD, 0.2)), (2, (GOOD, 0.3))])  # re-extracted: same version, other pages
        conn.execute("UPDATE documents SET status = 'withdrawn' WHERE doc_id = 'good-3'")
        for n in range(5):  # two failing of eight new versions: quarantined, the run goes on
            _document(conn, f"later-{n}", [(1, GOOD)], [SECTION])

    second = _both(fresh_db, thresholds)
    assert [f["doc_id"] for f in second["failing"]] == ["gap", "kinds"] and second["recorded"]
    assert second["metadata"]["hard"]["new_versions"] == 8

    def no_validation(*args, **kwargs):
        raise AssertionError("nothing changed: nothing is validated")

    with monkeypatch.context() as patched:  # nothing changed: the stored shares alone
        patched.setattr(suites, "run_suites", no_validation)
        with psycopg.connect(fresh_db, autocommit=True) as conn:
            unchanged = _seen(review_database(conn, thresholds))
    third = _both(fresh_db, thresholds)
    assert unchanged == third and third["metadata"]["hard"]["new_versions"] == 0
    assert [f["doc_id"] for f in third["failing"]] == ["gap", "kinds"]  # quarantined, still failing

    looser = {
        **thresholds,
        "sections": {**thresholds["sections"], "max_depth": {"severity": "soft", "max": 1}},
        "examples": 2,
    }  # another review version: every version is reviewed again
    assert review_version(looser) != review_version(thresholds)
    assert not _both(fresh_db, looser)["passed"]["soft"]

    with psycopg.connect(fresh_db, autocommit=True) as conn:  # most new versions fail: the hard check blocks
        for n in range(3):
            _document(conn, f"bad-{n}", [(1, MOJIBAKE)])
        _document(conn, "new-good", [(1, GOOD)])
    blocked = _both(fresh_db, thresholds)
    assert not blocked["passed"]["hard"] and blocked["recorded"] and blocked["new_versions"] == 4
    failing = ["bad-0", "bad-1", "bad-2", "gap", "kinds"]
    assert [f["doc_id"] for f in blocked["failing"]] == failing
    again = _both(fresh_db, thresholds)  # quarantined, still failing: the same verdict, nothing new
    assert not again["passed"]["hard"] and again["new_versions"] == 0
    assert [f["doc_id"] for f in again["failing"]] == failing


def test_a_corpus_without_pages_or_sections(fresh_db, thresholds):
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        crawlstate.record_document(
            conn,
            run_id=None,
            source="test",
            doc_id="record",
            url="https://example.invalid/r",
            sha256="record-v1",
            byte_size=1,
            content_type="text/plain",
        )
    empty = _both(fresh_db, thresholds)
    assert empty["passed"] == {"hard": True, "soft": True} and empty["metadata"]["hard"]["rows_pages"] == 0
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        _document(conn, "plain", [(1, GOOD)])
    assert _both(fresh_db, thresholds)["metadata"]["soft"]["rows_sections"] == 0
