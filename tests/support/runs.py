"""What a Dagster run did, read from its events: the assets it materialised and the checks it evaluated."""

from __future__ import annotations


def events(result, kind: str) -> list:
    """The run's events of one type (``"ASSET_MATERIALIZATION"``, ``"ASSET_CHECK_EVALUATION"``, ...)."""
    return [e for e in result.all_events if e.event_type_value == kind]


def materialized(result) -> dict[str, dict]:
    """Asset key -> the metadata values of its materialisation."""
    found = {}
    for event in events(result, "ASSET_MATERIALIZATION"):
        mat = event.event_specific_data.materialization
        found[mat.asset_key.to_user_string()] = {k: v.value for k, v in mat.metadata.items()}
    return found


def materialized_keys(result) -> set[str]:
    return set(materialized(result))


def check_evaluations(result) -> dict:
    """Check name -> its evaluation (``passed``, ``severity``, ``metadata``, ...)."""
    return {e.event_specific_data.check_name: e.event_specific_data for e in events(result, "ASSET_CHECK_EVALUATION")}
