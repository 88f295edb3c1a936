"""e-Sbírka for the local mirror: act metadata derived from the bundled PDFs/DOCX, and the API.

Served paths (real layout of www.e-sbirka.cz and opendata.eselpoint.gov.cz):

- ``POST /esel-esbir-daver/chronologicke-rejstriky/dokumenty-sbirky-po-mesicich`` body ``2024`` → ``DokumentySbirkyPoMesicich``
- ``POST /esel-esbir-daver/chronologicke-rejstriky/roky`` → ``RokySeznam``
- ``GET  /esel-esbir-daver/dokumenty-sbirky/{staleUrl}`` → ``DokumentSbirkyDetail``
- ``GET  /esel-esbir-daver/dokumenty-sbirky/{staleUrl}/odkazy-ke-stazeni`` → ``OdkazyKeStazeniZneni``
- ``GET  /esel-esbir-daver/dokumenty-sbirky/{staleUrl}/fragmenty?cisloStranky=N`` → ``FragmentSeznam``
  ``{seznam, pocetStranek}``, 1,000 fragments a page, pages counted from 1 (a missing or bad ``cisloStranky`` is
  400, a page past the last one 404). The fragments' text is the version's own (the PDF text layer, the DOCX
  paragraphs or the Markdown version's paragraphs); the segmentation, ids, anchors and cross-references are the
  mirror's (:mod:`mirror.fragments`)
- ``GET  /esel-esbir-daver/dokumenty-sbirky/{staleUrl}/historie`` → ``Historie``: the act's versions (znění) in
  time, each with its versioned stale URL and ELI, ``datumUcinnostiZneniOd/Do``, ``typZneni`` and ``novely``
- ``GET  /esel-esbir-daver/dokumenty-sbirky/zmeny-zneni?datumCasOdberuOd=T&start=S&pocet=N`` →
  ``SeznamZneniPravnichPredpisu``: versions published after T (all without it), oldest first

Versions: an act's first wording is its main file (the promulgated PDF, dated by its "nabývá účinnosti" clause,
else ``0000-00-00``; or a DOCX, dated only when the file says so), followed by the consolidated versions of
``esbirka/versions/{number}-{year}__{date}.md`` (573/2025 Sb.: the PDF and two versions, three real wordings);
each is in force until the day before the next one. Nothing else is made up: an act with one known wording
has one version. A stale URL's date selects a version: its own date, a day it is in force, ``0000-00-00`` for
the promulgated text (the PDF) and no date for the version in force today. A version's publication time
(``zmeny-zneni``) is its file's modification time; its amending act (``novely``) only where the corpus names
it (:data:`AMENDING_ACTS`).
- ``GET  /esel-esbir-daver/souborove-dokumenty/{dokumentId}/ORIGINAL/{STAHNI|ZOBRAZ}/{nazevSouboru}`` → file bytes
- ``GET  /esel-esbir-daver/sbirky`` → the real ``api/response_sbirky.json`` bytes
- ``GET|POST /sparql?query=...`` → the real SPARQL JSON results for act 110/2019 Sb., else an empty result set

Acts known only from the SPARQL metadata (``esbirka/api/sparql_act_*_meta.json``: 110/2019 Sb.) have their
version list and nothing else: each ``ver`` URI is a version, dated by its version ELI (e-Sbírka's ELI names a
version by the day it takes effect); ``/historie``, the detail and ``zmeny-zneni`` list it, ``/fragmenty`` is an
empty list (the corpus has no text of it) and the chronological register, which lists documents, leaves it out.

``{staleUrl}`` is ``/sb/{year}/{number}``, URL-encoded (``%2Fsb%2F2024%2F87``); an unencoded form, a trailing
version date (``/sb/2024/87/2024-04-16``) and the ELI form (``/eli/cz/sb/2024/87``) are accepted too.

Acts are the 16 Sbírka PDFs ``esbirka/pdf/{number}-{year}.pdf`` and the 5 informativní-znění DOCX
(``Sb_1993_1_IZ.docx``, ``76_2004.docx``); a DOCX is linked as ``informativniZneniDocx`` in
``odkazy-ke-stazeni`` (a mirror extension: the real API has no DOCX slot). ``dokumentId`` is
``year * 100000 + number`` for a PDF, plus 1e9 for a DOCX. ``druhObsahu`` is ``ORIGINAL`` (what the real
site uses, e.g. ``/sbr-cache/souborove-dokumenty/787855/ORIGINAL/ZOBRAZ/...``); the file's format name
(``PDF``/``DOCX``) is accepted as an alias.

Dates: ``datumCasVyhlaseni`` and the listing's ``datum``/month are the announcement date printed on the
cover sheet ("Zpřístupněna dne ..."); without a cover (270/2025 and the DOCX) the adoption date of the
"ze dne ..." line stands in. ``datumUcinnostiZneniOd`` comes from the act's "nabývá účinnosti" clause (or the
version date of an informativní znění PDF) and is omitted when not stated plainly.

Metadata (title, dates, page counts) is read from the documents by :func:`build_catalog`; the result is
committed as ``catalog.json`` next to this module so the server starts without pdfplumber. Entries whose
file is missing from the catalog, or whose size or sha256 differ, are recomputed at server start.
Regenerate with ``python -m mirror.esbirka``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
import zipfile
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from urllib.parse import parse_qs, quote, unquote
from xml.etree import ElementTree

from mendel.czech.dates import WORDED_DATE_PATTERN, date_of_match, find_worded_date
from mendel.law.identifiers import ActId, parse_act_path

from . import fragments as act_fragments
from .responses import FileDigests, Response, chyby_response, file_response, json_response

API_PREFIX = "/esel-esbir-daver"
SPARQL_PATH = "/sparql"
log = logging.getLogger("mirror.esbirka")

CATALOG_PATH = Path(__file__).with_name("catalog.json")
CATALOG_NOTE = (
    "DERIVED FILE - do not edit. Generated by mirror.esbirka.build_catalog() from the documents in "
    "sample_corpus/esbirka/{pdf,docx}; regenerate with `python -m mirror.esbirka`."
)
CONTENT_KIND = "ORIGINAL"  # e-Sbírka's druhObsahu for the stored original file
DOCX_ID_OFFSET = 1_000_000_000
FRAGMENT_PAGE_SIZE = 1000  # the real API's constant page size
CHANGE_PAGE_SIZE = 100  # zmeny-zneni: items a page when pocet is not given
MAX_CHANGE_PAGE_SIZE = 1000
ANNOUNCED_VERSION = "0000-00-00"  # e-Sbírka's version date of the announced (not consolidated) text
MIME = {
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
}


# ---------------------------------------------------------------- text parsing (pure)

_HEADER_LINE = re.compile(r"^(strana \d+|čís\.\s*\d+\.?$|\d+$)", re.I)
_TITLE_STOP = re.compile(r"(usnesl|usnesla|nařizuje|stanoví|se dohodl|^ČÁST\b|^§|^Čl\.)")
_RELATIVE_START = re.compile(r"^(kter\w*|jímž|jíž|jimiž)\b")


def _normalise_type(lines: list[str]) -> str:
    words = []
    for i, line in enumerate(lines):
        if line.isupper():
            line = line.capitalize() if i == 0 else line.lower()
        words.append(line)
    return " ".join(words).strip(" ,")


def parse_act_heading(text: str) -> dict | None:
    """Type, title and adoption date from an act's heading ('ZÁKON / ze dne ... / o ...').

    Returns {"act_type", "title", "name", "adopted"} or None when no 'ze dne' line is found.
    ``title`` is the part after the date; ``name`` is e-Sbírka's ``nazev`` (type + title).
    """
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    ze_idx = next((i for i, ln in enumerate(lines) if re.search(r"\bze dne " + WORDED_DATE_PATTERN, ln)), None)
    if ze_idx is None:
        return None
    type_lines: list[str] = []
    for ln in reversed(lines[:ze_idx]):
        if _HEADER_LINE.match(ln) or ln.lower().startswith("strana") or " Akt č. " in f" {ln} ":
            break
        type_lines.insert(0, ln)
    ze_line = lines[ze_idx]
    before, _, after = ze_line.partition("ze dne")
    if before.strip():
        type_lines.append(before.strip())
    adopted = find_worded_date(after)
    rest = re.sub(r"^\s*" + WORDED_DATE_PATTERN + r"\s*,?", "", after).strip()
    title_lines = [rest] if rest else []
    for ln in lines[ze_idx + 1 :]:
        if _TITLE_STOP.search(ln):
            break
        if re.match(r"^ze dne " + WORDED_DATE_PATTERN, ln):
            continue
        title_lines.append(ln)
    title = re.sub(r"\s+", " ", " ".join(title_lines)).strip().rstrip(",")
    title = re.sub(r"(?<!\bSb)\.$", "", title).strip()  # keep the dot of a final "Sb."
    act_type = _normalise_type(type_lines)
    if not act_type or not title:
        return None
    joiner = ", " if _RELATIVE_START.match(title) else " "
    return {"act_type": act_type, "title": title, "name": f"{act_type}{joiner}{title}", "adopted": adopted}


def parse_cover(text: str) -> dict | None:
    """The cover sheet of a Sbírka PDF: 'Zpřístupněna dne 16. dubna 2024' and 'Zákon č. 88/2024 Sb.' + title."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    announced = None
    for ln in lines:
        if ln.startswith("Zpřístupněna dne"):
            announced = find_worded_date(ln)
    head = next((i for i, ln in enumerate(lines) if re.match(r"^.+ č\. \d+/\d{4} Sb\.$", ln)), None)
    if announced is None or head is None:
        return None
    name = re.sub(r"\s+", " ", " ".join(lines[head + 1 :])).strip()
    return {"announced": announced, "name": name or None}


