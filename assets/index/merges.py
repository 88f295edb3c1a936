"""Merging index segments outside the night: the merges the nightly's index steps leave (those writing more than
``mendel.nightly.index_stage.NIGHTLY_MERGE_ROWS`` rows, such as a graph index over hundreds of thousands of
vectors, or a graph built by settings no longer used rebuilt), then a bundle published over the merged segments. A processing run: it never runs beside the nightly."""

from dagster import MetadataValue, OpExecutionContext, ScheduleDefinition, job, op

from mendel.nightly import index_stage, publish_stage
from orchestration.automation import schedule_status
from orchestration.policies import PROCESSING_TAG, PROCESSING_TAG_VALUE
from orchestration.resources import MendelResource


@op(description="Run the segment merges the nightly left; publish the merged bundle when anything was merged.")
def merge_index_segments(context: OpExecutionContext, mendel: MendelResource) -> None:
    settings = mendel.settings()
    merged = index_stage.merge_large(settings.build_dir)
    done = {part: figures for part, figures in merged.items() if figures["merges"]}
    metadata = {part: MetadataValue.json(figures) for part, figures in done.items()}
    if done:
        with mendel.connect() as conn:
            result = publish_stage.publish_bundle(
                conn,
                settings.build_dir,
                settings.bundles_dir,
                model=mendel.get_embedder().name,
                keep=mendel.bundles_keep,
            )
        metadata["bundle"] = MetadataValue.json(result)
    context.add_output_metadata(metadata or {"merges": 0})


@job(
    name="index_merges",
    tags={PROCESSING_TAG: PROCESSING_TAG_VALUE},
    description="Merge the index segments the nightly leaves (large merges), then publish.",
)
def index_merges_job():
    merge_index_segments()


index_merges_schedule = ScheduleDefinition(
    name="index_merges_at_fourteen",
    job=index_merges_job,
    cron_schedule="0 14 * * *",
    execution_timezone="Europe/Prague",
    default_status=schedule_status(),
)
