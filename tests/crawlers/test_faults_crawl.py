"""Fault modes of the local mirror, each run through the real crawl into its own PostgreSQL database: the crawl
completes, and every discovered URL ends in one logged outcome, so ``discovered = stored + unchanged +
quarantined + disallowed`` holds exactly, checked from ``crawl_runs`` / ``crawl_log``
(:func:`mendel.crawl.crawlstate.run_counts`). Plus withdrawn documents: notices that leave a complete OFN feed are marked
withdrawn, and active again when they come back.

One crawl per fault kind, over the smallest slice that exercises it: one day of Nejvyšší soud decisions (two result
pages, three decision pages), obec Blešno (the board crawl over its site's API alone: 13 article listings,
19 PDFs) where a PDF or a JSON listing is needed, the RÚIAN files, two e-Sbírka acts. Each crawl gets a mirror of its own
(fault rules are per mirror instance) and a database schema of its own; the crawls run three at a time, and the
tests then check each. Short timeouts, a small size limit and short retry waits come from the crawl settings'
environment.

Each crawl is ``crawlers.run.main()`` (what ``python -m crawlers.run`` runs under Dagster) in a process of its own,
forked from a launcher that imported the crawler once: the same code path without paying the interpreter and
import start-up (over a second of CPU) for every crawl.
"""

from __future__ import annotations

import html
import json
import re
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psycopg
import psycopg.conninfo
import pytest

from crawlers.spiders.nsoud import decision_title
from mendel.core import db
from mendel.core.config import HTML_BOARDS_FILE, KADAN_FEED_URL, SAMPLE_CORPUS
from mendel.crawl import crawlstate
from mendel.crawl.boards.board import Board
from mendel.crawl.boards.maintained_list import load_html_boards
from mirror.faults import transcode
from mirror.responses import Response
from tests.support.faults import (
    ECLI,
    MAXSIZE,
    NS_A,
    NS_B,
    NS_C,
    NS_DAY,
    PAGE_2,
    SEARCH,
    CrawlLauncher,
    Harness,
    Run,
    Scenario,
    decision,
    logged,
)

pytestmark = pytest.mark.e2e

OUTCOMES = crawlstate.OUTCOMES
BLESNO = {p.name.split("__", 1)[1]: p for p in sorted((SAMPLE_CORPUS / "municipal" / "blesno").glob("*/*.pdf"))}
ARTICLES: dict[str, list[str]] = {}
for _name, _path in BLESNO.items():
    ARTICLES.setdefault(_path.name.split("__", 1)[0], []).append(_name)
KADAN = json.loads((SAMPLE_CORPUS / "municipal" / "kadan_uredni_deska.json").read_text(encoding="utf-8"))
NS_RECORDS = {
    r["ecli"]: r
    for path in sorted((SAMPLE_CORPUS / "courts").glob("ns_decisions*.jsonl"))
    for r in map(json.loads, filter(str.strip, path.read_text(encoding="utf-8").splitlines()))
}
BLESNO_SITE = next(b for b in load_html_boards(str(HTML_BOARDS_FILE)) if b.key == "api:blesno")
KADAN_FEED = Board(key=KADAN_FEED_URL, kind="ofn", url=KADAN_FEED_URL, publisher_ico="00261912")
BLESNO_ONLY = {"boards": [BLESNO_SITE]}  # the board crawl over these boards (Harness.crawl writes the file)


def pdf(name: str) -> str:
    """The mirror path of a Blešno PDF through the site's REST backend (what the spider fetches)."""
    return f"/articles/{article(name)}/assets/{name}"


def article(name: str) -> str:
    return BLESNO[name].name.split("__", 1)[0]


def assets(slug: str) -> str:
    """The path of an article's asset listing."""
    return f"/articles/{slug}/assets"


def blesno_doc(name: str) -> str:
    return f"blesno:{article(name)}/{name}"


