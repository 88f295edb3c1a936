"""The nightly stages as plain functions over PostgreSQL and the raw store, one module per stage; Dagster assets
only call them. Each stage picks up only what the stage before left pending, so a re-run does no repeated work."""
