"""Property tests for the parsers the analyser/NER property tests don't reach: OFN notice boards (extraction and
the municipal spider), RÚIAN exchange-format files as arbitrary bytes, e-Sbírka API JSON in the spider, text
normalisation and query analysis. Each either returns well-formed output or raises its one documented error type.
"""

from __future__ import annotations

import gzip
import io
import json
import zipfile
from xml.sax.saxutils import escape

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from scrapy import Request
from scrapy.http import TextResponse

from crawlers.items import CrawlOutcome, FetchedDocument
from crawlers.spiders.boards import czech_text, notice_document, sniff_document_type
from crawlers.spiders.esbirka import API_PREFIX, EsbirkaSpider, document_id, stale_url_path
from mendel.czech.dates import iso, ofn_instant_date
from mendel.extract.document import extract_document
from mendel.extract.model import ExtractionError
from mendel.extract.normalize import fix_ocr_text, normalize_with_map
from mendel.extract.notice import board_title, is_board, is_notice, lang_text, notice_text, time_text
from mendel.registers import ruian
from serving.query.analyze import analyze_query, references
from serving.ranking.filters import SearchFilters

COMMON = settings(
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
FEW = settings(
    max_examples=25,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

# Text with the characters that break parsers over-represented: quotes, NUL and other controls, surrogate-free
# astral characters, combining marks, RTL, the separators JSON and XML care about.
NASTY = st.sampled_from(
    [
        "'",
        '"',
        "\\",
        "\x00",
        "\x1f",
        "\u2028",
        "\u202e",
        "\ufeff",
        "𝔘",
        "č\u030c",
        "]]>",
        "<",
        "&",
        "%00",
        "../",
        "\r\n",
        "{",
        "}",
        "$",
        "'); DROP TABLE documents; --",
    ]
)
TEXT = st.one_of(st.text(max_size=60), st.lists(st.one_of(NASTY, st.text(max_size=5)), max_size=12).map("".join))

# --- OFN "Úřední desky" --------------------------------------------------------------------------------------

OFN_KEYS = [
    "typ",
    "iri",
    "url",
    "název",
    "popis",
    "vyvěšení",
    "relevantní_do",
    "schválení",
    "číslo_jednací",
    "spisová_značka",
    "odbor",
    "agenda",
    "autor_díla",
    "subjekt",
    "umístění",
    "revize",
    "dokument",
    "informace",
    "provozovatel",
    "stránka",
    "@context",
    "cs",
    "en",
    "datum",
    "datum_a_čas",
    "nespecifikovaný",
    "ičo",
    "jméno",
    "příjmení",
    "adresa",
    "název_ulice",
    "číslo_domovní",
    "číslo_orientační",
    "psč",
    "název_obce",
    "geometrie",
    "coordinates",
    "budova",
    "adresní_místo",
]
OFN_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63),
    st.floats(allow_nan=False),
    TEXT,
    st.sampled_from(
        [
            "2020-06-29",
            "2020-06-29T10:00:00Z",
            "2020-13-45",
            "Informace na úřední desce",
            "Úřední deska",
            "Časový okamžik",
        ]
    ),
)
OFN_JSON = st.recursive(
    OFN_SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(OFN_KEYS), st.text(max_size=8)), children, max_size=6),
    ),
    max_leaves=30,
)
OFN_OBJECT = st.dictionaries(st.sampled_from(OFN_KEYS), OFN_JSON, max_size=10)


@COMMON
@given(OFN_JSON)
def test_notice_helpers_accept_any_json(value):
    assert isinstance(lang_text(value), str)
    assert isinstance(time_text(value), str)
    assert isinstance(is_notice(value), bool) and isinstance(is_board(value), bool)
    if isinstance(value, dict):
        assert isinstance(board_title(value), str)
    try:
        text = notice_text(value)
    except ExtractionError:
        assert not isinstance(value, dict)  # only a non-object is refused
    else:
        assert isinstance(text, str)


@COMMON
@given(OFN_JSON)
def test_spider_field_readers_accept_any_json(value):
    text = czech_text(value)
    assert text is None or (isinstance(text, str) and text == text.strip() and text)
    day = iso(ofn_instant_date(value))
    assert day is None or (len(day) == 10 and day[4] == "-" and day[7] == "-")


