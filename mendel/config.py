"""Settings shared by the CLI, the Dagster resources and the crawler subprocesses.

Everything is read from the environment so that a Dagster run, a Pipes subprocess and a
test all see the same values:

- ``MENDEL_HOME``          working directory for state (default ``<project>/.mendel``)
- ``MENDEL_PROFILE``       ``demo`` (crawl the local mirror) or ``production`` (real hosts)
- ``MENDEL_DATABASE_URL``  an external PostgreSQL; unset means the embedded pgserver
- ``MENDEL_MIRROR_URL``    base URL of a running mirror (demo profile)
- ``MENDEL_ESBIRKA_YEARS`` comma-separated years the e-Sbírka crawler lists
- ``MENDEL_ESBIRKA_ACTS``  optional allow-list of stale URLs (``/sb/2024/87,...``) for partial re-crawls
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SAMPLE_CORPUS = PROJECT_ROOT / "sample_corpus"

# Real hosts per source; the demo profile swaps them for the local mirror.
PRODUCTION_BASE_URLS = {
    "esbirka": "https://www.e-sbirka.cz",
    "esbirka_opendata": "https://opendata.eselpoint.gov.cz",
    "nsoud": "https://rozhodnuti.nsoud.cz",
    "nssoud": "https://vyhledavac.nssoud.cz",
    "nalus": "https://nalus.usoud.cz",
    "cnb": "https://www.cnb.cz",
    "cuzk": "https://vdp.cuzk.gov.cz",
}

USER_AGENT = "MendelBot/0.1 (+https://github.com/mendel-legal/mendel-ingest; crawler for a public-law search index)"


def _home() -> Path:
    return Path(os.environ.get("MENDEL_HOME", PROJECT_ROOT / ".mendel")).resolve()


@dataclass(frozen=True)
class Settings:
    home: Path = field(default_factory=_home)
    profile: str = field(default_factory=lambda: os.environ.get("MENDEL_PROFILE", "demo"))
    database_url: str | None = field(default_factory=lambda: os.environ.get("MENDEL_DATABASE_URL") or None)
    mirror_url: str | None = field(default_factory=lambda: os.environ.get("MENDEL_MIRROR_URL") or None)
    esbirka_years: tuple[int, ...] = field(
        default_factory=lambda: tuple(
            int(y) for y in os.environ.get("MENDEL_ESBIRKA_YEARS", "2024,2025").split(",") if y.strip()
        )
    )

    esbirka_acts: tuple[str, ...] = field(
        default_factory=lambda: tuple(
            a.strip() for a in os.environ.get("MENDEL_ESBIRKA_ACTS", "").split(",") if a.strip()
        )
    )

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
        if not self.mirror_url:
            raise RuntimeError("demo profile needs MENDEL_MIRROR_URL (start `mendel mirror` or use `mendel run`)")
        return self.mirror_url.rstrip("/")


def get_settings() -> Settings:
    return Settings()
