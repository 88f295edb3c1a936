"""What a crawl process imports before it crawls: only its own sources' spiders (its start-up is paid by every
crawl step of every night, work or none)."""

from __future__ import annotations

import json
import subprocess
import sys

from mendel.core.config import PROJECT_ROOT

LOADED = """
import json, sys
from crawlers import run
spider = run.SPIDERS["nsoud"]
print(json.dumps({
    "spider": spider.__name__,
    "sources": sorted(run.SPIDERS),
    "board_spider": "crawlers.spiders.boards" in sys.modules,
    "playwright": any(name.startswith(("playwright", "scrapy_playwright")) for name in sys.modules),
    "other_spiders": sorted(m for m in sys.modules if m.startswith("crawlers.spiders.") and m != spider.__module__
                            and m != "crawlers.spiders.base"),
}))
"""


def test_a_crawl_process_loads_only_its_own_spider_and_no_browser():
    done = subprocess.run(
        [sys.executable, "-c", LOADED], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True, timeout=120
    )
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert loaded["spider"] == "NsoudSpider"
    assert loaded["sources"] == ["boards", "cnb", "esbirka", "justice", "nalus", "nsoud", "nssoud", "ruian"]
    assert loaded["board_spider"] is False
    assert loaded["playwright"] is False
    assert loaded["other_spiders"] == []
