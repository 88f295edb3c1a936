"""Extraction assets: page text from stored documents, then L3 chunks with page and section; the data-quality
checks on the pages (Great Expectations suites from mendel/data/quality_thresholds.yaml) guard everything after."""

from dagster import AssetCheckResult, AssetCheckSeverity, AssetCheckSpec, MaterializeResult, MetadataValue, asset

from assets.boards.assets import board_documents
from assets.crawl.assets import DOCUMENT_SOURCES, ruian_documents
from mendel.nightly import chunk_stage, extract_stage, registry_stage
from orchestration.resources import MendelResource

QUALITY_HARD = "extraction_quality_hard"
QUALITY_SOFT = "extraction_quality_soft"
QUALITY_CHECKS = [
    AssetCheckSpec(
        QUALITY_HARD,
        asset="document_pages",
        blocking=True,
        description="Great Expectations, hard: unique document ids, contiguous page numbers, no mojibake, "
        "section spans inside their document; a failing document is quarantined (served from its last good "
        "version, marked so) and the run goes on; blocks only when the failing documents cross a quarantine "
        "limit of the live corpus (share of the corpus or of a source, or their number)",
    ),
    AssetCheckSpec(
        QUALITY_SOFT,
        asset="document_pages",
        description="Great Expectations, soft: non-empty text share, Czech character share, OCR "
        "confidence floor, section depth; a failure is a warning",
    ),
]


def quality_check_results(conn) -> list[AssetCheckResult]:
    """Both checks from one review of the live extracted documents (incremental: only versions not reviewed
    since their extraction are validated, the corpus-level figures are summed from the stored per-version
    results); hard failures quarantine their documents, and the hard check's description says what blocks
    (mendel.checks.quality.review)."""
    from mendel.checks.quality.review import review_database

    review = review_database(conn)
    results = []
    for name, severity, level in (
        (QUALITY_HARD, "hard", AssetCheckSeverity.ERROR),
        (QUALITY_SOFT, "soft", AssetCheckSeverity.WARN),
    ):
        metadata = review.check_metadata(severity)
        wrapped = {
            "expectations": MetadataValue.json(metadata["expectations"]),
            "summary": MetadataValue.md(metadata["summary"]),
            "failed": MetadataValue.text(metadata["failed"]),
        }
        if "quarantine" in metadata:
            wrapped["quarantine"] = MetadataValue.json(metadata["quarantine"])
        results.append(
            AssetCheckResult(
                check_name=name,
                passed=review.passed(severity),
                severity=level,
                description=review.description(severity),
                metadata={**metadata, **wrapped},
            )
        )
    return results


# Board documents (notices and their attachments, every board partition) are extracted in the same run and lineage;
# so are the record documents rendered from the register (ruian_records) and the acts' e-Sbírka metadata.
@asset(
    group_name="extract",
    kinds={"pdfplumber", "postgres"},
    owners=["team:ingest"],
    deps=[*DOCUMENT_SOURCES, board_documents, "ruian_records"],
    check_specs=QUALITY_CHECKS,
    description="Page text (1-based pages) of every new document version, and of the record documents (RÚIAN "
    "municipalities, act metadata); unreadable files are quarantined.",
)
def document_pages(mendel: MendelResource) -> MaterializeResult:
    with mendel.connect() as conn:
        stats = extract_stage.extract_with_records(conn, mendel.raw_store())
        checks = quality_check_results(conn)
    return MaterializeResult(metadata=stats, check_results=checks)


@asset(
    group_name="extract",
    kinds={"postgres"},
    owners=["team:ingest"],
    deps=[document_pages],
    description="~500-character chunks split on legal structure and sentences, each with pages and section path.",
)
def document_chunks(mendel: MendelResource) -> MaterializeResult:
    with mendel.connect() as conn:
        stats = chunk_stage.chunk_pending(conn)
        stats["total_chunks"] = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    return MaterializeResult(metadata=stats)


@asset(
    group_name="extract",
    kinds={"postgres"},
    owners=["team:ingest"],
    deps=[ruian_documents],
    description="RÚIAN municipalities, parts, buildings and address points, streamed into registry_records.",
)
def ruian_records(mendel: MendelResource) -> MaterializeResult:
    with mendel.connect() as conn:
        stats = registry_stage.load_registry_pending(conn, mendel.raw_store())
        stats["total_records"] = conn.execute("SELECT count(*) FROM registry_records").fetchone()[0]
    by_kind = stats.pop("by_kind")
    return MaterializeResult(metadata={**stats, **{f"records_{kind}": n for kind, n in sorted(by_kind.items())}})