_ORDINAL_MONTHS = {"": 1, "druhého ": 2, "třetího ": 3}
_EFFECT_SENTENCE = re.compile(
    r"(?:Tento|Tato) (?:ústavní )?(?:zákon|vyhláška|nařízení|opatření) nabývá účinnosti (.{0,160})"
)


def parse_effective_date(text: str, announced: date | None) -> date | None:
    """Main effective date from 'Tento zákon nabývá účinnosti dnem ...' (the last such sentence).

    Relative forms ('dnem jeho vyhlášení', 'prvním dnem [druhého] kalendářního měsíce následujícího po
    [dni] jeho vyhlášení', 'dnem následujícím po dni jeho vyhlášení') need the announcement date.
    """
    found = list(_EFFECT_SENTENCE.finditer(re.sub(r"\s+", " ", text)))
    if not found:
        return None
    clause = found[-1].group(1)
    m = re.match(r"dnem " + WORDED_DATE_PATTERN, clause)
    if m:
        return date_of_match(m)
    if announced is None:
        return None
    if clause.startswith("dnem jeho vyhlášení"):
        return announced
    if clause.startswith("dnem následujícím po dni jeho vyhlášení"):
        return announced + timedelta(days=1)
    m = re.match(
        r"prvním dnem (druhého |třetího |)kalendářního měsíce následujícího po (?:dni )?jeho vyhlášení", clause
    )
    if m:
        months = announced.month - 1 + _ORDINAL_MONTHS[m.group(1)]
        return date(announced.year + months // 12, months % 12 + 1, 1)
    return None


def number_year_from_name(file_name: str) -> tuple[int, int] | None:
    """'87-2024.pdf' / '76_2004.docx' → (87, 2004); 'Sb_1993_1_IZ.docx' → (1, 1993)."""
    m = re.match(r"^Sb_(\d{4})_(\d+)_", file_name)
    if m:
        return int(m.group(2)), int(m.group(1))
    m = re.match(r"^(\d+)[-_](\d{4})\.", file_name)
    if m:
        return int(m.group(1)), int(m.group(2))
    return None


# ---------------------------------------------------------------- catalog (derived metadata)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _iso(d: date | None) -> str | None:
    return d.isoformat() if d else None


def _pdf_entry(path: Path, rel: str) -> dict:
    import pdfplumber  # only needed when (re)building the catalog

    number, year = number_year_from_name(path.name) or (None, None)
    with pdfplumber.open(path) as pdf:
        pages = pdf.pages
        doc_title = str(pdf.metadata.get("Title") or "")
        first_texts = [(pages[i].extract_text() or "") for i in range(min(3, len(pages)))]
        cover = parse_cover(first_texts[0]) if first_texts else None
        heading = None
        for text in first_texts:
            heading = parse_act_heading(text)
            if heading:
                break
        announced = cover["announced"] if cover else None
        effective = None
        next_text = ""
        for i in range(len(pages) - 1, -1, -1):  # the effect clause is the last one, before any annexes
            window = (pages[i].extract_text() or "") + "\n" + next_text
            if _EFFECT_SENTENCE.search(re.sub(r"\s+", " ", window)):
                effective = parse_effective_date(window, announced)
                break
            next_text = window[:3000]
        page_count = len(pages)
    version_kind = "IZ" if doc_title.endswith("_IZ") else "PZZ" if doc_title.endswith("_PZZ") else None
    version_date = re.search(r"_(\d{4}-\d{2}-\d{2})_IZ$", doc_title)
    name = (cover or {}).get("name") or (heading or {}).get("name")
    return {
        "file": rel,
        "format": "pdf",
        "size": path.stat().st_size,
        "sha256": _sha256(path),
        "collection": "sb",
        "number": number,
        "year": year,
        "act_type": (heading or {}).get("act_type"),
        "title": (heading or {}).get("title"),
        "name": name,
        "name_source": "cover" if (cover or {}).get("name") else "heading",
        "adopted": _iso((heading or {}).get("adopted")),
        "announced": _iso(announced or (heading or {}).get("adopted")),
        "announced_source": "zpristupneni" if announced else "ze_dne",
        "effective": _iso(effective) if version_kind != "IZ" else (version_date.group(1) if version_date else None),
        "version_kind": version_kind,
        "version_date": version_date.group(1) if version_date else None,
        "pages": page_count,
        "document_name": f"{doc_title}.pdf" if re.match(r"^Sb_\d{4}_\d+_", doc_title) else path.name,
    }


_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def _docx_text(path: Path, max_paragraphs: int = 40) -> tuple[str, str]:
    with zipfile.ZipFile(path) as z:
        root = ElementTree.fromstring(z.read("word/document.xml"))
        core_title = ""
        if "docProps/core.xml" in z.namelist():
            core = ElementTree.fromstring(z.read("docProps/core.xml"))
            el = core.find("{http://purl.org/dc/elements/1.1/}title")
            core_title = (el.text or "") if el is not None else ""
    paragraphs = []
    for p in root.iter(f"{_W}p"):
        text = "".join(t.text or "" for t in p.iter(f"{_W}t")).strip()
        if text:
            paragraphs.append(text)
        if len(paragraphs) >= max_paragraphs:
            break
    return "\n".join(paragraphs), core_title


def _docx_entry(path: Path, rel: str) -> dict:
    number, year = number_year_from_name(path.name) or (None, None)
    text, core_title = _docx_text(path)
    core = number_year_from_name(core_title + "_") if core_title else None
    if number is None and core:
        number, year = core
    heading = parse_act_heading(text) or {}
    return {
        "file": rel,
        "format": "docx",
        "size": path.stat().st_size,
        "sha256": _sha256(path),
        "collection": "sb",
        "number": number,
        "year": year,
        "act_type": heading.get("act_type"),
        "title": heading.get("title"),
        "name": heading.get("name"),
        "name_source": "heading",
        "adopted": _iso(heading.get("adopted")),
        "announced": _iso(heading.get("adopted")),
        "announced_source": "ze_dne",
        "effective": None,
        "version_kind": "IZ" if core_title.endswith("_IZ") else None,
        "version_date": None,
        "pages": None,
        "document_name": f"{core_title}.docx" if core_title else path.name,
    }


def _corpus_files(corpus_root: Path) -> list[tuple[Path, str]]:
    base = corpus_root / "esbirka"
    files = sorted((base / "pdf").glob("*.pdf")) + sorted((base / "docx").glob("*.docx"))
    return [(p, p.relative_to(corpus_root).as_posix()) for p in files]


def _entry_for(path: Path, rel: str) -> dict:
    return _pdf_entry(path, rel) if path.suffix.lower() == ".pdf" else _docx_entry(path, rel)


def build_catalog(corpus_root: Path) -> dict:
    """Derive act metadata from every e-Sbírka PDF/DOCX in the corpus (needs pdfplumber)."""
    entries = [_entry_for(p, rel) for p, rel in _corpus_files(Path(corpus_root))]
    return {"_note": CATALOG_NOTE, "entries": entries}


def write_catalog(corpus_root: Path, target: Path = CATALOG_PATH) -> dict:
    catalog = build_catalog(corpus_root)
    target.write_text(json.dumps(catalog, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return catalog


def load_catalog(corpus_root: Path, catalog_path: Path = CATALOG_PATH) -> list[dict]:
    """The committed catalog, with entries recomputed for files that are new or changed; a file that cannot be
    read (a corrupt or empty PDF, a DOCX that is no zip) is left out and logged: the mirror starts whatever its
    corpus holds."""
    known: dict[str, dict] = {}
    if catalog_path.exists():
        for entry in json.loads(catalog_path.read_text(encoding="utf-8")).get("entries", []):
            known[entry["file"]] = entry
    entries = []
    for path, rel in _corpus_files(Path(corpus_root)):
        entry = known.get(rel)
        if entry is None or entry["size"] != path.stat().st_size or entry["sha256"] != _sha256(path):
            try:
                entry = _entry_for(path, rel)
            except Exception as exc:  # pdfminer, zipfile and XML each raise their own
                log.warning("mirror: %s left out of the e-Sbírka catalog: %s: %s", rel, type(exc).__name__, exc)
                continue
        entries.append(entry)
    return entries


# ---------------------------------------------------------------- acts and API payloads


@dataclass
class ActFile:
    path: Path
    entry: dict

    @property
    def format(self) -> str:
        return self.entry["format"]

    @property
    def document_id(self) -> int:
        base = self.entry["year"] * 100_000 + self.entry["number"]
        return base + (DOCX_ID_OFFSET if self.format == "docx" else 0)

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
    wording), an informativní-znění DOCX (the current wording, its date often unknown) or a consolidated
    version in Markdown (``esbirka/versions/{number}-{year}__{date}.md``)."""

    date: str  # the version date of its stale URL and ELI; '' when the source names none
    path: Path
    format: str  # pdf | docx | md | sparql (a version known from the SPARQL metadata: no text)
    effective_from: date | None
    effective_to: date | None = None
    amended_by: tuple[ActId, ...] = ()
    announced_text: bool = False  # the promulgated text as announced (0000-00-00), not a version in force

    def kind(self, today: date) -> str:
        """``typZneni`` on ``today``."""
        if self.announced_text or (self.effective_from is None and self.format == "pdf"):
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
        """The act's wordings in time: the main file's, then the consolidated Markdown versions; each is in
        force until the day before the next one takes effect."""
        main = next((f for f in self.files if f.format == "pdf"), self.files[0])
        effective = main.entry.get("effective") if main.format == "pdf" else main.entry.get("version_date")
        first = date.fromisoformat(effective) if effective else None
        label = effective or (ANNOUNCED_VERSION if main.format == "pdf" else "")
        versions = [ActVersion(label, main.path, main.format, first)]
        for path in version_files:
            day = date.fromisoformat(_VERSION_FILE.match(path.name).group(3))
            amended = AMENDING_ACTS.get((self.collection, self.year, self.number, day.isoformat()), ())
            versions.append(ActVersion(day.isoformat(), path, "md", day, amended_by=amended))
        versions.sort(key=lambda v: (v.effective_from or date.min, v.date))
        for earlier, later in zip(versions, versions[1:]):
            if earlier.effective_from is not None and later.effective_from is not None:
                earlier.effective_to = later.effective_from - timedelta(days=1)
        self.versions = versions

    def announced_version(self) -> ActVersion | None:
        """The promulgated text (stale URL date ``0000-00-00``), when the corpus has the act's PDF."""
        pdf = self.file("pdf")
        if pdf is None:
            return None
        return ActVersion(ANNOUNCED_VERSION, pdf.path, "pdf", self.versions[0].effective_from, announced_text=True)

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
        """Metadata source: the PDF if there is one ({} for an act known only from the SPARQL metadata)."""
        return next((f.entry for f in self.files if f.format == "pdf"), self.files[0].entry if self.files else {})

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

    def file(self, fmt: str) -> ActFile | None:
        return next((f for f in self.files if f.format == fmt), None)

    def register_info(self) -> dict:
        """``DokumentSbirkyRejstrikInfo`` (plus zkracenaCitace)."""
        info = {
            "staleUrl": self.stale_url,
            "nazev": self.name,
            "kodDokumentuSbirky": self.citation,
            "zkracenaCitace": self.citation,
        }
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
        """``Historie``: every version in time, numbered from 1."""
        entries = []
        for number, version in enumerate(self.versions, start=1):
            entry = {
                **self.version_fields(version, today),
                **self.version_dates(version),
                "cisloZneni": number,
                "poznamky": [],
            }
            if self.announced:
                entry["datumCasVyhlaseni"] = _prague_midnight(self.announced)
            entries.append(entry)
        return {"historie": entries}

    def download_links(self) -> dict:
        """``OdkazyKeStazeniZneni``; the DOCX link is a mirror extension (``informativniZneniDocx``)."""
        links: dict = {}
        pdf = self.file("pdf")
        if pdf:
            links["overeneZneni"] = {
                "kodDokumentuSbirky": self.citation,
                "rokCastky": self.year,
                "sbirkaKod": self.collection,
                "odkazPdf": pdf.link(self),
            }
        docx = self.file("docx")
        if docx:
            links["informativniZneniDocx"] = docx.link(self)
        return links


def _prague():
    try:
        from zoneinfo import ZoneInfo

        return ZoneInfo("Europe/Prague")
    except Exception:  # no tz database: naive local time
        return None


def _prague_midnight(d: date) -> str:
    return datetime(d.year, d.month, d.day, tzinfo=_prague()).isoformat()


_SUB_RESOURCE = re.compile(r"(/[a-z-]+)?")  # what may follow an act's path: /fragmenty, /odkazy-ke-stazeni


class EsbirkaSite:
    """Routes for the e-Sbírka REST API and the open-data SPARQL endpoint."""

    def __init__(self, corpus_root: Path, digests: FileDigests, catalog_path: Path = CATALOG_PATH, today=date.today):
        self.corpus_root = Path(corpus_root)
        self.digests = digests
        self.today = today  # what "in force now" means (typZneni, the current version): a test can move it
        self.api_dir = self.corpus_root / "esbirka" / "api"
        self.acts: dict[tuple[str, int, int], Act] = {}
        self.files_by_id: dict[int, tuple[Act, ActFile]] = {}
        self.fragment_page_size = FRAGMENT_PAGE_SIZE
        self.change_page_size = CHANGE_PAGE_SIZE
        self._fragments: dict[tuple[str, str, str], list[dict]] = {}  # (file, sha256, version) → fragment records
        self._fragments_lock = threading.Lock()
        for entry in load_catalog(self.corpus_root, catalog_path):
            if entry.get("number") is None or entry.get("year") is None:
                continue
            key = (entry["collection"], entry["year"], entry["number"])
            act = self.acts.setdefault(key, Act(*key))
            act_file = ActFile(self.corpus_root / entry["file"], entry)
            act.files.append(act_file)
            self.files_by_id[act_file.document_id] = (act, act_file)
        version_files: dict[tuple[str, int, int], list[Path]] = {}
        for path in sorted((self.corpus_root / "esbirka" / "versions").glob("*.md")):
            named = _VERSION_FILE.match(path.name)
            if named:
                version_files.setdefault(("sb", int(named.group(2)), int(named.group(1))), []).append(path)
        for key, act in self.acts.items():
            act.build_versions(version_files.get(key, []))
        for path in sorted(self.api_dir.glob("sparql_act_*_meta.json")):
            self.add_listed_acts(path)

    def add_listed_acts(self, path: Path) -> None:
        """Acts of a SPARQL metadata result that the corpus has no document of: their versions from the ``ver``
        URIs (version ELIs), each in force until the day before the next."""
        dates: dict[tuple[str, int, int], set[date]] = {}
        for binding in json.loads(path.read_text(encoding="utf-8")).get("results", {}).get("bindings", []):
            named = _VERSION_ELI.search((binding.get("ver") or {}).get("value", ""))
            if named:
                key = (named.group(1), int(named.group(2)), int(named.group(3)))
                dates.setdefault(key, set()).add(date.fromisoformat(named.group(4)))
        for key, days in dates.items():
            if key in self.acts:
                continue  # a document of it is in the corpus: its versions come from the files
            versions = [ActVersion(day.isoformat(), path, "sparql", day) for day in sorted(days)]
            for earlier, later in zip(versions, versions[1:]):
                earlier.effective_to = later.effective_from - timedelta(days=1)
            self.acts[key] = Act(*key, versions=versions)

    # -- routing

    def handle(self, method: str, path: str, raw_path: str, query: str, headers, body: bytes) -> Response | None:
        if path == SPARQL_PATH:
            if method in ("GET", "HEAD", "POST"):
                return self.sparql(method, query, headers, body)
            return None
        if not (path == API_PREFIX or path.startswith(API_PREFIX + "/")):
            return None
        api_path = raw_path[len(API_PREFIX) :]
        decoded = unquote(api_path)
        if decoded == "/sbirky":
            sbirky = self.api_dir / "response_sbirky.json"
            if not sbirky.exists():
                return not_found_api("Seznam sbírek není v korpusu.")
            return self._get_only(method) or file_response(sbirky, "application/json", self.digests)
        if decoded == "/chronologicke-rejstriky/dokumenty-sbirky-po-mesicich":
            return self._post_only(method) or self.acts_by_month(body)
        if decoded == "/chronologicke-rejstriky/roky":
            return self._post_only(method) or self.years()
        if decoded.split("?")[0] == "/dokumenty-sbirky/zmeny-zneni":
            return self._get_only(method) or self.version_changes(query)
        if api_path.startswith("/dokumenty-sbirky/"):
            stale = unquote(api_path[len("/dokumenty-sbirky/") :])
            return self._get_only(method) or self.act_resource(stale if stale.startswith("/") else "/" + stale, query)
        if api_path.startswith("/souborove-dokumenty/"):
            return self._get_only(method) or self.file_document(api_path[len("/souborove-dokumenty/") :])
        return not_found_api(f"Cesta {path} nebyla nalezena.")

    @staticmethod
    def _get_only(method: str) -> Response | None:
        if method in ("GET", "HEAD"):
            return None
        return chyby_response(405, "CHYBA_VSTUPU", f"Metoda {method} není podporována.")

    @staticmethod
    def _post_only(method: str) -> Response | None:
        if method == "POST":
            return None
        return chyby_response(405, "CHYBA_VSTUPU", f"Metoda {method} není podporována, použijte POST.")

    # -- endpoints

    def acts_of_year(self, year: int) -> list[Act]:
        return sorted(
            (a for a in self.acts.values() if a.year == year and not a.listed_only),
            key=lambda a: (a.announced or date(year, 1, 1), a.number),
        )

    def acts_by_month(self, body: bytes) -> Response:
        try:
            year = json.loads(body.decode("utf-8") or "null")
        except (UnicodeDecodeError, json.JSONDecodeError):
            year = None
        if isinstance(year, bool) or not isinstance(year, int) or not 1900 <= year <= 9999:
            return chyby_response(400, "CHYBA_VSTUPU", "Tělo požadavku musí být rok (celé číslo 1900-9999).")
        months: dict[int, list[dict]] = {}
        for act in self.acts_of_year(year):
            announced = act.announced
            month = announced.month if announced and announced.year == year else 1
            months.setdefault(month, []).append(act.register_info())
        payload = {
            "dokumentySbirkyVMesici": [
                {
                    "mesic": month,
                    "sbirkyDokumentuSbirky": [{"sadaDokumentuKod": "sb", "dokumentySbirkyRejstrikInfo": infos}],
                }
                for month, infos in sorted(months.items())
            ]
        }
        return json_response(payload)

    def years(self) -> Response:
        with_acts = {a.year for a in self.acts.values() if not a.listed_only}
        last = max([date.today().year, *with_acts])
        return json_response(
            {"seznam": [{"rok": y, "deaktivovano": y not in with_acts} for y in range(last, 1917, -1)]}
        )

    def act_resource(self, stale: str, query: str = "") -> Response:
        found = parse_act_path(stale)  # the stale URL or the ELI, with or without a version date
        sub = found[1].rstrip("/") if found else ""
        act = self.acts.get((found[0].collection, found[0].year, found[0].number)) if found else None
        if act is None or not _SUB_RESOURCE.fullmatch(sub):
            return chyby_response(404, "DOKUMENT_NENALEZEN", f"Dokument sbírky {stale} nebyl nalezen.")
        today = self.today()
        version = act.resolve_version(found[0].version, today)
        if version is None:
            return chyby_response(404, "DOKUMENT_NENALEZEN", f"Znění {stale} nebylo nalezeno.")
        last_modified = max([f.path.stat().st_mtime for f in act.files] + [version.path.stat().st_mtime])
        if not sub:
            return json_response(act.detail(version if found[0].version else None, today), last_modified=last_modified)
        if sub == "/odkazy-ke-stazeni":
            return json_response(act.download_links(), last_modified=last_modified)
        if sub == "/historie":
            return json_response(act.history(today), last_modified=last_modified)
        if sub == "/fragmenty":
            return self.fragment_page(act, version, query, last_modified)
        return chyby_response(404, "NENALEZENO", f"Zdroj {sub} není v zrcadle k dispozici.")

    def version_fragments(self, act: Act, version: ActVersion) -> list[dict]:
        """Every fragment of one version's text (segmented once per file content and version, then cached).
        Fragment ids are unique across an act's versions: the announced text counts 0, the versions from 1."""
        key = (str(version.path), self.digests.sha256(version.path), version.date)
        with self._fragments_lock:
            cached = self._fragments.get(key)
        if cached is not None:
            return cached
        if version.format == "pdf":
            segments = act_fragments.segment_lines(act_fragments.pdf_lines(version.path))
        elif version.format == "docx":
            segments = act_fragments.segment_lines(act_fragments.docx_paragraphs(version.path), hard_breaks=True)
        else:
            segments = act_fragments.segment_lines(act_fragments.markdown_version(version.path)[1], hard_breaks=True)
        index = (
            0
            if version.announced_text
            else next((i for i, v in enumerate(act.versions, start=1) if v.date == version.date), 0)
        )
        records = act_fragments.fragment_records(
            segments,
            year=act.year,
            number=act.number,
            version=version.date,
            id_base=((act.year * 100_000 + act.number) * 100 + index) * 100_000,
            act_type=act.main.get("act_type"),
            title=act.main.get("title"),
        )
        with self._fragments_lock:
            self._fragments[key] = records
        return records

    def version_changes(self, query: str) -> Response:
        """``SeznamZneniPravnichPredpisu``: the versions published after ``datumCasOdberuOd`` (all without it),
        oldest first, ``start`` / ``pocet`` paging (``pocetCelkem`` counts them all)."""
        params = parse_qs(query)
        since_raw = (params.get("datumCasOdberuOd") or [""])[0]
        since = None
        if since_raw:
            try:
                since = datetime.fromisoformat(since_raw.replace("Z", "+00:00"))
            except ValueError:
                return chyby_response(400, "CHYBA_VSTUPU", "datumCasOdberuOd musí být datum a čas (ISO 8601).")
            if since.tzinfo is None:
                since = since.replace(tzinfo=_prague())
        try:
            start = int((params.get("start") or ["0"])[0])
            count = int((params.get("pocet") or [str(self.change_page_size)])[0])
        except ValueError:
            return chyby_response(400, "CHYBA_VSTUPU", "start a pocet musí být celá čísla.")
        if start < 0 or not 1 <= count <= MAX_CHANGE_PAGE_SIZE:
            return chyby_response(400, "CHYBA_VSTUPU", f"start >= 0, pocet 1 až {MAX_CHANGE_PAGE_SIZE}.")
        changes = []
        for act in self.acts.values():
            for version in act.versions:
                published = version.published()
                if since is None or published > since:
                    changes.append((published, act, version))
        changes.sort(key=lambda c: (c[0], c[1].year, c[1].number, c[2].date))
        items = []
        for published, act, version in changes[start : start + count]:
            item = {
                "kodSbirky": act.collection,
                "rok": act.year,
                "cisloPredpisu": str(act.number),
                "nazev": act.name,
                "datumCasPublikaceDokumentu": published.isoformat(),
                "staleUrl": act.version_stale_url(version),
            }
            item.update(act.version_dates(version))
            if act.files:
                item["dokumentId"] = act.files[0].document_id
            items.append(item)
        return json_response({"pocetCelkem": len(changes), "seznamZneniPravnichPredpisu": items})

    def fragment_page(self, act: Act, version: ActVersion, query: str, last_modified: float) -> Response:
        raw = (parse_qs(query).get("cisloStranky") or [""])[0]
        if not raw.isdigit():
            return chyby_response(400, "CHYBA_VSTUPU", "Parametr cisloStranky je povinný (celé číslo od 1).")
        if version.format == "sparql":  # no text of it in the corpus: an empty list, nothing made up
            if raw != "1":
                return chyby_response(404, "NENALEZENO", f"Stránka {raw} fragmentů neexistuje (stránek: 0).")
            return json_response({"seznam": [], "pocetStranek": 0}, last_modified=last_modified)
        records = self.version_fragments(act, version)
        size = self.fragment_page_size
        pages = (len(records) + size - 1) // size
        page = int(raw)
        if not 1 <= page <= pages:
            return chyby_response(404, "NENALEZENO", f"Stránka {page} fragmentů neexistuje (stránek: {pages}).")
        return json_response(
            {"seznam": records[(page - 1) * size : page * size], "pocetStranek": pages}, last_modified=last_modified
        )

    def file_document(self, rest: str) -> Response:
        parts = rest.split("/")
        if len(parts) != 4 or not parts[0].isdigit():
            return chyby_response(
                404, "NENALEZENO", "Očekáváno /souborove-dokumenty/{id}/{druhObsahu}/{operace}/{nazevSouboru}."
            )
        doc_id, kind, operation, _name = int(parts[0]), parts[1], parts[2], unquote(parts[3])
        if operation not in ("STAHNI", "ZOBRAZ"):
            return chyby_response(400, "CHYBA_VSTUPU", "Operace musí být STAHNI nebo ZOBRAZ.")
        hit = self.files_by_id.get(doc_id)
        # ORIGINAL is the real value; the format name (PDF/DOCX) is tolerated for crawlers that send it.
        if hit is None or kind not in (CONTENT_KIND, hit[1].format.upper()):
            return chyby_response(404, "DOKUMENT_NENALEZEN", f"Souborový dokument {doc_id}/{kind} nebyl nalezen.")
        _act, act_file = hit
        disposition = "attachment" if operation == "STAHNI" else "inline"
        file_name = quote(act_file.entry["document_name"])
        return file_response(
            act_file.path,
            MIME[act_file.format],
            self.digests,
            {"Content-Disposition": f"{disposition};filename={file_name}"},
        )

    # -- open-data SPARQL

    def sparql(self, method: str, query_string: str, headers, body: bytes) -> Response:
        params = parse_qs(query_string)
        query = (params.get("query") or [""])[0]
        if method == "POST" and not query:
            ctype = (headers.get("Content-Type") or "").split(";")[0].strip().lower()
            text = body.decode("utf-8", "replace")
            query = text if ctype == "application/sparql-query" else (parse_qs(text).get("query") or [""])[0]
        if not query.strip():
            return Response(status=400, body=b"Missing 'query' parameter\n", content_type="text/plain; charset=utf-8")
        accept = (headers.get("Accept") or "").lower()
        ctype = "application/sparql-results+json" if "sparql-results+json" in accept else "application/json"
        lowered = query.lower()
        if "sb/2019/110" in lowered or "110/2019" in lowered:
            name = (
                "sparql_act_2019_110_fragments.json"
                if ("fragment" in lowered or "?text" in lowered)
                else "sparql_act_2019_110_meta.json"
            )
            if (self.api_dir / name).exists():
                return file_response(self.api_dir / name, ctype, self.digests)
        return json_response(
            {"head": {"vars": sparql_select_vars(query)}, "results": {"bindings": []}}, content_type=ctype
        )


def sparql_select_vars(query: str) -> list[str]:
    m = re.search(r"\bselect\s+(?:distinct\s+|reduced\s+)?(.*?)\s*(?:\bfrom\b|\bwhere\b|\{)", query, re.I | re.S)
    if not m:
        return []
    projection = re.sub(r"\(.*?\bas\s+(\?\w+)\s*\)", r"\1", m.group(1), flags=re.I | re.S)
    return re.findall(r"\?(\w+)", projection)


def not_found_api(popis: str) -> Response:
    return chyby_response(404, "NENALEZENO", popis)


if __name__ == "__main__":
    import sys

    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "sample_corpus"
    catalog = write_catalog(root)
    for e in catalog["entries"]:
        print(
            f"{e['number']}/{e['year']} {e['format']:4} {e['announced']} eff={e['effective']} "
            f"pages={e['pages']} {e['name']}"
        )
    print(f"wrote {CATALOG_PATH}")
