"""Serving third-party HTML and the API safely, over the real server: a crawled page's script never runs on the
search origin (in Debian's Chromium), HEAD where GET is, ReDoc with no outside request, a response schema for every
route, one status and a named problem type per kind of bad input, a ready state only once the first search is warm,
and request lines in the logs cut short."""

from __future__ import annotations

import logging
import re
import uuid

import httpx
import pytest

from mendel.core import db
from serving.web.api import create_app
from tests.support.bundle import EMBEDDER, build_bundle
from tests.support.serving_corpus import SCRIPTED_NOTICE_PROBE, scripted_notice, serving_docs
from tests.support.web import TestClient, running_server

DOC_PATH = re.compile(r"^/documents/")


@pytest.fixture(scope="module")
def docs() -> list[dict]:
    return serving_docs()


@pytest.fixture(scope="module")
def served(tmp_path_factory, docs, pg_server_url):
    root = tmp_path_factory.mktemp("safe")
    build_bundle(root / "bundles", docs, graph={"nodes": [], "edges": [], "chunk_entities": {}})
    database_url = db.create_database(pg_server_url, f"safe_{uuid.uuid4().hex[:8]}")
    db.migrate(database_url)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MENDEL_DATABASE_URL", database_url)
        with running_server(root / "bundles") as (url, _):
            yield {"url": url, "bundles": root / "bundles"}


@pytest.fixture(scope="module")
def http(served):
    with httpx.Client(base_url=served["url"], timeout=60) as client:
        yield client


def original_path(doc: dict) -> str:
    return "/documents/" + doc["doc_id"].lstrip("/") + "/original"


# --- third-party HTML -------------------------------------------------------------------------------------------


def test_crawled_html_is_served_sandboxed_and_never_sniffed(http, docs):
    response = http.get(original_path(scripted_notice(docs)))
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    policy = response.headers["content-security-policy"]
    assert re.search(r"(^|;)\s*sandbox\s*(;|$)", policy), policy  # sandboxed: no scripts, an opaque origin
    assert "script-src 'none'" in policy or "default-src 'none'" in policy
    assert response.headers["x-content-type-options"] == "nosniff"
    for path in ("/", "/search?q=bydlení", "/facets", "/static/site.css"):
        assert http.get(path).headers.get("x-content-type-options") == "nosniff", path


@pytest.mark.browser
def test_browser_a_crawled_pages_script_never_runs_on_the_search_origin(page, served, docs):
    asked = []
    page.on("request", lambda request: asked.append(request.url))
    response = page.goto(served["url"] + original_path(scripted_notice(docs)))
    assert response.status == 200
    assert page.get_by_role("heading", name=scripted_notice(docs)["title"]).is_visible()  # the page is shown
    page.wait_for_timeout(500)  # what a running script would have sent by now
    assert not [url for url in asked if SCRIPTED_NOTICE_PROBE in url], asked
    assert page.title() != "script ran"


# --- HTTP ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    ["/health", "/ready", "/", "/search?q=bydlení", "/facets", "/static/site.css", "/openapi.json", "/redoc"],
)
def test_head_is_answered_where_get_is(http, path):
    got = http.get(path)
    head = http.head(path)
    assert head.status_code == got.status_code == 200, path
    assert head.content == b"" and head.headers["content-type"] == got.headers["content-type"]


def test_head_of_an_original(http, docs):
    path = original_path(scripted_notice(docs))
    head = http.head(path)
    assert head.status_code == 200 and head.content == b""
    assert int(head.headers["content-length"]) == len(http.get(path).content)


@pytest.mark.browser
def test_browser_redoc_asks_nothing_outside(page, served):
    """ReDoc's bundle names its logo on a CDN: the page's policy stops the browser before any request leaves."""
    asked, blocked = [], {}
    page.on("request", lambda request: asked.append(request.url))
    page.on("requestfailed", lambda request: blocked.setdefault(request.url, request.failure))
    page.goto(served["url"] + "/redoc")
    page.get_by_text("Mendel search API").first.wait_for()
    page.wait_for_timeout(1000)
    outside = [url for url in asked if not url.startswith((served["url"], "data:", "blob:"))]
    assert all(blocked.get(url) == "csp" for url in outside), {url: blocked.get(url) for url in outside}


