"""What one run of the board crawl crawled: the boards file it hands the crawl process, and — in a run without
partitions (the nightly) — each board whose documents the run changed reported as a materialisation of its own
partition of ``board_documents``, so the UI shows when each board last changed instead of every board "Missing".

A board's partition is materialised when the run changed the documents its listing owns (a notice or attachment
new or with new bytes, withdrawn or listed again, retitled: mendel.crawl.board_health.changed_documents), or when it
was read and its partition was never materialised (a board new to the instance). A board read with nothing changed
keeps its last materialisation — the last run that changed its documents — and one event less is written per board
each unchanged night. A board the night could not read keeps its last materialisation too (or stays missing), with
the reason in the crawl failure check (assets/boards/checks.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from dagster import AssetExecutionContext, AssetMaterialization, MetadataValue

from mendel.core.config import Settings
from mendel.crawl import board_health
from orchestration.resources import MendelResource


def run_boards_file(settings: Settings, run_id: str) -> Path:
    """The boards one run crawls, as the board asset writes them for the crawl process (and the check reads them)."""
    return settings.home / "boards" / f"{run_id}.json"


def materialize_read_boards(
    context: AssetExecutionContext, mendel: MendelResource, boards: Sequence, since: int
) -> dict:
    """One materialisation per board of ``boards`` (``Board``: key, kind, url) this run read whose documents changed
    since the mark ``since`` (taken before the crawl: mendel.crawl.board_health.change_mark) or whose partition was
    never materialised; returns counts: materialised, read and unchanged (left as they were), not read."""
    urls = [b.url for b in boards]
    with mendel.connect(processing=False) as conn:  # a crawl's bookkeeping: no processing lock
        unread = board_health.unread_boards(conn, context.run.run_id, urls)
        changed = board_health.changed_documents(conn, context.run.run_id, urls, since)
        documents = board_health.active_documents(conn, urls)
    read = [b for b in boards if b.url not in unread]
    materialized_before = context.instance.get_materialized_partitions(context.asset_key)
    to_materialize = [b for b in read if b.url in changed or b.key not in materialized_before]
    for board in to_materialize:
        context.log_event(
            AssetMaterialization(
                asset_key=context.asset_key,
                partition=board.key,
                metadata={
                    "kind": "javascript" if getattr(board, "javascript", False) else board.kind,
                    "listing": MetadataValue.url(board.url),
                    # active documents the board's listing owns (a notice a feed also lists is the feed's)
                    "documents_owned": documents.get(board.url, 0),
                    # its documents this run added, changed or withdrew (0: a first materialisation)
                    "documents_changed": changed.get(board.url, 0),
                },
            )
        )
    if unread:
        keys = [b.key for b in boards if b.url in unread]
        context.log.warning(
            f"{len(keys)} board(s) not read in this run keep their last materialisation: {keys[:10]}"
            " (reasons: the crawl_failures check)"
        )
    return {
        "partitions_materialized": len(to_materialize),
        "partitions_unchanged": len(read) - len(to_materialize),
        "partitions_not_read": len(boards) - len(read),
    }
