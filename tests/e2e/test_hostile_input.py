"""Hostile input from the web and from API clients: it is stored or refused, never executed, and never takes a
request anywhere it should not go.

- A hostile OFN notice board (quotes, ``'); DROP TABLE documents; --``, Cypher fragments, a NUL byte, a 1 MB
  string, path-traversal attachment names), served by the local mirror from a temporary copy of the municipal
  layout, goes through the real crawl (Scrapy subprocess), extraction, chunking, NER, the graph build, a
  bundle, the Neo4j export (a real ArcadeDB Bolt server) and the HTTP API; afterwards every table is still there
  and every hostile string reads back unchanged.
- The production host guard, directly on real Scrapy requests and redirect responses, and end to end: a crawl in
  the production profile through an HTTP proxy that records every request, where allowed pages redirect to
  loopback, link-local and private addresses.
- The raw store keeps bodies under their digest only; every SQL statement in the code base is a constant.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import threading
import uuid
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace
from urllib.parse import quote, urlencode, urlsplit

import psycopg
import pytest
from scrapy import Request
from scrapy.downloadermiddlewares.redirect import RedirectMiddleware
from scrapy.exceptions import IgnoreRequest
from scrapy.http import Response
from scrapy.utils.test import get_crawler

from crawlers.middlewares import HostGuardMiddleware
from crawlers.spiders.boards import BoardsSpider
from mendel.core import db
from mendel.core.config import KADAN_FEED_URL, PROJECT_ROOT, SAMPLE_CORPUS
from mendel.core.rawstore import RawStore
from mendel.crawl.boards.register import Board, write_boards_file
from mirror.server import MirrorThread
from tests.support.crash_resume import register_stand_in

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

SQL = "'); DROP TABLE documents; --"
SQL_QUOTES = 'Robert\'); DROP TABLE chunks;-- "quoted" \\back\\slash `tick` $1 %s %(x)s ;'
CYPHER = '"}) DETACH DELETE n //'
CYPHER_2 = "'}) MATCH (n) DETACH DELETE n RETURN 1 AS c //"
NUL = "Oznámení\x00 s NUL bajtem"
# 1 MB: hostile text, then a megabyte of no-break spaces the extraction collapses (dense text would only make
# the run slower: the NER cost per character is what bench_ner.py measures).
BIG = SQL + " Žluťoučký kůň " + "\u00a0" * 1_000_000 + " konec"
HOSTILE_IRI = f"https://www.mesto-kadan.cz/zdroj/uredni-deska/informace/{SQL}"
TRAVERSAL = [
    "https://www.mesto-kadan.cz/filemanager/files/../../../../etc/passwd",
    "https://www.mesto-kadan.cz/files/..%2F..%2F..%2Fescape.pdf",
]
TABLES = (
    "documents",
    "document_versions",
    "pages",
    "sections",
    "chunks",
    "entities",
    "mentions",
    "crawl_log",
    "quarantine",
    "query_log",
    "schema_migrations",
)


def _notice(number: int, title: str, description: str = "", iri: str | None = None, attachments=()) -> dict:
    return {
        "typ": ["Digitální objekt", "Informace na úřední desce"],
        "iri": iri or f"https://www.mesto-kadan.cz/zdroj/uredni-deska/informace/{number}",
        "url": f"https://www.mesto-kadan.cz/uredni-deska/{number}",
        "název": {"cs": title},
        "popis": {"cs": description},
        "vyvěšení": {"typ": "Časový okamžik", "datum": "2024-05-01"},
        "číslo_jednací": f"ČJ-{number}/2024 {SQL}",
        "dokument": [
            {"typ": "Digitální objekt", "název": {"cs": f"příloha {i}"}, "url": url}
            for i, url in enumerate(attachments)
        ],
    }


NOTICES = {  # doc_id -> the notice; titles are what must read back unchanged
    "sql": _notice(1, SQL, f"Podle § 5 zákona č. 128/2000 Sb. {SQL}"),
    "quotes": _notice(2, SQL_QUOTES, f"Nejvyšší soud {SQL_QUOTES}"),
    "cypher": _notice(3, CYPHER, f"{CYPHER_2} podle § 2 zákona č. 89/2012 Sb."),
    "big": _notice(4, "Velké oznámení", BIG),
    "iri": _notice(5, f"iri {SQL}", iri=HOSTILE_IRI),
    "files": _notice(6, "Přílohy s cestou ven", attachments=TRAVERSAL),
}
NUL_NOTICE = _notice(7, NUL, NUL)


def _doc_id(notice: dict) -> str:
    return notice["iri"]


# --- the hostile crawl, once for the module ------------------------------------------------------------------


@pytest.fixture(scope="module")
def crawled(tmp_path_factory, pg_server_url):
    """The board crawl over a mirror whose Kadaň feed is the hostile board, then every later stage."""
    from mendel.nightly import chunk_stage, embed_stage, extract_stage, index_stage, publish_stage, recognise_stage

    corpus = tmp_path_factory.mktemp("hostile-corpus")
    (corpus / "municipal").mkdir()
    feed = {
        "@context": "https://ofn.gov.cz/úřední-desky/2021-07-20/kontexty/úřední-deska.jsonld",
        "typ": "Úřední deska",
        "iri": "https://www.mesto-kadan.cz/zdroj/uredni-deska",
        "informace": [*NOTICES.values(), NUL_NOTICE],
    }
    (corpus / "municipal" / "kadan_uredni_deska.json").write_text(
        json.dumps(feed, ensure_ascii=False), encoding="utf-8"
    )
    home = tmp_path_factory.mktemp("hostile-home")
    database_url = db.create_database(pg_server_url, f"hostile_{uuid.uuid4().hex[:10]}")
    db.migrate(database_url)
    run_id = f"hostile-{uuid.uuid4().hex[:8]}"
    with MirrorThread(corpus) as mirror:
        boards = write_boards_file([Board(key=KADAN_FEED_URL, kind="ofn", url=KADAN_FEED_URL)], home / "boards.json")
        env = dict(
            os.environ,
            MENDEL_HOME=str(home),
            MENDEL_PROFILE="demo",
            MENDEL_DATABASE_URL=database_url,
            MENDEL_MIRROR_URL=mirror.base_url,
            MENDEL_RUN_ID=run_id,
            MENDEL_SOURCES="boards",
            MENDEL_BOARDS_FILE=str(boards),
            MENDEL_BOARD_DOWNLOAD_DELAY="0",
            PYTHONPATH=str(PROJECT_ROOT),
        )
        crawl = subprocess.run(
            [sys.executable, "-m", "crawlers.run", "boards"],
            env=env,
            cwd=PROJECT_ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert crawl.returncode == 0, crawl.stderr[-4000:]
    embedder = register_stand_in()
    build = home / "build"
    with psycopg.connect(database_url, autocommit=True) as conn:
        stages = {
            "extract": extract_stage.extract_pending(conn, RawStore(home / "raw")),
            "chunk": chunk_stage.chunk_pending(conn),
            "ner": recognise_stage.recognise_pending(conn),
            "embed": embed_stage.embed_pending(conn, embedder),
            "bm25": index_stage.build_bm25(conn, build / "bm25"),
            "faiss": index_stage.build_faiss(conn, build / "dense"),
            "graph": index_stage.build_graph(conn, build / "graph"),
        }
        stages["bundle"] = publish_stage.publish_bundle(conn, build, home / "bundles", model=embedder.name)
    return SimpleNamespace(
        home=home,
        corpus=corpus,
        database_url=database_url,
        run_id=run_id,
        stages=stages,
        embedder=embedder,
        crawl_log=crawl.stderr,
    )


def rows(crawled, sql: str, *params) -> list[tuple]:
    with psycopg.connect(crawled.database_url) as conn:
        return conn.execute(sql, params).fetchall()


def assert_tables_intact(database_url: str) -> None:
    with psycopg.connect(database_url) as conn:
        for table in TABLES:
            assert conn.execute("SELECT to_regclass(%s)", (table,)).fetchone()[0] == table, table
        assert conn.execute("SELECT count(*) FROM documents").fetchone()[0] >= len(NOTICES)


@pytest.mark.e2e
def test_hostile_notices_are_stored_verbatim(crawled):
    titles = dict(rows(crawled, "SELECT doc_id, title FROM documents WHERE doc_type = 'notice'"))
    for notice in NOTICES.values():
        assert titles[_doc_id(notice)] == notice["název"]["cs"]  # read back unchanged, nothing executed
    citations = {c for (c,) in rows(crawled, "SELECT citation FROM documents WHERE doc_type = 'notice'")}
    assert f"ČJ-1/2024 {SQL}" in citations
    assert_tables_intact(crawled.database_url)
    # every notice stored once, every attachment fetched and refused by the mirror: each with one outcome
    outcomes = rows(crawled, "SELECT url, outcome FROM crawl_log WHERE run_id = %s", crawled.run_id)
    stored = [u for u, o in outcomes if o == "stored"]
    assert len(stored) == len(set(stored)) >= len(NOTICES)
    assert sum(1 for u, o in outcomes if "passwd" in u or "escape.pdf" in u) == len(TRAVERSAL)


@pytest.mark.e2e
def test_nul_bytes_are_stripped_or_refused_with_a_reason(crawled):
    doc_id = _doc_id(NUL_NOTICE)
    stored = rows(crawled, "SELECT title FROM documents WHERE doc_id = %s", doc_id)
    refused = rows(
        crawled,
        "SELECT reason FROM crawl_log WHERE run_id = %s AND outcome = 'quarantined' AND reason ILIKE '%%NUL%%'",
        crawled.run_id,
    )
    assert stored == [(NUL.replace("\x00", ""),)] or refused, crawled.crawl_log[-3000:]


@pytest.mark.e2e
def test_file_names_from_the_web_stay_out_of_the_filesystem(crawled):
    raw = (crawled.home / "raw").resolve()
    for path in crawled.home.rglob("*"):
        assert path.name not in ("passwd", "escape.pdf")
        if path.is_file() and raw in path.resolve().parents:
            # only digests and their metadata: <aa>/<bb>/<64 hex>[.json]
            assert path.stem == path.name.removesuffix(".json") and len(path.stem) == 64
    for path in crawled.corpus.parent.rglob("*"):
        assert path.name not in ("passwd", "escape.pdf")
    # the stored notice bodies are the notices, hostile strings and all
    store = RawStore(crawled.home / "raw")
    bodies = {}
    for doc_id, sha256 in rows(
        crawled,
        "SELECT d.doc_id, v.sha256 FROM documents d JOIN document_versions v ON v.version_id = d.current_version_id",
    ):
        bodies[doc_id] = json.loads(store.get(sha256))
    for notice in NOTICES.values():
        assert bodies[_doc_id(notice)]["popis"] == notice["popis"]


@pytest.mark.parametrize(
    "digest",
    [
        "../../../../etc/passwd",
        "..",
        "/etc/passwd",
        "a" * 63 + "/",
        "A" * 64,
        "0" * 63 + "\x00",
        "../" + "0" * 61,
        None,
    ],
)
def test_raw_store_paths_come_only_from_digests(tmp_path, digest):
    store = RawStore(tmp_path / "raw")
    with pytest.raises(ValueError, match="sha256"):
        store.path_for(digest)


def test_raw_store_meta_from_the_web_is_inert(tmp_path):
    store = RawStore(tmp_path / "raw")
    meta = {
        "url": "https://x.example/../../../../etc/passwd\x00.pdf",
        "title": "\ud800 lone surrogate " + SQL,
        "content_type": "application/pdf",
    }
    blob = store.put(b"%PDF-1.4 hostile", meta=meta)
    assert blob.path.resolve().is_relative_to((tmp_path / "raw").resolve())
    assert json.loads(blob.path.with_suffix(".json").read_text()) == meta  # round-trips exactly
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == sorted([blob.sha256, blob.sha256 + ".json"])
    # a crash between the body and its metadata: the next put restores the metadata
    blob.path.with_suffix(".json").unlink()
    again = store.put(b"%PDF-1.4 hostile", meta=meta)
    assert not again.is_new and json.loads(blob.path.with_suffix(".json").read_text()) == meta


@pytest.mark.e2e
def test_extraction_ner_and_graph_keep_hostile_text(crawled):
    assert crawled.stages["extract"]["quarantined"] == 0
    pages = {
        d: t
        for d, t in rows(
            crawled, "SELECT d.doc_id, p.text FROM pages p JOIN documents d ON d.current_version_id = p.version_id"
        )
    }
    assert SQL in pages[_doc_id(NOTICES["sql"])]
    assert SQL_QUOTES in pages[_doc_id(NOTICES["quotes"])]
    assert CYPHER in pages[_doc_id(NOTICES["cypher"])] and CYPHER_2 in pages[_doc_id(NOTICES["cypher"])]
    big = pages[_doc_id(NOTICES["big"])]
    assert SQL in big and "\u00a0" not in big and len(big) < 1000  # the megabyte of spaces is one space now
    entities = {e for (e,) in rows(crawled, "SELECT entity_id FROM entities")}
    assert {"LAW_REF:128/2000 Sb. § 5", "LAW_REF:89/2012 Sb. § 2"} <= entities
    graph = json.loads((crawled.home / "build" / "graph" / "graph.json").read_text(encoding="utf-8"))
    assert {"LAW_REF:128/2000 Sb. § 5", "LAW_REF:89/2012 Sb. § 2"} <= {n["id"] for n in graph["nodes"]}
    assert_tables_intact(crawled.database_url)


# --- Neo4j export (a real Bolt server) -----------------------------------------------------------------------


@pytest.mark.e2e
def test_neo4j_export_of_the_hostile_graph(crawled, bolt_server):
    from mendel.index.neo4j_export import Neo4jSettings, connect, count_graph, export_graph
    from mendel.law.domain_graph import load_domain_graph

    domain = load_domain_graph()
    graph = json.loads((crawled.home / "build" / "graph" / "graph.json").read_text(encoding="utf-8"))
    hostile = {"sql": SQL, "quotes": SQL_QUOTES, "cypher": CYPHER, "cypher2": CYPHER_2, "big": "x" * 1_000_000}
    for key, text in hostile.items():
        graph["nodes"].append(
            {"id": f"LAW_REF:{key} {text[:200]}", "label": "LAW_REF", "norm": text, "eli": text, "chunks": 1}
        )
        graph["chunk_entities"][f"chunk {text[:200]}"] = [f"LAW_REF:{key} {text[:200]}"]
    graph["nodes"].append({"id": "LAW_REF:nul", "label": "LAW_REF", "norm": NUL, "eli": None, "chunks": 1})
    driver = connect(Neo4jSettings(url=bolt_server["url"], user="root", password=bolt_server["password"]))
    try:
        with driver.session() as session:
            session.run("MATCH (n) DETACH DELETE n").consume()
        result = export_graph(driver, graph, domain)
        assert result["cleaned_values"] == 1  # the NUL was removed from that one value
        counts = count_graph(driver)
        assert counts["nodes"]["Entity"] == len(graph["nodes"])
        assert counts["nodes"]["Act"] == len(domain.of_type("act"))  # nothing deleted by any fragment
        assert counts["nodes"]["Chunk"] == len(graph["chunk_entities"])
        with driver.session() as session:
            stored = {
                r["id"]: r["norm"]
                for r in session.run(
                    "MATCH (n:Entity) WHERE n.id STARTS WITH 'LAW_REF:' RETURN n.id AS id, n.norm AS norm"
                )
            }
        for key, text in hostile.items():
            assert stored[f"LAW_REF:{key} {text[:200]}"] == text
        assert stored["LAW_REF:nul"] == NUL.replace("\x00", "")
        assert stored["LAW_REF:128/2000 Sb. § 5"] == "128/2000 Sb. § 5"
    finally:
        driver.close()


# --- the HTTP API ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def api(crawled):
    from serving.web.api import create_app
    from serving.web.querylog import PostgresQueryLog

    query_log = PostgresQueryLog(crawled.database_url)
    client = TestClient(
        create_app(crawled.home / "bundles", embedder=crawled.embedder, query_log=query_log, reload_interval=0)
    )
    yield client
    query_log.close()


@pytest.mark.e2e
@pytest.mark.parametrize(
    "query",
    [
        SQL,
        SQL_QUOTES,
        CYPHER,
        CYPHER_2,
        "' OR '1'='1",
        "%' OR 1=1 --",
        '{"$where": "1"}',
        "\\",
        "§ 5 zákona č. 128/2000 Sb. " + SQL,
    ],
)
def test_api_search_with_hostile_queries(api, crawled, query):
    response = api.get("/search", params={"q": query, "k": 5})
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert body["query"] == query
    titles = {d: t for d, t in rows(crawled, "SELECT doc_id, title FROM documents")}
    for hit in body["results"]:
        assert hit["title"] == titles[hit["doc_id"]]  # hostile titles come back as stored
    analysis = api.get("/analyze", params={"q": query})
    assert analysis.status_code == 200 and analysis.json()["query"] == query


@pytest.mark.e2e
def test_api_finds_and_serves_hostile_documents(api):
    hits = api.get("/search", params={"q": "DROP TABLE documents", "k": 20}).json()["results"]
    assert _doc_id(NOTICES["sql"]) in {h["doc_id"] for h in hits}
    for notice in (NOTICES["iri"], NOTICES["sql"]):
        response = api.get("/documents/" + quote(_doc_id(notice), safe=""))
        assert response.status_code == 200, response.text
        assert response.json()["doc_id"] == _doc_id(notice) and response.json()["title"] == notice["název"]["cs"]
    filtered = api.get("/search", params={"q": "oznámení", "source": SQL, "doc_type": CYPHER, "act": SQL})
    # values the bundle does not know are refused (a 400 problem), not searched
    assert filtered.status_code == 400 and filtered.headers["content-type"] == "application/problem+json"


@pytest.mark.e2e
@pytest.mark.parametrize(
    "params",
    [
        {"q": "x" * 1_000_000},  # 1 MB query
        {"q": "bydlení", "k": 10**9},
        {"q": "bydlení", "k": -1},
        {"q": "bydlení", "act": "a" * 1_000_000},
        {"q": "bydlení", "source": "s" * 1_000_000},
        {"q": "bydlení", "doc_type": ["law"] * 1000},
        {"q": "bydlení", "date_from": SQL},
        {"q": "a\x00b"},
    ],
)
def test_api_bounds_refuse_with_json(api, params):
    status, headers, body = asgi_get(api.app, "/search", params)  # HTTP clients won't send a 1 MB URL; a socket can
    assert status in (400, 422), (list(params), status)
    assert headers[b"content-type"] == b"application/problem+json" and json.loads(body)["detail"]


def asgi_get(app, path: str, params: dict) -> tuple[int, dict[bytes, bytes], bytes]:
    """One GET straight into the ASGI app, with a query string of any length."""
    import anyio

    query = urlencode(params, doseq=True).encode()
    messages: list[dict] = []

    async def call():
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query,
            "root_path": "",
            "headers": [(b"host", b"testserver")],
            "client": ("127.0.0.1", 1),
            "server": ("testserver", 80),
        }

        async def receive():
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message):
            messages.append(message)

        await app(scope, receive, send)

    anyio.run(call)
    start = next(m for m in messages if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.response.body")
    return start["status"], dict(start["headers"]), body


@pytest.mark.e2e
def test_api_nul_query_is_refused_with_a_clear_reason(api):
    for path in ("/search", "/analyze"):
        response = api.get(path, params={"q": "bydlení\x00"})
        assert response.status_code in (400, 422) and "NUL" in json.dumps(response.json())


@pytest.mark.e2e
def test_after_hostile_queries_tables_and_log_are_intact(api, crawled):
    api.get("/search", params={"q": SQL})  # at least one logged, whatever ran before
    assert_tables_intact(crawled.database_url)
    logged = {q for (q,) in rows(crawled, "SELECT query FROM query_log")}
    assert SQL in logged  # the hostile query text itself, verbatim
    assert not any("\x00" in q for q in logged)


# --- the production host guard ---------------------------------------------------------------------------------

PUBLIC_DNS = {
    "www.mesto-kadan.cz": ("185.5.1.10",),
    "intranet.www.mesto-kadan.cz": ("10.1.2.3",),
    "mixed.www.mesto-kadan.cz": ("185.5.1.11", "127.0.0.1"),
}
REDIRECT_TARGETS = [
    ("http://127.0.0.1:8080/admin", "allowlist"),
    ("http://169.254.169.254/latest/meta-data/", "allowlist"),
    ("http://10.0.0.7/x.pdf", "allowlist"),
    ("http://[::1]/x", "allowlist"),
    ("http://localhost/x", "allowlist"),
    ("http://www.mesto-kadan.cz.evil.example/x", "allowlist"),
    ("http://www.mesto-kadan.cz@127.0.0.1/x", "allowlist"),
    ("http://intranet.mesto-kadan.cz/x.pdf", "allowlist"),  # a sibling subdomain is another host
    ("http://intranet.www.mesto-kadan.cz/x.pdf", "non-public address 10.1.2.3"),  # allowed name, private answer
    ("http://mixed.www.mesto-kadan.cz/x.pdf", "non-public address 127.0.0.1"),
]


def _board_spider(crawler) -> BoardsSpider:
    """The board crawl as it starts on one board, its feed at https://www.mesto-kadan.cz/feed.json."""
    spider = BoardsSpider.from_crawler(crawler)
    spider.allow_board_hosts([Board(key="f", kind="ofn", url="https://www.mesto-kadan.cz/feed.json")])
    return spider


