"""The register as an asset of the nightly: ``board_registry`` reads it, links each board to its place and makes the
board partitions follow it, so one run without a daemon crawls every registered board (``board_documents`` in the
same run). A board that leaves the register loses its partition and its documents are withdrawn, never deleted.

The register here is the mirror's catalogue narrowed to four of its boards (Kadaň's feed, two MVČR feeds,
Karviná's JSON export) plus a maintained list holding obec Blešno's site: the whole catalogue would cost the crawl
of 6,500 notices, and nothing here depends on its size."""

from __future__ import annotations

import json

import psycopg
import pytest
import yaml
from dagster import DagsterInstance, Definitions, define_asset_job

from assets.boards import register_read
from assets.boards.assets import board_documents, board_partitions, board_registry
from mendel.core.config import HTML_BOARDS_FILE, KADAN_FEED_URL, SAMPLE_CORPUS
from mendel.crawl.boards import placing
from orchestration.pipes import ParentBoundPipesSubprocessClient
from orchestration.policies import CRAWL_SCOPE_TAG
from orchestration.resources import MendelResource

pytestmark = pytest.mark.e2e

NIGHTLY_SCOPE = {CRAWL_SCOPE_TAG: "usual"}

KADAN = json.loads((SAMPLE_CORPUS / "municipal" / "kadan_uredni_deska.json").read_text(encoding="utf-8"))
MVCR = json.loads((SAMPLE_CORPUS / "municipal" / "boards" / "mvcr_182_boards.json").read_text(encoding="utf-8"))
KARVINA = "http://karvina.mirror.test/opendata.json"
KARVINA_NOTICES = len(json.loads((SAMPLE_CORPUS / "municipal" / "boards" / "karvina_deska.json").read_text())) - 1
BLESNO_PDFS = len(list((SAMPLE_CORPUS / "municipal" / "blesno").glob("*/*.pdf")))
FEEDS = [MVCR[0], MVCR[4]]  # two MVČR feeds with notices


def metadata(result, asset: str) -> dict:
    # the step's own materialisation (a run without partitions also reports each board it read as its partition)
    (materialization,) = [m for m in result.asset_materializations_for_node(asset) if m.partition is None]
    return {k: v.value for k, v in materialization.metadata.items()}


def test_the_register_drives_the_partitions_and_a_board_leaving_it_is_withdrawn(
    tmp_path, mirror, fresh_db, monkeypatch
):
    register = {KADAN_FEED_URL, KARVINA, *(f["iri"] for f in FEEDS)}
    real_catalogue = register_read.read_catalogue
    monkeypatch.setattr(
        register_read, "read_catalogue", lambda path: [b for b in real_catalogue(path) if b.key in register]
    )
    listed = yaml.safe_load(HTML_BOARDS_FILE.read_text(encoding="utf-8"))
    listed["boards"] = [b for b in listed["boards"] if b["id"] == "blesno"]
    (tmp_path / "listed.yaml").write_text(yaml.safe_dump(listed, allow_unicode=True), encoding="utf-8")
    monkeypatch.setenv("MENDEL_HTML_BOARDS", str(tmp_path / "listed.yaml"))
    monkeypatch.delenv("MENDEL_SOURCES", raising=False)
    resource = MendelResource(
        home=str(tmp_path),
        profile="demo",
        mirror_url=mirror.base_url,
        database_url=fresh_db,
        crawl_env={"MENDEL_BOARD_DOWNLOAD_DELAY": "0"},
    )
    defs = Definitions(
        assets=[board_registry, board_documents],
        # like the nightly: a run tagged to crawl the usual range, every registered board
        jobs=[define_asset_job("night", selection=["board_registry", "board_documents"], tags=NIGHTLY_SCOPE)],
        resources={"mendel": resource, "pipes_subprocess_client": ParentBoundPipesSubprocessClient()},
    )
    night = defs.resolve_job_def("night")
    feed_notices = sum(len(f["informace"]) for f in FEEDS)

    with DagsterInstance.ephemeral() as instance:
        first = night.execute_in_process(instance=instance)
        assert first.success
        registry = metadata(first, "board_registry")
        assert (registry["boards"], registry["added"], registry["partitions_added"], registry["removed"]) == (
            5,
            5,
            5,
            0,
        )
        assert (registry["kind_ofn"], registry["kind_export"], registry["kind_article_api"]) == (3, 1, 1)
        assert (registry["placed"], registry["unplaced"]) == (3, 2)  # Kadaň, Karviná, Blešno; MVČR's are not towns
        keys = set(board_partitions.get_partition_keys(dynamic_partitions_store=instance))
        assert keys == register | {"api:blesno"}
        crawl = metadata(first, "board_documents")
        # Every registered board crawled in the same run, without a daemon or a sensor.
        assert crawl["boards"] == 5 and crawl["kind_export"] == 1
        assert crawl["boards_notices_stored"] == len(KADAN["informace"]) + feed_notices + KARVINA_NOTICES
        assert crawl["boards_export_flat_json"] == 1 and crawl["boards_article_api"] == 1
        with psycopg.connect(fresh_db) as conn:
            places = placing.document_places(conn)
            active = dict(
                conn.execute(
                    "SELECT listing, count(*) FROM documents WHERE status = 'active' GROUP BY listing"
                ).fetchall()
            )
        kadan_notice = KADAN["informace"][0]["iri"]
        assert places[kadan_notice] == {"kraj": "Ústecký kraj", "okres": "Chomutov", "obec": "Kadaň"}
        assert places["blesno:kanalizace/kanalizacni-rad.pdf"]["obec"] == "Blešno"
        assert active[KADAN_FEED_URL] == len(KADAN["informace"]) and active[KARVINA] == KARVINA_NOTICES

        # The next night Kadaň's board has left the register.
        register.discard(KADAN_FEED_URL)
        second = night.execute_in_process(instance=instance)
        assert second.success
        registry = metadata(second, "board_registry")
        assert (registry["boards"], registry["added"], registry["removed"], registry["partitions_removed"]) == (
            4,
            0,
            1,
            1,
        )
        assert registry["withdrawn"] == len(KADAN["informace"])
        assert KADAN_FEED_URL not in board_partitions.get_partition_keys(dynamic_partitions_store=instance)
        crawl = metadata(second, "board_documents")
        assert crawl["boards"] == 4 and crawl["stored"] == 0 and crawl["withdrawn"] == 0
    with psycopg.connect(fresh_db) as conn:
        statuses = dict(
            conn.execute(
                "SELECT status, count(*) FROM documents WHERE listing = %s GROUP BY status", (KADAN_FEED_URL,)
            ).fetchall()
        )
        removed = conn.execute(
            "SELECT removed_at IS NOT NULL FROM boards WHERE key = %s", (KADAN_FEED_URL,)
        ).fetchone()[0]
        others = dict(
            conn.execute(
                "SELECT status, count(*) FROM documents WHERE listing <> %s GROUP BY status", (KADAN_FEED_URL,)
            ).fetchall()
        )
    # Withdrawn, not deleted; the other boards' documents untouched.
    assert statuses == {"withdrawn": len(KADAN["informace"])} and removed
    assert others == {"active": feed_notices + KARVINA_NOTICES + BLESNO_PDFS}
