"""New notice boards from the register become partitions of ``board_documents`` between nights (production), and only
they are crawled: one run of ``crawl_boards`` per board or per range of up to 100 new boards. Removing boards is the
nightly ``board_registry``'s work; a register that cannot be read fails the tick and adds nothing.
"""

import psycopg
from dagster import (
    AssetSelection,
    RunRequest,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    define_asset_job,
    sensor,
)
from dagster._core.storage.tags import ASSET_PARTITION_RANGE_END_TAG, ASSET_PARTITION_RANGE_START_TAG

from assets.boards import register_read
from assets.boards.assets import MAX_BOARDS_PER_RUN, board_documents, board_partitions
from mendel.crawl.boards import candidates
from mendel.crawl.boards.board import BOARD_SOURCE
from orchestration.automation import sensor_status
from orchestration.policies import SOURCE_TAG
from orchestration.resources import MendelResource

crawl_boards_job = define_asset_job(
    "crawl_boards",
    selection=AssetSelection.assets(board_documents),
    partitions_def=board_partitions,
    tags={SOURCE_TAG: BOARD_SOURCE},
    description="Crawl notice boards (one partition per board); the new-boards sensor starts it for new boards.",
)


def run_requests_for(new_keys: list[str], per_run: int = MAX_BOARDS_PER_RUN) -> list[RunRequest]:
    """Runs covering exactly ``new_keys`` (in the order they are added as partitions)."""
    requests = []
    for start in range(0, len(new_keys), per_run):
        chunk = new_keys[start : start + per_run]
        run_key = f"new-boards:{chunk[0]}..{chunk[-1]}"
        if len(chunk) == 1:
            requests.append(RunRequest(run_key=run_key, partition_key=chunk[0]))
        else:
            requests.append(
                RunRequest(
                    run_key=run_key,
                    tags={ASSET_PARTITION_RANGE_START_TAG: chunk[0], ASSET_PARTITION_RANGE_END_TAG: chunk[-1]},
                )
            )
    return requests


@sensor(
    name="new_boards_from_registry",
    job=crawl_boards_job,
    minimum_interval_seconds=6 * 3600,
    default_status=sensor_status(),
    description="Adds notice boards new in the register (NKOD's boards, the maintained list) as partitions of "
    "board_documents and crawls only those.",
)
def new_boards_from_registry(context: SensorEvaluationContext, mendel: MendelResource):
    settings = mendel.settings()
    if not settings.source_enabled(BOARD_SOURCE):
        return SkipReason(f"{BOARD_SOURCE} is not in MENDEL_SOURCES")
    with psycopg.connect(mendel.db_url(), autocommit=True) as conn:  # the boards the finder confirmed count too
        found = candidates.confirmed_boards(conn)
    # RegistryError fails the tick: nothing added from half a register
    boards = register_read.read_register(settings, found=found)
    known = set(context.instance.get_dynamic_partitions(board_partitions.name))
    new_keys = [b.key for b in boards if b.key not in known]
    gone = len(known - {b.key for b in boards})
    if not new_keys:
        return SkipReason(f"no new boards: {len(boards)} in the register, all known ({gone} known ones gone from it)")
    context.log.info(f"{len(new_keys)} new board(s) of {len(boards)}; {gone} known board(s) gone from the register")
    return SensorResult(
        run_requests=run_requests_for(new_keys),
        dynamic_partitions_requests=[board_partitions.build_add_request(new_keys)],
    )
