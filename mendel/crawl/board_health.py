"""How one run of the board crawl went, read from its crawl log: which boards' listings were read and which boards'
documents changed in the run (their Dagster partitions are materialised from this), and what failed or was put
off, by kind of reason (the board crawl's failure check).

Kinds of reason, each a count: a board's listing that could not be read, an HTML board not read for want of
extraction rules, an attachment (a notice's file) that answered 404 or another HTTP error or failed without an
answer, a file refused as not what it should be, a notice of a feed that lacks what a notice needs, a URL robots.txt
disallowed, a URL held back (gone on its last tries: not requested in this run, logged with its last answer), and an
attachment deferred to the next run because its host's request budget for the run was spent.

Held back and deferred over budget are no failures of the run: the one failed on the night it was requested and
counts again only when its backoff ends and a request fails again, the other is asked for first by the next run.
In the demo an attachment that answered 404 is one the sample corpus does not hold (the mirror serves nothing
else): reported so, not as a failure.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

import psycopg

from mendel.crawl.boards.board import BOARD_SOURCE
from mendel.crawl.crawlstate import DEFERRED
from mendel.crawl.known import held_back_row

LISTING_REASON = "listing:"  # crawlers.spiders.base: every listing failure's reason starts so
BUDGET_REASON = re.compile(r"^deferred: (?P<host>\S+) had its budget of")  # crawlers.middlewares.host_budget
NOTICE_REASON = re.compile(r"^notice \d+ of the ")  # crawlers.spiders.boards.catalogue: a feed's unusable notice
RETRIES = re.compile(r"\s*\(after \d+ retr\w*\)$")

# Every kind a run can report, so that each is plotted over runs even when it is 0.
KINDS = (
    "listings_unread",
    "boards_without_rules",
    "attachments_404",
    "attachments_http_error",
    "attachments_failed",
    "attachments_refused",
    "notices_quarantined",
    "robots_disallowed",
    "held_back",
    "deferred_over_budget",
    "deferred_other",
)


def unread_boards(conn: psycopg.Connection, run_id: str, urls: Iterable[str]) -> set[str]:
    """The board URLs (listings) among ``urls`` this run did not read: listed as incomplete when its spider closed,
    or logged quarantined, failed or disallowed under the board's own URL (an HTML board without rules)."""
    urls = sorted(set(urls))
    if not urls:
        return set()
    row = conn.execute(
        "SELECT incomplete_listings FROM crawl_runs WHERE run_id = %s AND source = %s", (run_id, BOARD_SOURCE)
    ).fetchone()
    if row is None:  # the spider never closed: nothing of this run can count as read
        return set(urls)
    unread = set(row[0]) & set(urls)
    unread.update(
        url
        for (url,) in conn.execute(
            "SELECT DISTINCT url FROM crawl_log WHERE run_id = %s AND source = %s AND url = ANY(%s)"
            " AND outcome IN ('quarantined', 'failed', 'disallowed')",
            (run_id, BOARD_SOURCE, urls),
        ).fetchall()
    )
    return unread


def change_mark(conn: psycopg.Connection) -> int:
    """The mark now, taken before a crawl: a document a later transaction adds or changes (its version, status, title,
    url...) has a ``documents.changed_txid`` at least this (migration 0037)."""
    return int(conn.execute("SELECT txid_snapshot_xmax(txid_current_snapshot())").fetchone()[0])


def changed_documents(conn: psycopg.Connection, run_id: str, urls: Sequence[str], since: int) -> dict[str, int]:
    """Board URL (listing) → documents it owns that changed in this run: added or changed since the mark ``since``
    (:func:`change_mark`: new bytes, withdrawn or active again, a field the index reads), or logged stored by the run
    (an earlier attempt of a retried step, before the mark). Boards with none are left out."""
    rows = conn.execute(
        "SELECT listing, count(DISTINCT doc_id) FROM ("
        " SELECT listing, doc_id FROM documents WHERE source = %(source)s AND listing = ANY(%(urls)s)"
        "  AND changed_txid >= %(since)s"
        " UNION ALL SELECT d.listing, d.doc_id FROM crawl_log c JOIN documents d ON d.source = c.source AND d.url = c.url"
        "  WHERE c.run_id = %(run)s AND c.source = %(source)s AND c.outcome = 'stored' AND d.listing = ANY(%(urls)s)"
        ") changed GROUP BY listing",
        {"source": BOARD_SOURCE, "urls": list(urls), "since": since, "run": run_id},
    ).fetchall()
    return {listing: int(count) for listing, count in rows}


def active_documents(conn: psycopg.Connection, urls: Sequence[str]) -> dict[str, int]:
    """Active documents (notices and attachments) each board listing owns now, by listing URL."""
    rows = conn.execute(
        "SELECT listing, count(*) FROM documents WHERE source = %s AND status = 'active' AND listing = ANY(%s)"
        " GROUP BY listing",
        (BOARD_SOURCE, list(urls)),
    ).fetchall()
    return {listing: int(count) for listing, count in rows}


