"""The board crawl's failure check night after night: attachments that answered 404 and are held back afterwards, and
attachments deferred over a host's budget, are said and fail nothing in the demo (the sample corpus does not hold
them); in production a new 404 is a warning and the held-back nights after it are green; a 5xx, a timeout or boards
left unread fail it, night after night."""

from __future__ import annotations

import psycopg
import pytest

from assets.boards.checks import board_failures_result
from mendel.crawl.boards.board import BOARD_SOURCE, Board
from tests.support.crawl_nights import NOT_FOUND, STORED, log_night

BOARDS = [
    Board(key=f"https://obec{n}.example/deska.jsonld", kind="ofn", url=f"https://obec{n}.example/deska.jsonld")
    for n in range(4)
]
BUDGET = "deferred: www.mvcr.cz had its budget of 200 requests in this run; the next run asks for it first"
DEFERRED = ("deferred", None, BUDGET)
SERVER_ERROR = ("quarantined", 503, "HTTP 503 (after 2 retries)")
TIMEOUT = ("quarantined", None, "timeout: no answer in 60 s")
LISTING_FAILED = ("quarantined", 503, "listing: HTTP 503")


def night(*answers: tuple, unread: int = 0) -> tuple[dict, tuple[str, ...]]:
    """Attachment n answered the n-th of ``answers``; the first ``unread`` boards' listings failed."""
    by_url = {f"https://www.mvcr.cz/soubor/{n}.pdf": answer for n, answer in enumerate(answers)}
    by_url |= {board.url: LISTING_FAILED for board in BOARDS[:unread]}
    return by_url, tuple(board.url for board in BOARDS[:unread])


FIRST = night(*[STORED] * 2, *[NOT_FOUND] * 3, *[DEFERRED] * 2)  # the deferred two answer 404 when asked
LATER = night(*[STORED] * 2, *[NOT_FOUND] * 5)


@pytest.mark.parametrize(
    "demo, nights, verdicts",
    [
        (
            True,
            [FIRST, LATER, LATER],
            [
                (True, "every one of 4 boards read; nothing failed: 3 attachments are not in the sample corpus"),
                (True, "5 attachments are not in the sample corpus (the mirror answers 404: 2 in this run and 3 held"),
                (True, "5 attachments are not in the sample corpus (the mirror answers 404: 0 in this run and 5 held"),
            ],
        ),
        (
            False,
            [FIRST, LATER, LATER],
            [
                (False, "3 attachments 404; besides, 2 attachments deferred to the next run"),
                (False, "2 attachments 404; besides, 3 URLs held back"),
                (True, "nothing failed: 5 URLs held back after failing on their last tries (last answer HTTP 404: 5)"),
            ],
        ),
        # Real failures stay red in the demo, night after night.
        (
            True,
            [night(STORED, NOT_FOUND, SERVER_ERROR)] * 2,
            [(False, "1 attachments http error; besides, 1 attachments are not"), (False, "1 attachments http error")],
        ),
        (
            True,
            [night(STORED, NOT_FOUND), night(STORED, NOT_FOUND, TIMEOUT)],
            [(True, "1 attachments are not in the sample corpus"), (False, "1 attachments failed")],
        ),
        (True, [night(STORED, NOT_FOUND, unread=2)] * 2, [(False, "2 of 4 boards")] * 2),
    ],
)
def test_the_board_check_night_after_night(fresh_db, demo, nights, verdicts):
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        for board in BOARDS:
            conn.execute(
                "INSERT INTO boards (key, kind, url, spec) VALUES (%s, %s, %s, '{}')",
                (board.key, board.kind, board.url),
            )
        for number, ((answers, unread), (passed, says)) in enumerate(zip(nights, verdicts, strict=True)):
            run = f"run-{number}"
            held_back = log_night(conn, run, BOARD_SOURCE, answers, unread)
            result = board_failures_result(conn, run, BOARDS, 0.25, demo=demo)
            assert (result.passed, says in result.description) == (passed, True), result.description
            figures = {k: v.value for k, v in result.metadata.items()}
            requested = {url: answer for url, answer in answers.items() if url not in held_back}
            assert figures["held_back"] == len(held_back)
            assert figures["attachments_404"] == sum(answer == NOT_FOUND for answer in requested.values())
            assert figures["tried"] == sum(answer != DEFERRED for answer in requested.values())
            assert figures["boards_unread"] == len(unread)
