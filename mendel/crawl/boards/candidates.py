"""The boards the board finder found, kept in ``board_candidates``: which sites to search, what each search found,
and the confirmed boards the register takes in.

- :func:`sites_to_search`: the national list's rows with a website or a known board page
  (:mod:`mendel.crawl.boards.national_list`), less those already confirmed or searched within ``retry_days``.
- :func:`record_candidates`: one search's outcome per site. ``confirmed`` (the first read found notices with a
  title and a posting date) is kept for good — a later search never takes it back, so a board whose page changes
  layout stays in the register, where the board crawl quarantines it with its reason and withdraws nothing. Any
  other outcome is recorded with its reason and, when it is new for the site, as a crawl quarantine record.
- :func:`confirmed_boards`: the confirmed boards as HTML boards of the register (key ``html:{list key}``), read with
  the current rule set of the CMS the finder detected.
"""

from __future__ import annotations

import json
from collections import Counter

from mendel.crawl import crawlstate
from mendel.crawl.boards.board import BOARD_SOURCE, HTML_KEY_PREFIX, Board
from mendel.crawl.boards.cms_rules import CmsRules, load_cms_rules
from mendel.crawl.boards.finding import OUTCOMES

CANDIDATE_FIELDS = (
    "list_key",
    "site",
    "name",
    "obec_kod",
    "start_url",
    "board_url",
    "cms",
    "rules_from",
    "confidence",
    "outcome",
    "reason",
    "evidence",
    "notices_read",
    "notices_dated",
)


def national_sites(rows) -> list[dict]:
    """What the finder searches, from national list rows (:class:`~mendel.crawl.boards.national_list.NationalBoard`):
    each row with a website (its home page) or a known board page (searched from there)."""
    sites = []
    for row in rows:
        if not (row.website or row.board_url):
            continue
        sites.append(
            {
                "list_key": row.key,
                "name": row.name,
                "obec_kod": row.obec_kod or None,
                "site": row.website or row.board_url.split("//", 1)[-1].split("/", 1)[0].removeprefix("www."),
                "start_url": row.board_url or f"https://{row.website}/",
                "known_board": bool(row.board_url),
            }
        )
    return sites


def keys_not_due(conn, retry_days: int = 7) -> list[str]:
    """List keys not to search now: confirmed, or searched within ``retry_days``."""
    return [
        key
        for (key,) in conn.execute(
            "SELECT list_key FROM board_candidates WHERE outcome = 'confirmed' OR tried_at > now() - make_interval(days => %s)",
            (retry_days,),
        )
    ]


def sites_to_search(conn, sites: list[dict], retry_days: int = 7, limit: int | None = None) -> list[dict]:
    """``sites`` less the confirmed ones and those searched within ``retry_days``; at most ``limit``, the never
    searched first."""
    not_due = set(keys_not_due(conn, retry_days))
    searched = {key for (key,) in conn.execute("SELECT list_key FROM board_candidates")}
    due = sorted((s for s in sites if s["list_key"] not in not_due), key=lambda s: s["list_key"] in searched)
    return due[:limit] if limit is not None else due


