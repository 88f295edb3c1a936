"""The same assets, jobs, schedules and sensors, executed on Celery workers (dagster-celery): each step is a Celery
task that a worker runs from this module. Broker and backend: deploy/celery/celery.yaml (run config and workers).

    dagster-celery worker start -A dagster_celery.app -y deploy/celery/celery.yaml   # on each worker machine
    dagster job execute -m orchestration.celery_defs -a defs -j nightly -c deploy/celery/celery.yaml
"""

from dagster_celery import celery_executor

from orchestration.definitions import build_definitions

defs = build_definitions(executor=celery_executor)
