"""One processing run at a time per database: the processing stages hold a PostgreSQL advisory lock
(mendel.core.db.processing_lock) for the run; a second run refuses with a message naming the holder, or waits
when told to, and the database ends as after one run."""

from __future__ import annotations

import threading
import uuid

import psycopg
import pytest

from mendel.core import db
from mendel.core.config import SAMPLE_CORPUS
from mendel.crawl import crawlstate
from tests.support.courts import good_decision


def test_second_holder_is_refused_by_name_then_served_after_release(fresh_db):
    with db.processing_lock(fresh_db, "mendel run first"):
        with pytest.raises(db.ProcessingLocked, match=r"holds this database: mendel run first \(server pid \d+"):
            db.acquire_processing_lock(fresh_db, "mendel run second")
    with db.processing_lock(fresh_db, "mendel run second") as conn:
        assert "mendel run second" in db.processing_lock_holder(conn)


def test_a_run_started_as_the_last_one_ends_is_not_refused(fresh_db):
    # Closing alone frees the lock only once the server's backend has ended; the release unlocks first.
    for attempt in range(20):
        with db.processing_lock(fresh_db, f"mendel run {attempt}"):
            pass
        with db.processing_lock(fresh_db, f"mendel run {attempt}b"):
            pass


def test_a_holder_that_lets_go_between_the_two_queries_does_not_refuse(fresh_db, monkeypatch):
    holder = db.acquire_processing_lock(fresh_db, "mendel run ending")
    find_holder = db._processing_lock_row

    def holder_lets_go_now(conn):
        db.release_processing_lock(holder)
        return find_holder(conn)

    monkeypatch.setattr(db, "_processing_lock_row", holder_lets_go_now)
    with db.processing_lock(fresh_db, "mendel run next") as conn:
        monkeypatch.setattr(db, "_processing_lock_row", find_holder)
        assert "mendel run next" in db.processing_lock_holder(conn)


def test_waiting_holder_gets_the_lock_when_released(fresh_db):
    first = db.acquire_processing_lock(fresh_db, "mendel run first")
    threading.Timer(1.5, first.close).start()
    with db.processing_lock(fresh_db, "mendel run second", wait_s=60) as conn:
        assert "mendel run second" in db.processing_lock_holder(conn)


def test_steps_of_one_run_in_separate_processes_take_turns_instead_of_refusing(fresh_db):
    """The multi-process and Celery executors run a run's steps in processes of their own: a step whose own run
    holds the lock waits for it (wait_s=0 would refuse another run at once)."""
    first_step = db.acquire_processing_lock(fresh_db, "mendel run r-1")
    threading.Timer(1.5, first_step.close).start()
    with db.processing_lock(fresh_db, "mendel run r-1", wait_s=0) as conn:
        assert "mendel run r-1" in db.processing_lock_holder(conn)


def test_lock_is_per_database(fresh_db, pg_server_url):
    other = db.create_database(pg_server_url, f"t_{uuid.uuid4().hex[:12]}")
    with db.processing_lock(fresh_db, "mendel run a"), db.processing_lock(other, "mendel run b"):
        pass


def test_crawl_bookkeeping_connects_past_a_held_lock(fresh_db, tmp_path):
    from orchestration.resources import MendelResource

    resource = MendelResource(home=str(tmp_path), database_url=fresh_db)
    with db.processing_lock(fresh_db, "mendel run processing"):
        with resource.connect(processing=False) as conn:  # a crawl's connection: no lock asked
            assert conn.execute("SELECT 1").fetchone() == (1,)
        with pytest.raises(db.ProcessingLocked):
            with resource.connect():
                pass


