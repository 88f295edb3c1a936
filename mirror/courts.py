"""Nejvyšší soud (rozhodnuti.nsoud.cz, IBM Domino) for the local mirror.

Served paths (real layout; the ``/Judikatura/judikatura_ns.nsf`` prefix is matched case-insensitively,
as Domino does):

- ``GET /Judikatura/judikatura_ns.nsf/$$WebSearch1?SearchView&Query=...&Start=1&Count=20`` → result page:
  banner ``Výsledky {from} - {to} z {total}`` (or ``Nebyly nalezeny žádné výsledky``), ``table#tabl`` rows
  with ``a.odk`` links to the decisions, a ``Další`` link when more pages exist
- ``GET /Judikatura/judikatura_ns.nsf/WebSearch/{UNID}?openDocument`` (and ``WebPrint/{UNID}``) → decision
  page: metadata in ``td.left-part`` / ``td.right-part`` rows, the full text in
  ``div#obsah font[face="Times New Roman"]`` (HTML-escaped ``full_text``, unchanged otherwise)

Decisions come from ``courts/ns_decisions*.jsonl`` (deduplicated by ``url``) and from ``courts/ns_full/``: 954
decisions as plain text with the court's header (``rozhodnuti-*.txt``: Soud, Spisová značka, Datum rozhodnutí, Typ
rozhodnutí, Heslo, Dotčené předpisy, Kategorie rozhodnutí, …) and three published in the Sbírka soudních
rozhodnutí (``NS1–3.txt``: with their ECLI, právní věta, Hesla, Předpisy, Druh). Every header field is a metadata
row of the decision page, labelled as the file labels it; an ECLI row only where the file gives one. Derived by the
mirror for these: the UNID (the MD5 of the file name, in Domino's 32 hex digits); they have no "Zveřejněno na
webu" date (the files do not give one), so a date search finds them by ``[datum_rozhodnuti]`` only. The query
language is a small subset of Domino's: clauses joined by ``AND`` / ``OR`` with parentheses;
``[datum_predani_na_web]`` / ``[datum_rozhodnuti]`` with ``= < <= > >=`` and ``DD/MM/YYYY`` or ``DD.MM.YYYY``;
``[spzn1]``..``[spzn4]`` (senát, rejstřík, číslo, rok); ``[ARozhodnutiRT]=((...))``, ``"phrases"`` and bare words as
full text (``*`` = any suffix). Clauses on other fields (``[kolegium]``, ``[kategorie_rozhodnuti1]``...) are
ignored (match all). No RTF attachments (``.rtf?openelement``) are served: the corpus has none.

Also here: :func:`load_conco`, the reader of the ConCo citation records (``courts/citations/ConCo-*.csv``) that the
Ústavní soud (:mod:`mirror.nalus`) and Nejvyšší správní soud (:mod:`mirror.nssoud`) sites serve.
"""

from __future__ import annotations

import csv
import html
import json
import re
import threading
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

from mendel.czech.dates import numeric_from_iso, parse_iso_date, parse_numeric_date
from mendel.law.identifiers import (
    CONSTITUTIONAL,
    CONSTITUTIONAL_SENATES,
    PLENARY_OPINION,
    FileNumber,
    constitutional_ecli,
)

from .ns_full import read_full_text
from .responses import Response, html_response

NSF_PREFIX = "/Judikatura/judikatura_ns.nsf"
_DECISION_PATH = re.compile(r"^/judikatura/judikatura_ns\.nsf/(websearch|webprint)/([0-9a-f]{32})$", re.I)
_SEARCH_PATH = re.compile(r"^/judikatura/judikatura_ns\.nsf/\$\$websearch1?$", re.I)
EMPTY_MARKER = "Nebyly nalezeny žádné výsledky"


@dataclass
class Decision:
    record: dict
    unid: str
    source_mtime: float

    @property
    def path(self) -> str:
        return urlsplit(self.record["url"]).path

    @property
    def case_number(self) -> str:
        return self.record.get("case_number") or ""

    def field_date(self, name: str) -> date | None:
        value = self.record.get({"datum_predani_na_web": "publication_date", "datum_rozhodnuti": "decision_date"}[name])
        return date.fromisoformat(value) if value else None


