"""Dagster assets, checks, jobs, sensors and schedules, one folder per domain; each folder's ``defs`` is what the
Definitions root (:mod:`orchestration.definitions`) merges, so a new domain is a new folder."""