SCENARIOS = {
    "5xx_burst": Scenario(
        "nsoud",
        [
            {"kind": "status", "path": decision(NS_A), "times": 2, "status": 503, "retry_after": 0},
            {"kind": "status", "path": decision(NS_B), "status": 500},
            {"kind": "status", "path": SEARCH, "query": PAGE_2, "status": 503},
        ],
        NS_DAY,
        runs=2,
    ),
    "timeout": Scenario(
        "nsoud",
        [
            {"kind": "slow", "path": decision(NS_B), "seconds": 8},
            {"kind": "slow", "path": decision(NS_A), "seconds": 8, "times": 1},
        ],
        {**NS_DAY, "MENDEL_DOWNLOAD_TIMEOUT": "3", "MENDEL_RETRY_TIMES": "1"},
    ),
    "connection_reset": Scenario(
        "nsoud",
        [{"kind": "reset", "path": decision(NS_B)}, {"kind": "reset", "path": decision(NS_A), "times": 1}],
        NS_DAY,
    ),
    "truncated_body": Scenario(
        "nsoud",
        [
            {"kind": "truncate", "path": decision(NS_B), "keep": 0.5},
            {"kind": "truncate", "path": decision(NS_A), "keep": 0.3, "times": 1},
        ],
        NS_DAY,
    ),
    "windows_1250_and_utf_16": Scenario(
        "nsoud",
        [
            {"kind": "transcode", "path": decision(NS_A), "encoding": "windows-1250"},
            {"kind": "transcode", "path": decision(NS_B), "encoding": "utf-16"},
        ],
        NS_DAY,
    ),
    "malformed_pdf": Scenario(
        "boards", [{"kind": "cut", "path": pdf("kanalizacni-rad.pdf"), "keep": 0.4}], BLESNO_ONLY
    ),
    "decompression_bomb": Scenario("nsoud", [{"kind": "gzip_bomb", "path": decision(NS_B), "size": 64 << 20}], NS_DAY),
    "decompression_bomb_file": Scenario(
        "ruian",
        [
            {
                "kind": "gzip_bomb",
                "path": "/vymenny_format/soucasna/*_ST_ZKSH.xml.gz",
                "size": 256 << 20,
                "as_file": True,
            }
        ],
    ),
    "html_error_page_200": Scenario(
        "boards",
        [
            {
                "kind": "error_page",
                "path": pdf(
                    "vr-opatreni-ke-snizeni-energeticke-narocnosti-verejneho-osvetleni-v"
                    "-obci-blesno-oznameni-o-vysledku.pdf"
                ),
            },
            {"kind": "error_page", "path": assets("vymena-ridicskych-prukazu-finisuje")},
        ],
        BLESNO_ONLY,
    ),
    "html_error_page_200_json_api": Scenario(
        "esbirka",
        [{"kind": "error_page", "path": "/esel-esbir-daver/dokumenty-sbirky//sb/2024/87"}],
        {"MENDEL_ESBIRKA_YEARS": "2024,2025", "MENDEL_ESBIRKA_ACTS": "/sb/2024/87,/sb/2025/573"},
    ),
    "robots_disallow": Scenario(
        "boards",
        [],
        BLESNO_ONLY,
        robots=(
            f"User-agent: *\nDisallow: /articles/volby/\nDisallow: {pdf('vzor-smlouvy-o-odvadeni-odpadnich-vod.pdf')}\n"
        ),
    ),
    "redirect_loop": Scenario(
        "nsoud",
        [{"kind": "redirect_loop", "path": decision(NS_B)}, {"kind": "redirect_loop", "path": SEARCH, "query": PAGE_2}],
        NS_DAY,
    ),
    "duplicate_content": Scenario(
        "nsoud", [{"kind": "duplicate", "path": decision(NS_B), "of": decision(NS_A)}], NS_DAY
    ),
    "oversized_file": Scenario(
        "nsoud",
        [
            {"kind": "oversize", "path": decision(NS_B), "size": 6 << 20},
            {"kind": "oversize", "path": decision(NS_C), "size": 6 << 20, "declare_length": False},
        ],
        NS_DAY,
    ),
}
# Withdrawal: a real subset of the Kadaň feed, then the board takes three notices down, then puts them back.
FEED_NOTICES = 12
TAKEN_DOWN = (2, 5, 9)


def run_scenario(launcher: CrawlLauncher, name: str, scenario: Scenario, database_url: str, home: Path) -> Harness:
    harness = Harness(launcher, database_url, home)
    try:
        harness.crawl(scenario.spider, f"{name}-1", scenario.faults, scenario.robots, **scenario.env)
        for n in range(2, scenario.runs + 1):
            harness.crawl(scenario.spider, f"{name}-{n}", (), None, **scenario.env)
    finally:
        harness.close()
    return harness


def write_feed(corpus: Path, notices: list[dict]) -> None:
    feed = {**KADAN, "informace": notices}
    (corpus / "municipal" / "kadan_uredni_deska.json").write_text(
        json.dumps(feed, ensure_ascii=False), encoding="utf-8"
    )