def load_decisions(corpus_root: Path) -> list[Decision]:
    seen: dict[str, Decision] = {}
    for path in sorted((Path(corpus_root) / "courts").glob("ns_decisions*.jsonl")):
        mtime = path.stat().st_mtime
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            record = json.loads(line)
            m = re.search(r"/WebSearch/([0-9A-Fa-f]{32})", record.get("url", ""))
            if m and record["url"] not in seen:
                seen[record["url"]] = Decision(record, m.group(1).upper(), mtime)
    for path in sorted((Path(corpus_root) / "courts" / "ns_full").glob("*.txt")):
        decision = full_text_decision(path)
        if decision is not None and decision.record["url"] not in seen:
            seen[decision.record["url"]] = decision
    return sorted(
        seen.values(),
        # by web date (then UNID); a decision without one (ns_full) after them all, by decision date
        key=lambda d: (
            d.record.get("publication_date") or "",
            "" if d.record.get("publication_date") else d.record.get("decision_date") or "",
            d.unid,
        ),
        reverse=True,
    )


def full_text_decision(path: Path) -> Decision | None:
    """A decision of ``courts/ns_full/`` (mirror.ns_full) as the site's decision."""
    read = read_full_text(path)
    return Decision(read[0], read[1], path.stat().st_mtime) if read else None


# ---------------------------------------------------------------- query subset


def _split_top_level(query: str, word: str) -> list[str]:
    parts, depth, start, i = [], 0, 0, 0
    in_quote = False
    pattern = re.compile(rf"\s+{word}\s+", re.I)
    while i < len(query):
        ch = query[i]
        if ch == '"':
            in_quote = not in_quote
        elif not in_quote and ch in "([":
            depth += 1
        elif not in_quote and ch in ")]":
            depth -= 1
        elif not in_quote and depth == 0:
            m = pattern.match(query, i)
            if m:
                parts.append(query[start:i])
                start = i = m.end()
                continue
        i += 1
    parts.append(query[start:])
    return [p.strip() for p in parts if p.strip()]


def _strip_parens(text: str) -> str:
    text = text.strip()
    while text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
        text = text[1:-1].strip()
    return text


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def _fulltext_match(expr: str, haystack: str) -> bool:
    expr = _strip_parens(expr)
    alternatives = _split_top_level(expr, "OR")
    if len(alternatives) > 1:
        return any(_fulltext_match(a, haystack) for a in alternatives)
    conjuncts = _split_top_level(expr, "AND")
    if len(conjuncts) > 1:
        return all(_fulltext_match(c, haystack) for c in conjuncts)
    terms = re.findall(r'"([^"]*)"|(\S+)', expr)
    for phrase, word in terms:
        term = (phrase or word).strip("()")
        if not term:
            continue
        pattern = r"\b" + re.escape(term.lower()).replace(r"\*", r"\w*")
        if not re.search(pattern, haystack):
            return False
    return True


_FIELD_CLAUSE = re.compile(r"^\[(\w+)\]\s*(<=|>=|=|<|>)\s*(.*)$", re.S)


def _clause_match(clause: str, d: Decision) -> bool:
    clause = _strip_parens(clause)
    alternatives = _split_top_level(clause, "OR")
    if len(alternatives) > 1:
        return any(_clause_match(a, d) for a in alternatives)
    conjuncts = _split_top_level(clause, "AND")
    if len(conjuncts) > 1:
        return all(_clause_match(c, d) for c in conjuncts)
    m = _FIELD_CLAUSE.match(clause)
    if not m:
        return _fulltext_match(clause, _haystack(d))
    name, op, value = m.group(1).lower(), m.group(2), m.group(3).strip()
    if name in ("datum_predani_na_web", "datum_rozhodnuti"):
        wanted, actual = parse_numeric_date(value), d.field_date(name)
        if wanted is None or actual is None:
            return False
        return {
            "=": actual == wanted,
            "<": actual < wanted,
            "<=": actual <= wanted,
            ">": actual > wanted,
            ">=": actual >= wanted,
        }[op]
    if name in ("spzn1", "spzn2", "spzn3", "spzn4"):
        parts = re.match(r"^\s*(\d+)\s+(\S+)\s+(\d+)/(\d{4})", d.case_number)
        if not parts:
            return False
        return parts.group(int(name[-1])).lower() == value.strip('"').lower()
    if name in ("arozhodnutirt", "text"):
        return _fulltext_match(value, _haystack(d))
    return True  # fields the mirror does not model


