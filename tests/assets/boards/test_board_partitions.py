"""A run without partitions (the nightly) crawls every registered board; the instance then shows each board it read
as a materialised partition of ``board_documents`` — not every board "Missing" — and the board crawl's failure check
says what was not read, fetched or put off, by kind of reason. A later night materialises only the partitions of
the boards whose documents it changed: a partition's last materialisation is the last run that changed its board.

The register is the mirror's catalogue narrowed to four boards (Kadaň's feed, two MVČR feeds, Karviná's JSON export);
a mirror of the test's own answers 404 for Karviná's export, and a host budget of 10 requests defers most of Kadaň's
attachments."""

from __future__ import annotations

import json

import psycopg
import pytest
import yaml
from dagster import AssetCheckSeverity, AssetKey, DagsterInstance, Definitions, define_asset_job

from assets.boards import register_read
from assets.boards.assets import board_documents, board_partitions, board_registry
from assets.boards.checks import board_crawl_failures
from mendel.core.config import HTML_BOARDS_FILE, KADAN_FEED_URL, SAMPLE_CORPUS
from mirror.server import MirrorThread
from orchestration.pipes import ParentBoundPipesSubprocessClient
from orchestration.policies import CRAWL_SCOPE_TAG
from orchestration.resources import MendelResource
from tests.support.runs import check_evaluations

pytestmark = pytest.mark.e2e

NIGHTLY_SCOPE = {CRAWL_SCOPE_TAG: "usual"}

MVCR = json.loads((SAMPLE_CORPUS / "municipal" / "boards" / "mvcr_182_boards.json").read_text(encoding="utf-8"))
FEEDS = [MVCR[0]["iri"], MVCR[4]["iri"]]  # two MVČR feeds with notices
KARVINA = "http://karvina.mirror.test/opendata.json"
BUDGET = 10


@pytest.fixture
def night(tmp_path, fresh_db, monkeypatch):
    """The register narrowed to four boards, a mirror that answers 404 for Karviná's export, and a job like the
    nightly's board steps (no partitions)."""
    register = {KADAN_FEED_URL, KARVINA, *FEEDS}
    real_catalogue = register_read.read_catalogue
    monkeypatch.setattr(
        register_read, "read_catalogue", lambda path: [b for b in real_catalogue(path) if b.key in register]
    )
    listed = yaml.safe_load(HTML_BOARDS_FILE.read_text(encoding="utf-8"))
    listed["boards"] = []
    (tmp_path / "listed.yaml").write_text(yaml.safe_dump(listed, allow_unicode=True), encoding="utf-8")
    monkeypatch.setenv("MENDEL_HTML_BOARDS", str(tmp_path / "listed.yaml"))
    monkeypatch.delenv("MENDEL_SOURCES", raising=False)
    faults = [{"kind": "status", "path": "/opendata.json", "status": 404}]
    with MirrorThread(SAMPLE_CORPUS, faults=faults) as mirror:
        resource = MendelResource(
            home=str(tmp_path),
            profile="demo",
            mirror_url=mirror.base_url,
            database_url=fresh_db,
            crawl_env={"MENDEL_BOARD_DOWNLOAD_DELAY": "0", "MENDEL_BOARD_HOST_BUDGET": str(BUDGET)},
        )
        defs = Definitions(
            assets=[board_registry, board_documents],
            asset_checks=[board_crawl_failures],
            jobs=[define_asset_job("night", selection=["board_registry", "board_documents"], tags=NIGHTLY_SCOPE)],
            resources={"mendel": resource, "pipes_subprocess_client": ParentBoundPipesSubprocessClient()},
        )
        yield defs.resolve_job_def("night"), register, mirror


