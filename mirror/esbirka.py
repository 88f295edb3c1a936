"""e-Sbírka for the local mirror: the API over the bundled acts (metadata: :mod:`mirror.esbirka_catalog`).

Every response body is an object of the official definition (``sample_corpus/esbirka/api/openapi.json``) with no
field it does not define; tests/mirror/test_mirror_openapi.py validates them.

Served paths (real layout of www.e-sbirka.cz and opendata.eselpoint.gov.cz):

- ``POST /esel-esbir-daver/chronologicke-rejstriky/dokumenty-sbirky-po-mesicich`` body ``2024`` → ``DokumentySbirkyPoMesicich``
- ``POST /esel-esbir-daver/chronologicke-rejstriky/roky`` → ``RokySeznam``
- ``GET  /esel-esbir-daver/dokumenty-sbirky/{staleUrl}`` → ``DokumentSbirkyDetail``
- ``GET  /esel-esbir-daver/dokumenty-sbirky/{staleUrl}/odkazy-ke-stazeni`` → ``OdkazyKeStazeniZneni``
- ``GET  /esel-esbir-daver/dokumenty-sbirky/{staleUrl}/fragmenty?cisloStranky=N`` → ``FragmentSeznam``
  ``{seznam, pocetStranek}``, 1,000 fragments a page, pages counted from 0 (no ``cisloStranky`` is page 0, a bad
  one 400, a page past the last one 404, a file that cannot be read 500). The fragments' text is the version's
  own (the PDF text layer, the DOCX paragraphs, the third-party page's paragraphs or the Markdown version's);
  the segmentation, ids, anchors and cross-references are the mirror's (:mod:`mirror.fragments`)
- ``GET  /esel-esbir-daver/dokumenty-sbirky/{staleUrl}/historie`` → ``Historie``: the act's versions (znění) in
  time, each with its versioned stale URL and ELI, ``datumUcinnostiZneniOd/Do``, ``typZneni`` and ``novely``
- ``GET  /esel-esbir-daver/dokumenty-sbirky/zmeny-zneni?datumCasOdberuOd=T&start=S&pocet=N`` →
  ``SeznamZneniPravnichPredpisu``: versions published after T (all without it), oldest first

Versions: an act's wordings are its files (the promulgated PDF, dated by its "nabývá účinnosti" clause, else
``0000-00-00``; a consolidated export, DOCX or PDF, dated by its name when it says; a third-party page of the
consolidated wording, dated by its name), followed by the consolidated versions of
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

Acts are the 17 Sbírka PDFs ``esbirka/pdf/{number}-{year}.pdf``, the 38 informativní-znění DOCX
(``Sb_1993_1_IZ.docx``, ``76_2004.docx``), the six consolidated exports of ``esbirka/consolidated/`` (the civil
code 89/2012 Sb. among them) and the two third-party pages of ``esbirka/thirdparty_html/`` (40/2009 Sb., 251/2016
Sb.). Only a promulgated PDF is linked in ``odkazy-ke-stazeni`` (``overeneZneni.odkazPdf``): the definition has
no slot for a consolidated file, whose text e-Sbírka gives as fragments. Every response built from a third-party
page carries ``X-Mirror-Derived`` saying so. ``dokumentId`` is ``year * 100000 + number`` for a promulgated PDF,
plus 1e9 for a consolidated file. ``druhObsahu`` is ``ORIGINAL`` (what the real
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

import json
import re
import threading
import zipfile
from datetime import date, datetime, timedelta
from pathlib import Path
from urllib.parse import parse_qs, quote, unquote
from xml.etree import ElementTree

from mendel.law.identifiers import parse_act_path

from . import fragments as act_fragments
from .esbirka_acts import _VERSION_ELI, _VERSION_FILE, Act, ActFile, ActVersion, _prague
from .esbirka_catalog import (  # noqa: F401 - the catalog's functions are the mirror's too
    CATALOG_PATH,
    _corpus_files,
    build_catalog,
    html_paragraphs,
    load_catalog,
    number_year_from_name,
    parse_act_heading,
    parse_cover,
    parse_effective_date,
    write_catalog,
)
from .responses import FileDigests, Response, chyby_response, file_response, json_response

API_PREFIX = "/esel-esbir-daver"
SPARQL_PATH = "/sparql"
CONTENT_KIND = "ORIGINAL"  # e-Sbírka's druhObsahu for the stored original file
DERIVED_HEADER = "X-Mirror-Derived"  # says what a response built from a third-party page is
FRAGMENT_PAGE_SIZE = 1000  # the real API's constant page size
CHANGE_PAGE_SIZE = 100  # zmeny-zneni: items a page when pocet is not given
MAX_CHANGE_PAGE_SIZE = 1000
MIME = {
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "html": "text/html; charset=utf-8",
}


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
            response = json_response(
                act.detail(version if found[0].version else None, today), last_modified=last_modified
            )
        elif sub == "/odkazy-ke-stazeni":
            response = json_response(act.download_links(), last_modified=last_modified)
        elif sub == "/historie":
            response = json_response(act.history(today), last_modified=last_modified)
        elif sub == "/fragmenty":
            response = self.fragment_page(act, version, query, last_modified)
        else:
            return chyby_response(404, "NENALEZENO", f"Zdroj {sub} není v zrcadle k dispozici.")
        if act.derived and response.status == 200:  # a third party's page stands behind it: say so
            response.headers[DERIVED_HEADER] = (
                f"{act.citation}: wording from {act.derived} ({act.versions[-1].path.name}), derived by the mirror"
            )
        return response

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
        elif version.format == "html":
            segments = act_fragments.segment_lines(html_paragraphs(version.path), hard_breaks=True)
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
        """``FragmentSeznam``: pages counted from 0 (the definition's ``cisloStranky`` has ``minimum: 0`` and
        public clients of the real API start there); no ``cisloStranky`` is page 0."""
        raw = (parse_qs(query).get("cisloStranky") or ["0"])[0]
        if not raw.isdigit():
            return chyby_response(400, "CHYBA_VSTUPU", "Parametr cisloStranky je celé číslo od 0.")
        page = int(raw)
        if version.format == "sparql":  # no text of it in the corpus: an empty list, nothing made up
            if page != 0:
                return chyby_response(404, "NENALEZENO", f"Stránka {page} fragmentů neexistuje (stránek: 0).")
            return json_response({"seznam": [], "pocetStranek": 0}, last_modified=last_modified)
        try:
            records = self.version_fragments(act, version)
        except (OSError, ValueError, KeyError, zipfile.BadZipFile, ElementTree.ParseError) as exc:
            # a file of the corpus that cannot be read (a corrupt DOCX): an error, as the real API gives one
            return chyby_response(500, "OBECNA_CHYBA", f"Text znění {version.path.name} nelze přečíst: {exc}")
        size = self.fragment_page_size
        pages = max((len(records) + size - 1) // size, 1)
        if not 0 <= page < pages:
            return chyby_response(404, "NENALEZENO", f"Stránka {page} fragmentů neexistuje (stránek: {pages}).")
        return json_response(
            {"seznam": records[page * size : (page + 1) * size], "pocetStranek": pages}, last_modified=last_modified
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
