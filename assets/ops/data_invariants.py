"""The nightly's last word: the invariants of `mendel doctor` (mendel.checks.doctor) checked once the bundle is out."""

from dagster import AssetCheckResult, AssetCheckSeverity, MetadataValue, asset_check

from mendel.checks import doctor
from orchestration.resources import MendelResource

DOCTOR_CHECK = "data_invariants"


@asset_check(
    asset="index_bundle",
    name=DOCTOR_CHECK,
    description="mendel doctor: every version has its blob and hash, no orphan blob, no chunk of a "
    "superseded version, every bundle file its checksum and every part its build info, "
    "crawl runs reconcile with the crawl log",
)
def data_invariants(mendel: MendelResource) -> AssetCheckResult:
    settings = mendel.settings()
    with mendel.connect() as conn:
        report = doctor.examine(conn, mendel.raw_store(), settings.bundles_dir)
    return AssetCheckResult(
        passed=report.ok,
        severity=AssetCheckSeverity.ERROR,
        metadata={
            **{f"{c.name}_checked": c.checked for c in report.checks},
            "problems": len(report.problems),
            "report": MetadataValue.md("```\n" + report.format() + "\n```"),
        },
    )
