"""The source registry (mendel.core.sources) is the one list of sources: every entry has a spider that accepts the
arguments built for it, an asset with its pool, jobs, a freshness check and a mirror site; a new source is one entry."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from datetime import date

import pytest

from assets.crawl import FRESHNESS_CHECKS
from assets.crawl.assets import BACKFILL_PARTITIONS, CRAWL_SPECS
from crawlers import run
from mendel.core.config import PROJECT_ROOT, SAMPLE_CORPUS, Settings
from mendel.core.sources import SOURCES, DateWindow, Option, YearWindow, production_base_urls, source_envs
from mirror.server import MirrorServer
from orchestration.definitions import defs

PROFILES = ("demo", "production")


@pytest.fixture
def clean_env(monkeypatch):
    for name in source_envs():
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MENDEL_MIRROR_URL", "http://127.0.0.1:8765")


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("name", sorted(SOURCES))
def test_each_spider_takes_the_arguments_built_from_its_entry(name, profile, clean_env):
    spider = run.SPIDERS[name]
    assert f"{spider.__module__}.{spider.__qualname__}" == SOURCES[name].spider
    assert spider.name == spider.source == name
    arguments = spider.arguments(Settings(profile=profile))
    inspect.signature(spider.__init__).bind(None, **arguments)  # raises on a missing or unknown argument
    spider(**arguments)  # and the spider makes sense of the values
    assert {option.argument for option in SOURCES[name].options} <= set(arguments)
    if isinstance(SOURCES[name].window, DateWindow):
        assert arguments["date_from"]
    if "base_url" in arguments:
        expected = (
            production_base_urls()[next(iter(SOURCES[name].hosts))]
            if profile == "production"
            else "http://127.0.0.1:8765"
        )
        assert arguments["base_url"] == expected


def test_every_source_has_an_asset_with_its_pool_and_the_jobs_and_checks_it_needs():
    checked = {spec.asset_key.to_user_string() for checks_def in FRESHNESS_CHECKS for spec in checks_def.check_specs}
    for source in SOURCES.values():
        assets_def = defs.resolve_assets_def(source.asset)
        if source.board_partitions:  # the board asset (assets/boards/assets.py), its pool and its own job
            assert assets_def.node_def.pool == source.pool
            assert source.name not in CRAWL_SPECS
            continue
        key = CRAWL_SPECS[source.name].key
        assert key in assets_def.keys and key.to_user_string() == source.asset
        assert defs.resolve_job_def(f"crawl_{source.name}").asset_layer.selected_asset_keys == {key}
        assert source.asset in checked
        assert (source.name in BACKFILL_PARTITIONS) == (source.backfill is not None)
        if source.backfill is not None:
            keys = defs.resolve_job_def(f"backfill_{source.name}").partitions_def.get_partition_keys()
            assert keys[0] == (source.backfill.start[:4] if source.backfill.unit == "year" else source.backfill.start)
    assert set(CRAWL_SPECS) == {name for name, source in SOURCES.items() if not source.board_partitions}
    assert len({source.pool for source in SOURCES.values()}) == len(SOURCES)  # no two sources share a pool


def test_every_source_is_served_by_the_mirror():
    server = MirrorServer(("127.0.0.1", 0), SAMPLE_CORPUS)
    try:
        served = {f"{type(site).__module__}.{type(site).__qualname__}" for site in server.sites}
    finally:
        server.server_close()
    for source in SOURCES.values():
        assert source.mirror_sites and set(source.mirror_sites) <= served, source.name


def test_production_hosts_and_environment_variables_are_each_declared_once():
    keys = [key for source in SOURCES.values() for key in source.hosts]
    assert len(keys) == len(set(keys)) == len(production_base_urls())
    assert all(url.startswith("https://") for url in production_base_urls().values())
    assert len(source_envs()) == len(set(source_envs()))


def test_options_and_windows_read_the_environment_as_documented():
    assert Option("n", "X", "20", "int").value(None) == 20 and Option("n", "X", "20", "int").value("") == 20
    assert Option("f", "X", "1", "flag").value(None) is True
    assert [Option("f", "X", "1", "flag").value(v) for v in ("0", "no", "", "yes")] == [False, False, False, True]
    assert Option("l", "X", "a,b", "list").value(None) == ("a", "b")
    assert Option("l", "X", "a,b", "list").value(" c , ,d") == ("c", "d")
    assert Option("l", "X", "a", "list").value("") == ()
    window = DateWindow("F", "T", demo_from="2020-01-01", production_lookback_days=10)
    assert window.resolve({}, "demo") == ("2020-01-01", "")
    assert window.resolve({}, "production", today=date(2025, 3, 5)) == ("2025-02-23", "")
    assert window.resolve({"F": " 2024-05-01 ", "T": "2024-05-31"}, "production") == ("2024-05-01", "2024-05-31")
    years = YearWindow("Y", demo_years=(1918, 2024))
    assert years.resolve({}, "demo") == (1918, 2024)
    assert years.resolve({}, "production", today=date(2025, 3, 5)) == (2024, 2025)
    assert years.backfill_env(date(2023, 1, 1), date(2025, 1, 1)) == {"Y": "2023,2024"}


# A process that adds one entry to the registry before anything reads it, then reports what the other floors made
# of it: its spider is an existing one under a new name (defined here, in __main__).
ADD_A_SOURCE = """
import json
from datetime import timedelta
from crawlers.spiders.nssoud import NssoudSpider
from mendel.core.sources import SOURCES, Backfill, DateWindow, Option, Source

