"""A question set's ascii form: every question also typed without diacritics, derived and marked so."""

import pytest

from retrieval_eval.retrieval import question_forms, schema_errors
from retrieval_eval.typed_forms import ascii_form, with_ascii

QUESTIONS = [
    {
        "id": "q1",
        "question": "Jaká je zkušební doba?",
        "type": "paraphrase",
        "gold": [{"doc_id": "d", "page": 1, "evidence": "x"}],
    },
    {
        "id": "q2",
        "question": "Kdo platí nájemné?",
        "type": "paraphrase",
        "gold": [{"doc_id": "d", "page": 1, "evidence": "x"}],
        "variants": {"ascii": "kdo plati najem?"},  # a person's typing is kept
    },
]


def test_every_question_gets_an_ascii_form_marked_derived():
    typed = with_ascii(QUESTIONS)
    assert typed[0]["variants"] == {"ascii": "Jaka je zkusebni doba?"}
    assert typed[0]["variants_derived"] == ["ascii"]
    assert typed[1]["variants"]["ascii"] == "kdo plati najem?" and "variants_derived" not in typed[1]
    assert schema_errors(typed) == []
    assert [q["question"] for q in question_forms(typed)["ascii"]] == ["Jaka je zkusebni doba?", "kdo plati najem?"]
    assert QUESTIONS[0].get("variants") is None  # the input is left as it was


def test_ascii_form_keeps_length_and_legal_marks():
    text = "§ 35 odst. 1 zákoníku práce — čl. 10 Listiny"
    assert ascii_form(text) == "§ 35 odst. 1 zakoniku prace — cl. 10 Listiny"
    assert len(ascii_form(text)) == len(text)


def test_typo_form_slips_the_two_longest_words_the_same_way_every_run():
    from retrieval_eval.typed_forms import typo_form, with_typos

    question = "Jaká je výpovědní doba zaměstnance?"
    hurried = typo_form("q7", question)
    assert hurried == typo_form("q7", question)  # chosen by the id, not by chance
    words, typed = "Jaka je vypovedni doba zamestnance?".split(), hurried.split()
    changed = [(a, b) for a, b in zip(words, typed) if a != b]
    assert [a for a, _ in changed] == ["vypovedni", "zamestnance?"]
    typed_set = with_typos(with_ascii(QUESTIONS))
    assert typed_set[0]["variants"]["typo"] != typed_set[0]["variants"]["ascii"]
    assert typed_set[0]["variants_derived"] == ["ascii", "typo"] and schema_errors(typed_set) == []


@pytest.mark.parametrize(
    "choice, expected",
    [(0, "vipovedni"), (1, "vyovedni"), (2, "vypvoedni"), (3, "vypov"), (4, "vypovedny")],
)
def test_each_kind_of_slip(choice, expected):
    from retrieval_eval.typed_forms import slip

    assert slip("vypovedni", choice) == expected
