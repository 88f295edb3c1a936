"""Record documents (mendel.records.record_documents) on the real sample files: the RÚIAN VFR files of obec Děčany and the state
change batch and the e-Sbírka record of vyhláška 573/2025 Sb. (with its three versions), crawled from the local
mirror; a real Blešno PDF as a notice attachment. Each becomes searchable text labelled as a record (or linked to
its notice), grounded to its source, and is re-rendered only when its record or the records stage changes."""

from __future__ import annotations

import hashlib
import json
from collections import Counter

import psycopg
import pytest

from mendel.core.config import SAMPLE_CORPUS
from mendel.core.rawstore import RawStore
from mendel.crawl import crawlstate
from mendel.crawl.boards import notice_links as boards
from mendel.czech.wording import both_dates, plural, worded_date
from mendel.index import bundle
from mendel.nightly import extract_stage, registry_stage
from mendel.records.act_metadata import act_type, adoption_date
from mendel.records.model import ACT_METADATA, RECORD_DOCUMENT_TYPES, REGISTER_RECORD
from mendel.records.municipality_records import MunicipalityRecord, Part, municipality_pages
from mendel.records.record_documents import build_record_documents
from mendel.registers import ruian
from serving.ranking.search import Searcher
from serving.web.results import run_search
from tests.support.index import RecordingEmbedder, run_index
from tests.support.law import crawled_database

OB_FILE = SAMPLE_CORPUS / "cuzk" / "ruian" / "OB_UKSH.xml.gz"
ATTACHMENT = SAMPLE_CORPUS / "municipal" / "blesno" / "text" / "svoz-odpadu-2019__svozovy-plan-pro-rok-2019.pdf"
BOARD_URL = "https://www.obec-blesno.cz/api/articles"
NOTICE_ID = "https://www.obec-blesno.cz/svoz-odpadu-2019"
ATTACHMENT_ID = "https://www.obec-blesno.cz/assets/articles/svoz-odpadu-2019/svozovy-plan-pro-rok-2019.pdf"
DECANY = "ruian:obec:564729"
ACT = "/eli/cz/sb/2025/573"
METADATA = f"act-metadata:{ACT}"


def add_notice_with_attachment(conn: psycopg.Connection, store: RawStore) -> None:
    """A notice of the Blešno board (its text written here, in OFN form) whose attachment is the real PDF."""
    notice = {
        "typ": ["Digitální objekt", "Informace na úřední desce"],
        "iri": NOTICE_ID,
        "url": NOTICE_ID,
        "název": {"cs": "Svoz odpadu 2019"},
        "vyvěšení": {"typ": "Časový okamžik", "datum": "2019-01-02"},
        "dokument": [{"typ": "Digitální objekt", "název": {"cs": "Svozový plán pro rok 2019"}, "url": ATTACHMENT_ID}],
    }
    for doc_id, body, content_type, title, doc_type in (
        (
            NOTICE_ID,
            json.dumps(notice, ensure_ascii=False).encode(),
            "application/ld+json",
            "Svoz odpadu 2019",
            "notice",
        ),
        (
            ATTACHMENT_ID,
            ATTACHMENT.read_bytes(),
            "application/pdf",
            "Svoz odpadu 2019 – Svozový plán pro rok 2019",
            "notice_attachment",
        ),
    ):
        blob = store.put(body)
        crawlstate.record_document(
            conn,
            run_id="t",
            source="boards",
            doc_id=doc_id,
            url=doc_id,
            sha256=blob.sha256,
            byte_size=len(body),
            content_type=content_type,
            title=title,
            doc_type=doc_type,
            listing=BOARD_URL,
        )
    conn.execute(
        "INSERT INTO boards (key, kind, url, name, spec) VALUES ('blesno', 'article_api', %s, 'Obec Blešno', '{}')",
        (BOARD_URL,),
    )
    boards.record_notice_links(conn, BOARD_URL, [(NOTICE_ID, [(ATTACHMENT_ID, "Svozový plán pro rok 2019")])])


@pytest.fixture(scope="module")
def indexed(pg_server_url, tmp_path_factory):
    home = tmp_path_factory.mktemp("records-home")
    home.chmod(0o755)
    url = crawled_database(
        pg_server_url,
        home,
        [
            ("esbirka", {"MENDEL_ESBIRKA_YEARS": "2024,2025", "MENDEL_ESBIRKA_ACTS": "/sb/2025/573,/sb/2024/87"}),
            ("ruian", {}),
        ],
    )
    store = RawStore(home / "raw")
    embedder = RecordingEmbedder()
    with psycopg.connect(url, autocommit=True) as conn:
        registry = registry_stage.load_registry_pending(conn, store)
        add_notice_with_attachment(conn, store)
        extracted = extract_stage.extract_with_records(conn, store)
        stats = run_index(conn, home, embedder)
    return {
        "url": url,
        "home": home,
        "store": store,
        "embedder": embedder,
        "registry": registry,
        "extracted": extracted,
        "index": stats,
        "searcher": Searcher.latest(home / "bundles", embedder=embedder),
    }