def _prepare(url: str, home) -> None:
    from orchestration.resources import MendelResource

    store = MendelResource(home=str(home), database_url=url).raw_store()
    with psycopg.connect(url, autocommit=True) as conn:
        for doc_id, source, data, content_type in (
            (
                "/eli/cz/sb/2024/87",
                "esbirka",
                (SAMPLE_CORPUS / "esbirka" / "pdf" / "87-2024.pdf").read_bytes(),
                "application/pdf",
            ),
            ("ECLI:good", "nsoud", good_decision(), "text/html; charset=utf-8"),
        ):
            blob = store.put(data)
            crawlstate.record_document(
                conn,
                run_id=None,
                source=source,
                doc_id=doc_id,
                url=f"https://example.invalid/{doc_id}",
                sha256=blob.sha256,
                byte_size=len(data),
                content_type=content_type,
            )


def _state(url: str) -> dict:
    with psycopg.connect(url) as conn:
        return {
            "pages": conn.execute(
                "SELECT v.doc_id, p.page_no, md5(p.text) FROM pages p JOIN document_versions v"
                " USING (version_id) ORDER BY 1, 2"
            ).fetchall(),
            "chunks": conn.execute(
                "SELECT doc_id, layer, seq, char_start, char_end, content_hash FROM chunks ORDER BY 1, 2, 3"
            ).fetchall(),
            "sections": conn.execute("SELECT count(*) FROM sections").fetchone()[0],
        }


def _concurrent_runs(url: str, home, wait_s: float) -> list:
    from dagster import materialize

    from assets.processing.extraction import document_chunks, document_pages
    from orchestration.resources import MendelResource

    start = threading.Barrier(2)
    results: list = [None, None]

    def run(slot: int) -> None:
        resource = MendelResource(home=str(home), database_url=url, processing_lock_wait_s=wait_s)
        start.wait()
        results[slot] = materialize(
            [document_pages, document_chunks], resources={"mendel": resource}, raise_on_error=False
        )

    threads = [threading.Thread(target=run, args=(slot,)) for slot in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def _failure_messages(result) -> list[str]:
    """Each failed step's error with its causes (Dagster wraps the stage's exception)."""
    messages = []
    for event in result.all_events:
        if event.event_type_value == "STEP_FAILURE":
            error, text = event.event_specific_data.error, []
            while error is not None:
                text.append(error.message)
                error = error.cause
            messages.append("".join(text))
    return messages


@pytest.fixture
def reference(pg_server_url, tmp_path):
    """The state one run leaves on the same input."""
    from dagster import materialize

    from assets.processing.extraction import document_chunks, document_pages
    from orchestration.resources import MendelResource

    url = db.create_database(pg_server_url, f"t_{uuid.uuid4().hex[:12]}")
    db.migrate(url)
    _prepare(url, tmp_path / "reference")
    assert materialize(
        [document_pages, document_chunks],
        resources={"mendel": MendelResource(home=str(tmp_path / "reference"), database_url=url)},
    ).success
    return _state(url)


@pytest.mark.slow
def test_concurrent_runs_one_refused(fresh_db, tmp_path, reference):
    _prepare(fresh_db, tmp_path / "home")
    results = _concurrent_runs(fresh_db, tmp_path / "home", wait_s=0)
    assert sorted(r.success for r in results) == [False, True]
    [refused] = [r for r in results if not r.success]
    [message] = _failure_messages(refused)
    assert "another processing run holds this database: mendel run " in message
    assert _state(fresh_db) == reference


@pytest.mark.slow
def test_concurrent_runs_second_waits_and_repeats_nothing(fresh_db, tmp_path, reference):
    _prepare(fresh_db, tmp_path / "home")
    results = _concurrent_runs(fresh_db, tmp_path / "home", wait_s=600)
    assert all(r.success for r in results)
    versions = sorted(
        next(
            e.event_specific_data.materialization.metadata["versions"].value
            for e in r.all_events
            if e.event_type_value == "ASSET_MATERIALIZATION"
            and e.event_specific_data.materialization.asset_key.to_user_string() == "document_pages"
        )
        for r in results
    )
    assert versions == [0, 2]  # the run that waited found nothing left to extract
    assert _state(fresh_db) == reference