def test_every_route_has_a_response_schema(http):
    spec = http.get("/openapi.json").json()
    assert {"/provisions", "/citations"} <= set(spec["paths"])
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            ok = operation["responses"]["200"]
            content = ok.get("content", {})
            assert content, (path, method)
            if "application/json" in content:
                schema = content["application/json"].get("schema", {})
                assert schema.get("$ref") or schema.get("properties") or schema.get("type"), (path, method)


# --- bad input --------------------------------------------------------------------------------------------------

PROBLEM_TYPE = re.compile(r"^/problems/[a-z-]+$")


@pytest.mark.parametrize("path", ["/search", "/analyze"])
def test_empty_and_blank_queries_are_one_kind_of_bad_input(http, path):
    empty, blank = http.get(path, params={"q": ""}), http.get(path, params={"q": "   "})
    assert empty.status_code == blank.status_code == 422
    assert empty.json()["type"] == blank.json()["type"] == "/problems/invalid-request"


def test_problem_types_name_the_error(http, docs):
    cases = {
        "/search?q=": "invalid-request",
        "/search?q=bydlení&source=nikde": "unknown-filter-value",
        "/search?q=bydlení&date_from=2025-06-01&date_to=2025-01-01": "invalid-date-range",
        "/search?q=bydlení&rerank=true": "rerank-unavailable",
        "/documents/eli/cz/sb/1999/1": "unknown-document",
        "/documents/eli/cz/sb/2025/175/pages/99.png": "no-such-page",
        "/no-such-endpoint": "not-found",
        "/provisions?ref=nic": "not-a-reference",
        "/search?q=bydlení&kind=decision": "unknown-parameter",  # doc_type is the filter: never silently ignored
    }
    seen = {}
    for path, kind in cases.items():
        body = http.get(path).json()
        assert PROBLEM_TYPE.match(body["type"]) and body["type"] == f"/problems/{kind}", (path, body)
        seen[kind] = body["status"]
        about = http.get(body["type"])
        assert about.status_code == 200 and kind in about.text, body["type"]  # the type says what went wrong
    assert http.post("/search?q=bydlení").json()["type"] == "/problems/method-not-allowed"
    assert len(set(cases.values())) == len(seen)


@pytest.mark.parametrize(
    "path",
    [
        "/search?q=bydlení&kind=decision",
        "/facets?source=esbirka",
        "/analyze?q=bydlení&at=2026-01-01",
        "/documents/eli/cz/sb/2025/175?page=2",
        "/provisions?ref=§ 4 vyhlášky č. 573/2025 Sb.&date=2026-01-01",
        "/citations?ref=zákon č. 175/2025 Sb.&max=5",
    ],
)
def test_a_parameter_an_endpoint_does_not_take_is_a_problem_naming_those_it_takes(http, path):
    body = http.get(path).json()
    assert body["status"] == 400 and body["type"] == "/problems/unknown-parameter", body
    assert "takes no " in body["detail"] and "; it takes " in body["detail"]


# --- ready means warm --------------------------------------------------------------------------------------------


class CountingEmbedder(type(EMBEDDER)):
    def __init__(self):
        super().__init__()
        self.queries = 0

    def query(self, text):
        self.queries += 1
        return super().query(text)


def test_ready_only_once_the_first_search_is_warm(served):
    embedder = CountingEmbedder()
    client = TestClient(create_app(served["bundles"], embedder=embedder, reload_interval=0))
    assert client.get("/ready").status_code == 200
    searcher = client.app.state.holder.searcher
    assert embedder.queries >= 1  # the query encoder has run
    lazy = {
        "collection": searcher._assessor._collection,
        "floor": searcher._assessor._floor_loaded or None,
        "vocabulary": searcher._vocabulary,
        "act router": searcher._act_router,
        "learned fusion": searcher._learned_loaded or None,
    }
    assert all(value is not None for value in lazy.values()), [name for name, v in lazy.items() if v is None]
    from serving.web.facets import _cache

    assert searcher in _cache  # the facets the page offers


def test_request_lines_in_the_logs_are_cut_short(caplog):
    from serving.web.querylog import WithoutQueryString

    record = logging.LogRecord(
        "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5", "GET", "/documents/" + "x" * 20_000 + "?q=secret", "1.1", 404), None,
    )  # fmt: skip
    WithoutQueryString().filter(record)
    line = record.getMessage()
    assert len(line) < 400 and "secret" not in line and "…" in line
