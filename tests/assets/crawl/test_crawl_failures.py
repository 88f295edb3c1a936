"""A crawl source's failure check: red-free by design nowhere. A source the demo has no documents of (ČNB: the
mirror lists the real documents but holds none of their bytes) passes as "no documents in the demo" when its
listings were read and every failure is that 404 — and fails like any other source for anything else."""

from __future__ import annotations

import shutil

import psycopg
import pytest

from assets.crawl.assets import crawl_failures_result, demo_holds_documents
from mendel.core.config import SAMPLE_CORPUS
from mendel.core.sources import SOURCES
from mendel.crawl import crawlstate

RUN = "run-1"
LISTING = "https://www.cnb.cz/cs/legislativa/vyhlasky/"
NOT_FOUND = ("quarantined", 404, "HTTP 404")
SERVER_ERROR = ("quarantined", 503, "HTTP 503 (after 3 retries)")
LISTING_FAILED = ("quarantined", 503, "listing: HTTP 503")


def test_only_the_cnb_mirror_lacks_its_documents():
    assert {name for name, source in SOURCES.items() if not demo_holds_documents(source)} == {"cnb"}


def test_cnb_documents_in_a_corpus_make_its_demo_hold_them(tmp_path):
    shutil.copytree(SAMPLE_CORPUS / "cnb", tmp_path / "cnb")
    assert not demo_holds_documents(SOURCES["cnb"], tmp_path)
    (tmp_path / "cnb" / "documents").mkdir()
    (tmp_path / "cnb" / "documents" / "dohledovy_benchmark_2024_01.pdf").write_bytes(b"%PDF-1.7\n%%EOF\n")
    assert demo_holds_documents(SOURCES["cnb"], tmp_path)


@pytest.mark.parametrize(
    "rows, listings_incomplete, without_documents, passed, says",
    [
        ([NOT_FOUND] * 58, [], True, True, "no documents in the demo"),
        ([NOT_FOUND] * 58, [], False, False, "58 of 58 URLs failed"),  # production: a 404 is a 404
        ([NOT_FOUND] * 57 + [SERVER_ERROR], [], True, False, "58 of 58 URLs failed"),
        ([LISTING_FAILED], [LISTING], True, False, "1 of 1 URLs failed"),
        ([("stored", 200, None)] * 3 + [NOT_FOUND], [], False, True, "within the limit"),
    ],
)
def test_the_check_passes_only_what_worked(fresh_db, rows, listings_incomplete, without_documents, passed, says):
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        for number, (outcome, status, reason) in enumerate(rows):
            crawlstate.log_outcome(
                conn,
                run_id=RUN,
                source="cnb",
                url=f"https://www.cnb.cz/export/sites/cnb/{number}.pdf",
                outcome=outcome,
                status=status,
                reason=reason,
            )
        crawlstate.record_run(
            conn, run_id=RUN, source="cnb", discovered=len(rows), incomplete_listings=listings_incomplete
        )
        result = crawl_failures_result(conn, RUN, "cnb", demo_without_documents=without_documents)
    assert result.passed is passed and says in result.description
    figures = {k: v.value for k, v in result.metadata.items()}
    assert figures["failed"] == sum(outcome == "quarantined" for outcome, *_ in rows)
    assert ("demo_documents" in figures) is without_documents
