"""Read the register of notice boards with the crawl's own HTTP stack, for the register step to take in.

    python -m crawlers.register_crawl OUT_DIR --sparql URL [--list URL] [--page-size N]

Runs the register spider (:class:`crawlers.spiders.catalogue.CatalogueSpider`) in the profile's crawl settings
(``MENDEL_PROFILE``; the demo's mirror) and exports its items as JSON lines: ``OUT_DIR/catalogue.jsonl`` (the
catalogue's pages) and ``OUT_DIR/list.jsonl`` (the maintained list, when ``--list`` names a URL). Exits 1 with the
reason on stderr when the register could not be read in full.
"""

from __future__ import annotations

import argparse
import sys
import uuid
from pathlib import Path

from scrapy.crawler import CrawlerProcess

from crawlers.items import BoardList, CataloguePage
from crawlers.run import scrapy_settings
from crawlers.spiders.catalogue import FAILED, CatalogueSpider
from mendel.core.config import get_settings
from mendel.crawl.boards.catalogue import NKOD_PAGE_SIZE

CATALOGUE_FILE = "catalogue.jsonl"
LIST_FILE = "list.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--sparql", required=True, help="the catalogue's SPARQL endpoint")
    parser.add_argument("--list", default="", help="the maintained list's URL (a list in a file is read as it is)")
    parser.add_argument("--page-size", type=int, default=NKOD_PAGE_SIZE)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    settings = scrapy_settings(get_settings(), run_id=f"register-{uuid.uuid4()}", database_url="")
    settings.set(
        "FEEDS",
        {
            str(args.out / CATALOGUE_FILE): {"format": "jsonlines", "item_classes": [CataloguePage], "overwrite": True},
            str(args.out / LIST_FILE): {"format": "jsonlines", "item_classes": [BoardList], "overwrite": True},
        },
    )
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(CatalogueSpider)
    process.crawl(crawler, sparql_url=args.sparql, board_list=args.list, page_size=args.page_size)
    process.start()
    stats = crawler.stats.get_stats()
    why = stats.get(FAILED) or (
        None if stats.get("finish_reason") == "finished" else f"the register crawl ended: {stats.get('finish_reason')}"
    )
    if why:
        print(f"mendel register: {why}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