@COMMON
@given(feed=OFN_OBJECT, notice=OFN_OBJECT, index=st.integers(min_value=0, max_value=10_000))
def test_notice_document_is_storable(feed, notice, index):
    """What the municipal spider stores for a notice: a JSON body that parses back to the notice, text fields
    that are strings or None, and attachment URLs that are strings."""
    doc = notice_document(feed, notice, index, "https://www.mesto-kadan.cz/feed")
    assert isinstance(doc["doc_id"], str) and isinstance(doc["url"], str)  # the documents table's keys
    body = json.loads(doc["body"].decode("utf-8"))
    assert {k: v for k, v in body.items() if k != "@context"} == {k: v for k, v in notice.items() if k != "@context"}
    for key in ("title", "published", "citation"):
        assert doc[key] is None or isinstance(doc[key], str)
    assert all(isinstance(a["url"], str) for a in doc["attachments"])


@FEW
@given(OFN_OBJECT)
def test_extract_document_on_any_ofn_json(item):
    """Any JSON object sent as an OFN notice or board: pages of normalised text, or an ExtractionError."""
    data = json.dumps(item, ensure_ascii=False).encode("utf-8")
    try:
        document = extract_document(data, "application/ld+json", "https://www.mesto-kadan.cz/feed")
    except ExtractionError as exc:
        assert str(exc)
        return
    assert document.pages and all(isinstance(p.text, str) and "\x00" not in p.text for p in document.pages)
    text = document.text
    for section in document.sections:
        assert 0 <= section.char_start <= section.char_end <= len(text)


@FEW
@given(st.binary(max_size=400))
def test_extract_document_on_any_bytes_as_json(data):
    try:
        document = extract_document(data, "application/ld+json", None)
    except ExtractionError as exc:
        assert str(exc)
    else:
        assert all("\x00" not in p.text for p in document.pages)


@COMMON
@given(st.binary(max_size=600), st.sampled_from(["", "application/pdf", "text/html", "application/octet-stream"]))
def test_sniff_document_type_on_any_bytes(body, declared):
    kind = sniff_document_type(body, declared)
    assert kind is None or isinstance(kind, str)
    if body.lstrip().lower().startswith((b"<!doctype html", b"<html")) and not body.startswith(b"%PDF"):
        assert kind is None  # an HTML error page is never taken for a document


# --- RÚIAN -----------------------------------------------------------------------------------------------------

VFR_HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<vf:VymennyFormat xmlns:vf="urn:cz:isvs:ruian:schemas:VymennyFormatTypy:v1"'
    ' xmlns:obi="urn:cz:isvs:ruian:schemas:ObecIntTypy:v1" xmlns:oki="urn:cz:isvs:ruian:schemas:OkresIntTypy:v1"'
    ' xmlns:ami="urn:cz:isvs:ruian:schemas:AdrMistoIntTypy:v1" xmlns:soi="urn:cz:isvs:ruian:schemas:StavObjIntTypy:v1"'
    ' xmlns:gml="http://www.opengis.net/gml/3.2">'
    "<vf:Hlavicka><vf:TypSouboru>OB_UKSH</vf:TypSouboru><vf:TypDavky>Plna</vf:TypDavky></vf:Hlavicka><vf:Data>"
)


def _vfr(kod: str, nazev: str, plati_od: str, pos: str) -> bytes:
    """A minimal VFR file whose record fields carry the given (XML-escaped) text."""
    xml_text = (
        VFR_HEAD + "<vf:Obce><vf:Obec>"
        f"<obi:Kod>{escape(kod)}</obi:Kod><obi:Nazev>{escape(nazev)}</obi:Nazev>"
        f"<obi:PlatiOd>{escape(plati_od)}</obi:PlatiOd><obi:Okres><oki:Kod>3506</oki:Kod></obi:Okres>"
        f"<obi:DefinicniBod><gml:Point><gml:pos>{escape(pos)}</gml:pos></gml:Point></obi:DefinicniBod>"
        "</vf:Obec></vf:Obce><vf:AdresniMista><vf:AdresniMisto>"
        f"<ami:Kod>{escape(kod)}</ami:Kod><ami:CisloDomovni>{escape(nazev)}</ami:CisloDomovni>"
        "</vf:AdresniMisto></vf:AdresniMista></vf:Data></vf:VymennyFormat>"
    )
    return xml_text.encode("utf-8")


def _records_or_vfr_error(data: bytes) -> list[dict] | None:
    try:
        return list(ruian.iter_records(data))
    except ruian.VfrError as exc:
        assert str(exc)
        return None


