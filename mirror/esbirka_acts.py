"""The e-Sbírka mirror's acts: each act's files, its wordings (znění) in time and the API objects that describe
them (``DokumentSbirkyDetail``, ``Historie``, ``DokumentSbirkyRejstrikInfo``, ``OdkazyKeStazeniZneni``), with
only the fields the official definition has. Served by :class:`mirror.esbirka.EsbirkaSite`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path

from mendel.law.identifiers import ActId

ANNOUNCED_VERSION = "0000-00-00"  # e-Sbírka's version date of the announced (not consolidated) text
CONSOLIDATED_ID_OFFSET = 1_000_000_000  # the file of a consolidated wording (not a verified PDF)


@dataclass
class ActFile:
    path: Path
    entry: dict

    @property
    def format(self) -> str:
        return self.entry["format"]

    @property
    def promulgated(self) -> bool:
        """A Sbírka PDF of ``esbirka/pdf/`` (the promulgated act; 270/2025 Sb.'s is an informativní-znění PDF of its
        first wording, served as the verified PDF as it always was), not a consolidated-wording export."""
        return self.format == "pdf" and self.entry["file"].startswith("esbirka/pdf/")

    @property
    def document_id(self) -> int:
        base = self.entry["year"] * 100_000 + self.entry["number"]
        return base + (0 if self.promulgated else CONSOLIDATED_ID_OFFSET)

    def link(self, act: "Act") -> dict:
        """``AsynchronniOdkazKeStazeni``."""
        link = {
            "dokumentId": self.document_id,
            "nazevDokumentu": self.entry["document_name"],
            "velikost": (self.entry["size"] + 1023) // 1024,
            "nazev": act.name,
        }
        if self.entry.get("pages"):
            link["pocetStran"] = self.entry["pages"]
        return link


# The amending act of a consolidated version where the corpus names one (sample_corpus/MANIFEST.md: the
# 2026-10-01 version of 573/2025 Sb. follows novela 175/2026 Sb.); it names none for the 2026-06-01 version,
# so none is served for that one.
AMENDING_ACTS = {("sb", 2025, 573, "2026-10-01"): (ActId("sb", 2026, 175),)}
_VERSION_FILE = re.compile(r"^(\d+)-(\d{4})__(\d{4}-\d{2}-\d{2})\.md$")
_VERSION_ELI = re.compile(r"/eli/cz/(sb|sm)/(\d{4})/(\d+)/(\d{4}-\d{2}-\d{2})$")


@dataclass
class ActVersion:
    """One wording (znění) of an act and the file its text comes from: the promulgated PDF (the original
    wording), a consolidated-wording export (DOCX or PDF, its date in its name or often unknown), a consolidated
    wording saved from a third-party site (HTML: ``derived`` says so) or a consolidated version in Markdown
    (``esbirka/versions/{number}-{year}__{date}.md``)."""

    date: str  # the version date of its stale URL and ELI; '' when the source names none
    path: Path
    format: str  # pdf | docx | html | md | sparql (a version known from the SPARQL metadata: no text)
    effective_from: date | None
    effective_to: date | None = None
    amended_by: tuple[ActId, ...] = ()
    announced_text: bool = False  # the promulgated text as announced (0000-00-00), not a version in force
    promulgated: bool = False  # its file is the promulgated PDF
    derived: str | None = None  # where its text came from when not from e-Sbírka ("third-party HTML")

    def kind(self, today: date) -> str:
        """``typZneni`` on ``today``."""
        if self.announced_text or (self.effective_from is None and self.promulgated):
            return "VYHLASENE"
        if self.effective_from is None:
            return "AKTUALNI"
        if self.effective_from > today:
            return "BUDOUCI"
        if self.effective_to is not None and self.effective_to < today:
            return "MINULE"
        return "AKTUALNI"

    def in_force(self, day: date) -> bool:
        return (
            self.effective_from is not None
            and self.effective_from <= day
            and (self.effective_to is None or day <= self.effective_to)
        )

    def published(self) -> datetime:
        """When the mirror's copy of this version appeared: its file's modification time (the corpus has no
        publication times; a replaced file is a newly published version)."""
        return datetime.fromtimestamp(self.path.stat().st_mtime, tz=_prague())


@dataclass
class Act:
    collection: str
    year: int
    number: int
    files: list[ActFile] = field(default_factory=list)
    versions: list[ActVersion] = field(default_factory=list)

    def build_versions(self, version_files: list[Path]) -> None:
        """The act's wordings in time: the promulgated PDF's, each consolidated file's, then the consolidated
        Markdown versions; each is in force until the day before the next one takes effect."""
        versions = []
        for act_file in self.files:
            if act_file.promulgated:
                effective = act_file.entry.get("effective")
                label = effective or ANNOUNCED_VERSION
            else:
                effective = label = act_file.entry.get("version_date") or ""
            versions.append(
                ActVersion(
                    label,
                    act_file.path,
                    act_file.format,
                    date.fromisoformat(effective) if effective else None,
                    promulgated=act_file.promulgated,
                    derived=act_file.entry.get("derived"),
                )
            )
        for path in version_files:
            day = date.fromisoformat(_VERSION_FILE.match(path.name).group(3))
            amended = AMENDING_ACTS.get((self.collection, self.year, self.number, day.isoformat()), ())
            versions.append(ActVersion(day.isoformat(), path, "md", day, amended_by=amended))
        versions.sort(key=lambda v: (v.effective_from or date.min, v.date))
        for earlier, later in zip(versions, versions[1:]):
            if earlier.effective_from is not None and later.effective_from is not None:
                earlier.effective_to = later.effective_from - timedelta(days=1)
        self.versions = versions

    @property
    def derived(self) -> str | None:
        """What any of its wordings was derived from, for the label every response built from it carries."""
        return next((v.derived for v in self.versions if v.derived), None)

    def announced_version(self) -> ActVersion | None:
        """The promulgated text (stale URL date ``0000-00-00``), when the corpus has the act's PDF."""
        pdf = self.promulgated_file
        if pdf is None:
            return None
        return ActVersion(
            ANNOUNCED_VERSION, pdf.path, "pdf", self.versions[0].effective_from, announced_text=True, promulgated=True
        )

    def current_version(self, today: date) -> ActVersion:
        """The version in force ``today``; before the act takes effect, the first one; after the last dated one
        ends (never, here), the last one."""
        return next((v for v in self.versions if v.in_force(today)), None) or (
            self.versions[0] if (self.versions[0].effective_from or today) > today else self.versions[-1]
        )

    def resolve_version(self, requested: str, today: date) -> ActVersion | None:
        """The version a stale URL's date names: ``''`` the current one, ``0000-00-00`` the promulgated text, a
        version's own date that version, another date the version in force on it (before the act took effect:
        its first version); None for a date the act has no wording for."""
        if not requested:
            return self.current_version(today)
        if requested == ANNOUNCED_VERSION:
            return self.announced_version()
        exact = next((v for v in self.versions if v.date == requested), None)
        if exact is not None:
            return exact
        try:
            day = date.fromisoformat(requested)
        except ValueError:
            return None
        in_force = next((v for v in self.versions if v.in_force(day)), None)
        if in_force is not None:
            return in_force
        first = self.versions[0]
        return first if first.effective_from is not None and day < first.effective_from else None

    def version_stale_url(self, version: ActVersion) -> str:
        return ActId(self.collection, self.year, self.number, version.date).stale_url

    def version_eli(self, version: ActVersion) -> str:
        return ActId(self.collection, self.year, self.number, version.date).versioned_eli

    @property
    def main(self) -> dict:
        """Metadata source: the promulgated PDF if there is one ({} for an act known only from the SPARQL
        metadata)."""
        pdf = self.promulgated_file
        return pdf.entry if pdf else self.files[0].entry if self.files else {}

    @property
    def promulgated_file(self) -> ActFile | None:
        return next((f for f in self.files if f.promulgated), None)

    @property
    def listed_only(self) -> bool:
        """Known from the SPARQL metadata alone: versions without text, no document."""
        return not self.files

    @property
    def act_id(self) -> ActId:
        return ActId(self.collection, self.year, self.number)

    @property
    def stale_url(self) -> str:
        return self.act_id.stale_url

    @property
    def eli(self) -> str:
        return self.act_id.eli

    @property
    def citation(self) -> str:
        return self.act_id.citation

    @property
    def name(self) -> str:
        return self.main.get("name") or self.citation

    @property
    def full_citation(self) -> str:
        m = self.main
        if m.get("act_type") and m.get("title"):
            return f"{m['act_type']} č. {self.citation}, {m['title']}"
        return self.citation

    @property
    def announced(self) -> date | None:
        value = self.main.get("announced")
        return date.fromisoformat(value) if value else None

    @property
    def is_consolidated(self) -> bool:
        return self.main.get("version_kind") == "IZ"

    def register_info(self) -> dict:
        """``DokumentSbirkyRejstrikInfo``."""
        info = {"staleUrl": self.stale_url, "nazev": self.name, "kodDokumentuSbirky": self.citation}
        if self.announced:
            info["datum"] = self.announced.isoformat()
        return info

    def detail(self, version: ActVersion | None = None, today: date | None = None) -> dict:
        """``DokumentSbirkyDetail``: only what the documents tell; unknown fields are omitted. Without a
        ``version`` the act as such (its stale URL and ELI, the main file's dates); with one, that wording (its
        stale URL and ELI with the version date, validity, ``typZneni`` on ``today`` and ``novely``)."""
        m = self.main
        detail = {
            "staleUrl": self.stale_url,
            "eli": self.eli,
            "zkracenaCitace": self.citation,
            "kodDokumentuSbirky": self.citation,
            "uplnaCitace": self.full_citation,
            "nazev": self.name,
            "sbirkaKod": self.collection,
            "sadaDokumentuKod": self.collection,
            "typZneni": "AKTUALNI" if self.is_consolidated else "VYHLASENE",
        }
        if self.listed_only:  # only versions are known: the one in force says what it is
            detail["typZneni"] = self.current_version(today or date.today()).kind(today or date.today())
        if self.announced:
            detail["datumCasVyhlaseni"] = _prague_midnight(self.announced)
        if m.get("effective"):
            detail["datumUcinnostiZneniOd"] = m["effective"]
            if not self.is_consolidated:
                detail["datumUcinnostiOd"] = m["effective"]
        if version is not None:
            detail.update(self.version_fields(version, today or date.today()))
            detail.pop("datumUcinnostiZneniOd", None)
            detail.pop("datumUcinnostiZneniDo", None)
            detail.update(self.version_dates(version))
        return detail

    def version_fields(self, version: ActVersion, today: date) -> dict:
        """What ``DokumentSbirkyZneni`` says of one version."""
        return {
            "staleUrl": self.version_stale_url(version),
            "eli": self.version_eli(version),
            "typZneni": version.kind(today),
            "novely": [{"staleUrl": a.stale_url, "kodDokumentuSbirky": a.citation} for a in version.amended_by],
        }

    @staticmethod
    def version_dates(version: ActVersion) -> dict:
        dates = {}
        if version.effective_from is not None:
            dates["datumUcinnostiZneniOd"] = version.effective_from.isoformat()
        if version.effective_to is not None:
            dates["datumUcinnostiZneniDo"] = version.effective_to.isoformat()
        return dates

    def history(self, today: date) -> dict:
        """``Historie``: every version the corpus has, in time (``ZaznamHistorie`` has no ``eli``). Only the
        promulgated PDF's wording is numbered (1: the original): of an act the corpus holds later wordings of only,
        or with versions missing between, e-Sbírka's numbers are not known, and ``cisloZneni`` is optional."""
        entries = []
        for version in self.versions:
            fields = self.version_fields(version, today)
            fields.pop("eli")
            entry = {
                **fields,
                **self.version_dates(version),
                **({"cisloZneni": 1} if version.promulgated and not version.announced_text else {}),
                "poznamky": [],
            }
            if self.announced:
                entry["datumCasVyhlaseni"] = _prague_midnight(self.announced)
            entries.append(entry)
        return {"historie": entries}

    def download_links(self) -> dict:
        """``OdkazyKeStazeniZneni``: the verified PDF where the corpus has the promulgated act; a consolidated
        wording has no slot there (its text is the version's fragments)."""
        pdf = self.promulgated_file
        if pdf is None:
            return {}
        return {
            "overeneZneni": {
                "kodDokumentuSbirky": self.citation,
                "rokCastky": self.year,
                "sbirkaKod": self.collection,
                "odkazPdf": pdf.link(self),
            }
        }


def _prague():
    try:
        from zoneinfo import ZoneInfo

        return ZoneInfo("Europe/Prague")
    except Exception:  # no tz database: naive local time
        return None


def _prague_midnight(d: date) -> str:
    return datetime(d.year, d.month, d.day, tzinfo=_prague()).isoformat()
