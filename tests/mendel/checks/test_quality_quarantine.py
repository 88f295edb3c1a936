"""Quarantine decided per document, blocking decided on the corpus, as Dagster runs the checks. On an established
home a real Nejvyšší soud decision turns bad (its next version double-encoded: UTF-8 read as windows-1252): the
night passes, the decision is quarantined with its reason, its last good version stays in the bundle and is found,
marked so; the next good version heals it (three nights). Failing documents block the run only past a limit of
the live corpus, and a quarantine row left open while its document passes is reported by the doctor."""

from __future__ import annotations

import psycopg
import pytest

from mendel.checks import doctor
from mendel.checks.quality.review import DocumentFailure, QualityReview, QuarantineLimits, review_database
from mendel.checks.quality.thresholds import load_thresholds
from mendel.core.config import SAMPLE_CORPUS
from mendel.core.rawstore import RawStore
from mendel.crawl import crawlstate
from mendel.index.corpus import load_layer
from mirror.courts import NsoudSite
from tests.support.courts import DECISION_ID, double_encoded_decision, good_decision
from tests.support.index import RecordingEmbedder, run_index
from tests.support.runs import check_evaluations, materialized_keys


def _store(conn, store: RawStore, doc_id: str, source: str, data: bytes, content_type: str) -> str:
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
    return blob.sha256


def _store_decision(resource, data: bytes) -> str:
    with psycopg.connect(resource.database_url, autocommit=True) as conn:
        return _store(conn, resource.raw_store(), DECISION_ID, "nsoud", data, "text/html; charset=utf-8")


@pytest.fixture
def corpus(fresh_db, tmp_path):
    from orchestration.resources import MendelResource

    resource = MendelResource(home=str(tmp_path / "home"), database_url=fresh_db)
    store = resource.raw_store()
    site = NsoudSite(SAMPLE_CORPUS)
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        for decision in site.decisions[1:4]:  # three more real decisions, as the mirror serves them
            page = site.decision_page(decision).body
            _store(conn, store, decision.record["ecli"], "nsoud", page, "text/html; charset=utf-8")
    _store_decision(resource, good_decision())
    return resource


def _night(resource, tmp_path):
    """Extraction with its quality checks and the chunks (Dagster), then every index stage and the bundle; returns
    the hard check (passed, metadata) and the searcher of the bundle published."""
    from dagster import materialize

    from assets.processing.extraction import QUALITY_HARD, document_chunks, document_pages
    from serving.ranking.search import Searcher

    result = materialize([document_pages, document_chunks], resources={"mendel": resource}, raise_on_error=False)
    assert result.success and materialized_keys(result) == {"document_pages", "document_chunks"}
    check = check_evaluations(result)[QUALITY_HARD]
    home = tmp_path / "home"
    embedder = RecordingEmbedder()
    with psycopg.connect(resource.database_url, autocommit=True) as conn:
        run_index(conn, home, embedder)
    searcher = Searcher.latest(home / "bundles", embedder=embedder)
    return check.passed, {k: v.value for k, v in check.metadata.items()}, check.description, searcher


def _decision_hits(searcher, query: str) -> list[dict]:
    from serving.web.results import run_search

    payload, _ = run_search(searcher, query, k=10)
    return [hit for hit in payload["results"] if hit["doc_id"] == DECISION_ID]


def _search_page(tmp_path, query: str) -> str:
    from serving.web.api import create_app
    from tests.support.web import TestClient

    app = create_app(tmp_path / "home" / "bundles", embedder=RecordingEmbedder(), reload_interval=0)
    response = TestClient(app).get("/", params={"q": query})
    assert response.status_code == 200
    return response.text


def _served(conn) -> tuple[int, int | None, set[int]]:
    current, served = conn.execute(
        "SELECT current_version_id, served_version_id FROM documents WHERE doc_id = %s", (DECISION_ID,)
    ).fetchone()
    chunked = {v for (v,) in conn.execute("SELECT DISTINCT version_id FROM chunks WHERE doc_id = %s", (DECISION_ID,))}
    return current, served, chunked


