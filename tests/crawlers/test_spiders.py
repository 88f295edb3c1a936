"""The nsoud, boards (Kadaň's feed and obec Blešno's site) and ruian spiders, each run for real (a Scrapy
subprocess, as Dagster runs it) against the local mirror into a fresh PostgreSQL database; plus their pure helpers."""

from __future__ import annotations

import ast
import html
import json
import os
import subprocess
import sys
from datetime import date, timedelta
from urllib.parse import urlsplit

import psycopg
import pytest

from crawlers.spiders import boards as board_spider
from crawlers.spiders import nsoud
from crawlers.spiders import ruian as ruian_spider
from crawlers.spiders.base import rebase_url
from mendel.core.config import HTML_BOARDS_FILE, KADAN_FEED_URL, PROJECT_ROOT, SAMPLE_CORPUS, Settings
from mendel.core.rawstore import RawStore
from mendel.core.sources import source_envs
from mendel.crawl.boards.board import Board
from mendel.crawl.boards.maintained_list import load_html_boards
from mendel.crawl.boards.register import write_boards_file
from mendel.extract.court_pages import keyword_values, listed_values
from mirror.server import MirrorThread

KADAN = json.loads((SAMPLE_CORPUS / "municipal" / "kadan_uredni_deska.json").read_text(encoding="utf-8"))
BLESNO_PDFS = sorted((SAMPLE_CORPUS / "municipal" / "blesno").glob("*/*.pdf"))
OUTCOMES = ("stored", "unchanged", "quarantined", "disallowed")
KADAN_FEED = Board(key=KADAN_FEED_URL, kind="ofn", url=KADAN_FEED_URL, publisher_ico="00261912")
BLESNO_SITE = next(b for b in load_html_boards(str(HTML_BOARDS_FILE)) if b.key == "api:blesno")


def board_env(home, *boards: Board) -> dict:
    """The board crawl over just these boards, without politeness delays (the benchmark measures those)."""
    return {
        "MENDEL_BOARDS_FILE": str(write_boards_file(list(boards), home / "boards.json")),
        "MENDEL_BOARD_DOWNLOAD_DELAY": "0",
    }


