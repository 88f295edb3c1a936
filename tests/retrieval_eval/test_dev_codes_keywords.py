"""The dev set of keyword-style queries to the big codes (retrieval_eval/questions/dev_codes_keywords.jsonl): valid,
registered as a dev set, and typed as into a search box (short, no question sentence). No bundle and no search here."""

from __future__ import annotations

from collections import Counter

from retrieval_eval import QUESTIONS_DIR
from retrieval_eval.learn_lay import DEV_LAY_FILES
from retrieval_eval.release import SETS
from retrieval_eval.retrieval import load_questions, schema_errors

DEV_CODES_KEYWORDS = QUESTIONS_DIR / "dev_codes_keywords.jsonl"


def test_the_keywords_set_is_valid_and_asks_the_three_codes():
    questions = load_questions(DEV_CODES_KEYWORDS)
    assert schema_errors(questions) == []
    assert len(questions) == 40
    assert {(q["kind"], q["register"]) for q in questions} == {("code", "lay")}
    acts = Counter(q["gold"][0]["act"] for q in questions)
    assert acts == {"89/2012 Sb.": 22, "40/2009 Sb.": 14, "251/2016 Sb.": 4}


def test_every_query_is_a_few_keywords_without_a_question_mark():
    questions = load_questions(DEV_CODES_KEYWORDS)
    sentences = [q["id"] for q in questions if "?" in q["question"] or not 2 <= len(q["question"].split()) <= 7]
    assert sentences == []
    assert sum(q["question"].isascii() for q in questions) == 20  # half typed without diacritics


def test_the_keywords_set_is_a_dev_set_the_lay_stage_may_learn_from():
    (registered,) = [s for s in SETS if s.file == DEV_CODES_KEYWORDS.name]
    assert registered.role == "dev" and registered.label == "dev codes keywords"
    assert DEV_CODES_KEYWORDS.name in DEV_LAY_FILES