def _guard_and_redirects():
    crawler = get_crawler(BoardsSpider, {"MENDEL_HOST_GUARD": True})
    spider = _board_spider(crawler)
    guard = HostGuardMiddleware(resolver=lambda host: PUBLIC_DNS.get(host, ()))
    return spider, guard, RedirectMiddleware.from_crawler(crawler)


@pytest.mark.parametrize("target, reason", REDIRECT_TARGETS)
@pytest.mark.parametrize("status", [301, 302, 307])
def test_guard_refuses_redirects_to_private_addresses(target, reason, status):
    spider, guard, redirects = _guard_and_redirects()
    assert spider.allowed_hosts == {"www.mesto-kadan.cz"}
    request = Request("https://www.mesto-kadan.cz/files/a.pdf")
    assert guard.process_request(request, spider) is None  # the allowed page itself goes
    response = Response(request.url, status=status, headers={"Location": target}, request=request)
    follow = redirects.process_response(request, response)
    assert isinstance(follow, Request) and follow.url != request.url  # Scrapy would follow it ...
    with pytest.raises(IgnoreRequest, match=reason):  # ... but the guard sees the new request first
        guard.process_request(follow, spider)


def test_guard_keeps_the_allowlist_when_scrapy_passes_no_spider():
    """Scrapy >= 2.13 calls process_request(request) alone: the guard finds the spider through its crawler."""
    crawler = get_crawler(BoardsSpider, {"MENDEL_HOST_GUARD": True})
    crawler.spider = _board_spider(crawler)
    guard = HostGuardMiddleware.from_crawler(crawler)
    guard.resolver = lambda host: PUBLIC_DNS.get(host, ())
    assert guard.process_request(Request("https://www.mesto-kadan.cz/files/a.pdf")) is None
    with pytest.raises(IgnoreRequest, match="allowlist"):
        guard.process_request(Request("http://evil.example/x.pdf"))
    crawler.spider.allowed_hosts = frozenset()  # a spider configured with no host at all: nothing goes
    with pytest.raises(IgnoreRequest, match="allowlist"):
        guard.process_request(Request("https://www.mesto-kadan.cz/files/a.pdf"))


