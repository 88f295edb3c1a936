"""e-Sbírka fragments for the local mirror: a real act's text, split into fragments the way the API's
``/dokumenty-sbirky/{staleUrl}/fragmenty`` delivers them.

WHAT IS REAL AND WHAT IS THE MIRROR'S: every character of a fragment's text comes from the bundled act itself
(the text layer of the Sbírka PDF, or the paragraphs of the informativní-znění DOCX). The *segmentation* into
fragments, their ids, ``hloubka``, ``eli`` / ``staleUrl`` anchors and citations, and the cross-references in
``odkazyZFragmentu`` are derived by this module — the corpus has no real fragment lists (only the first twelve
SPARQL fragments of 110/2019 Sb.). The rules follow the real API's conventions:

- fragment types (``kodTypuFragmentu``) ``Cast, Hlava, Dil, Oddil, Pododdil, Paragraf, Clanek, Odstavec_Dc,
  Pismeno_Lb, Bod_Dd, Nadpis_nad, Nadpis_pod, PPC, Priloha, Virtual_Prefix, Virtual_Postfix``; a paragraph of
  text without a number is ``Text`` (a mirror code: the real codebook is not in the corpus);
- ``eli`` ``/eli/cz/sb/2024/90/{version}/dokument/norma/cast_1/par_2/odst_4/pism_a`` and ``staleUrl``
  ``/sb/2024/90/{version}#par_2-odst_4-pism_a`` (version ``0000-00-00`` is the announced text);
- ``xhtml`` wraps the designation in ``<var>`` as the real API does (``<var>(1)</var> ...``);
- a cross-reference is an explicit citation of another act in the text ("§ 5 odst. 1 zákona č. 262/2006 Sb."),
  linked as ``<a data-odkaz-id=".." href="#" class="odkaz">`` with an ``odkazyZFragmentu`` entry whose ``cil``
  carries the cited act's stale URL (with the provision anchor when one is named). ``kodTypuVazbyOdkazu`` is
  ``CITACE`` — the mirror's code, the real values are not in the corpus.

PDF text comes from PDFium (fast); a page PDFium cannot load is read with pdfplumber. The cover sheet of a
Sbírka PDF (``Zpřístupněna dne``), running headers (``Strana 2 Akt č. 90 / 2024 Sb.``) and the imprint page
(``ISSN``) are not part of the act and are left out.
"""

from __future__ import annotations

import html
import re
import threading
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

from mendel.czech.dates import MONTH_NAME_PATTERN
from mendel.law.identifiers import ActId

HEADING_KINDS = ("Cast", "Hlava", "Dil", "Oddil", "Pododdil", "Paragraf", "Clanek", "Priloha")
# Depth order of the structure: a unit closes every open unit at its level or below.
LEVEL = {
    "Cast": 0,
    "Hlava": 1,
    "Dil": 2,
    "Oddil": 3,
    "Pododdil": 4,
    "Paragraf": 5,
    "Clanek": 5,
    "Priloha": 0,
    "Odstavec_Dc": 6,
    "Pismeno_Lb": 7,
    "Bod_Dd": 8,
}
ELI_KEY = {
    "Cast": "cast",
    "Hlava": "hlava",
    "Dil": "dil",
    "Oddil": "oddil",
    "Pododdil": "pododdil",
    "Paragraf": "par",
    "Clanek": "cl",
    "Priloha": "priloha",
    "Odstavec_Dc": "odst",
    "Pismeno_Lb": "pism",
    "Bod_Dd": "bod",
}
ORDINALS = {
    w: i
    for i, w in enumerate(
        (
            "PRVNÍ DRUHÁ TŘETÍ ČTVRTÁ PÁTÁ ŠESTÁ SEDMÁ OSMÁ DEVÁTÁ DESÁTÁ JEDENÁCTÁ DVANÁCTÁ TŘINÁCTÁ ČTRNÁCTÁ "
            "PATNÁCTÁ ŠESTNÁCTÁ SEDMNÁCTÁ OSMNÁCTÁ DEVATENÁCTÁ DVACÁTÁ"
        ).split(),
        start=1,
    )
}
ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}

