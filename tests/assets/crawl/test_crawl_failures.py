"""A crawl source's failure check: red every night by design nowhere. A URL held back (gone on its last tries, not
requested) is counted and said, not a failure of the night that holds it back; a rise in failures is red. A source
the demo has no documents of (ČNB: the mirror lists the real documents but holds none of their bytes) passes as
"no documents in the demo" when its listings were read and every failure is that 404, on the first night and the
held-back nights after it — and fails like any other source for anything else."""

from __future__ import annotations

import shutil

import psycopg
import pytest

from assets.crawl.assets import crawl_failures_result, demo_holds_documents
from mendel.core.config import SAMPLE_CORPUS
from mendel.core.sources import SOURCES
from tests.support.crawl import crawl_runner
from tests.support.crawl_nights import NOT_FOUND, STORED, log_night

RUN = "run-1"
LISTING = "https://www.cnb.cz/cs/legislativa/vyhlasky/"
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


def cnb_url(number: int) -> str:
    return f"https://www.cnb.cz/export/sites/cnb/{number}.pdf"


def night(*answers: tuple, listing_failed: bool = False) -> tuple[dict, tuple[str, ...]]:
    """One night's answers, document n answered the n-th of ``answers``; a failed listing logs its own row."""
    by_url = {cnb_url(number): answer for number, answer in enumerate(answers)}
    if listing_failed:
        by_url[LISTING] = LISTING_FAILED
    return by_url, (LISTING,) if listing_failed else ()


TIMEOUT = ("quarantined", None, "timeout: no answer in 180 s")


@pytest.mark.parametrize(
    "without_documents, nights, verdicts",
    [
        # The demo: ČNB's documents are not in the sample corpus — the first night's 404s and the held-back nights
        # after them pass, and say so.
        (
            True,
            [night(*[NOT_FOUND] * 58)] * 3,
            [
                (True, "the 58 documents they name are not in the sample corpus (the mirror answers 404)"),
                (True, "the 58 documents they name are not in the sample corpus (the mirror answers 404; 58 of them"),
                (True, "held back after that answer on an earlier run, not requested again"),
            ],
        ),
        # Production: a source whose every document is gone fails on the night they fail, and while every one is
        # held back (nothing fetched).
        (
            False,
            [night(*[NOT_FOUND] * 58)] * 2,
            [(False, "58 of 58 URLs failed"), (False, "nothing fetched: every URL found was held back")],
        ),
        # Production: a URL that keeps failing stays visible, not red; a rise in failures is red.
        (
            False,
            [
                night(*[STORED] * 9, NOT_FOUND),
                night(*[STORED] * 9, NOT_FOUND),
                night(*[STORED] * 4, *[SERVER_ERROR] * 5, NOT_FOUND),
            ],
            [
                (True, "within the limit"),
                (
                    True,
                    "within the limit; 1 URLs held back after failing on their last tries (last answer HTTP 404: 1)",
                ),
                (False, "5 of 9 URLs failed (56% > 25%)"),
            ],
        ),
        # The demo: anything but a 404 fails, the night it happens and the nights after (a 5xx is asked again).
        (
            True,
            [night(*[NOT_FOUND] * 57, SERVER_ERROR)] * 2,
            [(False, "58 of 58 URLs failed"), (False, "1 of 1 URLs failed")],
        ),
        (True, [night(*[NOT_FOUND] * 58), night(*[NOT_FOUND] * 58, TIMEOUT)], [(True, "the 58"), (False, "1 of 1")]),
        (
            True,
            [night(*[NOT_FOUND] * 58), night(*[NOT_FOUND] * 58, listing_failed=True)],
            [(True, "no documents in the demo"), (False, "1 of 1 URLs failed")],
        ),
        (True, [night(listing_failed=True)], [(False, "1 of 1 URLs failed")]),
    ],
)
def test_the_check_passes_only_what_worked_night_after_night(fresh_db, without_documents, nights, verdicts):
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        for number, ((answers, incomplete), (passed, says)) in enumerate(zip(nights, verdicts, strict=True)):
            run = f"run-{number}"
            held_back = log_night(conn, run, "cnb", answers, incomplete)
            result = crawl_failures_result(conn, run, "cnb", demo_without_documents=without_documents)
            assert (result.passed, says in result.description) == (passed, True), result.description
            figures = {k: v.value for k, v in result.metadata.items()}
            requested_failed = [a for url, a in answers.items() if url not in held_back and a[0] == "quarantined"]
            assert figures["held_back"] == len(held_back) and figures["failed"] == len(requested_failed)
            assert figures["tried"] == len(answers) - len(held_back)
            assert ("held_back_reasons" in figures) is bool(held_back)
            assert ("demo_documents" in figures) is without_documents


@pytest.mark.e2e
def test_two_real_demo_nights_of_cnb_pass_and_say_why(tmp_path, fresh_db, mirror, monkeypatch):
    """The ČNB spider twice against the mirror of the sample corpus: the first night's documents answer 404, the
    second night holds them back (not requested) — both nights pass as "no documents in the demo"."""
    crawl = crawl_runner(monkeypatch, tmp_path, fresh_db, mirror.base_url)
    first, second = crawl("cnb", "cnb-night-1"), crawl("cnb", "cnb-night-2")
    assert first["held_back"] == 0 and second["held_back"] == first["quarantined"] > 0
    with psycopg.connect(fresh_db) as conn:
        results = [crawl_failures_result(conn, run, "cnb", True) for run in ("cnb-night-1", "cnb-night-2")]
        production = crawl_failures_result(conn, "cnb-night-2", "cnb", False)
    assert [r.passed for r in results] == [True, True]
    assert all("not in the sample corpus (the mirror answers 404" in r.description for r in results)
    assert f"{second['held_back']} of them held back" in results[1].description
    assert results[1].metadata["held_back"].value == second["held_back"]
    assert not production.passed and "nothing fetched" in production.description