def test_guard_refuses_a_meta_refresh_to_metadata():
    from scrapy.downloadermiddlewares.redirect import MetaRefreshMiddleware
    from scrapy.http import HtmlResponse

    crawler = get_crawler(BoardsSpider, {"MENDEL_HOST_GUARD": True})
    spider = _board_spider(crawler)
    guard = HostGuardMiddleware(resolver=lambda host: PUBLIC_DNS.get(host, ()))
    request = Request("https://www.mesto-kadan.cz/deska.html")
    page = HtmlResponse(
        request.url,
        request=request,
        body=b'<html><head><meta http-equiv="refresh"'
        b' content="0; url=http://169.254.169.254/latest/user-data"></head></html>',
    )
    follow = MetaRefreshMiddleware.from_crawler(crawler).process_response(request, page)
    assert isinstance(follow, Request)
    with pytest.raises(IgnoreRequest, match="allowlist"):
        guard.process_request(follow, spider)


class _RecordingProxy(BaseHTTPRequestHandler):
    """An HTTP proxy standing in for the Internet: answers for www.mesto-kadan.cz and records every request."""

    seen: list[str] = []
    feed: bytes = b""
    pdf: bytes = b""

    def do_GET(self):
        _RecordingProxy.seen.append(self.path)
        parts = urlsplit(self.path)
        if parts.hostname != "www.mesto-kadan.cz":
            self._send(502, b"not the site", "text/plain")  # anything reaching here got past the guard
        elif parts.path == "/feed.json":
            self._send(200, self.feed, "application/json")
        elif parts.path == "/files/ok.pdf":
            self._send(200, self.pdf, "application/pdf")
        elif parts.path.startswith("/files/to-"):
            target = {
                "loopback": f"http://127.0.0.1:{self.server.server_address[1]}/secret",
                "metadata": "http://169.254.169.254/latest/meta-data/iam/",
                "private": "http://10.0.0.7/x.pdf",
                "rebind": "http://intranet.www.mesto-kadan.cz/x.pdf",
            }[parts.path.removeprefix("/files/to-").removesuffix(".pdf")]
            self.send_response(302)
            self.send_header("Location", target)
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self._send(404, b"not found", "text/plain")

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


