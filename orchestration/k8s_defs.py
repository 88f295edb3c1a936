"""The same assets, jobs, schedules and sensors on Kubernetes: the Helm chart's K8sRunLauncher starts each run in a
pod and dagster-k8s's k8s_job_executor runs each step as its own Kubernetes Job (config: deploy/k8s/executor.yaml).
Served by the user-code deployment of deploy/k8s/values.yaml; needs dagster-k8s in the image."""

from pathlib import Path

import yaml
from dagster_k8s import k8s_job_executor

from mendel.core.config import PROJECT_ROOT
from orchestration.definitions import build_definitions

EXECUTOR_CONFIG: Path = PROJECT_ROOT / "deploy" / "k8s" / "executor.yaml"

defs = build_definitions(
    executor=k8s_job_executor.configured(yaml.safe_load(EXECUTOR_CONFIG.read_text(encoding="utf-8")))
)