_UNIT_PATTERNS = [
    ("Cast", re.compile(r"^ČÁST ([A-ZÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ]+(?: [A-ZÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ]+)?)$")),
    ("Hlava", re.compile(r"^HLAVA ([IVXLC]+|[A-ZÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ]+(?: [A-ZÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ]+)?)$")),
    ("Dil", re.compile(r"^Díl (\d+)$")),
    ("Oddil", re.compile(r"^Oddíl (\d+)$")),
    ("Pododdil", re.compile(r"^Pododdíl (\d+)$")),
    ("Paragraf", re.compile(r"^§ (\d+[a-z]*)$")),
    ("Clanek", re.compile(r"^Čl\. ([IVXLC]+|\d+[a-z]*)$")),
    ("Priloha", re.compile(r"^Příloha(?: č\. (\d+))?\b")),
    ("Odstavec_Dc", re.compile(r"^\((\d+[a-z]?)\)\s+\S")),
    ("Pismeno_Lb", re.compile(r"^([a-z]{1,2})\)\s+\S")),
    ("Bod_Dd", re.compile(r"^(\d+[a-z]?)\.\s+\S")),
]
_FOOTNOTE = re.compile(r"^(\d+)\)\s+\S")
_RUNNING_HEADER = re.compile(
    r"^(Strana \d+ Akt č\. \d+ / \d{4} Sb\.|Akt č\. \d+ / \d{4} Sb\. Strana \d+|Sbírka zákonů č\. \d+ / \d{4}|Částka \d+)",
    re.IGNORECASE,
)  # "strana 2 Akt č. 573 / 2025 Sb." in the acts of 2025
_SPACES = re.compile(r"[^\S\n]+")  # any run of spaces but a line break: tabs, no-break and narrow no-break spaces
_PREAMBLE_OWN = re.compile(
    r"^(\d+|[A-ZÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ ]{3,}|ze dne .*|.*(?:se usnesl|se usnesla|nařizuje|stanoví|vyhlašuje)\b.*:|PREAMBULE)$"
)
_SIGNATURE = re.compile(r"\bv\. ?r\.$")
_CLOSED = ".:;,“)"
_TITLE_MAX = 80
# A line ending in one of these words goes on (it is not a heading): "Pro účely tohoto zákona je".
_OPEN_WORDS = frozenset(
    "je jsou se si a i nebo ani v ve k ke s z ze o na do od pro za pod nad před při po u že který která které "
    "kterým jako aby tak také tímto tohoto této podle mezi".split()
)
# A wrapped line may start like an item: "... písm." + "a) ...", "... dnem" + "1. ledna 2026".
_REFERENCE_TAIL = re.compile(r"(písm\.|bod[uy]?|odst\.|čl\.|§|dne|dnem|od|do|ke dni)$")
_DATE_START = re.compile(r"^\d{1,2}\.\s*(\d{1,2}\.|" + MONTH_NAME_PATTERN + ")")

ACT_CITATION = re.compile(
    r"(?:(?P<provision>(?:§|čl\.|Čl\.) ?\d+[a-z]*(?: odst\. ?\d+[a-z]?)?(?: písm\. ?[a-z]{1,2}\))?(?: bod[u]? ?\d+)?) )?"
    r"(?P<kind>(?:ústavní(?:ho|m)? )?zákon(?:a|u|em|ě)?|vyhlášk(?:a|y|u|ou|e)|nařízení vlády)"
    r" (?:č\. ?)?(?P<number>\d{1,4})/(?P<year>1[89]\d\d|20\d\d) Sb\."
)

# PDFium is not thread-safe and the mirror answers requests in threads: one document at a time.
_PDFIUM_LOCK = threading.Lock()

_GENITIVE = {
    "zákon": "zákona",
    "ústavní zákon": "ústavního zákona",
    "vyhláška": "vyhlášky",
    "nařízení": "nařízení",
    "nařízení vlády": "nařízení vlády",
}


@dataclass
class Segment:
    kind: str
    text: str
    value: str | None = None  # the unit's number as written ("5", "a", "I"), for headings and numbered units
    path: tuple[tuple[str, str], ...] = ()
    depth: int = 0
    links: list[dict] = field(default_factory=list)


# ---------------------------------------------------------------- text of the act


def pdf_lines(path: Path) -> list[str]:
    """The act's lines from a Sbírka PDF, without the cover sheet, running headers and the imprint page."""
    import pypdfium2 as pdfium

    pages: list[str] = []
    unreadable: list[int] = []
    with _PDFIUM_LOCK:
        document = pdfium.PdfDocument(str(path))
        try:
            for index in range(len(document)):
                try:
                    pages.append(document[index].get_textpage().get_text_range())
                except pdfium.PdfiumError:
                    pages.append("")
                    unreadable.append(index)
        finally:
            document.close()
    for index in unreadable:
        pages[index] = _pdfplumber_page(path, index)
    lines: list[str] = []
    for text in pages:
        if "Zpřístupněna dne" in text[:400] or text.lstrip().startswith("ISSN"):
            continue
        for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
            line = _SPACES.sub(" ", raw).strip()
            if line and not _RUNNING_HEADER.match(line):
                lines.append(line)
    return lines