@pytest.fixture
def conn(indexed):
    with psycopg.connect(indexed["url"], autocommit=True) as connection:
        yield connection


def document_text(conn, doc_id: str) -> str:
    return "\n".join(
        t
        for (t,) in conn.execute(
            "SELECT p.text FROM documents d JOIN pages p ON p.version_id = d.current_version_id WHERE d.doc_id = %s"
            " ORDER BY p.page_no",
            (doc_id,),
        )
    )


@pytest.mark.e2e
def test_municipality_record_says_what_the_vfr_file_says(indexed, conn):
    found = Counter()
    parts, postcodes = [], set()
    for record in ruian.iter_records(OB_FILE):
        found[record["kind"]] += 1
        if record["kind"] == "cast_obce":
            parts.append(record["nazev"])
        elif record["kind"] == "adresni_misto":
            postcodes.add(record["psc"])
    text = document_text(conn, DECANY)
    assert f"Části obce Děčany ({len(parts)}): {', '.join(sorted(parts))}." in text
    assert f"obec Děčany má v registru {found['adresni_misto']} adresních míst" in text
    assert all(f"{p[:3]} {p[3:]} ({p})" in text for p in postcodes)
    assert "okres Litoměřice, Ústecký kraj" in text
    # the change batch holds one address point of another municipality: it is not counted here
    assert indexed["registry"]["by_kind"]["adresni_misto"] == found["adresni_misto"] + 1
    # never loaded into the register as if it were a VFR file
    assert (
        conn.execute(
            "SELECT count(*) FROM registry_records WHERE version_id IN (SELECT version_id"
            " FROM document_versions WHERE doc_id = %s)",
            (DECANY,),
        ).fetchone()[0]
        == 0
    )


@pytest.mark.e2e
def test_act_metadata_record_lists_versions_dates_and_amending_acts(conn):
    versions = conn.execute(
        "SELECT effective_from, effective_to, amended_by FROM act_versions WHERE doc_id = %s ORDER BY effective_from",
        (ACT,),
    ).fetchall()
    text = document_text(conn, METADATA)
    assert f"Znění předpisu uložená z e-Sbírky ({len(versions)}):" in text
    for effective_from, effective_to, amended_by in versions:
        assert both_dates(effective_from) in text
        if effective_to:
            assert f"do {both_dates(effective_to)}" in text
        assert all(a["citation"] in text for a in amended_by)
    first = versions[0][0]
    assert text.startswith("Údaje e-Sbírky o předpisu Vyhláška č. 573/2025 Sb., o změně sazby")
    assert f"vyhláška nabyla účinnosti dnem {both_dates(first)}" in text
    amending = sorted({a["citation"] for *_, amended_by in versions for a in amended_by})
    assert amending and f"byla změněna (novelizována) předpisem {amending[0]}" in text
    # the date of adoption is read from the promulgated text's heading ("ze dne 18. prosince 2025")
    assert "Datum přijetí (ze dne): 18. prosince 2025 (18. 12. 2025)" in text


@pytest.mark.e2e
def test_bundle_labels_and_grounds_every_record(indexed):
    documents = {d["doc_id"]: d for d in bundle.read_documents(bundle.current_bundle(indexed["home"] / "bundles"))}
    decany = documents[DECANY]
    assert decany["doc_type"] == REGISTER_RECORD and decany["source"] == "ruian"
    assert decany["record"] == DECANY
    assert [s["doc_id"] for s in decany["record_sources"]] == ["ruian:OB_564729_UKSH"]
    assert (
        decany["url"].endswith("/20140331_OB_564729_UKSH.xml.gz")
        == decany["record_sources"][0]["url"].endswith("/20140331_OB_564729_UKSH.xml.gz")
        is True
    )
    metadata = documents[METADATA]
    assert metadata["doc_type"] == ACT_METADATA and metadata["source"] == "esbirka"
    assert metadata["url"].endswith("/esel-esbir-daver/dokumenty-sbirky/%2Fsb%2F2025%2F573")
    assert metadata["record_sources"][0]["doc_id"] == ACT
    # the act's own text stays the law
    assert documents[ACT]["doc_type"] == "law" and "record" not in documents[ACT]
    attachment = documents[ATTACHMENT_ID]
    assert attachment["notice"] == {
        "doc_id": NOTICE_ID,
        "title": "Svoz odpadu 2019",
        "url": NOTICE_ID,
        "board": "Obec Blešno",
        "attachment_name": "Svozový plán pro rok 2019",
    }


