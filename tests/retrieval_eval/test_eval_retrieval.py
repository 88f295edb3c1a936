"""Retrieval evaluation: metrics on hand-made rankings, the relevance rule, the dev questions file (no bundle)."""

import math

import pytest

from retrieval_eval import DEV_QUESTIONS
from retrieval_eval.retrieval import (
    QUESTION_TYPES,
    format_table,
    gold_errors,
    is_relevant,
    judge,
    load_questions,
    ndcg_at_k,
    recall_at_k,
    reciprocal_rank,
    schema_errors,
    score_ranking,
)

QUESTIONS = DEV_QUESTIONS
GOLD = {"doc_id": "D", "page": 3, "evidence": "Sazba  základní\nnáhrady"}


def hit(doc="X", page=1, page_end=None, text=""):
    return {"doc_id": doc, "page": page, "page_end": page if page_end is None else page_end, "text": text}


def test_relevance_by_page_span_of_the_gold_document():
    assert is_relevant(hit("D", 3), GOLD)
    assert is_relevant(hit("D", 2, 4), GOLD)
    assert not is_relevant(hit("D", 4, 5), GOLD)
    assert not is_relevant(hit("E", 3), GOLD)  # right page, wrong document


def test_relevance_by_evidence_whitespace_and_case_insensitive():
    assert is_relevant(hit("E", 9, text="… SAZBA základní náhrady za 1 km"), GOLD)
    assert not is_relevant(hit("E", 9, text="sazba náhrady"), GOLD)


def test_relevance_accepts_search_hits():
    from serving.ranking.hits import Hit

    h = Hit(
        doc_id="D", title="t", source="s", url="u", page=2, page_end=3, section="", text="", score=1.0, chunk_id="c"
    )
    assert is_relevant(h, GOLD)


def test_metrics_single_gold():
    matches = judge([hit(), hit(), hit("D", 3)], [GOLD])
    assert matches == [frozenset(), frozenset(), frozenset({0})]
    assert recall_at_k(matches, 1, 1) == 0.0 and recall_at_k(matches, 1, 3) == 1.0
    assert reciprocal_rank(matches) == pytest.approx(1 / 3)
    assert ndcg_at_k(matches, 1, 10) == pytest.approx(1 / math.log2(4))


def test_metrics_two_gold_items_counted_once_each():
    m = [frozenset({1}), frozenset({1}), frozenset(), frozenset({0})]
    assert recall_at_k(m, 2, 1) == 0.5 and recall_at_k(m, 2, 3) == 0.5 and recall_at_k(m, 2, 4) == 1.0
    assert reciprocal_rank(m) == 1.0
    ideal = 1 + 1 / math.log2(3)
    assert ndcg_at_k(m, 2, 10) == pytest.approx((1 + 1 / math.log2(5)) / ideal)
    assert ndcg_at_k([frozenset({0}), frozenset({1})], 2, 10) == pytest.approx(1.0)


def test_metrics_nothing_relevant():
    m = [frozenset()] * 5
    assert score_ranking(m, 1, (1, 5)) == {"recall@1": 0.0, "recall@5": 0.0, "mrr": 0.0, "ndcg@10": 0.0}


def test_gold_errors_against_chunks():
    chunks = [{"doc_id": "D", "page_start": 2, "page_end": 3, "text": "a Sazba základní náhrady b"}]
    ok = {"id": "q1", "gold": [GOLD]}
    wrong_page = {"id": "q2", "gold": [{**GOLD, "page": 5}]}
    unknown = {"id": "q3", "gold": [{**GOLD, "doc_id": "Z"}]}
    errors = gold_errors([ok, wrong_page, unknown], chunks)
    assert len(errors) == 2 and errors[0].startswith("q2") and errors[1].startswith("q3")


def test_format_table():
    row = {"recall@1": 0.5, "recall@10": 1.0, "mrr": 0.75, "ndcg@10": 0.8}
    result = {
        "questions": 2,
        "ks": [1, 10],
        "types": {"ocr": 2},
        "bundle": "",
        "variants": {"bm25": {"overall": row, "by_type": {"ocr": row}}},
    }
    table = format_table(result)
    assert "| bm25 | 0.500 | 1.000 | 0.750 | 0.800 |" in table
    assert "| ocr (2) |" in table and "| bm25 | 1.000 |" in table


def test_dev_questions_schema():
    questions = load_questions(QUESTIONS)
    assert len(questions) >= 60
    assert schema_errors(questions) == []
    assert {q["type"] for q in questions} == set(QUESTION_TYPES)
    assert all(len(q["gold"]) >= 2 for q in questions if q["type"] == "multi")


def _bundle():
    import os

    from mendel.core.config import get_settings
    from mendel.index import bundle

    if not os.environ.get("MENDEL_HOME"):
        return None
    try:
        return bundle.current_bundle(get_settings().bundles_dir)
    except Exception:
        return None


def test_dev_gold_grounded_in_published_bundle():
    from mendel.index import bundle

    path = _bundle()
    if path is None:
        pytest.skip("no published bundle under $MENDEL_HOME")
    chunks = list(bundle.layer_rows(path, 3))
    documents = [d["doc_id"] for d in bundle.read_documents(path)]
    if not {g["doc_id"] for q in load_questions(QUESTIONS) for g in q["gold"]} <= set(documents):
        pytest.skip("bundle does not hold the whole sample corpus")
    assert gold_errors(load_questions(QUESTIONS), chunks, documents) == []


def test_format_table_adds_latency_when_every_variant_has_it():
    row = {"recall@1": 0.5, "recall@10": 1.0, "mrr": 0.75, "ndcg@10": 0.8}
    result = {
        "questions": 2,
        "ks": [1, 10],
        "types": {"ocr": 2},
        "bundle": "",
        "variants": {
            "bm25": {
                "overall": row,
                "by_type": {"ocr": row},
                "latency_ms": {"mean": 2.04, "p50": 1.5, "p95": 4.96, "max": 5.0},
            }
        },
    }
    table = format_table(result)
    assert "| variant | recall@1 | recall@10 | mrr | ndcg@10 | mean ms | p95 ms |" in table
    assert "| bm25 | 0.500 | 1.000 | 0.750 | 0.800 | 2.0 | 5.0 |" in table


ABSENT_QUESTIONS = QUESTIONS.with_name("dev_absent.jsonl")


def test_dev_absent_set_names_a_governing_act_for_every_unanswerable_question():
    from retrieval_eval.gold import answerable, governing_act

    questions = load_questions(ABSENT_QUESTIONS)
    assert schema_errors(questions) == []
    absent = [q for q in questions if not answerable(q)]
    assert len(absent) >= 40 and len(questions) - len(absent) >= 20
    assert all(governing_act(q) for q in absent)
    assert len({governing_act(q) for q in absent}) >= 30  # many areas of law, not one act asked many ways


@pytest.mark.parametrize(
    "coverage, says_absent, admits",
    [
        ({"governing_missing": True, "missing": [{"id": "262/2006 Sb."}]}, True, True),
        ({"governing_missing": False, "missing": []}, False, False),
        ({}, False, False),
    ],
)
def test_the_default_answer_records_whether_it_said_the_governing_act_is_absent(coverage, says_absent, admits):
    from types import SimpleNamespace

    from retrieval_eval.retrieval import answer_honesty

    answer = SimpleNamespace(hits=[hit()], weak=False, coverage=coverage)
    honesty = answer_honesty(answer, "262/2006 Sb.")
    assert (honesty["says_absent"], honesty["admits"]) == (says_absent, admits)
    assert honesty["names_governing_act"] is says_absent