def reason_kind(outcome: str, status: int | None, reason: str | None, board_url: bool) -> str | None:
    """The kind of one crawl-log row that did not end in a stored or unchanged document (None: it did)."""
    reason = reason or ""
    if outcome == DEFERRED:
        return "deferred_over_budget" if BUDGET_REASON.match(reason) else "deferred_other"
    if outcome == "disallowed":
        return "robots_disallowed"
    if outcome not in ("quarantined", "failed"):
        return None
    if reason.startswith(LISTING_REASON):
        return "listings_unread"
    if held_back_row(outcome, status, reason):
        return "held_back"
    if board_url:
        return "boards_without_rules"
    if NOTICE_REASON.match(reason):
        return "notices_quarantined"
    if status == 404:
        return "attachments_404"
    if status is not None and status >= 400:
        return "attachments_http_error"
    return "attachments_failed" if status is None else "attachments_refused"


def short_reason(kind: str, status: int | None, reason: str | None) -> str:
    """A reason as the check lists it: hosts kept (a budget names its host), retries and URLs left out."""
    reason = RETRIES.sub("", (reason or "").strip())
    if kind == "attachments_404" or (kind == "attachments_http_error" and reason.startswith("HTTP ")):
        return f"HTTP {status}"
    return reason[:160] or kind


def failure_summary(conn: psycopg.Connection, run_id: str, top: int = 10) -> dict:
    """One run's board crawl by kind of reason: ``counts`` (every kind of :data:`KINDS`), ``reasons`` (the commonest
    reasons with their kind and count), ``hosts_over_budget`` (hosts whose budget was spent, with the attachments
    deferred), ``held_back_reasons`` (the held-back URLs' last answers with counts) and ``tried`` (URLs logged with
    an outcome of this run, deferred and held-back ones apart: neither was requested)."""
    rows = conn.execute(
        "SELECT c.outcome, c.status, c.reason, EXISTS (SELECT 1 FROM boards b WHERE b.url = c.url), count(*)"
        " FROM crawl_log c WHERE c.run_id = %s AND c.source = %s GROUP BY 1, 2, 3, 4",
        (run_id, BOARD_SOURCE),
    ).fetchall()
    counts: Counter[str] = Counter({kind: 0 for kind in KINDS})
    reasons: Counter[tuple[str, str]] = Counter()
    hosts: Counter[str] = Counter()
    held_back: Counter[str] = Counter()
    tried = 0
    for outcome, status, reason, board_url, n in rows:
        kind = reason_kind(outcome, status, reason, board_url)
        tried += 0 if outcome == DEFERRED or kind == "held_back" else n
        if kind is None:
            continue
        if kind == "held_back":
            held_back[reason] += n
        counts[kind] += n
        reasons[(kind, short_reason(kind, status, reason))] += n
        budget = BUDGET_REASON.match(reason or "")
        if budget:
            hosts[budget["host"]] += n
    return {
        "tried": tried,
        "counts": dict(counts),
        "reasons": [(kind, why, n) for (kind, why), n in sorted(reasons.items(), key=lambda r: (-r[1], r[0]))][:top],
        "hosts_over_budget": dict(hosts.most_common()),
        "held_back_reasons": dict(held_back.most_common()),
    }


# Kinds that are no failure of the run (see the module's docstring); in the demo a 404 is not either.
NOT_FAILURES = ("held_back", "deferred_over_budget")
DEMO_NOT_FAILURES = (*NOT_FAILURES, "attachments_404")


def not_failures_note(summary: dict, demo: bool) -> str:
    """What the run met that is no failure, in words ("" when nothing)."""
    counts, notes = summary["counts"], []
    held_back = summary.get("held_back_reasons", {})
    held_back_404 = held_back.get("HTTP 404", 0) if demo else 0
    if demo and (counts["attachments_404"] or held_back_404):
        earlier = (
            f" and {held_back_404} held back after that answer on an earlier run, not requested again"
            if held_back_404
            else ""
        )
        notes.append(
            f"{counts['attachments_404'] + held_back_404} attachments are not in the sample corpus (the mirror "
            f"answers 404: {counts['attachments_404']} in this run{earlier})"
        )
    if counts["held_back"] > held_back_404:
        reasons = ", ".join(f"{r}: {n}" for r, n in held_back.items() if not (demo and r == "HTTP 404"))
        notes.append(
            f"{counts['held_back'] - held_back_404} URLs held back after failing on their last tries (last answer "
            f"{reasons}), not requested in this run"
        )
    if counts["deferred_over_budget"]:
        notes.append(
            f"{counts['deferred_over_budget']} attachments deferred to the next run (a host's request budget spent)"
        )
    return "; ".join(notes)


def crawl_verdict(
    summary: dict, boards: int, unread: int, max_unread_share: float, demo: bool = False
) -> tuple[str, str | None]:
    """(``"failed"`` | ``"warning"`` | ``"passed"``, why): failed when the crawl did not work — boards to read and
    none read, or more than ``max_unread_share`` of them unread; a warning for what a board crawl meets every so
    often and carries on from (attachments that answered 404 or another error in this run, a few boards unread,
    robots.txt); passed when nothing of the kind happened — URLs held back and attachments deferred over a host's
    budget are reported in ``why`` but fail nothing, and in the ``demo`` neither do attachments that answered 404
    (the sample corpus does not hold them)."""
    if boards and (unread == boards or unread / boards > max_unread_share):
        return "failed", f"{unread} of {boards} boards could not be read"
    not_failures = DEMO_NOT_FAILURES if demo else NOT_FAILURES
    found = {kind: n for kind, n in summary["counts"].items() if n and kind not in not_failures}
    note = not_failures_note(summary, demo)
    if not found:
        return "passed", note or None
    why = "; ".join(f"{n} {kind.replace('_', ' ')}" for kind, n in found.items())
    return "warning", f"{why}; besides, {note}" if note else why
