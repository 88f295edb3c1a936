"""The dev set of questions about court decisions (retrieval_eval/questions/dev_decisions.jsonl): valid, registered
as a dev set, and asking about a decision's content, never naming it. No bundle and no search here."""

from __future__ import annotations

import re

from retrieval_eval import QUESTIONS_DIR
from retrieval_eval.learn_lay import DEV_LAY_FILES
from retrieval_eval.release import SETS
from retrieval_eval.retrieval import MAX_EVIDENCE, load_questions, schema_errors

DEV_DECISIONS = QUESTIONS_DIR / "dev_decisions.jsonl"
# what names a decision rather than asks about it: an ECLI, a file number ("21 Cdo 1486/2005", "I. ÚS 689/05")
_IDENTIFIER = re.compile(r"ECLI|\b\d+\s*(?:Cdo|Tdo|Tz|Co|C|To|T)\s*\d+/\d{2,4}\b|ÚS\s*\d+/\d{2}", re.IGNORECASE)


def test_the_decisions_set_is_valid_and_mixes_lay_and_expert_questions():
    questions = load_questions(DEV_DECISIONS)
    assert schema_errors(questions) == []
    assert len(questions) == 36
    assert {q["kind"] for q in questions} == {"decision"}
    assert sum(q["register"] == "lay" for q in questions) == sum(q["register"] == "expert" for q in questions)
    assert all(len(g["evidence"]) <= MAX_EVIDENCE and g["page"] >= 1 for q in questions for g in q["gold"])


def test_no_question_names_its_decision():
    named = [q["id"] for q in load_questions(DEV_DECISIONS) if _IDENTIFIER.search(q["question"])]
    assert named == []
    assert _IDENTIFIER.search("rozsudek 21 Cdo 1486/2005 o bonusech")  # the pattern catches a file number


def test_the_decisions_set_is_a_dev_set_the_lay_stage_may_learn_from():
    (registered,) = [s for s in SETS if s.file == DEV_DECISIONS.name]
    assert registered.role == "dev" and registered.label == "dev decisions"
    assert DEV_DECISIONS.name in DEV_LAY_FILES