@pytest.mark.slow
def test_one_document_turns_bad_on_an_established_home_and_heals(corpus, tmp_path):
    passed, meta, _, searcher = _night(corpus, tmp_path)  # night 1: everything good
    assert passed and meta["failing_documents"] == 0 and meta["live_documents"] == 4
    with psycopg.connect(corpus.database_url) as conn:
        good_version, served, chunked = _served(conn)
        assert served is None and chunked == {good_version}
        passage = next(r for r in load_layer(conn, 3) if r.doc_id == DECISION_ID)
    query = " ".join(passage.text.split()[:12])
    [first, *_] = _decision_hits(searcher, query)
    assert first.get("last_good_version") is None

    bad_sha = _store_decision(corpus, double_encoded_decision())  # night 2: its new version is double-encoded
    passed, meta, description, searcher = _night(corpus, tmp_path)
    assert passed, description  # one document of four: never a blocked night
    assert meta["failing_documents"] == 1 and meta["blocking"] == "none" and meta["served_last_good"] == 1
    assert description == "1 of 4 live documents quarantined (under every limit), 1 served from their last good version"
    [entry] = meta["quarantine"]
    assert entry["doc_id"] == DECISION_ID and entry["expectations"] == ["pages.no_mojibake"] and entry["new"]
    assert "Å¡" in entry["examples"][0]
    with psycopg.connect(corpus.database_url) as conn:
        bad_version, served, chunked = _served(conn)
        assert bad_version != good_version and served == good_version and chunked == {good_version}
        assert conn.execute(
            "SELECT expectations, resolved_at FROM quality_quarantine WHERE version_id = %s", (bad_version,)
        ).fetchone() == (["pages.no_mojibake"], None)
        assert conn.execute(
            "SELECT reason, resolved_at FROM quarantine WHERE stage = 'quality' AND doc_id = %s", (DECISION_ID,)
        ).fetchall() == [("failed hard expectations: pages.no_mojibake", None)]
        assert doctor.check_chunks_current(conn).ok and doctor.check_quarantine_open(conn).ok
    [first, *_] = _decision_hits(searcher, query)  # the last good version is still found, and says so
    mark = first["last_good_version"]
    assert mark["quarantined_sha256"] == bad_sha and "pages.no_mojibake" in mark["reason"]
    assert searcher.documents[DECISION_ID]["sha256"] == mark["sha256"] != bad_sha  # its original is the good one
    assert "poslední bezvadná verze" in _search_page(tmp_path, query)  # the search page says so too

    fixed = good_decision().replace(b"</body>", b"<p>Opraveno.</p></body>")
    _store_decision(corpus, fixed)  # night 3: the source sends a good version again
    passed, meta, _, searcher = _night(corpus, tmp_path)
    assert passed and meta["failing_documents"] == 0 and meta["resolved_quarantine"] == 1
    with psycopg.connect(corpus.database_url, autocommit=True) as conn:
        fixed_version, served, chunked = _served(conn)
        assert served is None and chunked == {fixed_version}
        assert conn.execute(
            "SELECT count(*) FROM quality_quarantine WHERE doc_id = %s AND resolved_at IS NOT NULL", (DECISION_ID,)
        ).fetchone() == (1,)
        assert conn.execute(
            "SELECT count(*) FROM quarantine WHERE stage = 'quality' AND resolved_by = 'quality review'"
        ).fetchone() == (1,)
        assert doctor.check_quarantine_open(conn).ok
        # a row left open while its document passes: the doctor names it
        conn.execute("UPDATE quality_quarantine SET resolved_at = NULL WHERE version_id = %s", (bad_version,))
        [problem] = doctor.check_quarantine_open(conn).problems
        assert problem.startswith(
            f"{DECISION_ID}: quarantine of version {bad_version} is open but its current version {fixed_version}"
            " passes the hard checks"
        )
    [first, *_] = _decision_hits(searcher, query)
    assert first.get("last_good_version") is None


def test_a_failing_share_over_its_limit_blocks_and_still_quarantines(fresh_db):
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
        assert blocked.description("hard") == (
            "2 of 3 live documents fail hard expectations (66.7% > max_failing_share 10%)"
        )
        assert {f.doc_id for f in blocked.failing} == {"bad-1", "bad-2"} and blocked.recorded
        open_rows = "SELECT doc_id FROM quality_quarantine WHERE resolved_at IS NULL"
        assert {d for (d,) in conn.execute(open_rows)} == {"bad-1", "bad-2"}

        again = review_database(conn, thresholds)  # nothing changed: still blocked, nothing quarantined twice
        assert not again.passed("hard") and again.new_versions == 0 and len(again.failing) == 2
        assert conn.execute("SELECT count(*) FROM quarantine WHERE stage = 'quality'").fetchone() == (2,)

        thresholds["quarantine"] = {**thresholds["quarantine"], "max_failing_share": 0.7}  # a looser limit
        accepted = review_database(conn, thresholds)
        assert accepted.passed("hard") and {d for (d,) in conn.execute(open_rows)} == {"bad-1", "bad-2"}


def _review(failing_by_source: dict[str, int], live_by_source: dict[str, int], unattributed=()) -> QualityReview:
    failing = [
        DocumentFailure(f"{source}-{n}", n, False, ["pages.no_mojibake"], [], source)
        for source, count in failing_by_source.items()
        for n in range(count)
    ]
    return QualityReview(
        report=None,
        new_versions=0,
        failing=failing,
        unattributed=list(unattributed),
        live_by_source=live_by_source,
        limits=QuarantineLimits.from_thresholds(load_thresholds()),
    )


@pytest.mark.parametrize(
    ("failing", "live", "unattributed", "blocking"),
    [
        # one bad document never blocks, however small the corpus or its source
        ({"nsoud": 1}, {"nsoud": 1}, (), []),
        ({"nsoud": 1}, {"nsoud": 1, "esbirka": 3}, (), []),
        ({"nsoud": 1}, {"nsoud": 10}, (), []),
        # two of a hundred: under every limit
        ({"nsoud": 1, "esbirka": 1}, {"nsoud": 50, "esbirka": 50}, (), []),
        # a broken source in a large corpus: its own share blocks
        (
            {"boards": 8},
            {"boards": 12, "esbirka": 200},
            (),
            ["source boards: 8 of 12 live documents fail hard expectations (66.7% > max_source_failing_share 50%)"],
        ),
        # ... but not a source too small to judge alone
        ({"boards": 2}, {"boards": 3, "esbirka": 200}, (), []),
        # a broken extractor: the corpus share
        (
            {"nsoud": 30, "esbirka": 30},
            {"nsoud": 300, "esbirka": 200},
            (),
            ["60 of 500 live documents fail hard expectations (12.0% > max_failing_share 10%)"],
        ),
        # many failing documents in a very large corpus: the absolute count
        (
            {"boards": 1001},
            {"boards": 20_000, "esbirka": 80_000},
            (),
            ["1001 documents fail hard expectations (max_failing_documents 1000)"],
        ),
        # a failed hard expectation that names no document blocks on its own
        (
            {},
            {"nsoud": 10},
            ("documents.unique_doc_ids",),
            ["failed hard expectation documents.unique_doc_ids names no document"],
        ),
    ],
)
def test_what_blocks_is_the_corpus_never_one_document(failing, live, unattributed, blocking):
    review = _review(failing, live, unattributed)
    assert review.blocking_reasons() == blocking
    assert review.passed("hard") is (not blocking)
