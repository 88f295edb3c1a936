"""The new-boards sensor against a real Dagster instance and the mirror's register: new boards become dynamic
partitions and only they get runs; then a run of the board asset for one of them crawls it (Pipes subprocess)."""

from __future__ import annotations

import json

import psycopg
import pytest
import yaml
from dagster import DagsterInstance, SensorResult, SkipReason, build_sensor_context
from dagster._core.storage.tags import ASSET_PARTITION_RANGE_END_TAG, ASSET_PARTITION_RANGE_START_TAG

from assets.boards.assets import board_partitions
from assets.boards.register_read import read_register
from assets.boards.sensors import new_boards_from_registry, run_requests_for
from mendel.core.config import HTML_BOARDS_FILE, KADAN_FEED_URL, SAMPLE_CORPUS, Settings
from orchestration.resources import MendelResource

KADAN = json.loads((SAMPLE_CORPUS / "municipal" / "kadan_uredni_deska.json").read_text(encoding="utf-8"))


def tick(instance, resource) -> SensorResult | SkipReason:
    with build_sensor_context(instance=instance, resources={"mendel": resource}) as context:
        return new_boards_from_registry(context)


@pytest.mark.e2e
def test_new_registry_boards_become_partitions_and_only_they_are_crawled(tmp_path, mirror, fresh_db, monkeypatch):
    monkeypatch.delenv("MENDEL_HTML_BOARDS", raising=False)
    monkeypatch.delenv("MENDEL_SOURCES", raising=False)
    resource = MendelResource(
        home=str(tmp_path),
        profile="demo",
        mirror_url=mirror.base_url,
        database_url=fresh_db,
        crawl_env={"MENDEL_BOARD_DOWNLOAD_DELAY": "0"},
    )
    register = [b.key for b in read_register(Settings(profile="demo", mirror_url=mirror.base_url))]
    assert len(register) == 189 and KADAN_FEED_URL in register
    with DagsterInstance.ephemeral() as instance:
        first = tick(instance, resource)
        assert isinstance(first, SensorResult)
        (added,) = first.dynamic_partitions_requests
        assert added.partitions_def_name == board_partitions.name and list(added.partition_keys) == register
        # The new boards in runs of at most 100: the ranges of partitions just added.
        assert [
            (r.tags[ASSET_PARTITION_RANGE_START_TAG], r.tags[ASSET_PARTITION_RANGE_END_TAG]) for r in first.run_requests
        ] == [(register[0], register[99]), (register[100], register[-1])]
        instance.add_dynamic_partitions(added.partitions_def_name, list(added.partition_keys))  # as the daemon does

        assert isinstance(tick(instance, resource), SkipReason)  # nothing new in the register

        # The maintained list gains a board: only that one is added and crawled.
        listing = yaml.safe_load(HTML_BOARDS_FILE.read_text(encoding="utf-8"))
        listing["boards"].append({**listing["boards"][1], "id": "kadan-html-2", "name": "a new board"})
        grown = tmp_path / "html_boards.yaml"
        grown.write_text(yaml.safe_dump(listing, allow_unicode=True), encoding="utf-8")
        monkeypatch.setenv("MENDEL_HTML_BOARDS", str(grown))
        second = tick(instance, resource)
        assert [list(r.partition_keys) for r in second.dynamic_partitions_requests] == [["html:kadan-html-2"]]
        assert [(r.partition_key, dict(r.tags)) for r in second.run_requests] == [("html:kadan-html-2", {})]
        instance.add_dynamic_partitions(board_partitions.name, ["html:kadan-html-2"])
        assert board_partitions.get_partition_keys(dynamic_partitions_store=instance) == [
            *register,
            "html:kadan-html-2",
        ]

        # A run for one new board crawls that board alone, as the sensor asked.
        from orchestration.definitions import build_definitions

        job = build_definitions(mendel=resource).resolve_job_def("crawl_boards")
        result = job.execute_in_process(instance=instance, partition_key=KADAN_FEED_URL)
        assert result.success
        (materialization,) = [m for m in result.asset_materializations_for_node("board_documents")]
        assert materialization.partition == KADAN_FEED_URL
        metadata = {k: v.value for k, v in materialization.metadata.items()}
        assert metadata["boards"] == 1 and metadata["stored"] == len(KADAN["informace"])
        assert metadata["boards_ofn"] == 1 and metadata["discovered"] == metadata["stored"] + metadata["quarantined"]
    with psycopg.connect(fresh_db) as conn:
        notices = {doc_id for (doc_id,) in conn.execute("SELECT doc_id FROM documents WHERE doc_type = 'notice'")}
    assert notices == {n["iri"] for n in KADAN["informace"]}


def test_many_new_boards_are_split_into_runs_of_at_most_100():
    keys = [f"http://deska-{i:04d}.mirror.test/uredni-deska.jsonld" for i in range(1, 251)]
    runs = run_requests_for(keys)
    ranges = [(r.tags[ASSET_PARTITION_RANGE_START_TAG], r.tags[ASSET_PARTITION_RANGE_END_TAG]) for r in runs]
    assert ranges == [(keys[0], keys[99]), (keys[100], keys[199]), (keys[200], keys[249])]
    assert len({r.run_key for r in runs}) == 3


def test_a_range_run_covers_exactly_its_boards(tmp_path, fresh_db):
    # Keys that name no board the register knows: the run reports them instead of crawling (no subprocess).
    keys = ["retired:a", "retired:b", "retired:c", "retired:d"]
    resource = MendelResource(
        home=str(tmp_path), profile="demo", mirror_url="http://127.0.0.1:9", database_url=fresh_db
    )
    from orchestration.definitions import build_definitions

    job = build_definitions(mendel=resource).resolve_job_def("crawl_boards")
    with DagsterInstance.ephemeral() as instance:
        instance.add_dynamic_partitions(board_partitions.name, keys)
        (run,) = run_requests_for(keys[1:3])
        result = job.execute_in_process(instance=instance, tags=run.tags)
        assert result.success
        materialized = sorted(m.partition for m in result.asset_materializations_for_node("board_documents"))
        assert materialized == keys[1:3]
        metadata = result.asset_materializations_for_node("board_documents")[0].metadata
        assert (metadata["boards"].value, metadata["unknown_boards"].value) == (0, 2)
