"""Board discovery: the board finder searches municipal websites for their notice boards, and what it found is
recorded (``board_candidates``); a board whose first read yields notices with titles and posting dates enters the
register with the next ``board_registry``. The asset ``board_discovery`` runs before the register step; the work is
:func:`discover_boards`, a plain function a test calls without Dagster.

Which sites: in production the national list's rows with a website or a known board page
(``mendel/data/boards_national.v1.tsv``), at most ``MENDEL_BOARD_FINDER_SITES`` a run (default 500), the never
searched first; in the demo the mirror's municipal websites (``/mirror/municipal/sites.json``: the national list's
rows of a sample of real municipalities, on hosts of the mirror). A site confirmed once is not searched again; any
other is searched again after ``MENDEL_BOARD_FINDER_RETRY_DAYS`` (default 7). With no site due the finder's process
is not started (``finder`` in the counts says so).
"""

import json
import os
import sys
import tempfile
import urllib.request
from pathlib import Path

import psycopg
from dagster import AssetExecutionContext, MaterializeResult, asset

from assets.boards.register_read import run_crawl
from mendel.crawl.boards import candidates
from mendel.crawl.boards.board import BOARD_SOURCE, RegistryError
from mendel.crawl.boards.national_list import read_table
from orchestration.policies import NETWORK_RETRY, crawl_pool
from orchestration.resources import MendelResource

FINDER_TIMEOUT_S = 1800
DEMO_SITES_PATH = "/mirror/municipal/sites.json"  # the mirror's list (mirror.municipal_sites.SITES_PATH)
SITES_ENV, RETRY_ENV = "MENDEL_BOARD_FINDER_SITES", "MENDEL_BOARD_FINDER_RETRY_DAYS"
SITE_LIST_TIMEOUT_S = 30
NOT_STARTED = "not started: no site due"  # the ``finder`` count of a run that searched nothing


def _int_env(name: str, default: int) -> int:
    value = (os.environ.get(name) or "").strip()
    return int(value) if value.isdigit() else default


def run_finder(settings, out: Path, sites_file: Path | None = None, sites_url: str = "", skip: list[str] = ()) -> list:
    """Run the board finder (``python -m crawlers.board_finder``) for ``settings`` into ``out``; its candidates, or
    :class:`RegistryError` with the reason when it could not run."""
    command = [sys.executable, "-m", "crawlers.board_finder", str(out)]
    command += ["--sites", str(sites_file)] if sites_file else ["--sites-url", sites_url]
    skip_file = out / "skip.json"
    skip_file.write_text(json.dumps(list(skip)), encoding="utf-8")
    command += ["--skip", str(skip_file)]
    run_crawl(settings, command, "the board finder", "mendel board finder:", FINDER_TIMEOUT_S)
    found = out / "candidates.jsonl"
    return (
        [json.loads(line) for line in found.read_text(encoding="utf-8").splitlines() if line] if found.exists() else []
    )


def demo_sites(settings) -> list[dict]:
    """The mirror's municipal websites (the demo's stand-in for the national list), as the finder takes them."""
    url = settings.mirror_url.rstrip("/") + DEMO_SITES_PATH
    try:
        with urllib.request.urlopen(url, timeout=SITE_LIST_TIMEOUT_S) as response:
            return json.loads(response.read())["sites"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise RegistryError(f"mendel board finder: site list {url}: {type(exc).__name__}: {exc}") from exc


def discover_boards(settings, conn, run_id: str | None = None) -> dict:
    """Search the sites due (see the module docstring), record what was found; returns the run's counts (by
    outcome) and the standing of every site searched so far. With no site due the finder is not started."""
    retry_days = _int_env(RETRY_ENV, 7)
    if settings.profile == "production":
        listed, limit = candidates.national_sites(read_table()), _int_env(SITES_ENV, 500)
    else:
        listed, limit = demo_sites(settings), None
    sites = candidates.sites_to_search(conn, listed, retry_days, limit)
    if not sites:
        return {"sites_searched_now": 0, "finder": NOT_STARTED, **candidates.candidate_summary(conn)}
    with tempfile.TemporaryDirectory(prefix="finder-") as work:
        out = Path(work)
        sites_file = out / "sites.json"
        sites_file.write_text(json.dumps(sites, ensure_ascii=False), encoding="utf-8")
        found = run_finder(settings, out, sites_file=sites_file)
    counts = candidates.record_candidates(conn, run_id, found)
    return {
        "sites_searched_now": len(found),
        "finder": f"searched {len(sites)} sites due",
        **{f"now_{outcome}": n for outcome, n in sorted(counts.items())},
        **candidates.candidate_summary(conn),
    }


@asset(
    name="board_discovery",
    group_name="crawl",
    kinds={"scrapy", "postgres"},
    owners=["team:ingest"],
    retry_policy=NETWORK_RETRY,
    pool=crawl_pool(BOARD_SOURCE),
    description="The board finder: municipal websites of the national list searched for their notice boards (the "
    "link labelled as the board, the CMS, a first read with its rule set); a board whose first read yields dated "
    "notices enters the register.",
)
def board_discovery(context: AssetExecutionContext, mendel: MendelResource) -> MaterializeResult:
    settings = mendel.settings()
    if not settings.source_enabled(BOARD_SOURCE):
        context.log.info(f"{BOARD_SOURCE} is not in MENDEL_SOURCES; no board searched")
        return MaterializeResult(metadata={"enabled": False, "sites_searched_now": 0})
    with psycopg.connect(mendel.db_url(), autocommit=True) as conn:
        summary = discover_boards(settings, conn, context.run_id)
    if summary["finder"] == NOT_STARTED:
        context.log.info(f"board finder {NOT_STARTED}")
    return MaterializeResult(metadata=summary)
