"""Deployment configuration, validated as configuration: the Helm values for the official Dagster chart, the
k8s_job_executor config against dagster-k8s's own schema, the Celery executor config, and the production
instance profile and the Helm values agreeing on run and pool limits."""

from __future__ import annotations

import importlib.util

import pytest
import yaml
from dagster._config import process_config

from mendel.core.config import PROJECT_ROOT

DEPLOY = PROJECT_ROOT / "deploy"


def load(path):
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def test_helm_values_name_the_user_code_secrets_and_external_postgres():
    values = load(DEPLOY / "k8s" / "values.yaml")
    assert values["global"]["postgresqlSecretName"]
    assert values["generatePostgresqlPasswordSecret"] is False
    postgres = values["postgresql"]
    assert postgres["enabled"] is False and postgres["postgresqlHost"] and postgres["postgresqlDatabase"]
    assert not postgres["postgresqlPassword"]  # never in the values file: it comes from the secret

    users = values["dagster-user-deployments"]
    assert users["enabled"] and users["enableSubchart"]
    (deployment,) = users["deployments"]
    assert {"name", "image", "port", "dagsterApiGrpcArgs"} <= set(deployment)
    assert deployment["image"]["repository"] and deployment["image"]["tag"] != "latest"
    args = deployment["dagsterApiGrpcArgs"]
    module, attribute = args[args.index("--module-name") + 1], args[args.index("--attribute") + 1]
    assert (module, attribute) == ("orchestration.k8s_defs", "defs")
    assert (PROJECT_ROOT / (module.replace(".", "/") + ".py")).exists()
    env = {item["name"]: item["value"] for item in deployment["env"]}
    assert env["MENDEL_PROFILE"] == "production"
    secret_names = {s["name"] for s in deployment["envSecrets"]}
    assert "mendel-secrets" in secret_names
    assert not {"MENDEL_DATABASE_URL", "ESBIRKA_API_KEY", "MENDEL_ALERT_WEBHOOK_URL"} & set(env)  # secrets only

    launcher = values["runLauncher"]
    assert launcher["type"] == "K8sRunLauncher"
    assert {s["name"] for s in launcher["config"]["k8sRunLauncher"]["envSecrets"]} == secret_names
    assert values["dagsterDaemon"]["runCoordinator"] == {"enabled": True, "type": "QueuedRunCoordinator"}


def test_helm_values_and_production_profile_share_run_and_pool_limits():
    helm = load(DEPLOY / "k8s" / "values.yaml")["concurrency"]
    production = load(DEPLOY / "production" / "dagster.yaml")["concurrency"]
    assert helm["enabled"] is True
    assert helm["runs"]["maxConcurrentRuns"] == production["runs"]["max_concurrent_runs"]
    assert helm["runs"]["tagConcurrencyLimits"] == production["runs"]["tag_concurrency_limits"]
    assert {snake(k): v for k, v in helm["pools"].items()} == production["pools"]


def test_k8s_job_executor_config_validates_against_dagster_k8s():
    config = load(DEPLOY / "k8s" / "executor.yaml")
    assert "mendel-secrets" in config["env_secrets"]
    mounts = {m["name"]: m["mount_path"] for m in config["volume_mounts"]}
    assert f"MENDEL_HOME={mounts['mendel-home']}" in config["env_vars"]  # steps share the raw store and bundles
    if importlib.util.find_spec("dagster_k8s") is None:
        pytest.skip("dagster-k8s is not installed: only the YAML shape was checked")
    from dagster_k8s import k8s_job_executor

    result = process_config(k8s_job_executor.config_schema.config_type, config)
    assert result.success, [error.message for error in result.errors]
    broken = dict(config, max_concurrent="four")  # the schema really is being applied
    assert not process_config(k8s_job_executor.config_schema.config_type, broken).success

    from dagster import Definitions

    from orchestration.k8s_defs import defs

    Definitions.validate_loadable(defs)
    assert defs.resolve_job_def("nightly").executor_def.name == "k8s"


def test_celery_executor_config_validates(monkeypatch):
    from dagster_celery import celery_executor

    monkeypatch.setenv("MENDEL_CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
    monkeypatch.setenv("MENDEL_CELERY_BACKEND_URL", "redis://127.0.0.1:6379/1")
    config = load(DEPLOY / "celery" / "celery.yaml")["execution"]["config"]
    result = process_config(celery_executor.config_schema.config_type, config)
    assert result.success, [error.message for error in result.errors]
    assert result.value["broker"] == "redis://127.0.0.1:6379/0"
