"""The board crawl launched with empty config and no partition crawls nothing (it says what to choose), instead of
every board of the register; a run of chosen partitions and the nightly's tagged run need no config."""

from __future__ import annotations

from dagster import DagsterInstance

from orchestration.definitions import build_definitions
from orchestration.resources import MendelResource


class NoCrawl:
    def run(self, **_):
        raise AssertionError("a crawl process was started")


def test_crawl_boards_on_empty_config_and_no_partition_crawls_nothing(tmp_path, fresh_db):
    mendel = MendelResource(home=str(tmp_path), profile="demo", mirror_url="http://127.0.0.1:9", database_url=fresh_db)
    job = build_definitions(mendel=mendel, pipes_subprocess_client=NoCrawl()).resolve_job_def("crawl_boards")
    with DagsterInstance.ephemeral() as instance:
        instance.add_dynamic_partitions("municipal_boards", ["https://deska.example/feed.jsonld"])
        result = job.execute_in_process(instance=instance, raise_on_error=False)
    assert not result.success
    (failure,) = [e for e in result.all_events if e.event_type_value == "STEP_FAILURE"]
    assert "nothing says what to crawl" in failure.event_specific_data.error.to_string()