# Questions a person would ask, and the record document that answers each (ranks printed for the report).
QUESTIONS = [
    ("Jaké části má obec Děčany?", DECANY),
    ("Kolik adresních míst má Děčany?", DECANY),
    ("PSČ obce Děčany", DECANY),
    ("Kdy nabyla účinnosti vyhláška č. 573/2025 Sb.?", METADATA),
    ("Které předpisy novelizovaly vyhlášku 573/2025?", METADATA),
    ("Jaká znění má vyhláška 573/2025 Sb.?", METADATA),
]


@pytest.mark.e2e
@pytest.mark.parametrize("question, expected", QUESTIONS)
def test_questions_find_the_record_and_it_is_labelled_a_record(indexed, question, expected):
    payload, _ = run_search(indexed["searcher"], question, k=5)
    ranked = [hit["doc_id"] for hit in payload["results"]]
    print(f"{question!r}: {expected} at rank {ranked.index(expected) + 1 if expected in ranked else None} of {ranked}")
    assert expected in ranked[:3], ranked
    hit = next(h for h in payload["results"] if h["doc_id"] == expected)
    assert hit["kind"] in RECORD_DOCUMENT_TYPES and hit["kind_label"] != "rozhodnutí"
    assert hit["record_sources"]


@pytest.mark.e2e
def test_attachment_hits_name_their_notice_and_page(indexed):
    payload, _ = run_search(indexed["searcher"], "svozový plán svozový den středa známka", k=5)
    hit = next(h for h in payload["results"] if h["doc_id"] == ATTACHMENT_ID)
    assert hit["kind"] == "notice_attachment" and hit["page"] == 1
    assert hit["notice"]["title"] == "Svoz odpadu 2019" and hit["notice"]["board"] == "Obec Blešno"


@pytest.mark.e2e
def test_search_page_and_api_show_the_kind(indexed):
    from fastapi.testclient import TestClient

    from serving.web.api import create_app

    client = TestClient(create_app(indexed["home"] / "bundles", embedder=indexed["embedder"], reload_interval=0))
    page = client.get("/", params={"q": "Jaké části má obec Děčany?"})
    assert page.status_code == 200
    assert "záznam registru RÚIAN" in page.text and "20140331_OB_564729_UKSH.xml.gz" in page.text
    found = client.get("/search", params={"q": "Kdy nabyla účinnosti vyhláška č. 573/2025 Sb.?", "k": 5}).json()
    kinds = {hit["doc_id"]: hit["kind"] for hit in found["results"]}
    assert kinds[METADATA] == "act_metadata" and kinds.get(ACT, "law") == "law"


@pytest.mark.e2e
def test_only_changed_records_are_rendered_again(indexed, conn):
    store = indexed["store"]
    current = dict(
        conn.execute(
            "SELECT doc_id, current_version_id FROM documents WHERE doc_type = ANY(%s)",
            (list(RECORD_DOCUMENT_TYPES),),
        ).fetchall()
    )
    again = build_record_documents(conn, store)
    assert set(current) == {DECANY, METADATA, "act-metadata:/eli/cz/sb/2024/87"}
    assert again["new_versions"] == 0 and again["unchanged"] == again["documents"] == len(current)

    # another records stage version made them: re-rendered, same text, so the versions (and chunks) are kept
    conn.execute(
        "UPDATE document_versions SET record_version = 'records-000000000000' WHERE version_id = ANY(%s)",
        (list(current.values()),),
    )
    carried = build_record_documents(conn, store)
    assert carried["carried_over"] == len(current) and carried["new_versions"] == 0
    assert {
        v
        for (v,) in conn.execute(
            "SELECT record_version FROM document_versions WHERE version_id = ANY(%s)", (list(current.values()),)
        )
    } == {carried["stage_version"]}

    # one part renamed in the register: exactly that municipality gets a new version, then extraction
    conn.execute("UPDATE registry_records SET name = 'Solany u Děčan' WHERE kind = 'cast_obce' AND code = '152323'")
    try:
        changed = build_record_documents(conn, store)
        assert changed["new_versions"] == 1
        after = dict(
            conn.execute(
                "SELECT doc_id, current_version_id FROM documents WHERE doc_type = ANY(%s)",
                (list(RECORD_DOCUMENT_TYPES),),
            ).fetchall()
        )
        assert after[METADATA] == current[METADATA] and after[DECANY] != current[DECANY]
        assert extract_stage.extract_pending(conn, store)["versions"] == 1
        assert "Solany u Děčan" in document_text(conn, DECANY)
    finally:  # back as the file says: the earlier version is current again
        conn.execute("UPDATE registry_records SET name = 'Solany' WHERE kind = 'cast_obce' AND code = '152323'")
        build_record_documents(conn, store)
    assert (
        conn.execute("SELECT current_version_id FROM documents WHERE doc_id = %s", (DECANY,)).fetchone()[0]
        == current[DECANY]
    )


