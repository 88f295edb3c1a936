"""Which stage versions the code is at, which made the live data and which the live bundle (``mendel stages``)."""

from __future__ import annotations

from pathlib import Path

import psycopg

from mendel.core.stage_versions import EMBED, STAGES, current_versions, data_versions
from mendel.index import bundle


def status(conn: psycopg.Connection, bundles_dir: Path) -> dict:
    """Which versions the code is at, which made the live data (rows per version) and which the live bundle."""
    live = bundle.current_version(Path(bundles_dir))
    manifest = bundle.read_manifest(Path(bundles_dir) / live) if live else {}
    return {
        "code": current_versions(),
        "data": data_versions(conn),
        "bundle": {"version": live, "stages": manifest.get("stages", {}), "model": manifest.get("model")},
    }


def format_status(report: dict) -> str:
    """The status as lines: per stage, the code's version, the data's versions with their rows, the bundle's."""
    lines = [f"live bundle: {report['bundle']['version'] or 'none'}"]
    for stage in (*STAGES, EMBED):
        code = report["code"].get(stage, "(the configured embedder)")
        data = report["data"].get(stage, {})
        made = ", ".join(f"{v} ({n} rows)" for v, n in sorted(data.items())) or "-"
        in_bundle = report["bundle"]["stages"].get(stage, "-")
        stale = " STALE" if stage in report["code"] and data and set(data) != {code} else ""
        lines.append(f"{stage:10s} code {code}{stale}\n{'':10s} data {made}\n{'':10s} bundle {in_bundle}")
    return "\n".join(lines)
