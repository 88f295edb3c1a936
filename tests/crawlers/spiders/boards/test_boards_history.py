"""Real change over time: the mirror serves the six real snapshots of the Kadaň feed (2022-01-31, 2023-02-01,
2023-08-16, 2024-07-31, 2025-02-19, 2025-02-28) on six successive nights, and the board crawl stores what is new or changed, finds the rest
unchanged and withdraws what left the board — counts expected from the snapshot files themselves, notice by notice
(id = the notice's IRI, content = its JSON object)."""

from __future__ import annotations

import json

import psycopg
import pytest

from mendel.core.config import KADAN_FEED_URL, SAMPLE_CORPUS
from mendel.crawl.boards.board import Board
from mendel.crawl.boards.register import write_boards_file
from mirror.municipal import KADAN_SNAPSHOTS, SNAPSHOT_ENV, STATE_ENV, advance_kadan_snapshot, kadan_snapshot
from tests.support.crawl import crawl_runner, only

FEED = Board(key=KADAN_FEED_URL, kind="ofn", url=KADAN_FEED_URL, publisher_ico="00261912")
SNAPSHOTS = [
    json.loads((SAMPLE_CORPUS / "municipal" / name).read_text(encoding="utf-8"))["informace"]
    for name in KADAN_SNAPSHOTS
]


def expected_nights() -> list[dict]:
    """What each night should find, from the files: notices new (never seen), changed (content differs from the
    previous night's), back (seen before, absent the previous night), unchanged, withdrawn; attachments named."""
    nights, previous, seen = [], {}, {}
    for notices in SNAPSHOTS:
        current = {n["iri"]: n for n in notices}
        assert len(current) == len(notices)  # ids are unique within a snapshot
        nights.append(
            {
                "new": [i for i in current if i not in seen],
                "changed": [i for i in current if i in previous and current[i] != previous[i]],
                "back": [i for i in current if i in seen and i not in previous],
                "unchanged": [i for i in current if i in previous and current[i] == previous[i]],
                "withdrawn": [i for i in previous if i not in current],
                "attachments": {d["url"] for n in notices for d in n.get("dokument", [])},
            }
        )
        seen.update(current)
        previous = current
    return nights


@pytest.mark.e2e
def test_six_real_snapshots_give_new_changed_and_withdrawn_notices(tmp_path, fresh_db, mirror, monkeypatch):
    nights = expected_nights()
    # The files' own story, as a reader would tell it: every night real notices come and go, a few change.
    assert [(len(n["new"]), len(n["changed"]), len(n["withdrawn"])) for n in nights] == [
        (82, 0, 0),
        (34, 1, 37),
        (42, 0, 27),
        (46, 0, 43),
        (52, 3, 68),
        (19, 0, 13),
    ]
    run = crawl_runner(monkeypatch, tmp_path, fresh_db, mirror.base_url)
    boards_file = str(write_boards_file([FEED], tmp_path / "boards.json"))
    counts = []
    for number, night in enumerate(nights, start=1):
        monkeypatch.setenv(SNAPSHOT_ENV, str(number))  # the mirror serves this night's snapshot
        counts.append(run("boards", f"night-{number}", MENDEL_BOARDS_FILE=boards_file, MENDEL_BOARD_DOWNLOAD_DELAY="0"))
        # New and changed notices are stored (a notice coming back with other content too); the rest is
        # unchanged by hash; attachments are not in the corpus (404, quarantined).
        only(
            counts[-1],
            stored=len(night["new"]) + len(night["changed"]) + len(night["back"]),
            unchanged=len(night["unchanged"]),
            quarantined=len(night["attachments"]),
        )
        assert counts[-1]["boards_notices_stored"] == len(night["new"]) + len(night["changed"]) + len(night["back"])
        assert counts[-1]["withdrawn"] == len(night["withdrawn"])
        assert counts[-1]["reactivated"] == len(night["back"])

    with psycopg.connect(fresh_db) as conn:
        documents = {
            doc_id: (status, versions)
            for doc_id, status, versions in conn.execute(
                "SELECT d.doc_id, d.status, (SELECT count(*) FROM document_versions v WHERE v.doc_id = d.doc_id)"
                " FROM documents d WHERE d.doc_type = 'notice'"
            )
        }
    last = {n["iri"] for n in SNAPSHOTS[-1]}
    ever = {n["iri"] for notices in SNAPSHOTS for n in notices}
    # Every notice ever published is kept; those no longer on the board are withdrawn, never deleted.
    assert set(documents) == ever
    assert {d for d, (status, _) in documents.items() if status == "active"} == last
    changed = {i for n in nights for i in n["changed"]}
    assert {d for d, (_, versions) in documents.items() if versions == 2} == changed
    assert all(versions == 1 for d, (_, versions) in documents.items() if d not in changed)


def test_a_mirror_with_a_state_directory_serves_the_next_snapshot_each_start(tmp_path, monkeypatch):
    monkeypatch.delenv(SNAPSHOT_ENV, raising=False)
    monkeypatch.delenv(STATE_ENV, raising=False)
    latest = SAMPLE_CORPUS / "municipal" / KADAN_SNAPSHOTS[-1]
    assert advance_kadan_snapshot() is None and kadan_snapshot(SAMPLE_CORPUS) == latest  # no state: the latest
    monkeypatch.setenv(STATE_ENV, str(tmp_path / "state"))
    served = []
    for _ in range(len(KADAN_SNAPSHOTS) + 1):  # a demo run per snapshot, and one more: the latest again
        advance_kadan_snapshot()
        served.append(kadan_snapshot(SAMPLE_CORPUS).name)
    assert served == [
        "kadan_2022-01-31.json",
        "kadan_2023-02-01.json",
        "kadan_2023-08-16.json",
        "kadan_2024-07-31.json",
        "kadan_2025-02-19.json",
        latest.name,
        latest.name,
    ]
    monkeypatch.setenv(SNAPSHOT_ENV, "3")  # a test's choice wins over the state
    assert kadan_snapshot(SAMPLE_CORPUS).name == "kadan_2023-08-16.json"