def run_withdrawal(launcher: CrawlLauncher, database_url: str, home: Path) -> Harness:
    corpus = home / "corpus"
    (corpus / "municipal").mkdir(parents=True)
    for entry in SAMPLE_CORPUS.iterdir():
        if entry.is_dir() and entry.name != "municipal":
            (corpus / entry.name).symlink_to(entry)
    (corpus / "municipal" / "blesno").symlink_to(SAMPLE_CORPUS / "municipal" / "blesno")
    notices = KADAN["informace"][:FEED_NOTICES]
    write_feed(corpus, notices)
    harness = Harness(launcher, database_url, home, corpus)
    try:
        boards = [KADAN_FEED, BLESNO_SITE]
        every_night = {"MENDEL_BOARD_REVALIDATE_DAYS": "0"}  # Blešno's article lists read every night
        harness.crawl("boards", "wd-1", boards=boards, **every_night)
        write_feed(corpus, [n for i, n in enumerate(notices) if i not in TAKEN_DOWN])
        # Blešno's index is read only in part this time (one article listing fails): nothing of it is withdrawn.
        harness.crawl(
            "boards", "wd-2", [{"kind": "status", "path": assets("volby"), "status": 404}], boards=boards, **every_night
        )
        write_feed(corpus, notices)
        harness.crawl("boards", "wd-3", boards=boards, **every_night)
    finally:
        harness.close()
    return harness


@pytest.fixture(scope="module")
def fault_runs(pg_server_url, tmp_path_factory) -> dict[str, Harness]:
    """Every scenario crawled, three at a time (separate processes against separate mirrors), each in a schema
    of one database (a database per scenario would cost more than the crawls at the server's shutdown)."""
    database_url = db.create_database(pg_server_url, f"faults_{uuid.uuid4().hex[:8]}")
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")  # shared by every scenario's schema
    launcher = CrawlLauncher()
    try:
        with ThreadPoolExecutor(max_workers=3) as pool:
            futures = {
                "withdrawal": pool.submit(run_withdrawal, launcher, database_url, tmp_path_factory.mktemp("withdrawal"))
            }
            for name, scenario in SCENARIOS.items():
                futures[name] = pool.submit(
                    run_scenario, launcher, name, scenario, database_url, tmp_path_factory.mktemp(name)
                )
            results = {name: future.result() for name, future in futures.items()}
    finally:
        launcher.close()
    print("\nrun: discovered = stored + unchanged + quarantined + disallowed")
    for harness in results.values():
        for run in harness.runs:
            c = run.counts
            print(
                f"  {run.run_id:32s} {c['discovered']:3d} = {c['stored']:3d} + {c['unchanged']:3d}"
                f" + {c['quarantined']:3d} + {c['disallowed']:3d}  reconciled={c['reconciled']}"
                f" withdrawn={c['withdrawn']} reactivated={c['reactivated']} crawl={run.printed['duration_s']}s"
            )
    return results


def reconciled(harness: Harness, run_index: int = 0, **expected) -> Run:
    """The run completed and reconciles exactly, with the expected outcomes; every quarantined URL has a reason
    in crawl_log and a quarantine record; no URL has two outcomes."""
    run = harness.runs[run_index]
    counts, printed = run.counts, run.printed
    assert printed["finish_reason"] == "finished", printed
    assert counts["reconciled"], counts
    assert counts["discovered"] == printed["discovered"] == sum(counts[o] for o in OUTCOMES), (counts, printed)
    assert {o: counts[o] for o in OUTCOMES} == {o: printed[o] for o in OUTCOMES}
    assert {o: counts[o] for o in OUTCOMES} == {o: expected.get(o, 0) for o in OUTCOMES}, counts
    assert counts["discovered"] == len(run.log), "a URL was logged twice"
    with psycopg.connect(harness.database_url) as conn:
        unexplained = conn.execute(
            "SELECT url FROM crawl_log WHERE run_id = %s AND outcome IN ('quarantined', 'disallowed')"
            " AND coalesce(reason, '') = ''",
            (run.run_id,),
        ).fetchall()
        unrecorded = conn.execute(
            "SELECT l.url FROM crawl_log l WHERE l.run_id = %s AND l.outcome = 'quarantined' AND NOT EXISTS"
            " (SELECT 1 FROM quarantine q WHERE q.stage = 'crawl' AND q.url = l.url AND q.reason = l.reason)",
            (run.run_id,),
        ).fetchall()
    assert not unexplained and not unrecorded, (unexplained, unrecorded)
    return run


