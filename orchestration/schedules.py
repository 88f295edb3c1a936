from dagster import DefaultScheduleStatus, ScheduleDefinition

from orchestration.jobs import nightly_job

nightly_schedule = ScheduleDefinition(
    name="nightly_at_two",
    job=nightly_job,
    cron_schedule="0 2 * * *",
    execution_timezone="Europe/Prague",
    default_status=DefaultScheduleStatus.RUNNING,
)