def _haystack(d: Decision) -> str:
    r = d.record
    return " ".join(str(r.get(k) or "") for k in ("case_number", "ecli", "full_text")).lower()


def search(decisions: list[Decision], query: str) -> list[Decision]:
    query = query.strip()
    if not query or query == "*":
        return list(decisions)
    clauses = _split_top_level(query, "AND")
    return [d for d in decisions if all(_clause_match(c, d) for c in clauses)]


# ---------------------------------------------------------------- pages


def _page(title: str, body: str) -> str:
    return (
        f'<!DOCTYPE html>\n<html lang="cs"><head><meta charset="UTF-8"><title>{html.escape(title)}</title>'
        f"</head><body>\n{body}\n</body></html>\n"
    )


class NsoudSite:
    def __init__(self, corpus_root: Path):
        self.decisions = load_decisions(corpus_root)
        self.by_unid = {d.unid: d for d in self.decisions}

    def handle(self, method: str, path: str, raw_path: str, query: str, headers, body: bytes) -> Response | None:
        if method not in ("GET", "HEAD") or not path.lower().startswith(NSF_PREFIX.lower() + "/"):
            return None
        if _SEARCH_PATH.match(path):
            return self.search_page(query)
        m = _DECISION_PATH.match(path)
        if m:
            decision = self.by_unid.get(m.group(2).upper())
            return self.decision_page(decision) if decision else None
        return None

    def search_page(self, query_string: str) -> Response:
        params = {k.lower(): v[0] for k, v in parse_qs(query_string, keep_blank_values=True).items()}
        hits = search(self.decisions, params.get("query", ""))
        start = max(int(params.get("start") or 1), 1) if (params.get("start") or "1").isdigit() else 1
        count = int(params["count"]) if (params.get("count") or "").isdigit() and int(params["count"]) > 0 else 20
        page = hits[start - 1 : start - 1 + count]
        if not page:
            body = f'<div class="vysledky">{EMPTY_MARKER}</div>'
            return html_response(_page("Vyhledávání", body))
        rows = []
        for d in page:
            r = d.record
            link = f"{NSF_PREFIX}/WebSearch/{d.unid}?openDocument"
            rows.append(
                "<tr>"
                f'<td><a class="odk" href="{html.escape(link)}">{html.escape(d.case_number)}</a></td>'
                f"<td>{numeric_from_iso(r.get('decision_date'))}</td>"
                f"<td>{html.escape(r.get('ecli') or '')}</td>"
                f"<td>{html.escape((r.get('document_type') or '').capitalize())}</td>"
                f"<td>{numeric_from_iso(r.get('publication_date'))}</td>"
                "</tr>"
            )
        end = start - 1 + len(page)
        banner = f'<div class="vysledky">Výsledky {start} - {end} z {len(hits)}</div>'
        table = (
            '<table id="tabl"><tr><th>Spisová značka</th><th>Datum rozhodnutí</th><th>ECLI</th>'
            "<th>Typ rozhodnutí</th><th>Zveřejněno na webu</th></tr>\n" + "\n".join(rows) + "\n</table>"
        )
        nav = ""
        if end < len(hits):
            next_params = {
                k: v
                for k, v in parse_qs(query_string, keep_blank_values=True).items()
                if k.lower() not in ("start", "count", "searchview")
            }
            flat = {k: v[0] for k, v in next_params.items()}
            flat.update({"Start": str(end + 1), "Count": str(count)})
            href = f"{NSF_PREFIX}/$$WebSearch1?SearchView&" + urlencode(flat)
            nav = f'<a class="dalsi" href="{html.escape(href)}">Další</a>'
        return html_response(_page("Vyhledávání", banner + "\n" + table + "\n" + nav))

    def decision_page(self, d: Decision) -> Response:
        r = d.record
        header = list(r.get("header") or [])
        meta = [
            ("Soud", r.get("court") or "Nejvyšší soud"),
            ("Datum rozhodnutí", numeric_from_iso(r.get("decision_date"))),
            ("Spisová značka", d.case_number),
            ("ECLI", r.get("ecli") or ""),
            ("Typ rozhodnutí", r.get("document_type") or ""),
            *header,
            ("Zveřejněno na webu", numeric_from_iso(r.get("publication_date"))),
        ]
        rows = "\n".join(
            f'<tr><td class="left-part">{html.escape(k)}:</td><td class="right-part">'
            f"{'<br/>'.join(html.escape(line) for line in v.splitlines())}</td></tr>"
            for k, v in meta
            if v
        )
        text = html.escape(r.get("full_text") or "", quote=False)
        body = (
            f'<table class="metadata">\n{rows}\n</table>\n'
            f'<div id="obsah"><font face="Times New Roman" size="3">{text}</font></div>'
        )
        return html_response(_page(r.get("title") or d.case_number, body), last_modified=d.source_mtime)


