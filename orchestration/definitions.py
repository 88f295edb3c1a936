"""The one Definitions object: every domain folder of ``assets/`` merged, with the resources from the environment and
the executor of the code location."""

import importlib
import pkgutil

import dagster as dg

import assets
from orchestration.pipes import ParentBoundPipesSubprocessClient
from orchestration.resources import mendel_resource_from_env


def domain_definitions() -> list[dg.Definitions]:
    """Each folder of ``assets/`` is a domain with its own ``defs``."""
    return [
        importlib.import_module(f"assets.{module.name}").defs
        for module in pkgutil.iter_modules(assets.__path__)
        if module.ispkg
    ]


def build_definitions(
    executor: dg.ExecutorDefinition | None = None,
    loggers: dict[str, dg.LoggerDefinition] | None = None,
    **resource_overrides,
) -> dg.Definitions:
    """``executor``: None runs each step in its own process on this machine (Dagster's default); the Celery and
    Kubernetes code locations (orchestration/celery_defs.py, orchestration/k8s_defs.py) pass theirs. ``loggers``:
    the jobs' loggers (``mendel run`` passes its console and log file)."""
    resources = {
        "mendel": mendel_resource_from_env(),
        "pipes_subprocess_client": ParentBoundPipesSubprocessClient(),  # crawlers die with their run
        **resource_overrides,
    }
    return dg.Definitions.merge(
        *domain_definitions(), dg.Definitions(resources=resources, executor=executor, loggers=loggers)
    )


defs = build_definitions()