@pytest.mark.e2e
def test_record_body_is_the_stored_original(indexed, conn):
    sha, content_type = conn.execute(
        "SELECT v.sha256, v.content_type FROM documents d JOIN document_versions v"
        " ON v.version_id = d.current_version_id WHERE d.doc_id = %s",
        (DECANY,),
    ).fetchone()
    body = indexed["store"].get(sha)
    assert hashlib.sha256(body).hexdigest() == sha and content_type.startswith("text/plain")
    assert body.decode().startswith("Obec Děčany – údaje Registru územní identifikace")


def test_czech_wording_helpers():
    assert plural(1, "část obce", "části obce", "částí obce") == "1 část obce"
    assert plural(4, "část obce", "části obce", "částí obce") == "4 části obce"
    assert plural(12345, "adresní místo", "adresní místa", "adresních míst") == "12 345 adresních míst"
    assert worded_date("2026-09-30") == "30. září 2026"
    assert act_type("Nařízení vlády o …") == ("nařízení vlády", "n")
    assert adoption_date("VYHLÁŠKA\nze dne 18. prosince 2025\no změně").isoformat() == "2025-12-18"


def test_streets_go_to_their_own_page():
    """Děčany has no streets in the register, so this municipality is made up here (its parts and counts too)."""
    record = MunicipalityRecord(
        "999999", "Zkušebná", {}, None, streets=["Nádražní", "Husova"], address_points=3, buildings=2
    )
    record.parts["1"] = Part("1", "Zkušebná", address_points=3, buildings=2)
    pages = municipality_pages(record, [{"file": "x.xml.gz", "doc_id": "ruian:x", "url": "u"}])
    assert len(pages) == 2 and "Obec Zkušebná má v registru 2 ulice." in pages[0]
    assert pages[1].endswith("Husova, Nádražní.") and "3 adresní místa" in pages[0]


@pytest.mark.e2e
def test_postgres_backend_documents_carry_the_same_grounding(indexed, conn):
    from serving.ranking.pg_search import PostgresSearcher

    documents = PostgresSearcher._load_documents(conn)
    published = {d["doc_id"]: d for d in bundle.read_documents(bundle.current_bundle(indexed["home"] / "bundles"))}
    for doc_id in (DECANY, METADATA, ATTACHMENT_ID):
        for key in ("doc_type", "record", "record_sources", "notice"):
            assert documents[doc_id].get(key) == published[doc_id].get(key), (doc_id, key)


def test_an_act_stored_only_in_a_later_wording_gets_no_commencement_and_no_original():
    from datetime import date

    from mendel.records.act_metadata import act_metadata_pages

    act = {
        "eli": "/eli/cz/sb/2012/89",
        "citation": "89/2012 Sb.",
        "title": "Zákon občanský zákoník",
        "stale_url": "/sb/2012/89",
        "doc_type": "law_consolidated",
        "adopted": date(2012, 2, 3),
    }
    version = {
        "version": "2025-07-01",
        "stale_url": "/sb/2012/89/2025-07-01",
        "citation": "89/2012 Sb.",
        "title": "Zákon občanský zákoník",
        "version_kind": "AKTUALNI",
        "announced": date(2012, 2, 3),
        "effective_from": date(2025, 7, 1),
        "effective_to": None,
        "version_eli": "/eli/cz/sb/2012/89/2025-07-01",
        "amended_by": [],
        "version_number": None,
        "page_etags": {},
        "published_at": None,
    }
    text = act_metadata_pages(act, [version], [])[0]
    assert "nabyl účinnosti dnem" not in text and "znění č." not in text and "neeviduje" not in text
    assert "Účinnost: nejstarší uložené znění je účinné od 1. července 2025 (1. 7. 2025)" in text
    assert "Novely: uložená znění žádný novelizující předpis neuvádějí." in text
    assert "podle textu předpisu" in text
    # the same wording numbered 1 by e-Sbírka is the original: the act took effect that day, unamended
    numbered = act_metadata_pages(act, [{**version, "version_number": 1}], [])[0]
    assert "zákon nabyl účinnosti dnem 1. července 2025" in numbered and "znění č. 1 (aktuální znění)" in numbered
    assert "e-Sbírka u tohoto předpisu neeviduje žádný novelizující předpis" in numbered