def _pdfplumber_page(path: Path, index: int) -> str:
    import pdfplumber

    with pdfplumber.open(path) as pdf:
        return pdf.pages[index].extract_text() or ""


_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def docx_paragraphs(path: Path) -> list[str]:
    with zipfile.ZipFile(path) as archive:
        root = ElementTree.fromstring(archive.read("word/document.xml"))
    paragraphs = []
    for paragraph in root.iter(f"{_W}p"):
        text = _SPACES.sub(" ", "".join(t.text or "" for t in paragraph.iter(f"{_W}t"))).strip()
        if text:
            paragraphs.append(text)
    return paragraphs


_FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", re.S)
_MARKUP = [
    (re.compile(r"^#{1,6}\s+"), ""),
    (re.compile(r"^[-*]\s+(?=[a-z]{1,2}\)|\d+[a-z]?\.|\()"), ""),
    (re.compile(r"^\*\*(.+)\*\*$"), r"\1"),
    (re.compile(r"^\*(.+)\*$"), r"\1"),
]


def markdown_version(path: Path) -> tuple[dict, list[str]]:
    """A consolidated version converted to Markdown (``esbirka/versions/{number}-{year}__{date}.md``): its front
    matter (``citace``, ``ucinnost_od``, ``eli``, ...) and its text as paragraphs, the Markdown marks taken off
    (``## § 4`` -> ``§ 4``, ``**Stravné**`` -> ``Stravné``, ``- a) ...`` -> ``a) ...``); no word is added."""
    import yaml

    text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
    found = _FRONT_MATTER.match(text)
    meta = yaml.safe_load(found.group(1)) if found else {}
    meta = {key: html.unescape(str(value)) if isinstance(value, str) else value for key, value in meta.items()}
    paragraphs = []
    for raw in text[found.end() if found else 0 :].split("\n"):
        line = _SPACES.sub(" ", raw).strip()
        for pattern, replacement in _MARKUP:
            line = pattern.sub(replacement, line)
        if line:
            paragraphs.append(html.unescape(line))
    return meta, paragraphs


# ---------------------------------------------------------------- segmentation


def _unit(line: str) -> tuple[str, str] | None:
    for kind, pattern in _UNIT_PATTERNS:
        m = pattern.match(line)
        if m:
            return kind, (m.group(1) or "") if m.groups() else ""
    return None


def _is_title(line: str) -> bool:
    words = line.split()
    return (
        len(line) <= _TITLE_MAX
        and line[-1] not in ".:;,"
        and not _unit(line)
        and line[:1].isupper()
        and words[-1].lower() not in _OPEN_WORDS
    )


def _starts_unit(unit: tuple[str, str] | None, line: str, previous: str, hard_breaks: bool) -> bool:
    """Whether ``line`` (which looks like ``unit``) really starts it, or only wraps a sentence that does not."""
    if unit is None:
        return False
    if hard_breaks or unit[0] not in ("Pismeno_Lb", "Bod_Dd", "Odstavec_Dc"):
        return True
    if _REFERENCE_TAIL.search(previous.rstrip("\ufffe")):
        return False
    return not (unit[0] == "Bod_Dd" and _DATE_START.match(line))


def _append(segment: Segment, line: str) -> None:
    if segment.text.endswith("\ufffe"):  # PDFium's mark for a word hyphenated at the line end
        segment.text = segment.text[:-1] + line
    elif line.startswith(")") or not segment.text:
        segment.text += line
    else:
        segment.text += " " + line


