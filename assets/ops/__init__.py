"""Running the platform: the nightly job and its schedule, the sensors that process new versions and alert on
failures, the data invariants and the retrieval evaluation of each new bundle."""

import dagster as dg

from assets.ops.data_invariants import data_invariants
from assets.ops.evaluation import retrieval_evaluation
from assets.ops.jobs import nightly_job
from assets.ops.schedules import nightly_schedule
from assets.ops.sensors import alert_on_run_failure, process_new_versions

defs = dg.Definitions(
    assets=[retrieval_evaluation],
    asset_checks=[data_invariants],
    jobs=[nightly_job],
    schedules=[nightly_schedule],
    sensors=[alert_on_run_failure, process_new_versions],
)