# ---------------------------------------------------------------- ConCo citation records (Ústavní soud, NSS)

CONCO_GLOB = "citations/ConCo-*.csv"
CONCO_CATEGORY = {  # file stem → what the references point to (the dataset's own split)
    "ConCo-ref-ConCo-unlinked": "Ústavní soud",
    "ConCo-ref-SupCo": "Nejvyšší soud",
    "ConCo-ref-SupCo-unlinked": "Nejvyšší soud",
    "ConCo-ref-SupAdmCo": "Nejvyšší správní soud",
    "ConCo-ref-SupAdmCo-unlinked": "Nejvyšší správní soud",
    "ConCo-ref-rest": "jiné",
}
LINKED_COURT = {"SupCo": "Nejvyšší soud", "SupAdmCo": "Nejvyšší správní soud", "ConCo": "Ústavní soud"}
_SZ = re.compile(r"^(?P<senate>Pl|St|[1-4])-(?P<number>\d+)-(?P<year>\d{2,4})(?:_(?P<ordinal>\d+))?$")


@dataclass(frozen=True)
class ConcoReference:
    """One row of a ConCo CSV: a reference made by a Ústavní soud decision, as the dataset records it."""

    category: str  # the file it comes from (ConCo-ref-SupCo, ...)
    reference: str  # the reference as found in the decision text (messy: "9  Afs  88/2012  -  43")
    linked_file: str | None = None  # the cited decision's file in CzCDC, for the linked files
    linked_date: date | None = None
    linked_court: str | None = None


@dataclass
class ConstitutionalDecision:
    """A Ústavní soud decision known from ConCo: its NALUS text key, docket, date and the references it makes."""

    sz: str  # NALUS GetText key, "2-866-16_2" (the ConCo source file name without .txt)
    docket_as_recorded: str  # "II. US 866/16" as the dataset writes it
    decided: date
    references: list[ConcoReference]
    source_mtime: float

    @property
    def parts(self) -> dict:
        m = _SZ.match(self.sz)
        return m.groupdict() if m else {}

    @property
    def file_number(self) -> FileNumber | None:
        """The file number the NALUS key names (``2-866-16_2`` -> II. ÚS 866/16, ``St-27-09_1`` ->
        Pl. ÚS-st. 27/09)."""
        p = self.parts
        if not p:
            return None
        senate = "Pl" if p["senate"] in ("Pl", "St") else CONSTITUTIONAL_SENATES[p["senate"]]
        register = PLENARY_OPINION if p["senate"] == "St" else CONSTITUTIONAL
        return FileNumber(register, int(p["number"]), p["year"], senate)

    @property
    def docket(self) -> str:
        """NALUS's own form of the file number, no space after the senate: 'II.ÚS 866/16', 'Pl.ÚS-st. 27/09'."""
        number = self.file_number
        return number.text.replace(". ÚS", ".ÚS", 1) if number else self.docket_as_recorded

    @property
    def ecli(self) -> str | None:
        """ECLI by the Ústavní soud pattern ECLI:CZ:US:{year}:{senát}.US.{číslo}.{rok}.{pořadí}; None for the
        plenary opinions (St), whose pattern the corpus does not show."""
        number = self.file_number
        return constitutional_ecli(number, self.decided.year, int(self.parts["ordinal"] or 1)) if number else None


