"""Typed Dagster resources; secrets and URLs come from the environment."""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional

import psycopg
from dagster import ConfigurableResource, EnvVar, InitResourceContext
from pydantic import PrivateAttr

from mendel.core import db
from mendel.core.config import Settings, get_settings
from mendel.core.rawstore import RawStore
from mendel.index.embed import Embedder, get_embedder


class MendelResource(ConfigurableResource):
    """Where state lives and which hosts to crawl; one instance is shared by every asset of a run."""

    home: str
    profile: str = "demo"
    database_url: Optional[str] = None
    mirror_url: Optional[str] = None
    esbirka_years: str = ""  # empty: the profile's default years
    esbirka_acts: str = ""
    sources: str = ""  # comma-separated crawl sources to run; empty = all
    crawl_env: dict[str, str] = {}  # per-source crawler settings (MENDEL_NSOUD_FROM, …) for the subprocesses
    embedder: str = ""  # empty: MENDEL_EMBED_MODEL, else the default (mendel.index.embed.get_embedder)
    ner_gold_path: Optional[str] = None
    ner_thresholds_path: Optional[str] = None
    # the NER gate's court-metadata gold: a folder of exports or files separated by commas (None: the sample's all)
    ner_court_gold: Optional[str] = None
    ner_court_thresholds_path: Optional[str] = None
    bundles_keep: int = 3
    # A second run's processing stages on the same database: 0 refuses at once, otherwise waits this long.
    processing_lock_wait_s: float = 0.0

    _processing_lock: Optional[psycopg.Connection] = PrivateAttr(default=None)
    _run_id: str = PrivateAttr(default="")

    def setup_for_execution(self, context: InitResourceContext) -> None:
        self._run_id = context.run_id or ""

    def teardown_after_execution(self, context: InitResourceContext) -> None:
        if self._processing_lock is not None:
            db.release_processing_lock(self._processing_lock)
            self._processing_lock = None

    def settings(self) -> Settings:
        return Settings(
            home=Path(self.home),
            profile=self.profile,
            database_url=self.database_url or None,
            mirror_url=self.mirror_url or None,
            **(
                {"esbirka_years": tuple(int(y) for y in self.esbirka_years.split(",") if y.strip())}
                if self.esbirka_years.strip()
                else {}
            ),
            esbirka_acts=tuple(a.strip() for a in self.esbirka_acts.split(",") if a.strip()),
            sources=tuple(a.strip() for a in self.sources.split(",") if a.strip()),
        )

    def db_url(self) -> str:
        return db.ready_url(self.settings())

    @contextmanager
    def connect(self, processing: bool = True) -> Iterator[psycopg.Connection]:
        # A processing stage's first connection takes the database's processing lock for as long as this resource
        # lives (the run in process, the step otherwise). processing=False: a crawl's bookkeeping, which may
        # overlap any run (crawls of different sources run side by side).
        if processing and self._processing_lock is None:
            self._processing_lock = db.acquire_processing_lock(
                self.db_url(), f"mendel run {self._run_id or '?'}", wait_s=self.processing_lock_wait_s
            )
        # Autocommit: each stage's `conn.transaction()` block commits on its own, so a crash keeps finished work.
        with psycopg.connect(self.db_url(), autocommit=True) as conn:
            yield conn

    def raw_store(self) -> RawStore:
        return RawStore(self.settings().raw_store)

    def get_embedder(self) -> Embedder:
        return get_embedder(self.embedder)

    def subprocess_env(self, run_id: str) -> dict[str, str]:
        """The environment a crawler subprocess needs to see the same state as this run."""
        settings = self.settings()
        env = {
            "MENDEL_HOME": str(settings.home),
            "MENDEL_PROFILE": settings.profile,
            "MENDEL_DATABASE_URL": self.db_url(),
            "MENDEL_RUN_ID": run_id,
            "MENDEL_ESBIRKA_YEARS": ",".join(str(y) for y in settings.esbirka_years),
            "MENDEL_ESBIRKA_ACTS": self.esbirka_acts,
            "MENDEL_SOURCES": self.sources,
        }
        if settings.mirror_url:
            env["MENDEL_MIRROR_URL"] = settings.mirror_url
        env.update(self.crawl_env)
        return env


def mendel_resource_from_env() -> MendelResource:
    settings = get_settings()
    return MendelResource(
        home=str(settings.home),
        profile=settings.profile,
        # EnvVar keeps the URL (it may hold a password) out of the run config shown in the UI.
        database_url=EnvVar("MENDEL_DATABASE_URL") if os.environ.get("MENDEL_DATABASE_URL") else None,
        mirror_url=settings.mirror_url,
        esbirka_years=",".join(str(y) for y in settings.esbirka_years),
        esbirka_acts=",".join(settings.esbirka_acts),
        sources=",".join(settings.sources),
        # unset: the NER gate scores every court export of the sample (docs/operations.md)
        ner_court_gold=os.environ.get("MENDEL_NER_COURT_GOLD") or None,
    )