def segment_lines(lines: list[str], hard_breaks: bool = False) -> list[Segment]:
    """Fragments of an act's text. ``hard_breaks``: every line is a paragraph of its own (DOCX); otherwise
    (PDF) lines that do not start a unit continue the fragment before them."""
    segments: list[Segment] = []
    in_preamble = True
    for index, line in enumerate(lines):
        current = segments[-1] if segments else None
        closed = (
            current is None
            or current.kind in HEADING_KINDS
            or current.kind.startswith("Nadpis")
            or current.kind.startswith("Virtual")
            or (not current.text.endswith("\ufffe") and current.text[-1:] in _CLOSED)
        )
        unit = _unit(line)
        if unit and unit[0] in ("Cast", "Hlava", "Paragraf", "Clanek", "Priloha", "Dil", "Oddil", "Pododdil"):
            in_preamble = False
        if _starts_unit(unit, line, current.text if current else "", hard_breaks):
            segments.append(Segment(unit[0], line, unit[1]))
            continue
        if _SIGNATURE.search(line) and (closed or hard_breaks):
            segments.append(Segment("Virtual_Postfix", line))
            continue
        if in_preamble:
            # The act's number, kind, date and enacting formula stand alone; its title may run over lines.
            if current is None or hard_breaks or _PREAMBLE_OWN.match(line) or _PREAMBLE_OWN.match(current.text):
                segments.append(Segment("Virtual_Prefix", line))
            else:
                _append(current, line)
            continue
        following = lines[index + 1] if index + 1 < len(lines) else ""
        footnote = _FOOTNOTE.match(line)
        if footnote and closed and not hard_breaks:
            segments.append(Segment("PPC", line, footnote.group(1)))
            continue
        if current is not None and current.kind in HEADING_KINDS and current.kind != "Priloha" and _is_title(line):
            segments.append(Segment("Nadpis_pod", line))
            continue
        if (
            current is not None
            and current.kind == "Nadpis_pod"
            and not hard_breaks
            and len(line) <= _TITLE_MAX
            and line[-1] not in ".:;,"
            and line.split()[-1].lower() not in _OPEN_WORDS
        ):
            _append(current, line)
            continue
        if closed and _is_title(line) and _unit(following) and _unit(following)[0] in ("Paragraf", "Clanek"):
            segments.append(Segment("Nadpis_nad", line))
            continue
        if (
            current is None
            or hard_breaks
            or (closed and current.kind not in ("Odstavec_Dc", "Pismeno_Lb", "Bod_Dd", "Text", "PPC"))
        ):
            segments.append(Segment("Text", line))
        else:
            _append(current, line)
    for segment in segments:
        segment.text = segment.text.replace("\ufffe", "")
    _assign_structure(segments)
    return segments


def _number(kind: str, value: str, counters: dict[str, int]) -> str:
    """The unit's number for ELI paths: 'PRVNÍ' → '1', 'IV' → '4'; letters and '5a' stay as written."""
    counters[kind] = counters.get(kind, 0) + 1
    if kind in ("Cast", "Hlava") and value in ORDINALS:
        return str(ORDINALS[value])
    if kind in ("Hlava", "Clanek") and value and set(value) <= set(ROMAN):
        total = 0
        for i, ch in enumerate(value):
            n = ROMAN[ch]
            total += -n if i + 1 < len(value) and ROMAN[value[i + 1]] > n else n
        return str(total)
    return value or str(counters[kind])


def _assign_structure(segments: list[Segment]) -> None:
    stack: list[tuple[str, str]] = []  # (kind, number) of the open units
    counters: dict[str, int] = {}
    pending_headings: list[Segment] = []  # a heading above a § belongs to that §
    for segment in segments:
        if segment.kind == "Nadpis_nad":
            pending_headings.append(segment)
            continue
        kind = segment.kind
        if kind in LEVEL:
            level = LEVEL[kind]
            while stack and LEVEL[stack[-1][0]] >= level:
                stack.pop()
            if kind in ("Cast", "Priloha"):
                stack.clear()
            stack.append((kind, _number(kind, segment.value or "", counters)))
            segment.path = tuple((ELI_KEY[k], n) for k, n in stack)
            segment.depth = len(stack) - 1
        elif kind == "Nadpis_pod":
            segment.path = tuple((ELI_KEY[k], n) for k, n in stack)
            segment.depth = len(stack)
        else:
            segment.path = tuple((ELI_KEY[k], n) for k, n in stack)
            segment.depth = len(stack)
        for heading in pending_headings:
            heading.path, heading.depth = segment.path, segment.depth + 1
        pending_headings.clear()


# ---------------------------------------------------------------- API records


def provision_label(path: tuple[tuple[str, str], ...]) -> str:
    """'§ 2 odst. 4 písm. a)' from a structural path (the innermost paragraph/article and below)."""
    parts = []
    for key, number in path:
        if key == "par":
            parts = [f"§ {number}"]
        elif key == "cl":
            parts = [f"čl. {number}"]
        elif key == "odst" and parts:
            parts.append(f"odst. {number}")
        elif key == "pism" and parts:
            parts.append(f"písm. {number})")
        elif key == "bod" and parts:
            parts.append(f"bod {number}")
    return " ".join(parts)


