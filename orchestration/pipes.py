"""The Pipes client the crawl assets run their Scrapy subprocess with: Dagster's subprocess client, with the
command bound to the step's process (orchestration.parent_death), so a run killed outright takes its crawler
with it; a cancelled run still forwards SIGINT as Dagster does."""

from __future__ import annotations

from typing import Mapping, Sequence

from dagster import PipesSubprocessClient

from orchestration.parent_death import bound_command


class ParentBoundPipesSubprocessClient(PipesSubprocessClient):
    def run(
        self,
        *,
        context,
        extras=None,
        command: str | Sequence[str],
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
    ):
        return super().run(context=context, extras=extras, command=bound_command(command), env=env, cwd=cwd)
