"""Whether schedules and the sensors that start runs are on when a code location loads: on in production; off in the
demo profile, so opening the UI (`make ui`) queues no crawl by itself — a person switches them on there."""

from dagster import DefaultScheduleStatus, DefaultSensorStatus

from mendel.core.config import get_settings


def automation_on() -> bool:
    return get_settings().profile == "production"


def sensor_status() -> DefaultSensorStatus:
    return DefaultSensorStatus.RUNNING if automation_on() else DefaultSensorStatus.STOPPED


def schedule_status() -> DefaultScheduleStatus:
    return DefaultScheduleStatus.RUNNING if automation_on() else DefaultScheduleStatus.STOPPED
