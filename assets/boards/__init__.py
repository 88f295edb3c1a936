"""Municipal notice boards: the board finder, the register, one partition per board, the board crawl, and the sensor that adds new
boards between nights."""

import dagster as dg

from assets.boards.assets import board_documents, board_registry
from assets.boards.checks import board_crawl_failures
from assets.boards.discovery import board_discovery
from assets.boards.sensors import crawl_boards_job, new_boards_from_registry

defs = dg.Definitions(
    assets=[board_discovery, board_registry, board_documents],
    asset_checks=[board_crawl_failures],
    jobs=[crawl_boards_job],
    sensors=[new_boards_from_registry],
)
