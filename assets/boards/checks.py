"""The board crawl's failure check: what one run could not read, fetch or put off, by kind of reason
(mendel.crawl.board_health), each kind a number to plot over runs, the commonest reasons as a table.

Red only when the crawl did not work (boards to read and none read, or more of them unread than
``crawl.max_failure_share``); a warning for what a board crawl meets on ordinary nights — attachments that answered
404 or another error in this run, a board or two unread —; green when nothing of the kind happened. URLs held back
(gone on their last tries, not requested in this run) and attachments deferred over a host's request budget are
counted and said, never a failure; in the demo neither are attachments the sample corpus does not hold (the mirror
answers 404). So the check is never red every night by design, and a new failure still shows.
"""

from dagster import AssetCheckExecutionContext, AssetCheckResult, AssetCheckSeverity, MetadataValue, asset_check

from assets.boards.assets import board_documents
from assets.boards.crawled import run_boards_file
from assets.crawl.assets import CRAWL_FAILURES_CHECK
from mendel.checks.quality.thresholds import load_thresholds
from mendel.crawl import board_health
from mendel.crawl.boards.board import BOARD_SOURCE
from mendel.crawl.boards.register import read_boards_file
from orchestration.resources import MendelResource

SEVERITY = {"failed": AssetCheckSeverity.ERROR, "warning": AssetCheckSeverity.WARN, "passed": AssetCheckSeverity.WARN}


def reasons_table(summary: dict) -> str:
    rows = [f"| {kind.replace('_', ' ')} | {why.replace('|', '/')} | {n} |" for kind, why, n in summary["reasons"]]
    return "\n".join(["| kind | reason | URLs |", "|---|---|---:|", *rows])


def board_failures_result(
    conn, run_id: str, boards: list, max_unread_share: float, demo: bool = False
) -> AssetCheckResult:
    """The check's result for one run that crawled ``boards`` (Board rows: key, url); ``demo``: the demo profile's
    run, whose mirror answers 404 for every attachment the sample corpus does not hold."""
    summary = board_health.failure_summary(conn, run_id)
    unread = board_health.unread_boards(conn, run_id, [b.url for b in boards])
    verdict, why = board_health.crawl_verdict(summary, len(boards), len(unread), max_unread_share, demo)
    unread_keys = sorted(b.key for b in boards if b.url in unread)
    metadata = {
        "boards": len(boards),
        "boards_read": len(boards) - len(unread_keys),
        "boards_unread": len(unread_keys),
        "max_unread_share": max_unread_share,
        "tried": summary["tried"],
        **summary["counts"],
        "hosts_over_budget": len(summary["hosts_over_budget"]),
        "reasons": MetadataValue.md(reasons_table(summary)),
    }
    if summary["held_back_reasons"]:
        metadata["held_back_reasons"] = MetadataValue.json(summary["held_back_reasons"])
    if demo:
        metadata["demo"] = True
    if summary["hosts_over_budget"]:
        metadata["deferred_by_host"] = MetadataValue.json(summary["hosts_over_budget"])
    if unread_keys:
        metadata["unread_boards"] = MetadataValue.json(unread_keys[:50])
    return AssetCheckResult(
        check_name=CRAWL_FAILURES_CHECK,
        passed=verdict == "passed",
        severity=SEVERITY[verdict],
        description=description(verdict, why, len(boards), len(unread_keys)),
        metadata=metadata,
    )


def description(verdict: str, why: str | None, boards: int, unread: int) -> str:
    if verdict != "passed":
        return why or verdict
    read = f"{boards - unread} of {boards} boards read" if unread else f"every one of {boards} boards read"
    return f"{read}; nothing failed: {why}" if why else f"{read}, every attachment fetched or unchanged"


@asset_check(
    asset=board_documents,
    name=CRAWL_FAILURES_CHECK,
    blocking=False,
    description="What the run's board crawl could not read, fetch or put off, counted by kind (listings unread, "
    "boards without rules, attachments 404 / other HTTP errors / failed / refused, notices quarantined, robots.txt, "
    "held back after failing on their last tries, deferred over a host's budget) with the commonest reasons; fails "
    "when no board or more than crawl.max_failure_share of them could be read, warns on failures of this run; held "
    "back, deferred over budget and, in the demo, attachments the sample corpus lacks (404) are said, not failed.",
)
def board_crawl_failures(context: AssetCheckExecutionContext, mendel: MendelResource) -> AssetCheckResult:
    settings = mendel.settings()
    if not settings.source_enabled(BOARD_SOURCE):
        return AssetCheckResult(
            check_name=CRAWL_FAILURES_CHECK,
            passed=True,
            description=f"{BOARD_SOURCE} is not in MENDEL_SOURCES: nothing crawled",
            metadata={"crawled": False},
        )
    boards_file = run_boards_file(settings, context.run.run_id)
    if not boards_file.exists():  # the register named no board to crawl (the asset recorded why)
        return AssetCheckResult(
            check_name=CRAWL_FAILURES_CHECK,
            passed=True,
            description="no board to crawl in this run",
            metadata={"crawled": False, "boards": 0},
        )
    max_share = load_thresholds()["crawl"]["max_failure_share"]
    with mendel.connect(processing=False) as conn:  # a crawl check takes no processing lock
        return board_failures_result(
            conn, context.run.run_id, read_boards_file(boards_file), max_share, demo=settings.profile != "production"
        )
