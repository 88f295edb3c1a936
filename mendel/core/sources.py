"""The source registry: every crawl source declared once, with all the other floors need of it.

A :class:`Source` entry holds a source's production hosts, the environment settings of its crawl (defaults and the
spider argument each becomes), date window, backfill partitions, cadence, crawl pool and the mirror sites that stand
in for it in the demo profile. ``Settings`` resolves the settings, each spider builds its arguments from its entry,
and ``assets/crawl/`` makes its asset, jobs and freshness check. A new source is one entry in ``SOURCES`` plus its
spider and mirror site; tests/mendel/crawl/test_sources.py checks every entry has them all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Literal, Mapping, Optional, Union

OptionKind = Literal["text", "int", "flag", "list"]
_FALSE_FLAGS = ("0", "false", "no", "")


@dataclass(frozen=True)
class Option:
    """One crawl setting read from the environment and handed to the spider as the keyword ``argument``."""

    argument: str
    env: str
    default: str = ""
    # text: the value ("" or unset = default); int: a number ("" = default); flag: anything but 0/false/no/empty is
    # on (unset = default); list: comma-separated, spaces trimmed (set but empty = none, unset = default).
    kind: OptionKind = "text"
    doc: str = ""
    demo_default: Optional[str] = None  # the demo profile's default, where it is not ``default``

    def value(self, raw: Optional[str], profile: str = "production") -> Union[str, int, bool, tuple[str, ...]]:
        default = self.demo_default if profile != "production" and self.demo_default is not None else self.default
        if self.kind == "int":
            return int(raw or default)
        if self.kind == "flag":
            return (default if raw is None else raw).strip().lower() not in _FALSE_FLAGS
        if self.kind == "list":
            return tuple(v.strip() for v in (default if raw is None else raw).split(",") if v.strip())
        return raw or default


@dataclass(frozen=True)
class DateWindow:
    """A search by date: ISO dates [from, to], both inclusive; an empty ``to`` is open-ended."""

    from_env: str
    to_env: str
    demo_from: str  # the demo profile's start: it covers the bundled sample's documents
    production_lookback_days: int  # production starts this many days before today
    doc: str = ""
    demo_to: str = ""  # the demo profile's end, where the bundled sample ends ("" = open-ended)
    # True: a run without a window of its own starts at the last complete read minus production_lookback_days
    # (mendel.crawl.listing_windows); the window above only on a first night or when the whole listing is asked for.
    incremental: bool = False
    backfill_settings: Mapping[str, str] = field(default_factory=dict)  # more settings of every backfill window

    def resolve(self, environ: Mapping[str, str], profile: str, today: Optional[date] = None) -> tuple[str, str]:
        start = environ.get(self.from_env, "").strip()
        end = environ.get(self.to_env, "").strip()
        if not start:
            if profile == "production":
                start = ((today or date.today()) - timedelta(days=self.production_lookback_days)).isoformat()
            else:
                start, end = self.demo_from, end or self.demo_to
        return start, end

    def backfill_env(self, start: date, end: date) -> dict[str, str]:
        """The settings of one backfill window [start, end)."""
        return {
            self.from_env: start.isoformat(),
            self.to_env: (end - timedelta(days=1)).isoformat(),
            **self.backfill_settings,
        }

    @property
    def envs(self) -> tuple[str, ...]:
        return (self.from_env, self.to_env)


@dataclass(frozen=True)
class YearWindow:
    """A register listed a year at a time: a comma-separated list of years; none (``()``) is the whole register."""

    env: str
    demo_years: tuple[int, ...]  # the years of the bundled sample; () for every year
    production_years: Optional[int] = 2  # production lists this year and the ones before it; None: every year
    doc: str = ""

    def resolve(self, environ: Mapping[str, str], profile: str, today: Optional[date] = None) -> tuple[int, ...]:
        value = environ.get(self.env, "").strip()
        if not value:
            if profile == "production" and self.production_years is None:
                return ()
            if profile == "production":
                this_year = (today or date.today()).year
                return tuple(range(this_year - self.production_years + 1, this_year + 1))
            return self.demo_years
        return tuple(int(y) for y in value.split(",") if y.strip())

    def backfill_env(self, start: date, end: date) -> dict[str, str]:
        """The settings of one backfill window [start, end): every year it touches."""
        return {self.env: ",".join(str(y) for y in range(start.year, (end - timedelta(days=1)).year + 1))}

    @property
    def envs(self) -> tuple[str, ...]:
        return (self.env,)


@dataclass(frozen=True)
class Backfill:
    """The date partitions a backfill may ask for (one run each, through the source's window settings)."""

    start: str  # ISO date of the first partition
    unit: Literal["year", "month", "day"]


@dataclass(frozen=True)
class Source:
    name: str  # MENDEL_SOURCES, crawl_log and the documents' source column, the spider's name
    description: str
    spider: str  # dotted path of its Scrapy spider class (loaded by crawlers.run)
    mirror_sites: tuple[str, ...]  # dotted paths of the mirror sites that serve its hosts in the demo profile
    hosts: Mapping[str, str] = field(default_factory=dict)  # production base URLs by key (Settings.base_url)
    options: tuple[Option, ...] = ()
    window: Union[DateWindow, YearWindow, None] = None
    backfill: Optional[Backfill] = None  # None: no date dimension to crawl by (re-crawl it whole)
    cadence: timedelta = timedelta(days=1)  # its freshness check fails once the last crawl is older (+ slack)
    # What its crawl feeds: document versions (document_pages) or register records (ruian_records).
    feeds: Literal["documents", "registry"] = "documents"
    # True: one Dagster dynamic partition per notice board, its asset built by assets/boards/assets.py.
    board_partitions: bool = False
    asset: str = ""  # the Dagster asset; default <name>_documents
    pool: str = ""  # one crawl of it at a time: a Dagster pool (boards) or an advisory lock; crawl_<name>

    def __post_init__(self):
        if not self.asset:
            object.__setattr__(self, "asset", f"{self.name}_documents")
        if not self.pool:
            object.__setattr__(self, "pool", f"crawl_{self.name}")
        if self.backfill is not None and self.window is None:
            raise ValueError(f"{self.name}: a backfill needs a window its partitions can set")
        arguments = [option.argument for option in self.options]
        if len(set(arguments)) != len(arguments):
            raise ValueError(f"{self.name}: two options for one argument")

    def option(self, argument: str) -> Option:
        return next(option for option in self.options if option.argument == argument)

    @property
    def envs(self) -> tuple[str, ...]:
        """Every environment variable its crawl reads."""
        return (*(o.env for o in self.options), *(self.window.envs if self.window else ()))


# The real download URL of Město Kadaň's OFN notice-board feed (the bundled sample is its copy; the mirror's NKOD
# catalogue lists it).
KADAN_FEED_URL = "https://www.mesto-kadan.cz/1ad1f16beff952576ae7ddd76a91e163"

# Court searches by decision date: decisions appear online weeks after they are made, so production looks back
# 60 days (already stored ones answer 304). The demo windows cover the last days of the bundled ConCo records.
COURT_LOOKBACK_DAYS = 60
# The Ústavní soud decisions whose real NALUS text pages the sample holds (courts/nalus_html/).
NALUS_SAMPLE_PAGES = (
    "I. ÚS 2/95",
    "II. ÚS 287/96",
    "I. ÚS 689/05",
    "II. ÚS 549/06",
    "IV. ÚS 899/15",
    "III. ÚS 1773/19",
)
# A file number searched for on NALUS whose decision text is held is searched again after two weeks, the Nejvyšší
# soud's look-back: a corrected text or another decision under it is found then (a new one also by the date window).
NALUS_DOCKET_RECHECK_DAYS = 14
# The lower courts' open data lists a decision under the day it was published; a day still gains records for a while
# after it (exports finishing late). Two weeks on, a day is taken as complete and closed.
JUSTICE_LAG_DAYS = 14

SOURCES: dict[str, Source] = {
    source.name: source
    for source in (
        Source(
            "esbirka",
            "Acts of the Sbírka zákonů from e-Sbírka's REST API: verified PDFs into the raw store, versions in PostgreSQL.",
            spider="crawlers.spiders.esbirka.EsbirkaSpider",
            mirror_sites=("mirror.esbirka.EsbirkaSite",),
            # The site's own host first: the spider's base URL and the address people follow; the others are
            # official hosts a redirect may lead to (the API host is an assumption to confirm with an access key).
            hosts={
                "esbirka": "https://www.e-sbirka.cz",
                "esbirka_api": "https://api.e-sbirka.cz",
                "esbirka_opendata": "https://opendata.eselpoint.gov.cz",
            },
            options=(
                Option(
                    "fragments",
                    "MENDEL_ESBIRKA_FRAGMENTS",
                    "1",
                    "flag",
                    "also read each act's fragments (act versions and e-Sbírka's cross-references)",
                ),
                Option("api_key", "ESBIRKA_API_KEY", doc="e-Sbírka's API access key (production)"),
            ),
            # Also settable per run as the MendelResource's esbirka_years (Settings.esbirka_years). Unset, a first
            # crawl lists the whole register and later ones follow the change feed, in both profiles.
            window=YearWindow(
                "MENDEL_ESBIRKA_YEARS",
                demo_years=(),
                production_years=None,
                doc="years a backfill lists the chronological register for (unset: the whole register, then the"
                " change feed)",
            ),
            backfill=Backfill("1918-01-01", "year"),
        ),
        Source(
            "nsoud",
            "Nejvyšší soud decisions (search results → decision pages), keyed by ECLI.",
            spider="crawlers.spiders.nsoud.NsoudSpider",
            mirror_sites=("mirror.courts.NsoudSite",),
            hosts={"nsoud": "https://rozhodnuti.nsoud.cz"},
            options=(
                Option("page_size", "MENDEL_NSOUD_PAGE_SIZE", "20", "int", "results per search page (Count=)"),
                Option(
                    "whole_listing",
                    "MENDEL_NSOUD_WHOLE",
                    "0",
                    "flag",
                    "search the whole window (from MENDEL_NSOUD_FROM or the profile's start), not from the last "
                    "complete search minus the look-back",
                ),
            ),
            window=DateWindow(
                "MENDEL_NSOUD_FROM",
                "MENDEL_NSOUD_TO",
                demo_from="1993-01-01",
                production_lookback_days=14,
                incremental=True,
                doc="publication dates (datum_predani_na_web), or decision dates where the site gives no web date",
            ),
            backfill=Backfill("1993-01-01", "month"),
        ),
        Source(
            "ruian",
            "ČÚZK RÚIAN exchange-format files (municipality snapshots and daily changes).",
            spider="crawlers.spiders.ruian.RuianSpider",
            mirror_sites=("mirror.cuzk.CuzkSite",),
            hosts={"cuzk": "https://vdp.cuzk.gov.cz"},
            options=(
                Option(
                    "obce",
                    "MENDEL_RUIAN_OBCE",
                    "564729",
                    "list",
                    "municipality codes whose full VFR file is crawled (default Děčany, the bundled sample; * = all)",
                ),
                Option("changes", "MENDEL_RUIAN_CHANGES", "1", "flag", "also crawl the state-wide daily change files"),
            ),
            feeds="registry",
        ),
        Source(
            "nalus",
            "Ústavní soud decisions from NALUS (ASP.NET search form → result pages → GetText pages), keyed by ECLI.",
            spider="crawlers.spiders.nalus.NalusSpider",
            mirror_sites=("mirror.nalus.NalusSite",),
            hosts={"nalus": "https://nalus.usoud.cz"},
            options=(
                Option("page_size", "MENDEL_NALUS_PAGE_SIZE", "20", "int", "results per page (resultsPageSize)"),
                Option(
                    "dockets",
                    "MENDEL_NALUS_DOCKETS",
                    "",
                    "list",
                    "file numbers searched for (the form's Spisová značka) besides the date window; one whose decision "
                    "text is held is searched again only once that text last answered "
                    f"MENDEL_NALUS_DOCKET_RECHECK_DAYS ({NALUS_DOCKET_RECHECK_DAYS}) or more days ago, one not held "
                    "every night; the demo's: the decisions whose real NALUS pages the sample holds",
                    demo_default=",".join(NALUS_SAMPLE_PAGES),
                ),
                Option(
                    "docket_recheck_days",
                    "MENDEL_NALUS_DOCKET_RECHECK_DAYS",
                    str(NALUS_DOCKET_RECHECK_DAYS),
                    "int",
                    "days after which a file number of MENDEL_NALUS_DOCKETS whose decision text is held is searched "
                    "again (0: every night)",
                ),
                Option(
                    "whole_listing",
                    "MENDEL_NALUS_WHOLE",
                    "0",
                    "flag",
                    "search every file number of MENDEL_NALUS_DOCKETS, held or not",
                ),
            ),
            window=DateWindow(
                "MENDEL_NALUS_FROM",
                "MENDEL_NALUS_TO",
                demo_from="2018-09-18",
                production_lookback_days=COURT_LOOKBACK_DAYS,
                doc="decision dates",
            ),
            backfill=Backfill("1993-01-01", "month"),
        ),
        Source(
            "nssoud",
            "Nejvyšší správní soud decisions (search form → result rows → UTF-16-LE texts).",
            spider="crawlers.spiders.nssoud.NssoudSpider",
            mirror_sites=("mirror.nssoud.NssoudSite",),
            hosts={"nssoud": "https://vyhledavac.nssoud.cz"},
            window=DateWindow(
                "MENDEL_NSSOUD_FROM",
                "MENDEL_NSSOUD_TO",
                demo_from="2017-01-01",
                production_lookback_days=COURT_LOOKBACK_DAYS,
                doc="decision dates",
            ),
            backfill=Backfill("2003-01-01", "month"),
        ),
        Source(
            "justice",
            "District and regional court decisions from the Ministry of Justice's open data (rozhodnuti.justice.cz), "
            "a publication day at a time; a day is read until it is older than the publication lag, then closed.",
            spider="crawlers.spiders.justice.JusticeSpider",
            mirror_sites=("mirror.justice.JusticeSite",),
            hosts={"justice": "https://rozhodnuti.justice.cz"},
            options=(
                Option(
                    "lag_days",
                    "MENDEL_JUSTICE_LAG_DAYS",
                    str(JUSTICE_LAG_DAYS),
                    "int",
                    "a publication day is read again every run until it is this many days old, then closed",
                ),
                Option(
                    "reread",
                    "MENDEL_JUSTICE_REREAD",
                    "0",
                    "flag",
                    "read the window's closed days again too (every backfill window does)",
                ),
            ),
            window=DateWindow(
                "MENDEL_JUSTICE_FROM",
                "MENDEL_JUSTICE_TO",
                demo_from="2025-09-15",
                demo_to="2025-09-30",
                production_lookback_days=JUSTICE_LAG_DAYS * 2,
                doc="publication days (datumZverejneni)",
                backfill_settings={"MENDEL_JUSTICE_REREAD": "1"},
            ),
            backfill=Backfill("2021-01-01", "day"),
        ),
        Source(
            "cnb",
            "ČNB regulatory listings (vyhlášky, úřední sdělení, dohledová sdělení a benchmarky, pravomocná rozhodnutí) "
            "→ their PDF and HTML documents.",
            spider="crawlers.spiders.cnb.CnbSpider",
            mirror_sites=("mirror.cnb.CnbSite",),
            hosts={"cnb": "https://www.cnb.cz"},
            options=(
                Option(
                    "listings",
                    "MENDEL_CNB_LISTINGS",
                    ",".join(
                        (
                            "https://www.cnb.cz/cs/legislativa/vyhlasky/",
                            "https://www.cnb.cz/cs/legislativa/uredni_sdeleni/",
                            "https://www.cnb.cz/cs/dohled-financni-trh/vykon-dohledu/dohledova-uredni-sdeleni-a-benchmarky/",
                            "https://www.cnb.cz/cs/dohled-financni-trh/vykon-dohledu/pravomocna-rozhodnuti/",
                        )
                    ),
                    "list",
                    "listing URLs (real cnb.cz URLs; the demo fetches them from the mirror)",
                ),
            ),
        ),
        Source(
            "boards",
            "Every notice board of the register, one partition each: NKOD's boards (OFN feeds and publishers' own "
            "exports) and the maintained list (HTML boards, JavaScript ones rendered by Chromium, site APIs).",
            spider="crawlers.spiders.boards.BoardsSpider",
            mirror_sites=("mirror.nkod.NkodSite", "mirror.municipal.MunicipalSite", "mirror.municipal.BoardHosts"),
            hosts={"nkod": "https://data.gov.cz"},  # the national open-data catalogue: the register of OFN boards
            options=(
                Option(
                    "boards_file",
                    "MENDEL_BOARDS_FILE",
                    doc="the boards to crawl (written by the board asset); unset = the whole register",
                ),
                Option("max_attachments", "MENDEL_BOARD_MAX_ATTACHMENTS", doc="attachments fetched per board at most"),
                # 200 a night at 1 request/s is 200 s of one host's time: one run's politeness floor stays well under the
                # crawl's 300 s goal, and ~200 new files a night is more than nearly any board posts (MVČR's 480 arrive
                # over three nights).
                Option(
                    "host_budget",
                    "MENDEL_BOARD_HOST_BUDGET",
                    "200",
                    "int",
                    "requests to one host per run at most (robots.txt and listings first, never deferred; attachments "
                    "over it are deferred to the next run, which asks for them first); 0 = no budget",
                ),
                # A notice's attachment is the document as posted: asking for each one every night (a conditional request,
                # 304) spends the host's politeness on nothing new; a week keeps a changed file from going unseen long.
                Option(
                    "revalidate_days",
                    "MENDEL_BOARD_REVALIDATE_DAYS",
                    "7",
                    "int",
                    "an attachment stored or confirmed within this many days is not asked for again (logged unchanged, "
                    "not due); 0 = ask every run",
                ),
            ),
            board_partitions=True,
            asset="board_documents",
        ),
    )
}


def source_envs() -> tuple[str, ...]:
    """Every environment variable some source's crawl reads."""
    return tuple(env for source in SOURCES.values() for env in source.envs)


def production_base_urls() -> dict[str, str]:
    return {key: url for source in SOURCES.values() for key, url in source.hosts.items()}
