"""The nightly job at 02:00 Europe/Prague (on in production, off in the demo profile)."""

from dagster import ScheduleDefinition

from assets.ops.jobs import nightly_job
from orchestration.automation import schedule_status

nightly_schedule = ScheduleDefinition(
    name="nightly_at_two",
    job=nightly_job,
    cron_schedule="0 2 * * *",
    execution_timezone="Europe/Prague",
    default_status=schedule_status(),
)