# XML 1.0 can't carry most C0 controls or lone surrogates at all: keep the text well-formed so the values reach
# the record builders (the bytes tests cover malformed files).
XML_TEXT = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",), exclude_characters="".join(map(chr, range(32)))),
    max_size=30,
)
POSITION = st.one_of(
    XML_TEXT,
    st.lists(st.floats(allow_nan=False, allow_infinity=False), max_size=3).map(
        lambda xs: " ".join(repr(x) for x in xs)
    ),
)


@COMMON
@given(st.binary(max_size=2000))
def test_iter_records_on_arbitrary_bytes(data):
    _records_or_vfr_error(data)
    try:
        ruian.read_header(data)
    except ruian.VfrError as exc:
        assert str(exc)


@FEW
@given(st.binary(max_size=1000), st.sampled_from(["gzip", "zip", "truncated-gzip"]))
def test_iter_records_on_arbitrary_archives(data, wrapper):
    if wrapper == "gzip":
        packed = gzip.compress(data)
    elif wrapper == "truncated-gzip":
        packed = gzip.compress(_vfr("1", "x", "2020-01-01", "1 2") + data)[:-7]
    else:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("x.xml", data)
        packed = buffer.getvalue()
    _records_or_vfr_error(packed)


@COMMON
@given(kod=XML_TEXT, nazev=XML_TEXT, plati_od=XML_TEXT, pos=POSITION)
def test_record_fields_with_any_text(kod, nazev, plati_od, pos):
    """Well-formed files with any text in codes, names, dates and coordinates: records (codes and names kept as
    text) or a VfrError, never another exception the registry loader would not catch."""
    records = _records_or_vfr_error(_vfr(kod, nazev, plati_od, pos))
    if records is None:
        return
    assert [r["kind"] for r in records] == ["obec", "adresni_misto"]
    assert records[0]["kod"] == (kod.strip() or None) and records[0]["nazev"] == (nazev.strip() or None)
    point = records[0]["bod"]
    assert point is None or (len(point) == 2 and all(isinstance(c, float) for c in point))


@COMMON
@given(
    st.one_of(
        st.text(max_size=80), st.from_regex(r"\d{8}_(OB_\d{1,7}_|ST_)[UZ][A-Z]{3}\.xml(\.gz|\.zip)?", fullmatch=True)
    )
)
def test_vfr_file_names(name):
    info = ruian.parse_file_name(name)
    assert info is None or info["scope"] in ("OB", "ST")
    assert ruian.doc_id_for_file(name).startswith("ruian:")


# --- e-Sbírka API JSON in the spider ---------------------------------------------------------------------------

API = "https://www.e-sbirka.cz" + API_PREFIX


def _response(url: str, value) -> TextResponse:
    body = json.dumps(value, ensure_ascii=False).encode("utf-8")
    return TextResponse(
        url, body=body, encoding="utf-8", headers={"Content-Type": "application/json"}, request=Request(url)
    )


def _spider() -> EsbirkaSpider:
    return EsbirkaSpider(base_url="https://www.e-sbirka.cz", years="2024")


def _quarantined(out: list) -> bool:
    """The callback's whole output is one quarantined outcome (a CrawlOutcome item for the crawl log)."""
    return len(out) == 1 and isinstance(out[0], CrawlOutcome) and out[0].outcome == "quarantined"


ACT = st.fixed_dictionaries(
    {"staleUrl": TEXT.filter(bool)},
    optional={"nazev": TEXT, "zkracenaCitace": TEXT, "datum": TEXT, "datumCasVyhlaseni": TEXT},
)


@COMMON
@given(acts=st.lists(ACT, max_size=4), kod=st.sampled_from([None, "sb", "mmps"]))
def test_register_listing_with_any_strings(acts, kod):
    """Act listings carrying any Unicode: one detail request per act, each on the API and naming the act's
    staleUrl as a single path segment (no traversal, no second host)."""
    spider = _spider()
    register = {
        "dokumentySbirkyVMesici": [
            {"sbirkyDokumentuSbirky": [{"sadaDokumentuKod": kod, "dokumentySbirkyRejstrikInfo": acts}]}
        ]
    }
    out = list(spider.parse_register(_response(f"{API}/chronologicke-rejstriky/x", register), year=2024))
    expected = acts if kod in (None, "sb") else []
    assert len(out) == len(expected)
    for request, act in zip(out, expected):
        assert isinstance(request, Request)
        assert request.url.startswith(f"{API}/dokumenty-sbirky/")
        segment = request.url[len(f"{API}/dokumenty-sbirky/") :]
        assert "/" not in segment and "?" not in segment and "#" not in segment
        assert document_id(act["staleUrl"]).startswith(("/eli/cz/", "esbirka:"))
        assert stale_url_path(act["staleUrl"]) != ""