class ExampleSpider(NssoudSpider):
    name = source = "example"

    def __init__(self, base_url, date_from, date_to="", depth="1", *args, **kwargs):
        super().__init__(base_url, date_from, date_to, *args, **kwargs)

SOURCES["example"] = Source(
    "example", "An example source.", spider="__main__.ExampleSpider", mirror_sites=("mirror.nssoud.NssoudSite",),
    hosts={"example": "https://example.gov.cz"}, options=(Option("depth", "MENDEL_EXAMPLE_DEPTH", "3", "int"),),
    window=DateWindow("MENDEL_EXAMPLE_FROM", "MENDEL_EXAMPLE_TO", demo_from="2020-01-01", production_lookback_days=7),
    backfill=Backfill("2010-01-01", "month"), cadence=timedelta(days=7))

from crawlers import run
from assets.crawl import FRESHNESS_CHECKS
from orchestration.definitions import defs

asset = defs.resolve_assets_def("example_documents")
backfill = defs.resolve_job_def("backfill_example")
window = backfill.partitioned_config.get_run_config_for_partition_key("2010-02-01")["ops"]["example_crawl"]
print(json.dumps({
    "spider": run.SPIDERS["example"].__name__,
    "arguments": run.spider_arguments("example"),
    "pool": SOURCES["example"].pool,  # its crawl lock (crawlers.run.take_crawl_lock)
    "crawled_by": asset.node_def.name,
    "crawl_job": [k.to_user_string() for k in defs.resolve_job_def("crawl_example").asset_layer.selected_asset_keys],
    "window": window["config"],
    "freshness_s": [spec.metadata["dagster/freshness_params"].data["lower_bound_delta_seconds"]
                    for checks in FRESHNESS_CHECKS for spec in checks.check_specs
                    if spec.asset_key.to_user_string() == "example_documents"],
}))
"""


@pytest.mark.e2e
def test_a_new_source_is_one_registry_entry(tmp_path):
    env = {
        **{k: v for k, v in os.environ.items() if k not in source_envs()},
        "MENDEL_PROFILE": "demo",
        "MENDEL_MIRROR_URL": "http://127.0.0.1:8765",
        "MENDEL_HOME": str(tmp_path),
        "PYTHONPATH": str(PROJECT_ROOT),
    }
    proc = subprocess.run(
        [sys.executable, "-c", ADD_A_SOURCE], env=env, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    made = json.loads(proc.stdout.strip().splitlines()[-1])
    assert made == {
        "spider": "ExampleSpider",
        "arguments": {"base_url": "http://127.0.0.1:8765", "date_from": "2020-01-01", "date_to": "", "depth": 3},
        "pool": "crawl_example",
        "crawled_by": "example_crawl",
        "crawl_job": ["example_documents"],
        "window": {"scope": "WINDOW", "window_start": "2010-02-01", "window_end": "2010-03-01"},
        "freshness_s": [(7 * 24 + 2) * 3600],
    }
