"""The law as it stands: act versions with their provisions (written by the e-Sbírka crawl) and the citator's
targets and links, built after recognition (thin assets over mendel.law.act_versions and mendel.citator.build)."""

from dagster import MaterializeResult, asset

from mendel.citator import build as citator
from mendel.law import act_versions
from orchestration.resources import MendelResource


@asset(
    group_name="law",
    kinds={"postgres"},
    owners=["team:ingest"],
    deps=["esbirka_documents"],
    description="Act versions (znění) with validity, version ELI and amending acts, and each version's text as a"
    " tree of provisions (tables act_versions, provisions), as the e-Sbírka crawl took them in from"
    " the change feed.",
)
def law_versions(mendel: MendelResource) -> MaterializeResult:
    with mendel.connect() as conn:
        return MaterializeResult(metadata=act_versions.summary(conn))


@asset(
    group_name="law",
    kinds={"postgres"},
    owners=["team:ingest"],
    deps=["legal_entities", "law_versions"],
    description="The citator: the canonical target of every LAW_REF / DECISION_REF entity (citation_targets) and"
    " the citations that are not mentions — e-Sbírka's odkazyZFragmentu, AMENDS/REPEALS relations,"
    " citation records (citation_links).",
)
def citations(mendel: MendelResource) -> MaterializeResult:
    with mendel.connect() as conn:
        stats = citator.build(conn)
        stats["targets"] = conn.execute("SELECT count(*) FROM citation_targets").fetchone()[0]
        return MaterializeResult(metadata=stats)