@COMMON
@given(
    act=ACT,
    name=st.one_of(st.none(), TEXT),
    doc_id=st.one_of(st.integers(0, 10**12), TEXT.filter(bool)),
    verified=st.booleans(),
)
# dot segments, which a URL's normalisation resolves to a parent folder, leaving the file endpoint
@example(act={"staleUrl": "0"}, name=None, doc_id="..", verified=True)
@example(act={"staleUrl": "0"}, name="../../../x.pdf", doc_id=".", verified=True)
@example(act={"staleUrl": "0"}, name="a/b?c#d", doc_id="1/2", verified=True)
def test_download_links_with_any_strings(act, name, doc_id, verified):
    """A download-link answer with any file name: one request to the API's file endpoint on the same host, or,
    when there is no verified PDF, one request for the first page (0) of the act's fragments: its wording in force."""
    spider = _spider()
    link = {"dokumentId": doc_id, **({"nazevDokumentu": name} if name is not None else {})}
    links = {"overeneZneni": {"odkazPdf": link}} if verified else {}
    out = list(spider.parse_download_links(_response(f"{API}/dokumenty-sbirky/x/odkazy-ke-stazeni", links), detail=act))
    if verified and doc_id not in ("", ".", ".."):
        assert len(out) == 1 and out[0].url.startswith(f"{API}/souborove-dokumenty/")
        assert out[0].url.split("/")[2] == "www.e-sbirka.cz"
        segments = out[0].url[len(f"{API}/souborove-dokumenty/") :].split("/")
        assert len(segments) == 4 and segments[1:3] == ["ORIGINAL", "STAHNI"], out[0].url  # the id and name, whole
        assert not {"?", "#"} & set(out[0].url) and "." not in (segments[0], segments[3]) and ".." not in segments
    else:  # no verified PDF, or its id no path segment of its own ("..": the file endpoint's parent): the wording
        assert len(out) == 1 and "/fragmenty" in out[0].url and out[0].url.endswith("cisloStranky=0")


@COMMON
@given(act=ACT, body=st.binary(max_size=64))
def test_document_answer_with_any_body(act, body):
    spider = _spider()
    url = f"{API}/souborove-dokumenty/1/ORIGINAL/STAHNI/x.pdf"
    response = TextResponse(
        url, body=body, headers={"Content-Type": "application/pdf"}, request=Request(url), encoding="utf-8", status=200
    )
    out = list(spider.parse_document(response, detail=act))
    if body.startswith(b"%PDF"):
        assert len(out) == 1 and isinstance(out[0], FetchedDocument)
        assert out[0].doc_id == document_id(act["staleUrl"])
        assert out[0].published is None or isinstance(out[0].published, str)
    else:
        assert _quarantined(out)


# --- normalisation and query analysis --------------------------------------------------------------------------


@COMMON
@given(st.one_of(st.text(max_size=300), TEXT))
def test_normalize_with_map_invariants(raw):
    text, mapping = normalize_with_map(raw)
    assert len(mapping) == len(text)
    assert all(a <= b for a, b in zip(mapping, mapping[1:]))
    assert all(0 <= m < len(raw) for m in mapping)
    assert "\x00" not in text and text == text.strip()
    assert len(fix_ocr_text(raw)) == len(raw)


@COMMON
@given(st.one_of(st.text(max_size=200), TEXT))
def test_query_analysis_never_crashes(query):
    found = references(query)
    for ref in found:
        assert query[ref["start"] : ref["end"]] == ref["text"]
    analysis = analyze_query(query)
    assert analysis["query"] == query
    assert all(isinstance(a["citation"], str) and isinstance(a["score"], float) for a in analysis["acts"])


@COMMON
@given(
    st.dictionaries(
        st.sampled_from(["source", "doc_type", "date_from", "date_to", "act", "court"]),
        st.one_of(st.none(), TEXT, st.lists(TEXT, max_size=3)),
        max_size=5,
    ).map(lambda d: {**d, "act": d["act"][0] if d["act"] else None} if isinstance(d.get("act"), list) else d)
)
def test_search_filters_accept_or_refuse_cleanly(raw):
    try:
        filters = SearchFilters.of(raw)
    except ValueError as exc:  # unknown filters, bad dates
        assert str(exc)
        return
    documents = {
        "/eli/cz/sb/2025/175": {
            "source": "esbirka",
            "doc_type": "law",
            "citation": "175/2025 Sb.",
            "published": "2025-06-16",
        }
    }
    assert filters.matching_documents(documents) <= set(documents)
