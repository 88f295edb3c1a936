"""`mendel provision` and `mendel cites`: the wording of a provision on a date, and what cites a provision, an act
or a court decision — read from PostgreSQL (``mendel.citator.wording``, ``mendel.citator.cites``), no bundle needed."""

from __future__ import annotations

import argparse
import json
from datetime import date

from mendel.core.config import get_settings


def add_parsers(sub) -> None:
    provision = sub.add_parser("provision", help="the wording of a provision on a date, its version and what changed")
    provision.add_argument("ref", help='e.g. "§ 4 vyhlášky č. 573/2025 Sb."')
    provision.add_argument(
        "--at", type=date.fromisoformat, default=None, metavar="YYYY-MM-DD", help="the date (default: today)"
    )
    provision.add_argument("--json", action="store_true")
    provision.set_defaults(func=cmd_provision)
    cites = sub.add_parser("cites", help="documents and passages citing a provision, an act, a file number or an ECLI")
    cites.add_argument("ref", help='e.g. "§ 2 odst. 1 zákona č. 90/2024 Sb.", "IV. ÚS 393/00", "ECLI:CZ:US:…"')
    cites.add_argument("--limit", type=int, default=20, help="citing documents listed per source family (default 20)")
    cites.add_argument("--json", action="store_true")
    cites.set_defaults(func=cmd_cites)


def _connection():
    import psycopg

    from mendel.core import db

    return psycopg.connect(db.database_url(get_settings()))


def cmd_provision(args: argparse.Namespace) -> int:
    from mendel.citator.wording import describe, provision_at

    with _connection() as conn:
        answer = provision_at(conn, args.ref, args.at or date.today())
    print(json.dumps(answer, ensure_ascii=False) if args.json else describe(answer))
    return 0 if answer["status"] not in ("not_a_reference", "unknown_act") else 2


def cmd_cites(args: argparse.Namespace) -> int:
    from mendel.citator.cites import cites, describe

    with _connection() as conn:
        answer = cites(conn, args.ref, limit=args.limit)
    print(json.dumps(answer, ensure_ascii=False) if args.json else describe(answer))
    return 0 if answer["status"] != "not_a_reference" else 2