def test_the_nightly_materialises_the_partition_of_every_board_it_read_then_of_those_that_changed(night, fresh_db):
    job, register, mirror = night
    with DagsterInstance.ephemeral() as instance:
        result = job.execute_in_process(instance=instance)
        assert result.success
        keys = set(board_partitions.get_partition_keys(dynamic_partitions_store=instance))
        assert keys == register
        materialized = instance.get_materialized_partitions(AssetKey("board_documents"))
        # Every board read is materialised; Karviná's export answered 404, so its partition is not.
        assert materialized == register - {KARVINA}
        partitions = {
            record.partition_key: record.asset_materialization.metadata
            for record in instance.fetch_materializations(AssetKey("board_documents"), limit=10).records
            if record.partition_key
        }
        assert partitions[KADAN_FEED_URL]["kind"].value == "ofn"
        assert partitions[KADAN_FEED_URL]["documents_owned"].value > 0
        (step,) = [m for m in result.asset_materializations_for_node("board_documents") if m.partition is None]
        crawl = {k: v.value for k, v in step.metadata.items()}
        # A first night: every board read is new to the instance, so each is materialised.
        assert (crawl["partitions_materialized"], crawl["partitions_unchanged"], crawl["partitions_not_read"]) == (
            3,
            0,
            1,
        )

        check = check_evaluations(result)["crawl_failures"]
        figures = {k: v.value for k, v in check.metadata.items()}
        # One board of four unread is within crawl.max_failure_share: a warning that names it, not a red check.
        assert not check.passed and check.severity == AssetCheckSeverity.WARN
        assert (figures["boards"], figures["boards_read"], figures["boards_unread"]) == (4, 3, 1)
        assert figures["unread_boards"] == [KARVINA] and figures["listings_unread"] == 1
        served_404 = [path for _, path, status in mirror.request_log if status == 404 and path != "/opendata.json"]
        assert figures["attachments_404"] == len(served_404)
        assert figures["deferred_over_budget"] > 0 and figures["deferred_by_host"] == {
            "www.mesto-kadan.cz": figures["deferred_over_budget"]
        }
        assert figures["hosts_over_budget"] == 1
        assert "deferred over budget" in figures["reasons"] and "listings unread" in figures["reasons"]
        assert check.description.startswith("1 listings unread;")  # the failure; the rest is said, not failed
        assert f"{figures['deferred_over_budget']} attachments deferred to the next run" in check.description
        assert f"{len(served_404)} attachments are not in the sample corpus" in check.description

        # The next night changes nothing but one feed's notice, withdrawn in between and listed again: only that
        # board's partition is materialised; the others keep the first night's, the run that last changed them.
        with psycopg.connect(fresh_db, autocommit=True) as conn:
            (notice,) = conn.execute(
                "UPDATE documents SET status = 'withdrawn' WHERE doc_id = (SELECT min(doc_id) FROM documents"
                " WHERE listing = %s AND doc_type = 'notice') RETURNING doc_id",
                (FEEDS[0],),
            ).fetchone()
        again = job.execute_in_process(instance=instance)
        assert again.success
        (step,) = [m for m in again.asset_materializations_for_node("board_documents") if m.partition is None]
        crawl = {k: v.value for k, v in step.metadata.items()}
        assert (crawl["reactivated"], crawl["stored"]) == (1, 0)
        assert (crawl["partitions_materialized"], crawl["partitions_unchanged"], crawl["partitions_not_read"]) == (
            1,
            2,
            1,
        )
        (changed,) = [m for m in again.asset_materializations_for_node("board_documents") if m.partition]
        assert changed.partition == FEEDS[0] and changed.metadata["documents_changed"].value == 1
        latest = {}  # each partition's last materialisation (the records come newest first)
        for record in instance.fetch_materializations(AssetKey("board_documents"), limit=20).records:
            if record.partition_key:
                latest.setdefault(record.partition_key, record.run_id)
        assert latest == {
            FEEDS[0]: again.run_id,
            FEEDS[1]: result.run_id,
            KADAN_FEED_URL: result.run_id,
        }, notice
        assert instance.get_materialized_partitions(AssetKey("board_documents")) == register - {KARVINA}