def requests_for(run: Run, path: str) -> int:
    return sum(1 for _, p, _ in run.requests if p.split("?", 1)[0] == path)


def page_2(run: Run) -> tuple:
    found = [v for p, v in run.log.items() if p.startswith(SEARCH) and "Start=3" in p]
    assert len(found) == 1, run.log
    return found[0]


# ---------------------------------------------------------------- transport faults


def test_5xx_burst_is_retried_and_stored_lasting_errors_are_quarantined(fault_runs):
    h = fault_runs["5xx_burst"]
    # A: two 503s then the page → stored. B: 500 on every try → quarantined. Result page 2: 503 on every try →
    # the listing is quarantined (and C, only on it, is not discovered).
    run = reconciled(h, stored=1, quarantined=2)
    assert run.hits == [2, 3, 3]  # lasting errors: the first try and 2 retries
    assert requests_for(run, decision(NS_A)) == 3
    assert logged(run, decision(NS_B)) == ("quarantined", 500, "HTTP 500 after 2 retries")
    assert page_2(run) == ("quarantined", 503, "listing: HTTP 503 after 2 retries")
    assert set(run.statuses) == {ECLI[NS_A]}
    # The site recovered: the next run stores what failed, and A answers 304.
    again = reconciled(h, 1, stored=2, unchanged=1)
    assert logged(again, decision(NS_A)) == ("unchanged", 304, None)
    assert set(h.documents("nsoud")) == set(ECLI.values())


def test_timeouts_are_retried_then_quarantined(fault_runs):
    h = fault_runs["timeout"]
    run = reconciled(h, stored=2, quarantined=1)
    assert logged(run, decision(NS_B)) == (
        "quarantined",
        None,
        "timeout: no complete answer within 3.0 s after 1 retry",
    )
    assert run.hits == [2, 1]  # B: first try + 1 retry; A: slow once, then served
    assert set(h.documents("nsoud")) == {ECLI[NS_A], ECLI[NS_C]}


def test_connection_resets_are_retried_then_quarantined(fault_runs):
    h = fault_runs["connection_reset"]
    run = reconciled(h, stored=2, quarantined=1)
    outcome, status, reason = logged(run, decision(NS_B))
    assert (outcome, status) == ("quarantined", None)
    assert re.fullmatch(r"connection failed: Connection(Lost|Done) after 2 retries", reason), reason
    assert run.hits[0] >= 3 and run.hits[1] == 1  # Twisted may also re-send once on a reused connection
    assert set(h.documents("nsoud")) == {ECLI[NS_A], ECLI[NS_C]}


def test_truncated_bodies_are_never_stored(fault_runs):
    h = fault_runs["truncated_body"]
    run = reconciled(h, stored=2, quarantined=1)
    assert logged(run, decision(NS_B)) == (
        "quarantined",
        None,
        "truncated body: fewer bytes than its Content-Length after 2 retries",
    )
    docs = h.documents("nsoud")
    assert set(docs) == {ECLI[NS_A], ECLI[NS_C]}
    # A was cut once and served whole on the retry: the whole page is what is stored.
    page = h.store.get(docs[ECLI[NS_A]]["sha256"]).decode("utf-8")
    assert page.rstrip().endswith("</html>")
    assert html.escape(NS_RECORDS[ECLI[NS_A]]["full_text"][-200:], quote=False) in page


def test_oversized_files_are_quarantined(fault_runs):
    h = fault_runs["oversized_file"]
    run = reconciled(h, stored=1, quarantined=2)
    assert logged(run, decision(NS_B)) == (
        "quarantined",
        None,
        f"too large: Content-Length {6 << 20}, over the {MAXSIZE}-byte limit",
    )
    assert logged(run, decision(NS_C)) == (
        "quarantined",
        None,
        f"too large: body kept coming, over the {MAXSIZE}-byte limit",
    )
    assert run.printed["bytes"] < 2 * MAXSIZE  # both downloads were cut off at the limit, not read to the end


