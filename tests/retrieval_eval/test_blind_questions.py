"""The blind question set (retrieval_eval/questions/blind.jsonl) and the schema fields it adds: ``register`` and
``expect: not_in_collection``; how the evaluation scores questions with no answer in the collection. No bundle and
no search of the real collection: the blind set is evaluated once per release, never here."""

from __future__ import annotations

from types import SimpleNamespace

from retrieval_eval import BLIND_QUESTIONS
from retrieval_eval.retrieval import (
    NOT_IN_COLLECTION,
    QUESTION_TYPES,
    REGISTERS,
    answerable,
    evaluate,
    format_table,
    load_questions,
    schema_errors,
)


def test_blind_set_is_valid_and_large_enough():
    questions = load_questions(BLIND_QUESTIONS)
    assert schema_errors(questions) == []
    assert len(questions) >= 80
    assert all(q["register"] in REGISTERS for q in questions)
    assert sum(q["register"] == "lay" for q in questions) >= 40
    unanswerable = [q for q in questions if not answerable(q)]
    assert 3 <= len(unanswerable) < len(questions) // 5
    assert {q["type"] for q in questions} <= set(QUESTION_TYPES)


def test_blind_header_states_date_method_and_rule():
    header = (BLIND_QUESTIONS.parent / "BLIND.md").read_text(encoding="utf-8")
    assert "2026-12-01" in header
    assert "before any search was run" in header and "never tuned on" in header.lower()


def test_schema_checks_register_and_expect():
    good = {
        "id": "a",
        "question": "q",
        "type": "paraphrase",
        "register": "lay",
        "gold": [{"doc_id": "D", "page": 1, "evidence": "e"}],
    }
    none = {
        "id": "b",
        "question": "q",
        "type": "citation",
        "register": "expert",
        "gold": [],
        "expect": NOT_IN_COLLECTION,
    }
    assert schema_errors([good, none]) == []
    assert schema_errors([{**good, "register": "plain"}])
    assert schema_errors([{**good, "expect": "something"}])
    assert schema_errors([{**none, "gold": good["gold"]}])  # unanswerable with a gold item
    assert schema_errors([{**good, "gold": []}])  # answerable without gold


class FakeSearcher:
    """Answers from a fixed table: query -> (hits, weak, missing)."""

    path = ""
    chunks: list = []

    def __init__(self, answers):
        self.answers = answers

    def search_with_coverage(self, query, k=10, **_):
        hits, weak, missing = self.answers[query]
        return SimpleNamespace(hits=hits, weak=weak, coverage={"missing": [{"text": m} for m in missing]})

    def search(self, query, k=10, **_):
        return self.answers[query][0]


def test_unanswerable_questions_are_scored_apart_and_registers_reported():
    hit = {"doc_id": "D", "page": 1, "page_end": 1, "text": "x"}
    questions = [
        {
            "id": "a",
            "question": "lay",
            "type": "paraphrase",
            "register": "lay",
            "gold": [{"doc_id": "D", "page": 1, "evidence": "nothing"}],
        },
        {
            "id": "b",
            "question": "expert",
            "type": "citation",
            "register": "expert",
            "gold": [{"doc_id": "E", "page": 1, "evidence": "nothing"}],
        },
        {
            "id": "c",
            "question": "nonsense",
            "type": "paraphrase",
            "register": "lay",
            "gold": [],
            "expect": NOT_IN_COLLECTION,
        },
        {
            "id": "d",
            "question": "§ 2079 OZ",
            "type": "citation",
            "register": "expert",
            "gold": [],
            "expect": NOT_IN_COLLECTION,
        },
        {
            "id": "e",
            "question": "confident",
            "type": "paraphrase",
            "register": "lay",
            "gold": [],
            "expect": NOT_IN_COLLECTION,
        },
    ]
    searcher = FakeSearcher(
        {
            "lay": ([hit], False, []),
            "expert": ([hit], True, []),
            "nonsense": ([], False, []),
            "§ 2079 OZ": ([hit], False, ["89/2012 Sb."]),
            "confident": ([hit], False, []),
        }
    )
    result = evaluate(searcher, questions, ks=(1, 10), variants=("default",))
    assert result["questions"] == 2  # ranking metrics over the answerable ones only
    assert result["registers"] == {"lay": 1, "expert": 1}
    assert result["variants"]["default"]["by_register"]["lay"]["recall@1"] == 1.0
    assert result["variants"]["default"]["by_register"]["expert"]["recall@1"] == 0.0
    assert result["weak_answerable"] == {"questions": 2, "weak": 1, "says_absent": 0}
    nic = result["not_in_collection"]
    assert nic["questions"] == 3 and nic["admitted"] == 2
    assert {q["id"]: q["admits"] for q in nic["per_question"]} == {"c": True, "d": True, "e": False}
    table = format_table(result)
    assert "lay (1)" in table and "admitted 2 of 3" in table
