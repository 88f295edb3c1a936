"""Settings shared by the CLI, the Dagster resources and the crawler subprocesses, all read from the environment so
that a Dagster run, a Pipes subprocess and a test see the same values (``MENDEL_HOME``, ``MENDEL_PROFILE``,
``MENDEL_DATABASE_URL``, …: docs/operations.md). Each source's own settings are declared in its entry of the
source registry (:mod:`mendel.core.sources`); ``Settings.option`` and ``Settings.window`` resolve them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Mapping

from mendel.core.sources import (
    KADAN_FEED_URL,  # noqa: F401  (re-exported: tests name it from here)
    SOURCES,
    DateWindow,
    production_base_urls,
    source_envs,
)
from mendel.data import DATA_DIR

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SAMPLE_CORPUS = PROJECT_ROOT / "sample_corpus"

# Real hosts by key (Settings.base_url), from the source registry; the demo profile swaps them for the local mirror.
PRODUCTION_BASE_URLS = production_base_urls()
# The maintained list of HTML notice boards (no OFN feed) with their extraction rules (mendel.crawl.boards.maintained_list).
HTML_BOARDS_FILE = DATA_DIR / "html_boards.yaml"


def _csv_env(name: str, default: str = "") -> tuple[str, ...]:
    return tuple(v.strip() for v in os.environ.get(name, default).split(",") if v.strip())


def _esbirka_years() -> tuple[int, ...]:
    return SOURCES["esbirka"].window.resolve(os.environ, os.environ.get("MENDEL_PROFILE", "demo"))


def _source_env() -> dict[str, str]:
    """The registered sources' settings as the environment has them now (only those that are set)."""
    return {name: os.environ[name] for name in source_envs() if name in os.environ}


USER_AGENT = "MendelBot/0.1 (+https://github.com/mendel-legal/mendel-ingest; crawler for a public-law search index)"


def _home() -> Path:
    return Path(os.environ.get("MENDEL_HOME", PROJECT_ROOT / ".mendel")).resolve()


@dataclass(frozen=True)
class Settings:
    home: Path = field(default_factory=_home)
    profile: str = field(default_factory=lambda: os.environ.get("MENDEL_PROFILE", "demo"))
    database_url: str | None = field(default_factory=lambda: os.environ.get("MENDEL_DATABASE_URL") or None)
    mirror_url: str | None = field(default_factory=lambda: os.environ.get("MENDEL_MIRROR_URL") or None)
    esbirka_years: tuple[int, ...] = field(default_factory=lambda: _esbirka_years())

    esbirka_acts: tuple[str, ...] = field(
        default_factory=lambda: tuple(
            a.strip() for a in os.environ.get("MENDEL_ESBIRKA_ACTS", "").split(",") if a.strip()
        )
    )

    sources: tuple[str, ...] = field(default_factory=lambda: _csv_env("MENDEL_SOURCES"))
    html_boards: str = field(default_factory=lambda: os.environ.get("MENDEL_HTML_BOARDS") or str(HTML_BOARDS_FILE))
    # The registered sources' own settings (mendel.core.sources), read when the settings are made; see option/window.
    source_env: Mapping[str, str] = field(default_factory=_source_env, hash=False, repr=False)

    @property
    def raw_store(self) -> Path:
        return self.home / "raw"

    @property
    def pgdata(self) -> Path:
        return self.home / "pgdata"

    @property
    def build_dir(self) -> Path:
        return self.home / "build"

    @property
    def bundles_dir(self) -> Path:
        return self.home / "bundles"

    @property
    def dagster_home(self) -> Path:
        return self.home / "dagster_home"

    def base_url(self, source: str) -> str:
        if self.profile == "production":
            return PRODUCTION_BASE_URLS[source]
        return self._mirror_base()

    def source_enabled(self, source: str) -> bool:
        return not self.sources or source in self.sources

    def rebase_origin(self) -> str | None:
        """Where absolute real-site URLs are fetched from: the mirror in the demo profile, as they are in production."""
        return None if self.profile == "production" else self._mirror_base()

    def _mirror_base(self) -> str:
        if not self.mirror_url:
            raise RuntimeError("demo profile needs MENDEL_MIRROR_URL (start `mendel mirror` or use `mendel run`)")
        return self.mirror_url.rstrip("/")

    def option(self, source: str, argument: str):
        """One setting of a source's crawl (mendel.core.sources.Option): from the environment, else its default."""
        option = SOURCES[source].option(argument)
        return option.value(self.source_env.get(option.env), self.profile)

    def options(self, source: str) -> dict:
        """Every option of a source's crawl, by the spider argument it becomes."""
        return {option.argument: self.option(source, option.argument) for option in SOURCES[source].options}

    def window(self, source: str, today: date | None = None) -> tuple[str, str]:
        """(from, to) ISO dates of a source's date window; ``to`` may be empty (open-ended)."""
        window = SOURCES[source].window
        if not isinstance(window, DateWindow):
            raise ValueError(f"{source} has no date window")
        return window.resolve(self.source_env, self.profile, today)


def get_settings() -> Settings:
    return Settings()
