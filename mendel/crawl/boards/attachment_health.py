"""What became of notices' attachments in one board crawl, read from the crawl's own records: the board failure
check's figures (an asset check calls :func:`attachment_outcomes`; so can anyone, without Dagster).

Every attachment a board lists is linked to its notice (``notice_attachments``, by the URL the board published) and
every request ends in one ``crawl_log`` row (by the URL fetched — in the demo the mirror's, in production the one
published: ``fetched_url`` maps one to the other). An attachment is counted once per link, by the outcome of its
URL in the run: stored or unchanged; failed (quarantined: HTTP 404, not a document, a timeout…) or deferred (over its
host's budget: asked for first by the next run), each by reason; or not requested in the run at all (over the
per-board limit, or a board not read in it).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from mendel.crawl.boards.board import BOARD_SOURCE

_HTTP = re.compile(r"^HTTP (\d{3})")


def reason_class(outcome: str, status: int | None, reason: str | None) -> str:
    """A logged reason without its particulars (retries, sizes, hosts): what a failure check groups by."""
    text = (reason or "").strip()
    if outcome == "deferred":
        return "deferred: over its host's request budget" if "budget" in text else f"deferred: {text[:60]}"
    if (match := _HTTP.match(text)) or status and status >= 400:
        return f"HTTP {match.group(1) if match else status}"
    if text.startswith("expected a document"):
        return text.split(",")[0] + (", " + text.split(", got ", 1)[1] if ", got " in text else "")
    for prefix in ("timeout", "connection failed", "too large", "truncated body", "decompression bomb", "robots.txt"):
        if text.startswith(prefix):
            return prefix
    return text.split(":", 1)[0][:80] or outcome


def attachment_outcomes(conn, run_id: str, fetched_url: Callable[[str], str] | None = None) -> dict:
    """Counts of one board crawl's attachments (see the module docstring): ``linked`` (attachment links of the
    notices the run's boards listed), ``stored``, ``unchanged``, ``failed`` and ``deferred`` (with
    ``failed_by_reason`` and ``deferred_by_reason``) and ``not_requested``."""
    fetched_url = fetched_url or (lambda url: url)
    logged = {
        url: (outcome, status, reason)
        for url, outcome, status, reason in conn.execute(
            "SELECT DISTINCT ON (url) url, outcome, status, reason FROM crawl_log WHERE run_id = %s AND source = %s"
            " ORDER BY url, id DESC",
            (run_id, BOARD_SOURCE),
        )
    }
    # The links of the notices the run's boards listed: boards whose notices the run logged or linked.
    links = conn.execute(
        "SELECT a.attachment_doc_id FROM notice_attachments a WHERE a.board IN ("
        " SELECT DISTINCT d.listing FROM crawl_log c JOIN documents d ON d.url = c.url AND d.source = c.source"
        " WHERE c.run_id = %s AND c.source = %s AND d.listing IS NOT NULL)",
        (run_id, BOARD_SOURCE),
    ).fetchall()
    counts: Counter = Counter()
    failed: Counter = Counter()
    deferred: Counter = Counter()
    for (attachment,) in links:
        counts["linked"] += 1
        outcome = logged.get(fetched_url(attachment))
        if outcome is None:
            counts["not_requested"] += 1
        elif outcome[0] in ("stored", "unchanged"):
            counts[outcome[0]] += 1
        elif outcome[0] == "deferred":
            counts["deferred"] += 1
            deferred[reason_class(*outcome)] += 1
        else:
            counts["failed"] += 1
            failed[reason_class(*outcome)] += 1
    return {
        **{k: counts[k] for k in ("linked", "stored", "unchanged", "failed", "deferred", "not_requested")},
        "failed_by_reason": dict(failed.most_common()),
        "deferred_by_reason": dict(deferred.most_common()),
    }
