"""A serving test bundle with what the demo holds besides acts and decisions, all from the sample corpus: the real
notices of three boards with their places (Kadaň's OFN feed, Město Hranice's, Karviná's pre-OFN export on the
mirror's made-up host), a consolidated act from its e-Sbírka DOCX, a citation record with no passages, and acts whose
stored address is the demo mirror's (as a demo crawl stores it). One notice's original is a test fixture: the notice
as an HTML page carrying a script, the way a crawled board page could."""

from __future__ import annotations

import copy
import html
import json
import re
import zipfile

from mendel.core.config import SAMPLE_CORPUS
from tests.support.bundle import base_docs, load_corpus

BOARDS = SAMPLE_CORPUS / "municipal" / "boards"
KADAN = {"kraj": "Ústecký kraj", "okres": "Chomutov", "obec": "Kadaň"}
HRANICE = {"kraj": "Olomoucký kraj", "okres": "Přerov", "obec": "Hranice"}
KARVINA = {"kraj": "Moravskoslezský kraj", "okres": "Karviná", "obec": "Karviná"}
HRANICE_NOTICES = 400  # the feed's first: far more "veřejná vyhláška" notices than Kadaň's, ranked above them
KARVINA_NOTICES = 20
MIRROR_ORIGIN = "http://127.0.0.1:8765"  # the demo mirror's address, as a demo crawl stores it
MIRRORED_LAW = "/eli/cz/sb/2025/175"
MIRRORED_PATH = "/esel-esbir-daver/souborove-dokumenty/202500175/ORIGINAL/STAHNI/Sb_2025_175_PZZ.pdf"
DOCX_ACT = ("34_2023", "/eli/cz/sb/2023/34", "34/2023 Sb.")
CITATION_RECORD = {
    "doc_id": "ECLI:CZ:US:2018:1.US.1935.18.1",
    "title": "Záznam o citaci rozhodnutí Ústavního soudu sp. zn. I. ÚS 1935/18",
    "source": "nalus",
    "doc_type": "citation_record",
    "citation": "I.ÚS 1935/18",
    "url": "https://nalus.usoud.cz/Search/GetText.aspx?sz=1-1935-18_1",
    "published": None,
    "pages": [],
}
SCRIPTED_NOTICE_PROBE = "/xss-probe"
SCRIPT = (
    "<script>document.title = 'script ran'; fetch('" + SCRIPTED_NOTICE_PROBE + "?by=fetch');"
    " new Image().src = '" + SCRIPTED_NOTICE_PROBE + "?by=img';</script>"
)


def _ofn_notices(path, places: dict, limit: int | None = None) -> list[dict]:
    feed = json.loads(path.read_text(encoding="utf-8"))
    notices = []
    for item in feed["informace"][:limit]:
        title = item["název"]["cs"]
        description = (item.get("popis") or {}).get("cs") or ""
        reference = item.get("číslo_jednací") or ""
        text = "\n".join(
            part for part in (title, description, f"Číslo jednací: {reference}" if reference else "") if part
        )
        notices.append(
            {
                "doc_id": item["iri"],
                "title": title,
                "source": "boards",
                "doc_type": "notice",
                "citation": reference or None,
                "url": item.get("url") or item["iri"],
                "published": (item.get("vyvěšení") or {}).get("datum"),
                "pages": [text],
                **places,
            }
        )
    return notices


def _karvina_notices() -> list[dict]:
    """Karviná's notices as the demo stores them: keyed on the mirror's made-up host (no real notice page known)."""
    export = json.loads((BOARDS / "karvina_deska.json").read_text(encoding="utf-8"))
    notices = []
    for item in [entry for entry in export if "nazev" in entry][:KARVINA_NOTICES]:
        key = re.sub(r"\W+", "-", item["url"].rsplit("/", 1)[-1]).strip("-")
        doc_id = f"http://karvina.mirror.test/opendata.json#{key}"
        notices.append(
            {
                "doc_id": doc_id,
                "title": item["nazev"],
                "source": "boards",
                "doc_type": "notice",
                "citation": None,
                "url": doc_id,
                "published": item["vyveseni"]["datum"],
                "pages": ["\n".join(part for part in (item["nazev"], item.get("odbor") or "") if part)],
                **KARVINA,
            }
        )
    return notices


def docx_paragraphs(path) -> list[str]:
    """The paragraphs of a DOCX's main text (its w:t runs joined per w:p)."""
    xml = zipfile.ZipFile(path).read("word/document.xml").decode("utf-8")
    paragraphs = (
        html.unescape("".join(re.findall(r"<w:t(?: [^>]*)?>([^<]*)</w:t>", p)))
        for p in re.findall(r"<w:p[ >].*?</w:p>", xml, re.S)
    )
    return [p for p in paragraphs if p.strip()]


def _docx_act() -> dict:
    name, doc_id, citation = DOCX_ACT
    path = SAMPLE_CORPUS / "esbirka" / "docx" / f"{name}.docx"
    paragraphs = docx_paragraphs(path)
    year, number = doc_id.rsplit("/", 2)[-2:]
    return {
        "doc_id": doc_id,
        "title": f"{paragraphs[1].capitalize()} {paragraphs[3]}",  # "Zákon o koordinaci spolupráce …"
        "source": "esbirka",
        "doc_type": "law_consolidated",
        "citation": citation,
        "url": f"https://www.e-sbirka.cz/sb/{year}/{number}",
        "published": None,
        "pages": ["\n".join(paragraphs)],
        "original": (path, "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
    }


def scripted_page(notice: dict) -> bytes:
    """The test fixture: a notice as a board's HTML page would carry it, with a script that calls home."""
    return (
        '<!doctype html><html lang="cs"><head><meta charset="utf-8"><title>'
        + html.escape(notice["title"])
        + "</title></head><body><h1>"
        + html.escape(notice["title"])
        + "</h1><p>"
        + html.escape(notice["pages"][0])
        + "</p>"
        + SCRIPT
        + "</body></html>"
    ).encode("utf-8")


def serving_docs() -> list[dict]:
    """Every document of the bundle (the test_api corpus, then the boards, the DOCX act and the record)."""
    docs = base_docs(copy.deepcopy(load_corpus()))
    for doc in docs:
        if doc["doc_id"] == MIRRORED_LAW:
            doc["url"] = MIRROR_ORIGIN + MIRRORED_PATH
    kadan = _ofn_notices(SAMPLE_CORPUS / "municipal" / "kadan_uredni_deska.json", KADAN)
    scripted = next(n for n in kadan if "veřejná vyhláška" in n["title"].lower())
    scripted["original"] = (scripted_page(scripted), "text/html; charset=utf-8")
    docs += kadan
    docs += _ofn_notices(BOARDS / "hranice_ofn.jsonld", HRANICE, HRANICE_NOTICES)
    docs += _karvina_notices()
    docs.append(_docx_act())
    docs.append(dict(CITATION_RECORD))
    return docs


def scripted_notice(docs: list[dict]) -> dict:
    return next(d for d in docs if "original" in d and d["original"][1].startswith("text/html"))
