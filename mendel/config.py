"""Settings shared by the CLI, the Dagster resources and the crawler subprocesses.

Everything is read from the environment so that a Dagster run, a Pipes subprocess and a
test all see the same values:

- ``MENDEL_HOME``          working directory for state (default ``<project>/.mendel``)
- ``MENDEL_PROFILE``       ``demo`` (crawl the local mirror) or ``production`` (real hosts)
- ``MENDEL_DATABASE_URL``  an external PostgreSQL; unset means the embedded pgserver
- ``MENDEL_MIRROR_URL``    base URL of a running mirror (demo profile)
- ``MENDEL_SOURCES``       comma-separated crawl sources to run (default: all of them)
- ``MENDEL_ESBIRKA_YEARS`` comma-separated years the e-Sbírka crawler lists
- ``MENDEL_ESBIRKA_ACTS``  optional allow-list of stale URLs (``/sb/2024/87,...``) for partial re-crawls
- ``MENDEL_NSOUD_FROM``    first ``datum_predani_na_web`` (ISO date) the Nejvyšší soud crawler asks for; default
  2024-01-01 in the demo profile, 14 days before today in production
- ``MENDEL_NSOUD_TO``      last publication date (ISO); unset = no upper bound
- ``MENDEL_NSOUD_PAGE_SIZE`` results per search page (``Count=``), default 20
- ``MENDEL_ESBIRKA_FRAGMENTS`` ``1`` (default) also reads each act's fragments (act versions and e-Sbírka's
  cross-references); ``0`` skips them
- ``MENDEL_NALUS_FROM`` / ``MENDEL_NALUS_TO`` decision dates (ISO) of the Ústavní soud search (NALUS); default
  2018-09-18 / open in the demo profile (the last days of the bundled ConCo records), the last 60 days in production
- ``MENDEL_NALUS_PAGE_SIZE`` results per NALUS page (``resultsPageSize``), default 20
- ``MENDEL_NSSOUD_FROM`` / ``MENDEL_NSSOUD_TO`` decision dates (ISO) of the Nejvyšší správní soud search; default
  2017-01-01 / open in the demo profile, the last 60 days in production
- ``MENDEL_CNB_LISTINGS``  comma-separated ČNB listing URLs (real cnb.cz URLs; the demo fetches them from the mirror);
  default the four regulatory listings (vyhlášky, úřední sdělení, dohledová sdělení a benchmarky, pravomocná
  rozhodnutí)
- ``MENDEL_MUNICIPAL_FEEDS`` comma-separated OFN "Úřední deska" feed URLs (real URLs; the demo profile fetches
  them from the mirror, which serves each site's paths); default the Kadaň feed
- ``MENDEL_BLESNO_URL``    base URL of the obec Blešno site (articles REST layout); default the mirror in the
  demo profile, unset (skipped) in production: the site's public host is not known
- ``MENDEL_HTML_BOARDS``   the maintained list of HTML notice boards with their extraction rules (a YAML/JSON file
  path or an http URL); default ``mendel/data/html_boards.yaml``. OFN boards come from NKOD (``mendel.boards``)
- ``MENDEL_RUIAN_OBCE``    comma-separated municipality codes whose full RÚIAN VFR file is crawled; default
  ``564729`` (Děčany, the bundled sample); ``*`` = every municipality
- ``MENDEL_RUIAN_CHANGES`` ``1`` (default) also crawls the state-wide daily change files (``ST_ZKSH``); ``0`` skips
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import date, timedelta
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
    "nkod": "https://data.gov.cz",  # the national open-data catalogue: the register of OFN notice boards
}
# The maintained list of HTML notice boards (no OFN feed) with their extraction rules (mendel.boards).
HTML_BOARDS_FILE = Path(__file__).resolve().parent / "data" / "html_boards.yaml"

# The real download URL of Město Kadaň's OFN notice-board feed (the bundled sample is its copy).
KADAN_FEED_URL = "https://www.mesto-kadan.cz/1ad1f16beff952576ae7ddd76a91e163"
DECANY_OBEC_KOD = "564729"  # the municipality of the bundled RÚIAN sample
NSOUD_DEMO_FROM = "2024-01-01"
NSOUD_PRODUCTION_LOOKBACK_DAYS = 14
# Court searches by decision date: decisions appear online weeks after they are made, so production looks back
# 60 days (already stored ones answer 304). The demo windows cover the last days of the bundled ConCo records.
NALUS_DEMO_FROM = "2018-09-18"
NSSOUD_DEMO_FROM = "2017-01-01"
COURT_PRODUCTION_LOOKBACK_DAYS = 60
CNB_LISTINGS = (
    "https://www.cnb.cz/cs/legislativa/vyhlasky/",
    "https://www.cnb.cz/cs/legislativa/uredni_sdeleni/",
    "https://www.cnb.cz/cs/dohled-financni-trh/vykon-dohledu/dohledova-uredni-sdeleni-a-benchmarky/",
    "https://www.cnb.cz/cs/dohled-financni-trh/vykon-dohledu/pravomocna-rozhodnuti/",
)


def _csv_env(name: str, default: str = "") -> tuple[str, ...]:
    return tuple(v.strip() for v in os.environ.get(name, default).split(",") if v.strip())

# Years of the bundled e-Sbírka documents (the demo crawls all of them); production looks at this and last year.
DEMO_ESBIRKA_YEARS = "1918,1993,2004,2012,2024,2025"


def _esbirka_years() -> tuple[int, ...]:
    value = os.environ.get("MENDEL_ESBIRKA_YEARS", "").strip()
    if not value:
        if os.environ.get("MENDEL_PROFILE", "demo") == "production":
            this_year = date.today().year
            return (this_year - 1, this_year)
        value = DEMO_ESBIRKA_YEARS
    return tuple(int(y) for y in value.split(",") if y.strip())


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
    nsoud_from: str = field(default_factory=lambda: os.environ.get("MENDEL_NSOUD_FROM", "").strip())
    nsoud_to: str = field(default_factory=lambda: os.environ.get("MENDEL_NSOUD_TO", "").strip())
    nsoud_page_size: int = field(default_factory=lambda: int(os.environ.get("MENDEL_NSOUD_PAGE_SIZE") or 20))
    esbirka_fragments: bool = field(
        default_factory=lambda: os.environ.get("MENDEL_ESBIRKA_FRAGMENTS", "1").strip().lower()
        not in ("0", "false", "no", "")
    )
    nalus_from: str = field(default_factory=lambda: os.environ.get("MENDEL_NALUS_FROM", "").strip())
    nalus_to: str = field(default_factory=lambda: os.environ.get("MENDEL_NALUS_TO", "").strip())
    nalus_page_size: int = field(default_factory=lambda: int(os.environ.get("MENDEL_NALUS_PAGE_SIZE") or 20))
    nssoud_from: str = field(default_factory=lambda: os.environ.get("MENDEL_NSSOUD_FROM", "").strip())
    nssoud_to: str = field(default_factory=lambda: os.environ.get("MENDEL_NSSOUD_TO", "").strip())
    cnb_listings: tuple[str, ...] = field(default_factory=lambda: _csv_env("MENDEL_CNB_LISTINGS", ",".join(CNB_LISTINGS)))
    municipal_feeds: tuple[str, ...] = field(
        default_factory=lambda: _csv_env("MENDEL_MUNICIPAL_FEEDS", KADAN_FEED_URL)
    )
    blesno_url: str | None = field(default_factory=lambda: os.environ.get("MENDEL_BLESNO_URL") or None)
    html_boards: str = field(default_factory=lambda: os.environ.get("MENDEL_HTML_BOARDS") or str(HTML_BOARDS_FILE))
    ruian_obce: tuple[str, ...] = field(default_factory=lambda: _csv_env("MENDEL_RUIAN_OBCE", DECANY_OBEC_KOD))
    ruian_changes: bool = field(
        default_factory=lambda: os.environ.get("MENDEL_RUIAN_CHANGES", "1").strip().lower()
        not in ("0", "false", "no", "")
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

    def nsoud_date_range(self, today: date | None = None) -> tuple[str, str]:
        """(from, to) ISO dates of ``datum_predani_na_web``; ``to`` may be empty (open-ended)."""
        start = self.nsoud_from
        if not start:
            if self.profile == "production":
                start = ((today or date.today()) - timedelta(days=NSOUD_PRODUCTION_LOOKBACK_DAYS)).isoformat()
            else:
                start = NSOUD_DEMO_FROM
        return start, self.nsoud_to

    def court_date_range(self, source: str, today: date | None = None) -> tuple[str, str]:
        """(from, to) ISO decision dates for ``nalus`` or ``nssoud``; ``to`` may be empty (open-ended)."""
        start, end = (self.nalus_from, self.nalus_to) if source == "nalus" else (self.nssoud_from, self.nssoud_to)
        if not start:
            if self.profile == "production":
                start = ((today or date.today()) - timedelta(days=COURT_PRODUCTION_LOOKBACK_DAYS)).isoformat()
            else:
                start = NALUS_DEMO_FROM if source == "nalus" else NSSOUD_DEMO_FROM
        return start, end

    def blesno_base_url(self) -> str | None:
        if self.blesno_url:
            return self.blesno_url.rstrip("/")
        return None if self.profile == "production" else self._mirror_base()


def get_settings() -> Settings:
    return Settings()
