"""Extraction assets: page text from stored documents, then L3 chunks with page and section."""


from dagster import MaterializeResult, asset

from assets.crawl import DOCUMENT_SOURCES, ruian_documents
from mendel import pipeline
from orchestration.resources import MendelResource


@asset(group_name="extract", kinds={"pdfplumber", "postgres"}, owners=["team:ingest"], deps=DOCUMENT_SOURCES,
       description="Page text (1-based pages) of every new document version; unreadable files are quarantined.")
def document_pages(mendel: MendelResource) -> MaterializeResult:
    with mendel.connect() as conn:
        stats = pipeline.extract_pending(conn, mendel.raw_store())
    return MaterializeResult(metadata=stats)


@asset(group_name="extract", kinds={"postgres"}, owners=["team:ingest"], deps=[document_pages],
       description="~500-character chunks split on legal structure and sentences, each with pages and section path.")
def document_chunks(mendel: MendelResource) -> MaterializeResult:
    with mendel.connect() as conn:
        stats = pipeline.chunk_pending(conn)
        stats["total_chunks"] = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    return MaterializeResult(metadata=stats)


@asset(group_name="extract", kinds={"postgres"}, owners=["team:ingest"], deps=[ruian_documents],
       description="RÚIAN municipalities, parts, buildings and address points, streamed into registry_records.")
def ruian_records(mendel: MendelResource) -> MaterializeResult:
    with mendel.connect() as conn:
        stats = pipeline.load_registry_pending(conn, mendel.raw_store())
        stats["total_records"] = conn.execute("SELECT count(*) FROM registry_records").fetchone()[0]
    by_kind = stats.pop("by_kind")
    return MaterializeResult(metadata={**stats, **{f"records_{kind}": n for kind, n in sorted(by_kind.items())}})
