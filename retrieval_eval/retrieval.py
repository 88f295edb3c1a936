"""Retrieval evaluation: recall@k, MRR and nDCG@10 of the search variants (:data:`VARIANTS`) over a set of gold
questions, with each variant's per-query latency.

A hit is relevant to a gold item when it is the gold document and covers the gold page, or when its text contains
the gold evidence; gold that names an act's provision, a decision or a municipality's document instead is judged by
:mod:`retrieval_eval.gold` (its items are alternatives). A question marked ``"expect": "not_in_collection"`` is
scored on whether the default search admits it. A question with ``variants`` (``ascii``: without diacritics,
``typo``: typed in a hurry) is also asked in each of those forms, and every form is scored on its own. The question
format and the variants are described in docs/retrieval.md.

    python -m retrieval_eval.retrieval --questions retrieval_eval/questions/dev.jsonl [--bundles DIR] [--json] [--out report.md]
        [--report DIR]   # also the JSON results, a markdown report and PNG plots (retrieval_eval.report)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import time
from pathlib import Path
from typing import Iterable, Sequence

from retrieval_eval import DEV_QUESTIONS
from retrieval_eval.gold import (
    NOT_IN_COLLECTION,
    PASSAGE,
    UNANSWERABLE,
    GroundTruth,
    alternatives,
    answerable,
    gold_kind,
    governing_act,
    item_errors,
    matches,
    names_act,
    normalize,
)

DEFAULT_KS = (1, 5, 10, 20)
VARIANTS = (
    "bm25",
    "dense",
    "hybrid",
    "bm25+bridge",
    "dense+bridge",
    "hybrid+bridge",
    "hybrid+fastpath",
    "+graph",
    "default-learned",
    "default-bridge",
    "default-retype",
    "default-acts",
    "default",
)
BRIDGE_VARIANTS = ("bm25+bridge", "dense+bridge", "hybrid+bridge")
# hybrid+fastpath and +graph: the ablation ladder without the new stages
_LADDER = {"bridge": False, "learned": False, "acts": False}
RERANK_VARIANT = "default+rerank"
QUESTION_TYPES = ("paraphrase", "citation", "identifier", "ocr", "multi")
REGISTERS = ("lay", "expert")
KINDS = ("code", "act", "decision", "notice", "unanswerable")  # what a question asks about (blind_v2.jsonl)
FORMS = ("ascii", "typo")  # how a question is also typed: without diacritics; in a hurry (clipped, misspelt)
NDCG_K = 10
MAX_EVIDENCE = 120


# --- relevance ----------------------------------------------------------------------------------------------


def _field(hit, name: str, default=None):
    if isinstance(hit, dict):
        return hit.get(name, default)
    return getattr(hit, name, default)


def is_relevant(hit, gold: dict, documents: dict | None = None) -> bool:
    """``hit`` (a :class:`Hit`, or a dict with doc_id / page / page_end / text and, for gold naming an act, a
    decision or a place, citation / section / title / url) answers ``gold``; ``documents``: the bundle's
    documents by doc_id."""
    if gold_kind(gold) != PASSAGE:
        return matches(hit, gold, documents)
    page = _field(hit, "page", _field(hit, "page_start"))
    page_end = _field(hit, "page_end", page)
    if _field(hit, "doc_id") == gold["doc_id"] and page is not None and gold.get("page") is not None:
        if int(page) <= int(gold["page"]) <= int(page_end if page_end is not None else page):
            return True
    evidence = normalize(gold.get("evidence"))
    return bool(evidence) and evidence in normalize(_field(hit, "text", ""))


def judge(hits: Sequence, gold: Sequence[dict], documents: dict | None = None) -> list[frozenset[int]]:
    """For each hit in rank order, the indexes of the gold items it is relevant to. Alternative gold items
    (:func:`retrieval_eval.gold.alternatives`) count as one: index 0 for a hit that answers any of them."""
    if alternatives(gold):
        return [frozenset({0}) if any(matches(hit, item, documents) for item in gold) else frozenset() for hit in hits]
    return [frozenset(g for g, item in enumerate(gold) if is_relevant(hit, item, documents)) for hit in hits]


def gold_size(gold: Sequence[dict]) -> int:
    """How many gold items a ranking can cover: one for alternatives."""
    return 1 if alternatives(gold) else len(gold)


# --- metrics over judged rankings ---------------------------------------------------------------------------


def recall_at_k(matches: Sequence[frozenset[int]], n_gold: int, k: int) -> float:
    """Share of the ``n_gold`` gold items covered by the first ``k`` hits."""
    if n_gold <= 0:
        return 0.0
    covered: set[int] = set()
    for m in matches[:k]:
        covered |= m
    return len(covered) / n_gold


def reciprocal_rank(matches: Sequence[frozenset[int]]) -> float:
    """1 / rank of the first relevant hit; 0 when none is relevant."""
    for rank, m in enumerate(matches, start=1):
        if m:
            return 1.0 / rank
    return 0.0


def ndcg_at_k(matches: Sequence[frozenset[int]], n_gold: int, k: int = NDCG_K) -> float:
    """Binary nDCG@k: a hit gains 1 when it covers a gold item no higher hit covered."""
    if n_gold <= 0:
        return 0.0
    covered: set[int] = set()
    dcg = 0.0
    for rank, m in enumerate(matches[:k], start=1):
        new = m - covered
        if new:
            dcg += 1.0 / math.log2(rank + 1)
            covered |= new
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(n_gold, k) + 1))
    return dcg / ideal


def score_ranking(matches: Sequence[frozenset[int]], n_gold: int, ks: Iterable[int] = DEFAULT_KS) -> dict:
    out = {f"recall@{k}": recall_at_k(matches, n_gold, k) for k in ks}
    out["mrr"] = reciprocal_rank(matches)
    out[f"ndcg@{NDCG_K}"] = ndcg_at_k(matches, n_gold, NDCG_K)
    return out


def _mean(rows: list[dict]) -> dict:
    if not rows:
        return {}
    return {key: round(sum(r[key] for r in rows) / len(rows), 4) for key in rows[0]}


# --- questions ----------------------------------------------------------------------------------------------


def load_questions(path: Path) -> list[dict]:
    with Path(path).open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def schema_errors(questions: Sequence[dict]) -> list[str]:
    """Structural problems of a questions file (no bundle needed)."""
    errors = []
    seen: set[str] = set()
    for n, q in enumerate(questions, start=1):
        where = f"line {n} ({q.get('id')!r})"
        for key in ("id", "question", "type", "gold"):
            if key not in q:
                errors.append(f"{where}: missing {key}")
        if q.get("id") in seen:
            errors.append(f"{where}: duplicate id")
        seen.add(q.get("id"))
        if q.get("type") not in QUESTION_TYPES:
            errors.append(f"{where}: type {q.get('type')!r} not in {QUESTION_TYPES}")
        if "register" in q and q["register"] not in REGISTERS:
            errors.append(f"{where}: register {q['register']!r} not in {REGISTERS}")
        if "kind" in q and q["kind"] not in KINDS:
            errors.append(f"{where}: kind {q['kind']!r} not in {KINDS}")
        if "expect" in q and q["expect"] != NOT_IN_COLLECTION:
            errors.append(f"{where}: expect must be {NOT_IN_COLLECTION!r}, not {q['expect']!r}")
        if not str(q.get("question", "")).strip():
            errors.append(f"{where}: empty question")
        errors += [f"{where}: {e}" for e in _variant_errors(q)]
        gold = q.get("gold")
        if not isinstance(gold, list) or not all(isinstance(g, dict) for g in gold):
            errors.append(f"{where}: gold must be a list of objects")
            continue
        if not answerable(q):
            named = [g for g in gold if gold_kind(g) == UNANSWERABLE]
            if q.get("expect") != NOT_IN_COLLECTION:
                errors.append(f"{where}: an unanswerable gold item needs expect: {NOT_IN_COLLECTION!r}")
            if len(named) != len(gold):
                errors.append(f"{where}: a {NOT_IN_COLLECTION} question has no gold but its governing act")
            errors += [f"{where}: {e}" for g in named for e in item_errors(g)]
            continue
        if not gold:
            errors.append(f"{where}: gold must be a non-empty list")
            continue
        if q.get("type") == "multi" and len({g.get("doc_id") for g in gold}) < 2:
            errors.append(f"{where}: a multi question needs gold in two documents")
        for g in gold:
            if gold_kind(g) != PASSAGE:
                errors += [f"{where}: {e}" for e in item_errors(g)]
                continue
            if not isinstance(g.get("doc_id"), str) or not isinstance(g.get("page"), int):
                errors.append(f"{where}: gold item needs doc_id (str) and page (int): {g}")
            ev = g.get("evidence")
            if not isinstance(ev, str) or not ev.strip() or len(ev) > MAX_EVIDENCE:
                errors.append(f"{where}: evidence must be 1..{MAX_EVIDENCE} chars: {ev!r}")
    return errors


def _variant_errors(question: dict) -> list[str]:
    variants = question.get("variants")
    if variants is None:
        return []
    if not isinstance(variants, dict):
        return ["variants must be an object"]
    errors = [f"variant {name!r} not in {FORMS}" for name in variants if name not in FORMS]
    errors += [
        f"variant {name!r} must be a non-empty text" for name, text in variants.items() if not isinstance(text, str)
    ]
    errors += [f"variant {name!r} is empty" for name, text in variants.items() if isinstance(text, str) and not text]
    if variants.get("typo") == question.get("question"):
        errors.append("the typo variant is the question itself")  # ascii may be: a question with no diacritics
    return errors


def gold_errors(questions: Sequence[dict], chunks: Iterable[dict], documents: Iterable[str] | None = None) -> list[str]:
    """Gold items not grounded in a bundle: unknown document, or evidence not on a chunk covering that page; for
    gold naming an act, a decision or a place: none of the question's items is held by the bundle; for an
    unanswerable question: the bundle holds its governing act. ``documents``: doc ids, or documents.json by id."""
    return GroundTruth(chunks, documents).errors(questions)


# --- running the variants -----------------------------------------------------------------------------------


def _timed(function, *args, **kwargs):
    """(function's result, wall milliseconds)."""
    started = time.perf_counter()
    value = function(*args, **kwargs)
    return value, (time.perf_counter() - started) * 1000.0


def latency_summary(milliseconds: Sequence[float]) -> dict:
    """mean, p50, p95 and max of per-query wall times in ms (linear-interpolated percentiles)."""
    values = sorted(float(v) for v in milliseconds)
    if not values:
        return {}

    def percentile(q: float) -> float:
        position = (len(values) - 1) * q
        low = math.floor(position)
        high = min(low + 1, len(values) - 1)
        return values[low] + (values[high] - values[low]) * (position - low)

    return {
        "mean": round(sum(values) / len(values), 2),
        "p50": round(percentile(0.5), 2),
        "p95": round(percentile(0.95), 2),
        "max": round(values[-1], 2),
    }


def answer_honesty(answer, governing: str | None = None) -> dict:
    """What the default search said about its own answer (a :class:`serving.ranking.hits.SearchResult`): hits, whether
    they are marked weak, what the query names that the collection lacks, and ``admits``: no hits, weak hits or
    something reported missing -- what a question with no answer in the collection expects. With the question's
    ``governing`` act: ``names_governing_act``, whether the coverage block names that act as not held."""
    coverage = answer.coverage or {}
    missing = [m.get("text") or m.get("id") for m in coverage.get("missing", [])]
    out = {
        "hits": len(answer.hits),
        "weak": bool(answer.weak),
        "missing": missing,
        "admits": not answer.hits or bool(answer.weak) or bool(missing),
        # the search said the act governing the question is not in the collection
        "says_absent": bool(coverage.get("governing_missing")),
    }
    if governing:
        out["names_governing_act"] = names_act(answer.coverage or {}, governing)
    return out


_HIT_FIELDS = ("citation", "section", "title", "url", "provision")  # what gold naming an act or place reads


def _rankings(
    searcher,
    query: str,
    variants: Sequence[str],
    depth: int,
    timings: dict[str, float] | None = None,
    honesty: dict | None = None,
    governing: str | None = None,
) -> dict[str, list]:
    """Hits (dicts or :class:`Hit`) per variant for one query, best first, at most ``depth``. When ``timings``
    is given, each variant's wall milliseconds are stored in it (a shared BM25 or dense list counts for each
    variant that uses it); ``honesty`` receives :func:`answer_honesty` of the default search."""
    from serving.ranking.fusion import RRF_WEIGHTS, rrf_fuse

    out: dict[str, list] = {}
    timings = {} if timings is None else timings
    bm25, bm25_ms = _timed(searcher.bm25_ranking, query, n=depth) if {"bm25", "hybrid"} & set(variants) else ([], 0.0)
    dense, dense_ms = (
        _timed(searcher.dense_ranking, query, n=depth) if {"dense", "hybrid"} & set(variants) else ([], 0.0)
    )
    if set(BRIDGE_VARIANTS) & set(variants):
        from serving.query.analyze import understand

        found = understand(query)
        expansion = searcher.legal_expansion(found)
        wanted = {"bm25+bridge", "hybrid+bridge"} & set(variants)
        bm25_bridge, bm25_bridge_ms = (
            _timed(searcher.bm25_ranking, query, n=depth, expansion=expansion) if wanted else ([], 0.0)
        )
        wanted = {"dense+bridge", "hybrid+bridge"} & set(variants)
        dense_bridge, dense_bridge_ms = (
            _timed(searcher.dense_ranking, searcher.dense_text(found), n=depth) if wanted else ([], 0.0)
        )
    rows: dict[int, dict] = {}  # each chunk read once for this question's lists (a bundle row is parsed when read)

    def as_hits(items: list[int]) -> list[dict]:
        hits = []
        for i in items[:depth]:
            if i not in rows:
                row = searcher.chunks[i]
                rows[i] = {
                    "doc_id": row["doc_id"],
                    "page": row["page_start"],
                    "page_end": row["page_end"],
                    "text": row["text"],
                    **{key: row.get(key) for key in _HIT_FIELDS},
                }
            hits.append(rows[i])
        return hits

    # the plain lists and, for the "+bridge" variants, the same lists with the bridge's legal wordings
    lists = {"": ((bm25, bm25_ms), (dense, dense_ms))}
    if set(BRIDGE_VARIANTS) & set(variants):
        lists["+bridge"] = ((bm25_bridge, bm25_bridge_ms), (dense_bridge, dense_bridge_ms))
    for variant in variants:
        base, plus, suffix = variant.partition("+")
        if base in ("bm25", "dense", "hybrid") and suffix in ("", "bridge"):
            (lexical, lexical_ms), (vector, vector_ms) = lists[plus + suffix]
            if base == "hybrid":
                fused, fuse_ms = _timed(rrf_fuse, {"bm25": lexical, "dense": vector}, weights=RRF_WEIGHTS)
                out[variant] = as_hits([i for i, _, _ in fused])
                timings[variant] = lexical_ms + vector_ms + fuse_ms
            else:
                items, ms = (lexical, lexical_ms) if base == "bm25" else (vector, vector_ms)
                out[variant], timings[variant] = as_hits(items), ms
        elif variant == "default-learned":
            out[variant], timings[variant] = _timed(searcher.search, query, k=depth, learned=False)
        elif variant == "default-bridge":
            out[variant], timings[variant] = _timed(searcher.search, query, k=depth, bridge=False)
        elif variant == "default-retype":
            out[variant], timings[variant] = _timed(searcher.search, query, k=depth, retype=False)
        elif variant == "default-acts":
            out[variant], timings[variant] = _timed(searcher.search, query, k=depth, acts=False)
        elif variant == "hybrid+fastpath":
            out[variant], timings[variant] = _timed(
                searcher.search, query, k=depth, graph=False, decompose=False, **_LADDER
            )
        elif variant == "+graph":
            out[variant], timings[variant] = _timed(searcher.search, query, k=depth, decompose=False, **_LADDER)
        elif variant == "default":
            if hasattr(searcher, "search_with_coverage"):
                answer, timings[variant] = _timed(searcher.search_with_coverage, query, k=depth)
                out[variant] = answer.hits
                if honesty is not None:
                    honesty.update(answer_honesty(answer, governing))
            else:
                out[variant], timings[variant] = _timed(searcher.search, query, k=depth)
        elif variant == RERANK_VARIANT:
            out[variant], timings[variant] = _timed(searcher.search, query, k=depth, rerank=True)
        else:
            raise ValueError(f"unknown variant {variant!r}; choose from {VARIANTS}")
    return out


def evaluate(
    searcher, questions: Sequence[dict], ks: Sequence[int] = DEFAULT_KS, variants: Sequence[str] = VARIANTS
) -> dict:
    """Metrics per variant, overall, per question type, register and kind, plus per-question first relevant
    ranks and scores."""
    from serving.ranking.search import CANDIDATES

    ks = tuple(sorted(set(int(k) for k in ks)))
    depth = max(max(ks), NDCG_K, CANDIDATES)
    documents = searcher.documents if isinstance(getattr(searcher, "documents", None), dict) else None
    rows: dict[str, list[tuple[dict, dict]]] = {v: [] for v in variants}
    latencies: dict[str, list[float]] = {v: [] for v in variants}
    per_question = []
    unanswerable = []
    started = time.perf_counter()
    for q in questions:
        timings: dict[str, float] = {}
        honesty: dict = {}
        if not answerable(q):
            # scored apart: does the default search admit that the collection holds no answer?
            if "default" in variants:
                governing = governing_act(q)
                _rankings(searcher, q["question"], ["default"], depth, timings, honesty, governing)
                entry = {"id": q["id"], "type": q["type"], "register": q.get("register"), **honesty}
                if q.get("kind"):
                    entry["kind"] = q["kind"]
                if governing:
                    entry["governing_act"] = governing
                unanswerable.append(entry)
            continue
        ranked = _rankings(searcher, q["question"], variants, depth, timings, honesty)
        for variant in variants:
            latencies[variant].append(timings[variant])
        entry = {
            "id": q["id"],
            "type": q["type"],
            "first_relevant_rank": {},
            "scores": {},
            "latency_ms": {v: round(timings[v], 2) for v in variants},
        }
        for key in ("register", "kind"):
            if q.get(key):
                entry[key] = q[key]
        if honesty:
            entry["weak"] = honesty["weak"]
            entry["says_absent"] = honesty["says_absent"]
        for variant in variants:
            matches = judge(ranked[variant], q["gold"], documents)
            scores = score_ranking(matches, gold_size(q["gold"]), ks)
            rows[variant].append((q, scores))
            entry["first_relevant_rank"][variant] = next((r for r, m in enumerate(matches, 1) if m), None)
            entry["scores"][variant] = {k: round(v, 4) for k, v in scores.items()}
        per_question.append(entry)
    ranked_questions = [q for q in questions if answerable(q)]
    types = sorted({q["type"] for q in ranked_questions}, key=lambda t: (QUESTION_TYPES + (t,)).index(t))
    registers = [r for r in REGISTERS if any(q.get("register") == r for q in ranked_questions)]
    kinds = [k for k in KINDS if any(q.get("kind") == k for q in ranked_questions)]
    result = {
        "questions": len(ranked_questions),
        "ks": list(ks),
        "variants": {},
        "types": {t: sum(1 for q in ranked_questions if q["type"] == t) for t in types},
        "per_question": per_question,
        "seconds": round(time.perf_counter() - started, 2),
        "bundle": str(getattr(searcher, "path", "")),
        # latency depends on the machine and how busy it was
        "machine": {"cpus": os.cpu_count(), "load_avg_1m": round(os.getloadavg()[0], 2)},
    }
    if registers:
        result["registers"] = {r: sum(1 for q in ranked_questions if q.get("register") == r) for r in registers}
    if kinds:
        result["kinds"] = {k: sum(1 for q in ranked_questions if q.get("kind") == k) for k in kinds}
    for variant in variants:
        result["variants"][variant] = {
            "overall": _mean([s for _, s in rows[variant]]),
            "by_type": {t: _mean([s for q, s in rows[variant] if q["type"] == t]) for t in types},
            "latency_ms": latency_summary(latencies[variant]),
        }
        if registers:
            result["variants"][variant]["by_register"] = {
                r: _mean([s for q, s in rows[variant] if q.get("register") == r]) for r in registers
            }
        if kinds:
            result["variants"][variant]["by_kind"] = {
                k: _mean([s for q, s in rows[variant] if q.get("kind") == k]) for k in kinds
            }
    weak_flags = [e["weak"] for e in per_question if "weak" in e]
    if weak_flags:
        # answerable questions the default search marked weak: the price of the relevance floor
        result["weak_answerable"] = {"questions": len(weak_flags), "weak": sum(weak_flags)}
        # answerable questions the default search told "not in the collection": the price of the governing-act rule
        absent_flags = [e["says_absent"] for e in per_question if "says_absent" in e]
        result["weak_answerable"]["says_absent"] = sum(absent_flags)
    if unanswerable:
        result["not_in_collection"] = admission_summary(unanswerable)
    return result


def admission_summary(unanswerable: Sequence[dict]) -> dict:
    """How the default search answered the questions with no answer in the collection: ``admitted`` (no hits,
    weak hits or something reported missing), ``weak_or_empty``, and of those naming their governing act, how
    many it named as not held (``names_governing_act``)."""
    out = {
        "questions": len(unanswerable),
        "admitted": sum(1 for u in unanswerable if u["admits"]),
        "weak_or_empty": sum(1 for u in unanswerable if u["weak"] or not u["hits"]),
        "per_question": list(unanswerable),
    }
    named = [u for u in unanswerable if "names_governing_act" in u]
    if named:
        out["with_governing_act"] = len(named)
        out["names_governing_act"] = sum(1 for u in named if u["names_governing_act"])
    return out


def question_forms(questions: Sequence[dict]) -> dict[str, list[dict]]:
    """Each form a question set is typed in (:data:`FORMS`), with the questions that have it, their text that
    form's; the forms no question has are left out."""
    out = {}
    for form in FORMS:
        typed = [{**q, "question": q["variants"][form]} for q in questions if form in (q.get("variants") or {})]
        if typed:
            out[form] = typed
    return out


def paired(result: dict, ids: Iterable[str], variant: str = "default") -> dict:
    """Mean scores of ``variant`` over the answerable questions ``ids`` in ``result``: a form's figures beside
    those of the same questions as written."""
    wanted = set(ids)
    rows = [
        e["scores"][variant] for e in result.get("per_question", []) if e["id"] in wanted and variant in e["scores"]
    ]
    return _mean(rows)


def evaluate_forms(
    searcher, questions: Sequence[dict], ks: Sequence[int] = DEFAULT_KS, variants: Sequence[str] = VARIANTS
) -> dict:
    """:func:`evaluate` on the questions as written, with ``forms``: each typed form's own evaluation (overall,
    by kind and register, the unanswerable questions' admissions, per-question scores), and for each variant the
    as-written figures over the same questions (``as_written``) to set beside them."""
    result = evaluate(searcher, questions, ks=ks, variants=variants)
    forms = {}
    for form, typed in question_forms(questions).items():
        own = evaluate(searcher, typed, ks=ks, variants=variants)
        answered = [q["id"] for q in typed if answerable(q)]
        own["as_written"] = {v: paired(result, answered, v) for v in variants}
        forms[form] = own
    if forms:
        result["forms"] = forms
    return result


def split_grounded(
    questions: Sequence[dict], chunks: Iterable[dict], documents: Iterable[str] | dict | None = None
) -> tuple[list[dict], list[str]]:
    """(questions whose every gold item is grounded in the bundle, the problems of the others). A bundle built
    from part of the corpus answers only the questions about that part."""
    kept, problems, _ = grounding(questions, chunks, documents)
    return kept, problems


def grounding(
    questions: Sequence[dict], chunks: Iterable[dict], documents: Iterable[str] | dict | None = None
) -> tuple[list[dict], list[str], list[str]]:
    """:func:`split_grounded` and the warnings on the kept questions (a gold provision no passage of its act
    carries in its path: scored, and listed)."""
    truth = GroundTruth(chunks, documents)
    kept, problems = [], []
    for q in questions:
        errors = truth.errors([q])
        if errors:
            problems.extend(errors)
        else:
            kept.append(q)
    return kept, problems, truth.warnings(kept)


def evaluate_bundle(
    bundles_dir: Path,
    questions_path: Path,
    reports_dir: Path,
    embedder=None,
    variants: Sequence[str] = VARIANTS,
    label: str | None = None,
    searcher=None,
) -> dict:
    """Evaluate the published bundle on the questions its documents can answer and write the report (JSON,
    markdown, PNGs) under ``reports_dir/<bundle version>/<question set>/``. A report already written for the
    same bundle version, questions file content and searching code (:func:`search_code_digest`) is reused: a night
    whose code changed but whose bundle did not evaluates afresh. ``searcher``: the published bundle already loaded
    (several question sets need one load), or a function loading it, called only when a report is to be
    written. Returns a summary with the full ``result`` (None when no question is grounded in this bundle)."""
    import hashlib

    from mendel.index.bundle import current_bundle
    from retrieval_eval.report import REPORT_NAME, RESULTS_NAME, write_report
    from serving.ranking.search import Searcher

    questions_path = Path(questions_path)
    questions = load_questions(questions_path)
    problems = schema_errors(questions)
    if problems:
        raise ValueError(f"{questions_path}: {len(problems)} schema problems, first: {problems[0]}")
    if callable(searcher):  # loaded only when this set's report for the live bundle is not written yet
        load, searcher = searcher, None
    else:

        def load():
            return Searcher.latest(Path(bundles_dir), embedder=embedder)

    version = searcher.path.name if searcher is not None else current_bundle(Path(bundles_dir)).name
    label = label or questions_path.stem
    out_dir = Path(reports_dir) / version / label
    digest = hashlib.sha256(questions_path.read_bytes()).hexdigest()
    code = search_code_digest()
    summary = {
        "bundle": version,
        "questions_file": str(questions_path),
        "questions_sha256": digest,
        "report_dir": str(out_dir),
        "report": str(out_dir / REPORT_NAME),
        "reused": False,
    }
    cached = out_dir / RESULTS_NAME
    if cached.exists():
        previous = json.loads(cached.read_text(encoding="utf-8"))
        if previous.get("questions_sha256") == digest and previous.get("code_sha256") == code:
            return {**summary, "reused": True, "result": previous, "skipped": previous.get("skipped", [])}
    searcher = searcher or load()
    kept, skipped, warnings = grounding(questions, searcher.chunks, searcher.documents)
    summary["skipped"] = skipped
    if not kept:
        return {**summary, "result": None}
    result = evaluate_forms(searcher, kept, variants=variants)
    result.update(
        {
            "label": label,
            "questions_file": str(questions_path),
            "questions_sha256": digest,
            "code_sha256": code,
            "questions_total": len(questions),
            "skipped": skipped,
        }
    )
    if warnings:
        result["gold_warnings"] = warnings
    write_report(result, out_dir)
    _prune_reports(Path(reports_dir), Path(bundles_dir))
    return {**summary, "result": result}


# The code that decides what a bundle's search answers and how it is scored: the searcher, the product library
# (query analysis, the wording tables it reads) and this evaluator.
SEARCH_CODE = ("serving", "mendel", "retrieval_eval")
SEARCH_CODE_SUFFIXES = frozenset({".py", ".json", ".yaml", ".yml", ".txt", ".tsv", ".csv"})


def search_code_digest(root: Path = Path(__file__).resolve().parent.parent, packages=SEARCH_CODE) -> str:
    """SHA-256 over the path and bytes of every source and data file of ``packages`` under ``root`` (question sets
    left out: their own digest keys a report)."""
    import hashlib

    digest = hashlib.sha256()
    for package in packages:
        for path in sorted((root / package).rglob("*")):
            relative = path.relative_to(root)
            if path.suffix not in SEARCH_CODE_SUFFIXES or "__pycache__" in relative.parts or not path.is_file():
                continue
            if relative.parts[:2] == ("retrieval_eval", "questions"):
                continue
            digest.update(relative.as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


WATCHED = ("recall@10", "mrr")  # the default search's figures a new bundle must not lose on a set
REGRESSION_TOLERANCE = 0.001  # rounding in stored results, not a margin to lose quality in


def previous_result(reports_dir: Path, version: str, label: str) -> tuple[str, dict] | None:
    """(version, stored result) of the newest bundle before ``version`` with a ``label`` report: the bundle that
    was live before this one was published (reports follow their bundles while those are kept)."""
    from retrieval_eval.report import RESULTS_NAME

    earlier = (
        sorted(
            (p.name for p in Path(reports_dir).iterdir() if _VERSION.match(p.name) and p.name < version), reverse=True
        )
        if Path(reports_dir).is_dir()
        else []
    )
    for name in earlier:
        path = Path(reports_dir) / name / label / RESULTS_NAME
        if path.is_file():
            return name, json.loads(path.read_text(encoding="utf-8"))
    return None


def regressions(current: dict, previous: dict, variant: str = "default") -> dict[str, tuple[float, float]]:
    """{metric: (before, now)} for each watched figure of ``variant`` that the current result lost."""
    now = current["variants"][variant]["overall"]
    before = previous.get("variants", {}).get(variant, {}).get("overall", {})
    return {
        metric: (float(before[metric]), float(now[metric]))
        for metric in WATCHED
        if metric in before and metric in now and float(now[metric]) < float(before[metric]) - REGRESSION_TOLERANCE
    }


_VERSION = re.compile(r"^\d{8}T\d+Z$")


def _prune_reports(reports_dir: Path, bundles_dir: Path) -> None:
    """Reports follow their bundles: a version pruned from the bundles directory loses its report too."""
    import shutil

    for path in reports_dir.iterdir():
        if path.is_dir() and _VERSION.match(path.name) and not (bundles_dir / path.name).exists():
            shutil.rmtree(path, ignore_errors=True)


# --- reporting ----------------------------------------------------------------------------------------------


def format_table(result: dict) -> str:
    """Markdown: the ablation table, then recall@10 (or the largest k <= 10) per question type, and where the
    questions have them, per register, per kind, per typed form, and the unanswerable questions' admissions."""
    ks = result["ks"]
    metrics = [f"recall@{k}" for k in ks] + ["mrr", f"ndcg@{NDCG_K}"]
    timed = all(data.get("latency_ms") for data in result["variants"].values())
    latency_columns = ["mean ms", "p95 ms"] if timed else []
    lines = [
        f"Retrieval evaluation: {result['questions']} questions"
        + (f", bundle `{Path(result['bundle']).name}`" if result.get("bundle") else ""),
        "",
        "| variant | " + " | ".join(metrics + latency_columns) + " |",
        "|---|" + "---:|" * (len(metrics) + len(latency_columns)),
    ]
    for variant, data in result["variants"].items():
        cells = [f"{data['overall'].get(m, 0.0):.3f}" for m in metrics]
        if timed:
            cells += [f"{data['latency_ms']['mean']:.1f}", f"{data['latency_ms']['p95']:.1f}"]
        lines.append(f"| {variant} | " + " | ".join(cells) + " |")
    k_type = max([k for k in ks if k <= 10] or ks)
    types = list(result["types"])
    lines += [
        "",
        f"recall@{k_type} per question type (n):",
        "",
        "| variant | " + " | ".join(f"{t} ({result['types'][t]})" for t in types) + " |",
        "|---|" + "---:|" * len(types),
    ]
    for variant, data in result["variants"].items():
        lines.append(
            f"| {variant} | "
            + " | ".join(f"{data['by_type'][t].get(f'recall@{k_type}', 0.0):.3f}" for t in types)
            + " |"
        )
    registers = result.get("registers") or {}
    if registers:
        lines += [
            "",
            f"recall@{k_type} / MRR per register (n):",
            "",
            "| variant | " + " | ".join(f"{r} ({n})" for r, n in registers.items()) + " |",
            "|---|" + "---:|" * len(registers),
        ]
        for variant, data in result["variants"].items():
            cells = [
                f"{data['by_register'][r].get(f'recall@{k_type}', 0.0):.3f} / "
                f"{data['by_register'][r].get('mrr', 0.0):.3f}"
                for r in registers
            ]
            lines.append(f"| {variant} | " + " | ".join(cells) + " |")
    if result.get("weak_answerable"):
        weak = result["weak_answerable"]
        lines += ["", f"default search marked {weak['weak']} of {weak['questions']} answerable questions weak"]
        if "says_absent" in weak:
            lines += [f"and told {weak['says_absent']} of them that the act governing them is not in the collection"]
    if result.get("not_in_collection"):
        nic = result["not_in_collection"]
        lines += [
            "",
            f"questions with no answer in the collection: the default search admitted "
            f"{nic['admitted']} of {nic['questions']} (no hits, weak hits or a coverage notice)",
        ]
    from retrieval_eval.report import admission_table, breakdown_table, forms_kind_table, forms_table

    if result.get("kinds"):
        lines += ["", "recall@10 / MRR per question kind (n):", "", *breakdown_table(result, "by_kind", "kinds")]
    if result.get("forms"):
        lines += ["", "recall@10 / MRR per typed form:", "", *forms_table(result)]
        if result.get("kinds") and "default" in result["variants"]:
            lines += ["", *forms_kind_table(result)]
    admissions = admission_table(result)
    if admissions:
        lines += ["", *admissions]
    for key, what in (("skipped", "left out"), ("gold_warnings", "with a gold provision no passage carries")):
        if result.get(key):
            lines += ["", f"questions {what}: {len(result[key])} (" + "; ".join(result[key][:5]) + ")"]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m retrieval_eval.retrieval", description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=Path, default=DEV_QUESTIONS)
    parser.add_argument("--bundles", type=Path, default=None, help="bundles directory (default: settings)")
    parser.add_argument("--ks", default=",".join(map(str, DEFAULT_KS)))
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--json", action="store_true", help="print the full result as JSON")
    parser.add_argument("--out", type=Path, default=None, help="also write the markdown table here")
    parser.add_argument("--validate-only", action="store_true", help="only check the gold against the bundle")
    parser.add_argument(
        "--report",
        type=Path,
        default=None,
        help="write the JSON results, a markdown report and PNG plots into this directory",
    )
    parser.add_argument("--label", default=None, help="the question set's name in the report (default: file stem)")
    parser.add_argument(
        "--ascii",
        action="store_true",
        help="also ask every question typed without diacritics (retrieval_eval.typed_forms) and score that form",
    )
    parser.add_argument(
        "--typo", action="store_true", help="also ask every question with derived slips (retrieval_eval.typed_forms)"
    )
    parser.add_argument(
        "--rerank-model",
        type=Path,
        default=None,
        help=f"a local cross-encoder directory: adds the {RERANK_VARIANT} variant",
    )
    args = parser.parse_args(argv)

    questions = load_questions(args.questions)
    if args.ascii:
        from retrieval_eval.typed_forms import with_ascii

        questions = with_ascii(questions)
    if args.typo:
        from retrieval_eval.typed_forms import with_typos

        questions = with_typos(questions)
    problems = schema_errors(questions)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 2
    bundles = args.bundles
    if bundles is None:
        from mendel.core.config import get_settings

        bundles = get_settings().bundles_dir
    from serving.ranking.search import Searcher

    reranker = None
    if args.rerank_model is not None:
        from serving.ranking.rerank import CrossEncoder

        reranker = CrossEncoder.load(args.rerank_model)
    searcher = Searcher.latest(Path(bundles), reranker=reranker)
    kept, problems, warnings = grounding(questions, searcher.chunks, searcher.documents)
    # gold naming an act, a decision or a place waits for the collection to hold it: such a question is left out
    # and listed; a passage gold item that is not where it says is an error in the questions file
    named = all(alternatives(q["gold"]) or not answerable(q) for q in questions)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        if args.validate_only or not named or not kept:
            return 2
        print(f"{len(problems)} questions left out: the bundle does not hold their gold", file=sys.stderr)
    if warnings:
        print("\n".join(warnings), file=sys.stderr)
    if args.validate_only:
        print(f"{len(questions)} questions, {sum(len(q['gold']) for q in questions)} gold items: all grounded")
        return 0
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    if reranker is not None and RERANK_VARIANT not in variants:
        variants.append(RERANK_VARIANT)
    result = evaluate_forms(searcher, kept, ks=[int(k) for k in args.ks.split(",")], variants=variants)
    result["label"] = args.label or args.questions.stem
    result["questions_file"] = str(args.questions)
    result["questions_total"] = len(questions)
    if problems:
        result["skipped"] = problems
    if warnings:
        result["gold_warnings"] = warnings
    table = format_table(result)
    if args.out:
        args.out.write_text(table, encoding="utf-8")
    if args.report:
        from retrieval_eval.report import write_report

        report = write_report(result, args.report)
        print(f"report: {report}", file=sys.stderr)
    print(json.dumps(result, ensure_ascii=False, indent=1) if args.json else table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