@dataclass
class AdministrativeDecision:
    """A Nejvyšší správní soud decision known from ConCo's linked file: docket, date and the ÚS decisions citing it."""

    file: str  # its CzCDC file name, "0041_7Afs_130_20130905100204_prevedeno.txt"
    dockets: list[str]  # the reference forms found for it, most complete first
    decided: date
    cited_by: list[tuple[str, date, str]]  # (ÚS docket as recorded, date, NALUS key)
    source_mtime: float

    @property
    def docket(self) -> str:
        """'7 Afs 41/2013 - 8': the most complete form, spaced as the NSS search shows it."""
        text = re.sub(r"\s+", " ", self.dockets[0]).strip()
        return re.sub(r"\s*-\s*", " - ", text)


def _csv_lines(path: Path) -> list[str]:
    """The file's lines; a line that is not UTF-8 (ConCo-ref-rest has a few) is read as windows-1250."""
    lines = []
    for raw in path.read_bytes().splitlines():
        try:
            lines.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            lines.append(raw.decode("windows-1250", errors="replace"))
    return lines


@dataclass
class ConcoRecords:
    constitutional: dict[str, ConstitutionalDecision]
    administrative: list[AdministrativeDecision]


_conco_cache: dict[tuple, ConcoRecords] = {}
_conco_lock = threading.Lock()


def load_conco(corpus_root: Path) -> ConcoRecords:
    """Every ConCo row of the corpus, grouped by citing decision and by cited NSS decision (cached per file set)."""
    files = sorted((Path(corpus_root) / "courts").glob(CONCO_GLOB))
    key = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in files)
    with _conco_lock:
        cached = _conco_cache.get(key)
        if cached is not None:
            return cached
        constitutional: dict[str, ConstitutionalDecision] = {}
        administrative: dict[str, dict] = {}
        for path in files:
            mtime = path.stat().st_mtime
            rows = csv.reader(_csv_lines(path))
            next(rows, None)  # header (one file spells its first column 'ssource_file')
            for row in rows:
                if len(row) < 5:
                    continue
                source, docket, decided = row[0].strip(), row[1].strip(), parse_iso_date(row[2])
                sz = source.removesuffix(".txt")
                if not sz or decided is None:
                    continue
                linked = len(row) >= 8 and row[5].strip()
                ref = ConcoReference(
                    path.stem,
                    re.sub(r"\s+", " ", row[4]).strip(),
                    row[5].strip() if linked else None,
                    parse_iso_date(row[6]) if linked else None,
                    LINKED_COURT.get(row[7].strip(), row[7].strip()) if linked else None,
                )
                decision = constitutional.get(sz)
                if decision is None:
                    decision = constitutional[sz] = ConstitutionalDecision(sz, docket, decided, [], mtime)
                decision.source_mtime = max(decision.source_mtime, mtime)
                decision.references.append(ref)
                if linked and row[7].strip() == "SupAdmCo" and ref.linked_date:
                    entry = administrative.setdefault(
                        ref.linked_file, {"dockets": [], "date": ref.linked_date, "cited_by": [], "mtime": mtime}
                    )
                    entry["dockets"].append(row[4].strip())
                    entry["cited_by"].append((docket, decided, sz))
        nss = []
        for file, entry in administrative.items():
            forms = sorted(
                set(entry["dockets"]), key=lambda d: (-len(re.sub(r"\s+", "", d)), -entry["dockets"].count(d), d)
            )
            cited = sorted(set(entry["cited_by"]), key=lambda c: (c[1], c[2]))
            nss.append(AdministrativeDecision(file, forms, entry["date"], cited, entry["mtime"]))
        nss.sort(key=lambda d: (d.decided, d.file))
        records = ConcoRecords(constitutional, nss)
        _conco_cache.clear()
        _conco_cache[key] = records
        return records
