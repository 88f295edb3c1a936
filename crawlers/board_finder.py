"""Search municipal websites for their notice boards with the crawl's own HTTP stack and politeness, for the board
discovery step to take in.

    python -m crawlers.board_finder OUT_DIR (--sites FILE | --sites-url URL) [--skip FILE]

Runs the board finder (:class:`crawlers.spiders.boards.finder.BoardFinderSpider`) in the profile's crawl settings
(``MENDEL_PROFILE``; the demo's mirror) and exports one candidate per site as JSON lines to
``OUT_DIR/candidates.jsonl``. Exits 1 with the reason on stderr when the search could not run (its site list could
not be read); a site that cannot be reached is a candidate with that outcome, not a failure.
"""

from __future__ import annotations

import argparse
import sys
import uuid
from pathlib import Path

from scrapy.crawler import CrawlerProcess

from crawlers.items import BoardCandidate
from crawlers.run import scrapy_settings
from crawlers.spiders.boards.finder import FAILED, BoardFinderSpider
from mendel.core.config import get_settings

CANDIDATES_FILE = "candidates.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--sites", default="", help="a JSON list of the sites to search")
    parser.add_argument("--sites-url", default="", help="a URL answering {'sites': [...]} (the demo's mirror)")
    parser.add_argument("--skip", default="", help="a JSON list of list keys not to search")
    args = parser.parse_args()
    if bool(args.sites) == bool(args.sites_url):
        parser.error("give one of --sites and --sites-url")
    args.out.mkdir(parents=True, exist_ok=True)
    settings = scrapy_settings(get_settings(), run_id=f"finder-{uuid.uuid4()}", database_url="")
    settings.set(
        "FEEDS",
        {str(args.out / CANDIDATES_FILE): {"format": "jsonlines", "item_classes": [BoardCandidate], "overwrite": True}},
    )
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(BoardFinderSpider)
    process.crawl(crawler, sites_file=args.sites, sites_url=args.sites_url, skip_file=args.skip)
    process.start()
    stats = crawler.stats.get_stats()
    why = stats.get(FAILED) or (
        None if stats.get("finish_reason") == "finished" else f"the board finder ended: {stats.get('finish_reason')}"
    )
    if why:
        print(f"mendel board finder: {why}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