def act_genitive(act_type: str | None) -> str:
    """'Ústavní zákon České národní rady' → 'ústavního zákona' (the act's kind, as a citation names it)."""
    kind = (act_type or "zákon").strip().lower()
    for prefix in sorted(_GENITIVE, key=len, reverse=True):
        if kind.startswith(prefix):
            return _GENITIVE[prefix]
    return kind


def cited_acts(text: str) -> list[dict]:
    """Explicit citations of Sbírka acts in ``text``: {start, end, surface, stale_url, provision}."""
    found = []
    for m in ACT_CITATION.finditer(text):
        provision = m.group("provision")
        anchor = ""
        if provision:
            parts = re.findall(r"(§|čl\.|Čl\.|odst\.|písm\.|bod[u]?) ?(\d+[a-z]*|[a-z]{1,2})", provision)
            keys = {"§": "par", "čl.": "cl", "Čl.": "cl", "odst.": "odst", "písm.": "pism", "bod": "bod", "bodu": "bod"}
            anchor = "#" + "-".join(f"{keys[k]}_{v}" for k, v in parts)
        found.append(
            {
                "start": m.start(),
                "end": m.end(),
                "surface": m.group(0),
                "stale_url": ActId("sb", int(m.group("year")), int(m.group("number"))).stale_url + anchor,
                "provision": provision,
            }
        )
    return found


def fragment_records(
    segments: list[Segment],
    *,
    year: int,
    number: int,
    version: str | None,
    id_base: int,
    act_type: str | None,
    title: str | None,
) -> list[dict]:
    """The ``Fragment`` objects of the API for one act version, in document order."""
    act = ActId("sb", year, number, version or "")
    citation = act.citation
    genitive = act_genitive(act_type)
    records = []
    link_id = id_base * 10
    for seq, segment in enumerate(segments, start=1):
        anchor = "-".join(f"{key}_{n}" for key, n in segment.path)
        eli_path = "/".join(f"{key}_{n}" for key, n in segment.path)
        label = provision_label(segment.path)
        short = f"{label} {genitive} č. {citation}" if label else f"{genitive} č. {citation}"
        links, pieces, cursor = [], [], 0
        for ref in cited_acts(segment.text):
            if ref["stale_url"].split("#")[0] == ActId("sb", year, number).stale_url:
                continue  # the act citing itself ("tohoto zákona" written out) is not a cross-reference
            link_id += 1
            pieces.append(html.escape(segment.text[cursor : ref["start"]], quote=False))
            pieces.append(
                f'<a data-odkaz-id="{link_id}" href="#" class="odkaz">{html.escape(ref["surface"], quote=False)}</a>'
            )
            cursor = ref["end"]
            links.append(
                {
                    "odkazId": link_id,
                    "odkazBaseId": link_id,
                    "kodTypuVazbyOdkazu": "CITACE",
                    "cil": {"staleUrl": ref["stale_url"]},
                }
            )
        pieces.append(html.escape(segment.text[cursor:], quote=False))
        xhtml = "".join(pieces)
        if segment.kind in LEVEL and segment.value is not None:
            designation = _designation(segment)
            if designation and xhtml.startswith(html.escape(designation, quote=False)):
                escaped = html.escape(designation, quote=False)
                xhtml = f"<var>{escaped}</var>{xhtml[len(escaped) :]}"
        records.append(
            {
                "id": id_base + seq,
                "eli": f"{act.versioned_eli}/dokument/norma" + (f"/{eli_path}" if eli_path else ""),
                "staleUrl": act.stale_url + (f"#{anchor}" if anchor else ""),
                "kodTypuFragmentu": segment.kind,
                "hloubka": segment.depth,
                "xhtml": xhtml,
                "zkracenaCitace": short,
                "uplnaCitace": f"{short}, {title}" if title else short,
                "odkazyZFragmentu": links,
                "jeUcinny": True,
                "baseId": id_base + seq,
            }
        )
    return records


def _designation(segment: Segment) -> str:
    m = re.match(
        r"^(ČÁST [^\s].*|HLAVA \S+(?: \S+)?|Díl \d+|Oddíl \d+|Pododdíl \d+|§ \S+|Čl\. \S+|\(\S+\)|[a-z]{1,2}\)"
        r"|\d+[a-z]?\.|Příloha(?: č\. \d+)?)",
        segment.text,
    )
    if not m:
        return ""
    return m.group(1) if segment.kind not in ("Cast", "Hlava") else segment.text