# The crawler process: the guard's DNS answers come from this table (no network here), everything else is the
# real crawlers.run in the production profile.
CHILD = r"""
import json, os, socket, sys
answers = json.loads(os.environ["TEST_DNS"])
real = socket.getaddrinfo
def getaddrinfo(host, *args, **kwargs):
    if host in answers:
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, 0)) for a in answers[host]]
    return real(host, *args, **kwargs)
socket.getaddrinfo = getaddrinfo
sys.argv = ["crawlers.run", "boards"]
from crawlers.run import main
main()
"""


@pytest.mark.e2e
def test_production_crawl_never_requests_private_addresses(tmp_path, pg_server_url):
    database_url = db.create_database(pg_server_url, f"guard_{uuid.uuid4().hex[:10]}")
    db.migrate(database_url)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _RecordingProxy)
    port = server.server_address[1]
    attachments = [
        f"http://www.mesto-kadan.cz/files/{name}.pdf"
        for name in ("ok", "to-loopback", "to-metadata", "to-private", "to-rebind")
    ]
    attachments += [
        f"http://127.0.0.1:{port}/direct.pdf",
        "http://evil.example/x.pdf",
        "http://169.254.169.254/latest/meta-data/",
    ]
    _RecordingProxy.seen = []
    _RecordingProxy.feed = json.dumps(
        {"typ": "Úřední deska", "informace": [_notice(1, "Oznámení s přílohami", attachments=attachments)]},
        ensure_ascii=False,
    ).encode()
    _RecordingProxy.pdf = next((SAMPLE_CORPUS / "municipal" / "blesno" / "text").glob("*.pdf")).read_bytes()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    run_id = f"guard-{uuid.uuid4().hex[:8]}"
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env.update(
        MENDEL_HOME=str(tmp_path / "home"),
        MENDEL_PROFILE="production",
        MENDEL_DATABASE_URL=database_url,
        MENDEL_RUN_ID=run_id,
        MENDEL_SOURCES="boards",
        PYTHONPATH=str(PROJECT_ROOT),
        MENDEL_BOARDS_FILE=str(
            write_boards_file(
                [Board(key="f", kind="ofn", url="http://www.mesto-kadan.cz/feed.json")], tmp_path / "boards.json"
            )
        ),
        MENDEL_BOARD_DOWNLOAD_DELAY="0",
        http_proxy=f"http://127.0.0.1:{port}",
        no_proxy="",
        TEST_DNS=json.dumps({"www.mesto-kadan.cz": ["185.5.1.10"], "intranet.www.mesto-kadan.cz": ["10.1.2.3"]}),
        MENDEL_RETRY_TIMES="0",
    )
    try:
        crawl = subprocess.run(
            [sys.executable, "-c", CHILD], env=env, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300
        )
    finally:
        server.shutdown()
    assert crawl.returncode == 0, crawl.stderr[-4000:]
    requested = set(_RecordingProxy.seen)
    # A public host a board names for an attachment is asked like the board's own (a notice's files often live
    # elsewhere: MVČR's on www.mvcr.cz, a town's on its web vendor's host); a private address never is.
    site = {
        "http://www.mesto-kadan.cz/robots.txt",
        "http://www.mesto-kadan.cz/feed.json",
        *attachments[:5],
        "http://evil.example/robots.txt",
        "http://evil.example/x.pdf",
    }
    assert requested <= site and "http://www.mesto-kadan.cz/files/ok.pdf" in requested, requested - site
    with psycopg.connect(database_url) as conn:
        outcomes = conn.execute(
            "SELECT url, outcome, reason FROM crawl_log WHERE run_id = %s ORDER BY id", (run_id,)
        ).fetchall()
    by_outcome: dict[str, list[tuple[str, str]]] = {}
    for url, outcome, reason in outcomes:
        by_outcome.setdefault(outcome, []).append((url, reason or ""))
    assert [u for u, _ in by_outcome.get("stored", []) if u.endswith("ok.pdf")] == [attachments[0]]
    refused = by_outcome.get("disallowed", [])
    # four redirects and two direct links to private addresses, each refused once, each with the guard's reason
    assert len(refused) == 6, outcomes
    assert all("allowlist" in reason or "non-public" in reason for _, reason in refused)
    assert any("non-public address 10.1.2.3" in reason for _, reason in refused)


