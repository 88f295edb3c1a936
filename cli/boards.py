"""`mendel boards build-list`: the national list of notice boards (``mendel/data/boards_national.v1.tsv``) built from
the registry files of the sample corpus (:mod:`mendel.crawl.boards.national_list`), and what it knows."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mendel.core.config import SAMPLE_CORPUS


def add_parsers(sub) -> None:
    boards = sub.add_parser("boards", help="the national list of notice boards").add_subparsers(
        dest="boards_command", required=True
    )
    build = boards.add_parser("build-list", help="build the national list of boards from the registry files")
    build.add_argument("--corpus", type=Path, default=SAMPLE_CORPUS, help="where registry/ is (the sample corpus)")
    build.add_argument(
        "--catalogue",
        type=Path,
        default=None,
        help="a catalogue read (the register crawl's catalogue.jsonl) whose OFN feeds fill the list's ofn_feed column",
    )
    build.add_argument("--out", type=Path, default=None, help="where to write it (default: mendel/data/)")
    build.add_argument("--json", action="store_true", help="print the counts as JSON")
    build.set_defaults(func=cmd_build_list)


def cmd_build_list(args: argparse.Namespace) -> int:
    from mendel.crawl.boards import national_list
    from mendel.crawl.boards.catalogue import read_catalogue

    catalogue = read_catalogue(args.catalogue) if args.catalogue else None
    boards = national_list.build(args.corpus, catalogue)
    path = national_list.write_table(boards, args.out or national_list.NATIONAL_FILE)
    counts = national_list.summary(boards)
    if args.json:
        print(json.dumps({"table": str(path), **counts}, ensure_ascii=False, indent=1))
    else:
        print(f"{path}: {counts['rows']} boards, {counts['municipalities']} of them municipalities")
        for name in (
            "with_board_url",
            "with_website",
            "with_cms",
            "with_rule_set",
            "with_ofn_feed",
            "without_anything",
        ):
            print(f"  {name.replace('_', ' ')}: {counts[name]}")
        print("  found by: " + ", ".join(f"{how} {n}" for how, n in counts["found_by"].items()))
        print(
            "  CMS families by municipalities: "
            + ", ".join(f"{cms} {n}" for cms, n in counts["top_cms_by_municipalities"].items())
        )
    return 0