def record_candidates(conn, run_id: str | None, candidates: list[dict]) -> dict:
    """One search's outcome per site (dicts with :data:`CANDIDATE_FIELDS`); returns the counts by outcome."""
    for candidate in candidates:
        if candidate["outcome"] not in OUTCOMES:
            raise ValueError(f"{candidate['list_key']}: unknown outcome {candidate['outcome']!r}")
    with conn.transaction():
        before = dict(
            conn.execute(
                "SELECT list_key, outcome FROM board_candidates WHERE list_key = ANY(%s)",
                ([c["list_key"] for c in candidates],),
            ).fetchall()
        )
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO board_candidates (list_key, site, name, obec_kod, start_url, board_url, cms, rules_from,"
                " confidence, outcome, reason, evidence, notices_read, notices_dated, run_id, confirmed_at)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s,"
                "  CASE WHEN %s = 'confirmed' THEN now() END)"
                " ON CONFLICT (list_key) DO UPDATE SET site = EXCLUDED.site, name = EXCLUDED.name,"
                "  obec_kod = EXCLUDED.obec_kod, start_url = EXCLUDED.start_url, board_url = EXCLUDED.board_url,"
                "  cms = EXCLUDED.cms, rules_from = EXCLUDED.rules_from, confidence = EXCLUDED.confidence,"
                "  outcome = EXCLUDED.outcome, reason = EXCLUDED.reason, evidence = EXCLUDED.evidence,"
                "  notices_read = EXCLUDED.notices_read, notices_dated = EXCLUDED.notices_dated,"
                "  run_id = EXCLUDED.run_id, tried_at = now(),"
                "  confirmed_at = coalesce(board_candidates.confirmed_at, EXCLUDED.confirmed_at)"
                # a confirmed board stays confirmed: only another confirmation updates it
                " WHERE board_candidates.outcome <> 'confirmed' OR EXCLUDED.outcome = 'confirmed'",
                [
                    (
                        *(c.get(f) for f in CANDIDATE_FIELDS[:11]),
                        json.dumps(c.get("evidence") or {}, ensure_ascii=False),
                        int(c.get("notices_read") or 0),
                        int(c.get("notices_dated") or 0),
                        run_id,
                        c["outcome"],
                    )
                    for c in candidates
                ],
            )
        for candidate in candidates:
            outcome = candidate["outcome"]
            if outcome != "confirmed" and before.get(candidate["list_key"]) not in (outcome, "confirmed"):
                crawlstate.quarantine(
                    conn,
                    stage="crawl",
                    source=BOARD_SOURCE,
                    url=candidate.get("board_url") or candidate["start_url"],
                    reason=f"board finder: {outcome}"[:200],
                    detail=(candidate.get("reason") or "")[:2000],
                )
    return dict(Counter(c["outcome"] for c in candidates))


def confirmed_boards(conn, cms_rules: CmsRules | None = None) -> list[Board]:
    """The confirmed boards as HTML boards of the register, each read with the current rule set of its CMS (one that
    lost its rule set is registered without rules, saying why: the crawl logs it not read)."""
    cms_rules = cms_rules or load_cms_rules()
    boards = []
    for list_key, site, name, obec_kod, board_url, cms in conn.execute(
        "SELECT list_key, site, name, obec_kod, board_url, cms FROM board_candidates"
        " WHERE outcome = 'confirmed' ORDER BY confirmed_at, list_key"
    ):
        system = cms_rules.system(cms or "")
        rules = dict(system.rules) if system is not None and system.rules else {}
        boards.append(
            Board(
                key=f"{HTML_KEY_PREFIX}{list_key}",
                kind="html",
                url=board_url,
                name=name,
                obec_kod=obec_kod,
                site=site,
                cms=cms,
                rules=rules,
                rules_from=f"cms:{cms}@{cms_rules.version}" if rules else None,
                no_rules=None if rules else f"HTML board not read: no extraction rules for its CMS {cms}",
            )
        )
    return boards


def candidate_summary(conn) -> dict:
    """Sites searched by the outcome of their last search, and the confirmed boards by CMS."""
    by_outcome = dict(conn.execute("SELECT outcome, count(*) FROM board_candidates GROUP BY 1 ORDER BY 1").fetchall())
    by_cms = dict(
        conn.execute(
            "SELECT cms, count(*) FROM board_candidates WHERE outcome = 'confirmed' GROUP BY 1 ORDER BY 1"
        ).fetchall()
    )
    return {
        "sites_searched": sum(by_outcome.values()),
        **{f"sites_{outcome}": int(by_outcome.get(outcome, 0)) for outcome in OUTCOMES},
        "found_boards_by_cms": {k: int(v) for k, v in by_cms.items()},
    }