def test_decompression_bombs_are_quarantined(fault_runs):
    h = fault_runs["decompression_bomb"]
    run = reconciled(h, stored=2, quarantined=1)
    outcome, _, reason = logged(run, decision(NS_B))
    assert outcome == "quarantined" and reason.startswith("decompression bomb: ")
    assert reason.endswith(f"(limit {MAXSIZE} bytes)")
    assert run.printed["bytes"] < 1 << 20  # 64 MiB of zeros travel as ~64 KiB, and are never expanded past the limit
    # A RÚIAN file that is a bomb itself: read as a stream, rejected at once, never expanded.
    ruian = fault_runs["decompression_bomb_file"]
    run = reconciled(ruian, stored=1, quarantined=1)
    outcome, status, reason = logged(run, "/vymenny_format/soucasna/20140706_ST_ZKSH.xml.gz")
    assert (outcome, status) == ("quarantined", 200) and reason.startswith("not a VFR file: ")
    assert set(ruian.documents("ruian")) == {"ruian:OB_564729_UKSH"}


# ---------------------------------------------------------------- content faults


def test_windows_1250_and_utf_16_pages_are_stored_as_sent_and_read_right(fault_runs):
    from mendel.extract.document import extract_document

    h = fault_runs["windows_1250_and_utf_16"]
    reconciled(h, stored=3)
    docs = h.documents("nsoud")
    assert set(docs) == set(ECLI.values())
    for unid, encoding in ((NS_A, "windows-1250"), (NS_B, "utf-16"), (NS_C, "utf-8")):
        record, doc = NS_RECORDS[ECLI[unid]], docs[ECLI[unid]]
        # Metadata read through the declared charset; the bytes kept are the bytes the site sent.
        assert doc["title"] == decision_title(record["document_type"], record["case_number"])
        raw = h.store.get(doc["sha256"])
        assert raw.startswith(b"\xff\xfe") == (encoding == "utf-16")
        page = raw.decode(encoding)
        assert re.search(rf'<meta charset="{encoding}"', page, re.IGNORECASE)
        # The extract stage reads the stored bytes right (the text starts like the decision's full text).
        pages = extract_document(raw, doc["content_type"], doc["url"]).pages
        text = " ".join(" ".join(p.text for p in pages).split())
        assert " ".join(record["full_text"].split())[:300] in text
    # The mirror's transcoding: the same text, declared in both places, unmappable characters as references.
    sample = transcode(
        Response(body='<meta charset="UTF-8">Nejvyšší − soud'.encode(), content_type="text/html; charset=UTF-8"),
        "windows-1250",
    )
    assert sample.content_type == "text/html; charset=windows-1250"
    assert sample.body == '<meta charset="windows-1250">Nejvyšší &#8722; soud'.encode("windows-1250")


def test_malformed_pdf_is_quarantined_before_storing(fault_runs):
    h = fault_runs["malformed_pdf"]
    # The bytes arrived whole as the server had them, but the PDF has no end: the content check quarantines it.
    run = reconciled(h, stored=18, quarantined=1)
    assert run.log[pdf("kanalizacni-rad.pdf")] == ("quarantined", 200, "content: incomplete PDF: no %%EOF at its end")
    assert blesno_doc("kanalizacni-rad.pdf") not in h.documents("boards")


def test_html_error_pages_sent_with_200_are_quarantined(fault_runs):
    h = fault_runs["html_error_page_200"]
    # One PDF answered by an error page; one article listing (JSON expected) too, hiding its one PDF.
    run = reconciled(h, stored=17, quarantined=2)
    name = "vr-opatreni-ke-snizeni-energeticke-narocnosti-verejneho-osvetleni-v-obci-blesno-oznameni-o-vysledku.pdf"
    assert run.log[pdf(name)] == ("quarantined", 200, "expected a PDF, got text/html")
    outcome, status, reason = run.log[assets("vymena-ridicskych-prukazu-finisuje") + "?type=references"]
    assert (outcome, status) == ("quarantined", 200)
    assert reason.startswith("listing: unparseable (text/html; charset=UTF-8): JSONDecodeError")
    assert run.printed["listing_failed"] == 1
    # The e-Sbírka API answering an act's detail with an HTML page: that act is quarantined, the other stored.
    api = fault_runs["html_error_page_200_json_api"]
    run = reconciled(api, stored=1, quarantined=1)
    outcome, status, reason = run.log["/esel-esbir-daver/dokumenty-sbirky/%2Fsb%2F2024%2F87"]
    assert (outcome, status) == ("quarantined", 200) and "JSONDecodeError" in reason
    assert set(api.documents("esbirka")) == {"/eli/cz/sb/2025/573"}


