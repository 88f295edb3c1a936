"""No crawl starts at one click on empty config: a ``crawl_<source>`` job's config (what it crawls) is required and
an empty one fails validation; a backfill job's config comes from the partition chosen, and launched without one its
crawl step stops before crawling anything; the nightly alone crawls the usual range without config (its runs carry
the tag that says so)."""

from __future__ import annotations

import pytest
from dagster import DagsterInstance, materialize, validate_run_config
from dagster._core.errors import DagsterInvalidConfigError

from assets.crawl.assets import BACKFILL_PARTITIONS, CRAWL_SPECS, SOURCE_CRAWLS
from orchestration.definitions import build_definitions
from orchestration.policies import CRAWL_SCOPE_TAG
from orchestration.resources import MendelResource

SOURCES = sorted(CRAWL_SPECS)


class NoCrawl:
    """A Pipes client that fails the test if a crawl process is started."""

    def run(self, **_):
        raise AssertionError("a crawl process was started")


@pytest.fixture(scope="module")
def defs(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    mendel = MendelResource(home=str(home), profile="demo", mirror_url="http://127.0.0.1:9")
    return build_definitions(mendel=mendel, pipes_subprocess_client=NoCrawl())


@pytest.mark.parametrize("source", SOURCES)
def test_a_crawl_job_on_empty_config_fails_validation(defs, source):
    job = defs.resolve_job_def(f"crawl_{source}")
    with pytest.raises(DagsterInvalidConfigError, match='Missing required config entry "scope"'):
        validate_run_config(job, {})
    with pytest.raises(DagsterInvalidConfigError):
        validate_run_config(job, {"scope": "EVERYTHING"})
    step = SOURCE_CRAWLS[source].node_def.name
    usual = validate_run_config(job, {"scope": "USUAL"})["ops"][step]["config"]
    assert usual["window_start"] == usual["window_end"] == ""


@pytest.mark.parametrize("source", sorted(BACKFILL_PARTITIONS))
def test_a_backfill_without_a_partition_crawls_nothing(defs, source):
    job = defs.resolve_job_def(f"backfill_{source}")
    first = BACKFILL_PARTITIONS[source].get_first_partition_key()
    window = job.partitioned_config.get_run_config_for_partition_key(first)["ops"][f"{source}_crawl"]["config"]
    assert window["scope"] == "WINDOW" and window["window_start"] < window["window_end"]
    with DagsterInstance.ephemeral() as instance:
        result = job.execute_in_process(instance=instance, raise_on_error=False)
    assert not result.success
    (failure,) = [e for e in result.all_events if e.event_type_value == "STEP_FAILURE"]
    assert "nothing says what to crawl" in failure.event_specific_data.error.to_string()
    assert not [e for e in result.all_events if e.event_type_value == "STEP_UP_FOR_RETRY"]  # not retried either


def test_materialize_in_the_ui_without_config_crawls_nothing(defs):
    """What the asset graph's Materialize button runs: the asset alone, no config, no tag."""
    with DagsterInstance.ephemeral() as instance:
        result = materialize(
            [SOURCE_CRAWLS["nsoud"]],
            instance=instance,
            resources={"mendel": defs.resources["mendel"], "pipes_subprocess_client": NoCrawl()},
            raise_on_error=False,
        )
    assert not result.success and not result.asset_materializations_for_node("nsoud_crawl")


def test_only_the_nightly_crawls_its_usual_range_without_config(defs):
    nightly = defs.resolve_job_def("nightly")
    validate_run_config(nightly, {})
    assert nightly.tags[CRAWL_SCOPE_TAG] == "usual"
    assert all(CRAWL_SCOPE_TAG not in defs.resolve_job_def(f"crawl_{source}").tags for source in SOURCES)