def ns_records() -> dict[str, dict]:
    records = {}
    for path in sorted((SAMPLE_CORPUS / "courts").glob("ns_decisions*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                records[record["ecli"]] = record
    return records


def ns_in_window(date_from: str, date_to: str = "") -> set[str]:
    """The document ids of the mirror's Nejvyšší soud decisions a crawl of this window finds: the ECLI where the
    decision has one, else ``nsoud:{UNID}``."""
    from mirror.courts import load_decisions, search

    query = nsoud.search_query(date_from, date_to)
    return {d.record.get("ecli") or f"nsoud:{d.unid}" for d in search(load_decisions(SAMPLE_CORPUS), query)}


@pytest.fixture
def crawl(tmp_path, fresh_db, mirror, monkeypatch):
    """Run one spider with ``python -m crawlers.run`` (its own process: Twisted's reactor can't restart)."""
    monkeypatch.setenv("MENDEL_HOME", str(tmp_path))
    monkeypatch.setenv("MENDEL_PROFILE", "demo")
    monkeypatch.setenv("MENDEL_MIRROR_URL", mirror.base_url)
    monkeypatch.setenv("MENDEL_DATABASE_URL", fresh_db)
    for name in (
        "MENDEL_NSOUD_FROM",
        "MENDEL_NSOUD_TO",
        "MENDEL_NSOUD_PAGE_SIZE",
        "MENDEL_BOARDS_FILE",
        "MENDEL_RUIAN_OBCE",
        "MENDEL_RUIAN_CHANGES",
        "DAGSTER_PIPES_CONTEXT",
    ):
        monkeypatch.delenv(name, raising=False)

    def run(spider: str, run_id: str, **env) -> dict:
        proc = subprocess.run(
            [sys.executable, "-m", "crawlers.run", spider],
            env={**os.environ, "MENDEL_RUN_ID": run_id, **env},
            capture_output=True,
            text=True,
            cwd=PROJECT_ROOT,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr[-4000:]
        counts = ast.literal_eval(proc.stdout.strip().splitlines()[-1])
        assert counts["finish_reason"] == "finished" and counts["listing_failed"] == 0, counts
        assert counts["discovered"] == sum(counts[o] for o in OUTCOMES), counts
        return counts

    run.database_url = fresh_db
    run.home = tmp_path
    return run


def only(counts: dict, **expected) -> None:
    assert {o: counts[o] for o in OUTCOMES} == {o: expected.get(o, 0) for o in OUTCOMES}, counts


def documents(database_url: str, source: str) -> dict[str, dict]:
    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT d.doc_id, d.url, d.title, d.doc_type, d.citation, d.published, v.content_type, v.sha256"
            " FROM documents d JOIN document_versions v ON v.version_id = d.current_version_id"
            " WHERE d.source = %s",
            (source,),
        ).fetchall()
    keys = ("url", "title", "doc_type", "citation", "published", "content_type", "sha256")
    return {row[0]: dict(zip(keys, row[1:])) for row in rows}


# ---------------------------------------------------------------- crawls against the mirror


@pytest.mark.e2e
def test_nsoud_crawls_every_decision_then_only_304s(crawl):
    window = {"MENDEL_NSOUD_FROM": "2025-01-01", "MENDEL_NSOUD_PAGE_SIZE": "5"}
    expected = ns_in_window("2025-01-01")  # put on the web since, or (no web date) decided since
    records = ns_records()
    assert set(records) < expected and len(expected) == 11 + 24  # the 24 of ns_full decided in 2025
    first = crawl("nsoud", "ns-1", **window)
    only(first, stored=len(expected))
    assert first["discovered"] == len(expected)
    docs = documents(crawl.database_url, "nsoud")
    assert set(docs) == expected
    store = RawStore(crawl.home / "raw")
    for ecli, doc in docs.items():
        if ecli not in records:
            continue
        record = records[ecli]
        kind = record["document_type"].capitalize()
        assert doc["title"] == f"{kind} Nejvyššího soudu sp. zn. {record['case_number']}"
        assert doc["citation"] == record["case_number"]
        assert doc["published"] == date.fromisoformat(record["decision_date"])
        assert doc["doc_type"] == "decision" and doc["content_type"] == "text/html"
        assert doc["url"].endswith(record["url"].split("nsoud.cz", 1)[1])
        page = store.get(doc["sha256"]).decode("utf-8")
        assert html.escape(record["full_text"], quote=False) in page
    assert docs["ECLI:CZ:NS:2024:29.ND.461.2024.1"]["title"] == "Usnesení Nejvyššího soudu sp. zn. 29 Nd 461/2024"

    again = crawl("nsoud", "ns-2", **window)
    only(again, unchanged=len(expected))


def listing_covered_to(database_url: str):
    with psycopg.connect(database_url) as conn:
        row = conn.execute("SELECT covered_to FROM listing_windows WHERE source = 'nsoud'").fetchone()
    return row[0] if row else None


@pytest.mark.e2e
def test_nsoud_searches_from_the_last_complete_search_minus_the_look_back(crawl, monkeypatch):
    """A night without a window of its own searches from the last complete search minus 14 days; a night whose
    search failed on a result page does not move that on, and the next night finds what was published since."""
    with psycopg.connect(crawl.database_url, autocommit=True) as conn:
        conn.execute("INSERT INTO listing_windows (source, covered_to) VALUES ('nsoud', '2026-06-10')")
    page_2_fails = [{"kind": "status", "path": f"{nsoud.NSF}/$$WebSearch1", "query": "*&Start=3&*", "status": 503}]
    with MirrorThread(SAMPLE_CORPUS, faults=page_2_fails) as failing:
        proc = subprocess.run(
            [sys.executable, "-m", "crawlers.run", "nsoud"],
            env={
                **os.environ,
                "MENDEL_RUN_ID": "inc-failed",
                "MENDEL_MIRROR_URL": failing.base_url,
                "MENDEL_NSOUD_PAGE_SIZE": "2",
                "MENDEL_RETRY_TIMES": "0",
            },
            capture_output=True,
            text=True,
            cwd=PROJECT_ROOT,
            timeout=300,
        )
    assert proc.returncode == 0, proc.stderr[-4000:]
    failed = ast.literal_eval(proc.stdout.strip().splitlines()[-1])
    assert failed["listing_from"] == "2026-05-27" and failed["listing_failed"] == 1, failed
    assert "listing_covered_to" not in failed and listing_covered_to(crawl.database_url) == date(2026, 6, 10)

    published = ns_in_window("2026-05-27")  # the 2026-06-03 day among them
    assert {e for e, r in ns_records().items() if r["publication_date"] == "2026-06-03"} < published
    night = crawl("nsoud", "inc-1", MENDEL_NSOUD_PAGE_SIZE="2")
    assert night["listing_from"] == "2026-05-27" and night["discovered"] == len(published)
    assert set(documents(crawl.database_url, "nsoud")) == published
    today = date.today()
    assert night["listing_covered_to"] == today.isoformat() and listing_covered_to(crawl.database_url) == today

    since = (today - timedelta(days=14)).isoformat()
    following = crawl("nsoud", "inc-2", MENDEL_NSOUD_PAGE_SIZE="2")
    assert following["listing_from"] == since and following["discovered"] == len(ns_in_window(since))
    assert following["discovered"] < len(published)


@pytest.mark.e2e
def test_nsoud_asks_for_the_publication_date_range(crawl):
    counts = crawl("nsoud", "ns-range", MENDEL_NSOUD_FROM="2026-06-03", MENDEL_NSOUD_TO="2026-06-03")
    only(counts, stored=3)
    expected = {e for e, r in ns_records().items() if r["publication_date"] == "2026-06-03"}
    assert set(documents(crawl.database_url, "nsoud")) == expected


@pytest.mark.e2e
def test_boards_crawl_the_kadan_feed_and_blesno_then_store_nothing_new(crawl):
    env = board_env(crawl.home, KADAN_FEED, BLESNO_SITE)
    first = crawl("boards", "mu-1", **env)
    attachments = {d["url"] for n in KADAN["informace"] for d in n.get("dokument", [])}
    # 87 notices + 19 Blešno PDFs stored; the feed's 93 attachments are not in the corpus: 404 → quarantined.
    only(first, stored=len(KADAN["informace"]) + len(BLESNO_PDFS), quarantined=len(attachments))
    assert (first["boards_ofn"], first["boards_article_api"], first["boards_notices_stored"]) == (
        1,
        1,
        len(KADAN["informace"]),
    )
    docs = documents(crawl.database_url, "boards")
    store = RawStore(crawl.home / "raw")

    notices = {n["iri"]: n for n in KADAN["informace"]}
    assert {d for d, doc in docs.items() if doc["doc_type"] == "notice"} == set(notices)
    first_notice = KADAN["informace"][0]
    doc = docs[first_notice["iri"]]
    assert doc["title"] == first_notice["název"]["cs"]
    assert doc["published"] == date.fromisoformat(first_notice["vyvěšení"]["datum"])
    assert doc["citation"] == "ODPK-24340/2020/Slu" and doc["content_type"] == "application/ld+json"
    assert doc["url"] == first_notice["url"]
    stored = json.loads(store.get(doc["sha256"]))
    assert stored == {"@context": KADAN["@context"], **first_notice}
    for iri, notice in notices.items():
        assert docs[iri]["title"] == notice["název"]["cs"]
        assert docs[iri]["published"] == date.fromisoformat(notice["vyvěšení"]["datum"])

    blesno = {d: doc for d, doc in docs.items() if d.startswith("blesno:")}
    expected = {"blesno:{}/{}".format(*p.name.split("__", 1)) for p in BLESNO_PDFS}
    assert set(blesno) == expected
    for pdf in BLESNO_PDFS:
        slug, name = pdf.name.split("__", 1)
        doc = blesno[f"blesno:{slug}/{name}"]
        assert doc["content_type"] == "application/pdf" and doc["doc_type"] == "municipal_document"
        assert store.get(doc["sha256"]) == pdf.read_bytes()
        assert doc["url"].endswith(f"/articles/{slug}/assets/{name}")
    # the site names a file only by its file name: that, not a title built from it
    assert blesno["blesno:kanalizace/kanalizacni-rad.pdf"]["title"] == "kanalizacni-rad.pdf (Obec Blešno)"

    with psycopg.connect(crawl.database_url) as conn:
        failed = {
            url
            for (url,) in conn.execute(
                "SELECT url FROM crawl_log WHERE run_id = 'mu-1' AND outcome = 'quarantined' AND status = 404"
            )
        }
    # Each attachment was asked for at its real path on the mirror (and the mirror has none of them).
    assert {urlsplit(u).path for u in failed} == {urlsplit(u).path for u in attachments}

    def unchanged_by_status(run_id: str) -> dict:
        with psycopg.connect(crawl.database_url) as conn:
            assert conn.execute("SELECT count(*) FROM document_versions").fetchone()[0] == len(docs)
            return {
                (status, why): n
                for status, why, n in conn.execute(
                    "SELECT status, split_part(coalesce(reason, ''), ':', 1), count(*) FROM crawl_log"
                    " WHERE run_id = %s AND outcome = 'unchanged' GROUP BY 1, 2",
                    (run_id,),
                )
            }

    # The next night: the Blešno articles' asset lists and PDFs answered yesterday are not due (not asked for: logged
    # unchanged without a status, the reason saying so); the notices come from the re-read feed and are unchanged by
    # hash.
    articles = len({p.name.split("__", 1)[0] for p in BLESNO_PDFS})
    again = crawl("boards", "mu-2", **env)
    only(again, unchanged=len(KADAN["informace"]) + articles + len(BLESNO_PDFS), quarantined=len(attachments))
    assert unchanged_by_status("mu-2") == {
        (None, "not due"): articles + len(BLESNO_PDFS),
        (200, ""): len(KADAN["informace"]),
    }
    # Once due (here: every run), they are asked for again, conditionally: 304.
    due = crawl("boards", "mu-3", **env, MENDEL_BOARD_REVALIDATE_DAYS="0")
    only(due, unchanged=len(KADAN["informace"]) + len(BLESNO_PDFS), quarantined=len(attachments))
    assert unchanged_by_status("mu-3") == {(304, ""): len(BLESNO_PDFS), (200, ""): len(KADAN["informace"])}


@pytest.mark.e2e
def test_ruian_crawls_the_vfr_files_then_only_304s(crawl):
    only(crawl("ruian", "ru-1"), stored=2)
    docs = documents(crawl.database_url, "ruian")
    assert set(docs) == {"ruian:OB_564729_UKSH", "ruian:20140706_ST_ZKSH"}
    full = docs["ruian:OB_564729_UKSH"]
    assert full["title"] == "RÚIAN výměnný formát: obec Děčany (564729), úplná data k 2014-03-31"
    assert full["published"] == date(2014, 3, 31) and full["doc_type"] == "ruian_vfr"
    assert full["url"].endswith("/vymenny_format/soucasna/20140331_OB_564729_UKSH.xml.gz")
    store = RawStore(crawl.home / "raw")
    assert store.get(full["sha256"]) == (SAMPLE_CORPUS / "cuzk" / "ruian" / "OB_UKSH.xml.gz").read_bytes()
    assert docs["ruian:20140706_ST_ZKSH"]["published"] == date(2014, 7, 6)
    only(crawl("ruian", "ru-2"), unchanged=2)


ROBOTS = (
    "User-agent: *\n"
    "Disallow: /Judikatura/judikatura_ns.nsf/WebSearch/0A\n"
    "Disallow: /articles/kanalizace/assets/\n"
    "Disallow: /vymenny_format/soucasna/20140706_ST_ZKSH\n"
)


@pytest.mark.e2e
def test_robots_txt_disallow_is_obeyed_and_logged(crawl, monkeypatch):
    with MirrorThread(SAMPLE_CORPUS, robots_txt=ROBOTS) as strict:
        monkeypatch.setenv("MENDEL_MIRROR_URL", strict.base_url)
        published_2026 = ns_in_window("2026-01-01")
        blocked_ns = {e for e, r in ns_records().items() if "/WebSearch/0A" in r["url"] and e in published_2026}
        only(
            crawl("nsoud", "rb-ns", MENDEL_NSOUD_FROM="2026-01-01"),
            stored=len(published_2026) - len(blocked_ns),
            disallowed=len(blocked_ns),
        )
        only(crawl("ruian", "rb-ru"), stored=1, disallowed=1)
        kanalizace = [p for p in BLESNO_PDFS if p.name.startswith("kanalizace__")]
        attachments = {d["url"] for n in KADAN["informace"] for d in n.get("dokument", [])}
        only(
            crawl("boards", "rb-mu", **board_env(crawl.home, KADAN_FEED, BLESNO_SITE)),
            stored=len(KADAN["informace"]) + len(BLESNO_PDFS) - len(kanalizace),
            disallowed=len(kanalizace),
            quarantined=len(attachments),
        )
        fetched = [path for _, path, _ in strict.request_log]
    assert not [
        p
        for p in fetched
        if p.startswith(
            (
                "/Judikatura/judikatura_ns.nsf/WebSearch/0A",
                "/articles/kanalizace/assets/",
                "/vymenny_format/soucasna/2014070",
            )
        )
    ]
    docs = documents(crawl.database_url, "nsoud")
    assert blocked_ns and not blocked_ns & set(docs) and len(docs) == len(published_2026) - len(blocked_ns)
    with psycopg.connect(crawl.database_url) as conn:
        reasons = {r for (r,) in conn.execute("SELECT DISTINCT reason FROM crawl_log WHERE outcome = 'disallowed'")}
    assert reasons == {"robots.txt"}


# ---------------------------------------------------------------- pure helpers


def test_rebase_url_keeps_path_and_query():
    assert (
        rebase_url("https://www.mesto-kadan.cz/filemanager/files/895830.pdf", "http://127.0.0.1:8765")
        == "http://127.0.0.1:8765/filemanager/files/895830.pdf"
    )
    assert rebase_url("https://x.cz/a/b?c=1&d=%C3%A9#frag", "http://m:1/") == "http://m:1/a/b?c=1&d=%C3%A9"
    assert rebase_url("https://x.cz/a", None) == "https://x.cz/a"
    assert rebase_url("/relative/path", "http://m:1") == "/relative/path"


def test_nsoud_query_and_page_helpers():
    assert nsoud.domino_date("2025-01-20") == "20/01/2025"
    assert (
        nsoud.search_query("2025-01-20") == "([datum_predani_na_web]>=20/01/2025) OR ([datum_rozhodnuti]>=20/01/2025)"
    )
    assert nsoud.search_query("2025-01-20", "2025-02-01") == (
        "([datum_predani_na_web]>=20/01/2025 AND [datum_predani_na_web]<=01/02/2025)"
        " OR ([datum_rozhodnuti]>=20/01/2025 AND [datum_rozhodnuti]<=01/02/2025)"
    )
    url = nsoud.search_url("https://rozhodnuti.nsoud.cz", "[datum_predani_na_web]>=20/01/2025", 21, 20)
    assert url == (
        "https://rozhodnuti.nsoud.cz/Judikatura/judikatura_ns.nsf/$$WebSearch1?SearchView&Query="
        "%5Bdatum_predani_na_web%5D%3E%3D20%2F01%2F2025&SearchMax=1000&SearchOrder=4&Start=21&Count=20&pohled=1"
    )
    assert nsoud.decision_title("USNESENÍ", "29 NSČR 123/2024") == "Usnesení Nejvyššího soudu sp. zn. 29 NSČR 123/2024"
    assert nsoud.decision_title("rozsudek", "20 Ncu 48/2026") == "Rozsudek Nejvyššího soudu sp. zn. 20 Ncu 48/2026"
    assert nsoud.decision_title(None, "3 Tdo 1/2026") == "Rozhodnutí Nejvyššího soudu sp. zn. 3 Tdo 1/2026"
    assert (
        nsoud.decision_title("ROZSUDEK", "6 To 72/2009", "Vrchní soud v Olomouci")
        == "Rozsudek (Vrchní soud v Olomouci) sp. zn. 6 To 72/2009"
    )
    assert listed_values("§ 36 odst. 2 tr. ř., § 216 tr. ř.") == ["§ 36 odst. 2 tr. ř.", "§ 216 tr. ř."]
    assert listed_values("§ 2758 odst. 2 o. z.\n§ 556 o. z.") == ["§ 2758 odst. 2 o. z.", "§ 556 o. z."]
    assert listed_values("§ 1 odst. 1, 2 předpisu č. 119/1990Sb.") == ["§ 1 odst. 1, 2 předpisu č. 119/1990Sb."]
    assert keyword_values("Forma (o. z.) [ Právní jednání (o. z.), X ], Pojištění") == [
        "Forma (o. z.) [ Právní jednání (o. z.), X ]",
        "Pojištění",
    ]


def test_notice_document_from_an_ofn_feed():
    feed = {
        "@context": "ctx",
        "iri": "https://obec.cz/deska",
        "stránka": "https://obec.cz/ud",
        "provozovatel": {"typ": "Osoba", "ičo": "00261912"},
        "informace": [],
    }
    notice = {
        "iri": "https://obec.cz/deska/1",
        "url": "https://obec.cz/ud/1",
        "název": {"cs": "Oznámení"},
        "vyvěšení": {"typ": "Časový okamžik", "datum": "2024-05-01"},
        "relevantní_do": {"typ": "Časový okamžik", "nespecifikovaný": True},
        "číslo_jednací": "MUKK/1/2024",
        "dokument": [{"název": {"cs": "Příloha"}, "url": "https://obec.cz/a.pdf"}, {"název": {"cs": "bez url"}}],
    }
    doc = board_spider.notice_document(feed, notice, 0, "https://obec.cz/feed.json")
    assert doc["doc_id"] == "https://obec.cz/deska/1" and doc["url"] == "https://obec.cz/ud/1"
    assert json.loads(doc["body"]) == {"@context": "ctx", **notice}
    assert doc["title"] == "Oznámení" and doc["published"] == "2024-05-01" and doc["citation"] == "MUKK/1/2024"
    assert doc["attachments"] == [{"url": "https://obec.cz/a.pdf", "name": "Příloha"}]
    assert doc["extra"]["publisher_ico"] == "00261912" and doc["extra"]["relevant_until"] is None

    bare = board_spider.notice_document({"informace": []}, {"název": {"cs": "X"}}, 7, "https://obec.cz/feed.json")
    assert bare["doc_id"] == "https://obec.cz/feed.json#7" and bare["url"] == bare["doc_id"]
    assert json.loads(bare["body"]) == {"název": {"cs": "X"}} and bare["published"] is None
    # The same notice always serialises to the same bytes (unchanged by hash on a re-run).
    assert board_spider.notice_document(feed, notice, 0, "f")["body"] == doc["body"]


def test_board_value_helpers():
    assert board_spider.czech_text({"cs": " Text "}) == "Text"
    assert board_spider.czech_text({"en": "Only English"}) == "Only English"
    assert board_spider.czech_text({"cs": ""}) is None and board_spider.czech_text(None) is None
    assert board_spider.sniff_document_type(b"%PDF-1.4 ...", "application/pdf") == "application/pdf"
    assert board_spider.sniff_document_type(b"%PDF-1.4 ...", "application/octet-stream") == "application/pdf"
    assert board_spider.sniff_document_type(b"PK\x03\x04...", "").startswith("application/vnd.openxmlformats")
    assert board_spider.sniff_document_type(b"<!DOCTYPE html><html>Not found</html>", "text/html") is None
    assert board_spider.sniff_document_type(b"<html>soft 404</html>", "application/pdf") is None


def test_ruian_link_lists_and_titles():
    url = ruian_spider.link_list_url("https://vdp.cuzk.gov.cz", obec="564729")
    assert url.startswith("https://vdp.cuzk.gov.cz/vdp/ruian/vymennyformat/seznamlinku?vf.pu=S&")
    assert "vf.cr=U&vf.up=OB&vf.ds=K" in url and url.endswith("vf.uo=O&ob.kod=564729")
    assert ruian_spider.link_list_url("https://h", obec="*").endswith("vf.uo=A")
    changes = ruian_spider.link_list_url("https://h", changes=True)
    assert "vf.cr=Z&vf.up=ST&vf.ds=K" in changes and "ob.kod" not in changes
    header = {"TypSouboru": "ST_ZKSH", "TypDavky": "Prirustek", "Datum": "2014-07-07T00:00:01"}
    assert (
        ruian_spider.vfr_title(header, "20140706_ST_ZKSH.xml.gz")
        == "RÚIAN výměnný formát: celý stát, změnová data k 2014-07-06"
    )


def test_settings_for_the_new_sources(monkeypatch):
    for name in source_envs():
        monkeypatch.delenv(name, raising=False)
    demo = Settings(profile="demo", mirror_url="http://127.0.0.1:8765/")
    assert demo.window("nsoud") == ("1993-01-01", "")  # the whole bundled sample, 1999–2026
    # The board crawl reaches the mirror through the demo profile's settings (crawlers.demo), not an argument.
    assert "rebase" not in board_spider.BoardsSpider.arguments(demo)
    assert ruian_spider.RuianSpider.arguments(demo)["rebase"] == "http://127.0.0.1:8765"
    assert demo.rebase_origin() == "http://127.0.0.1:8765"
    assert demo.option("ruian", "obce") == ("564729",) and demo.option("ruian", "changes") is True
    assert demo.option("nsoud", "page_size") == 20
    production = Settings(profile="production")
    assert production.window("nsoud", today=date(2026, 11, 29)) == ("2026-11-15", "")
    assert production.window("nalus", today=date(2026, 11, 29)) == ("2026-09-30", "")
    assert ruian_spider.RuianSpider.arguments(production)["rebase"] == "" and production.rebase_origin() is None
    monkeypatch.setenv("MENDEL_NSOUD_FROM", "2025-01-01")
    monkeypatch.setenv("MENDEL_NSOUD_TO", "2025-01-31")
    monkeypatch.setenv("MENDEL_BOARD_MAX_ATTACHMENTS", "3")
    monkeypatch.setenv("MENDEL_RUIAN_OBCE", "554782,564729")
    monkeypatch.setenv("MENDEL_RUIAN_CHANGES", "0")
    custom = Settings(profile="production")
    assert custom.window("nsoud") == ("2025-01-01", "2025-01-31")
    assert board_spider.BoardsSpider.arguments(custom)["max_attachments"] == "3"
    assert custom.option("ruian", "obce") == ("554782", "564729") and custom.option("ruian", "changes") is False


def test_nsoud_searches_incrementally_unless_its_window_or_the_whole_listing_is_asked_for(monkeypatch):
    for name in source_envs():
        monkeypatch.delenv(name, raising=False)

    def spider(**env):
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        arguments = nsoud.NsoudSpider.arguments(Settings(profile="demo", mirror_url="http://127.0.0.1:8765/"))
        return nsoud.NsoudSpider(**arguments)

    assert spider().incremental is True
    assert spider(MENDEL_NSOUD_WHOLE="1").incremental is False
    monkeypatch.delenv("MENDEL_NSOUD_WHOLE")
    assert spider(MENDEL_NSOUD_FROM="2026-01-01").incremental is False  # a window set by hand or a backfill
    monkeypatch.delenv("MENDEL_NSOUD_FROM")
    assert spider(MENDEL_NSOUD_TO="2026-01-31").incremental is False  # a closed window is read as set


def test_every_spider_is_wired_into_run(monkeypatch):
    from crawlers import run

    monkeypatch.setenv("MENDEL_PROFILE", "demo")
    monkeypatch.setenv("MENDEL_MIRROR_URL", "http://127.0.0.1:8765")
    for name in source_envs():
        monkeypatch.delenv(name, raising=False)
    assert set(run.SPIDERS) == {"esbirka", "nsoud", "ruian", "nalus", "nssoud", "justice", "cnb", "boards"}
    assert run.spider_arguments("nsoud") == {
        "base_url": "http://127.0.0.1:8765",
        "date_from": "1993-01-01",
        "date_to": "",
        "page_size": 20,
        "whole_listing": False,
        "incremental": True,
    }
    assert run.spider_arguments("ruian") == {
        "base_url": "http://127.0.0.1:8765",
        "obce": "564729",
        "changes": True,
        "rebase": "http://127.0.0.1:8765",
    }
    assert run.spider_arguments("boards") == {
        "boards_file": "",
        "max_attachments": "",
        "host_budget": 200,
        "revalidate_days": 7,
    }
    assert run.spider_arguments("justice") == {
        "base_url": "http://127.0.0.1:8765",
        "date_from": "2025-09-15",
        "date_to": "2025-09-30",
        "lag_days": 14,
        "reread": False,
    }
    for name, spider in run.SPIDERS.items():
        assert spider.name == name and spider.source