def test_robots_txt_disallow_is_logged_for_listings_and_documents(fault_runs):
    h = fault_runs["robots_disallow"]
    # The volby listing (and so its 2 PDFs) and one kanalizace PDF are off limits.
    run = reconciled(h, stored=16, disallowed=2)
    assert run.log[assets("volby") + "?type=references"] == ("disallowed", None, "listing: robots.txt")
    assert run.log[pdf("vzor-smlouvy-o-odvadeni-odpadnich-vod.pdf")] == ("disallowed", None, "robots.txt")
    fetched = [p for _, p, _ in run.requests]
    off_limits = ("/articles/volby/", pdf("vzor-smlouvy-o-odvadeni-odpadnich-vod.pdf"))
    assert not [p for p in fetched if p.startswith(off_limits)]


def test_redirect_loops_are_quarantined(fault_runs):
    h = fault_runs["redirect_loop"]
    # B's page and result page 2 (C's only listing) redirect in a circle.
    run = reconciled(h, stored=1, quarantined=2)
    assert logged(run, decision(NS_B)) == ("quarantined", None, "redirect loop: gave up after 10 redirects")
    # A listing is subject to Scrapy's duplicate filter, which drops the loop's first repeat without a word (the
    # LoggingDupeFilter reports it); after a retry (no filter) the redirect limit ends it instead.
    assert page_2(run) in (
        ("quarantined", None, "listing: redirect loop: back to an already fetched URL after 2 redirects"),
        ("quarantined", None, "listing: redirect loop: gave up after 10 redirects"),
    )
    assert requests_for(run, decision(NS_B)) == 11  # the first try and 10 redirects, then given up
    assert set(h.documents("nsoud")) == {ECLI[NS_A]}


def test_duplicate_content_under_two_urls(fault_runs):
    h = fault_runs["duplicate_content"]
    # B's URL serves A's page: the same decision (ECLI) and bytes, so one document, found unchanged the second time.
    run = reconciled(h, stored=2, unchanged=1)
    outcomes = sorted(logged(run, decision(unid))[0] for unid in (NS_A, NS_B))
    assert outcomes == ["stored", "unchanged"]
    docs = h.documents("nsoud")
    assert set(docs) == {ECLI[NS_A], ECLI[NS_C]}
    with psycopg.connect(h.database_url) as conn:
        assert conn.execute("SELECT count(*) FROM document_versions").fetchone()[0] == 2
    blobs = [p for p in (h.home / "raw").rglob("*") if p.is_file() and p.suffix != ".json"]
    assert len(blobs) == 2


# ---------------------------------------------------------------- withdrawn documents


def test_notices_leaving_the_feed_are_withdrawn_and_come_back(fault_runs):
    h = fault_runs["withdrawal"]
    notices = KADAN["informace"][:FEED_NOTICES]
    attachments = {d["url"] for n in notices for d in n.get("dokument", [])}  # not in the corpus: 404
    # The 404s of attachments are quarantined; the 19 Blešno PDFs are stored, then answer 304.
    first = reconciled(h, 0, stored=FEED_NOTICES + len(BLESNO), quarantined=len(attachments))
    assert first.counts["withdrawn"] == 0
    kept = [n for i, n in enumerate(notices) if i not in TAKEN_DOWN]
    kept_attachments = {d["url"] for n in kept for d in n.get("dokument", [])}
    second = reconciled(
        h, 1, unchanged=len(kept) + len(BLESNO) - len(ARTICLES["volby"]), quarantined=len(kept_attachments) + 1
    )
    assert second.counts["withdrawn"] == len(TAKEN_DOWN) and second.counts["reactivated"] == 0
    withdrawn = {d for d, status in second.statuses.items() if status == "withdrawn"}
    # Marked, never deleted; Blešno's documents stay active although volby's two PDFs were not listed (its index
    # was read only in part).
    assert withdrawn == {notices[i]["iri"] for i in TAKEN_DOWN}
    assert set(second.statuses) == set(first.statuses)
    third = reconciled(h, 2, unchanged=FEED_NOTICES + len(BLESNO), quarantined=len(attachments))
    assert third.counts["reactivated"] == len(TAKEN_DOWN) and third.counts["withdrawn"] == 0
    docs = h.documents("boards")
    assert all(doc["status"] == "active" for doc in docs.values()) and len(docs) == FEED_NOTICES + len(BLESNO)
    with psycopg.connect(h.database_url) as conn:
        assert conn.execute("SELECT count(*) FROM document_versions").fetchone()[0] == len(docs)
        listings = dict(conn.execute("SELECT run_id, incomplete_listings FROM crawl_runs"))
    assert listings == {"wd-1": [], "wd-2": [BLESNO_SITE.url], "wd-3": []}