# --- statements are constants --------------------------------------------------------------------------------

PACKAGES = ("mendel", "crawlers", "serving", "orchestration", "assets", "ner_eval")
EXECUTORS = {"execute", "executemany", "run", "copy", "execute_read", "execute_write"}


def _built_from_data(node: ast.AST) -> bool:
    """An f-string, %-formatting, concatenation or str.format: text spliced into a statement at run time.
    (psycopg.sql composition, ``sql.SQL(...).format(sql.Identifier(...))``, quotes identifiers and is allowed.)"""
    if isinstance(node, ast.JoinedStr):
        return any(isinstance(v, ast.FormattedValue) for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mod, ast.Add)):
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return "sql" not in ast.unparse(node.func.value).lower()
    return False


def test_every_sql_and_cypher_statement_is_parameterised():
    """No statement handed to PostgreSQL or Neo4j is built by splicing values into its text; values travel as
    parameters (the Cypher builders in mendel.index.neo4j_schema splice only their own constant labels, and
    test_neo4j_export checks those statements)."""
    spliced = []
    for package in PACKAGES:
        for path in sorted((PROJECT_ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in EXECUTORS
                    and node.args
                    and _built_from_data(node.args[0])
                ):
                    spliced.append(f"{path.relative_to(PROJECT_ROOT)}:{node.lineno}: {ast.unparse(node.args[0])[:80]}")
                elif (
                    isinstance(node, ast.JoinedStr)
                    and _built_from_data(node)
                    and path not in TEMPLATE_MODULES
                    and STATEMENT.search("".join(v.value for v in node.values if isinstance(v, ast.Constant)))
                ):
                    spliced.append(f"{path.relative_to(PROJECT_ROOT)}:{node.lineno}: {ast.unparse(node)[:80]}")
    assert spliced == []


STATEMENT = re.compile(r"\b(SELECT .* FROM|INSERT INTO|UPDATE \w+ SET|DELETE FROM|MERGE \(|MATCH \(|UNWIND \$)")
# Modules whose f-strings build statements from their own constant labels only (checked where they live), or that
# merely talk about SQL (the mirror's error messages).
TEMPLATE_MODULES = {PROJECT_ROOT / "mendel" / "index" / "neo4j_schema.py", *(PROJECT_ROOT / "mirror").glob("*.py")}


# --- RÚIAN register files -----------------------------------------------------------------------------------

VFR = (
    '<?xml version="1.0" encoding="UTF-8"?><vf:VymennyFormat'
    ' xmlns:vf="urn:cz:isvs:ruian:schemas:VymennyFormatTypy:v1"'
    ' xmlns:obi="urn:cz:isvs:ruian:schemas:ObecIntTypy:v1" xmlns:gml="http://www.opengis.net/gml/3.2">'
    "<vf:Hlavicka><vf:TypSouboru>OB_UKSH</vf:TypSouboru></vf:Hlavicka><vf:Data><vf:Obce><vf:Obec>{fields}"
    "</vf:Obec></vf:Obce></vf:Data></vf:VymennyFormat>"
)


def test_hostile_register_files_are_loaded_verbatim_or_quarantined(tmp_path, fresh_db):
    """A register file whose record names are SQL is loaded as text; one with an unreadable coordinate loads without
    a definition point; one with a record without its code is quarantined with the reason, and the others still load."""
    from xml.sax.saxutils import escape

    from mendel.crawl import crawlstate
    from mendel.nightly import registry_stage

    files = {
        "hostile-names": f"<obi:Kod>1</obi:Kod><obi:Nazev>{escape(SQL_QUOTES)}</obi:Nazev>",
        "bad-coordinate": "<obi:Kod>2</obi:Kod><obi:Nazev>x</obi:Nazev>"
        "<obi:DefinicniBod><gml:Point><gml:pos>1 ; DROP</gml:pos></gml:Point></obi:DefinicniBod>",
        "no-code": "<obi:Nazev>bez kódu</obi:Nazev>",
    }
    store = RawStore(tmp_path / "raw")
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        for name, fields in files.items():
            body = VFR.format(fields=fields).encode()
            blob = store.put(body)
            crawlstate.record_document(
                conn,
                run_id="r",
                source="ruian",
                doc_id=f"ruian:{name}",
                url=f"https://vdp.cuzk.gov.cz/{name}.xml",
                sha256=blob.sha256,
                byte_size=len(body),
                content_type="application/xml",
            )
        stats = registry_stage.load_registry_pending(conn, store)
        names = conn.execute("SELECT code, name FROM registry_records").fetchall()
        reasons = [r for (r,) in conn.execute("SELECT reason FROM quarantine WHERE stage = 'extract'")]
    # An unreadable coordinate costs the record its definition point, not the file (mendel.registers.ruian._point).
    assert stats["files"] == 2 and stats["quarantined"] == 1
    assert sorted(names) == [("1", SQL_QUOTES), ("2", "x")]
    assert len(reasons) == 1 and all("RÚIAN" in r for r in reasons)
