"""The learned stage's training (retrieval_eval/learn_fusion.py): no synthetic question is drawn from anything a
question file has as gold -- a page, a provision of a code, a whole act, a decision, a notice."""

from __future__ import annotations

import json

import pytest

from retrieval_eval.learn_fusion import HeldOutGold, question_files, synthetic_questions

TEXT = "Kdo si přisvojí cizí věc tím, že se jí zmocní, bude potrestán odnětím svobody až na dvě léta. " * 3

DOCUMENTS = {
    "/eli/cz/sb/2009/40": {"doc_id": "/eli/cz/sb/2009/40", "title": "Trestní zákoník", "citation": "40/2009 Sb."},
    "/eli/cz/sb/1993/1": {"doc_id": "/eli/cz/sb/1993/1", "title": "Ústava", "citation": "1/1993 Sb."},
    "ECLI:CZ:NS:2020:4.TZ.8.2007.1": {
        "doc_id": "ECLI:CZ:NS:2020:4.TZ.8.2007.1",
        "title": "Rozhodnutí Nejvyššího soudu",
        "citation": "4 Tz 8/2007",
    },
    "notice-1": {"doc_id": "notice-1", "title": "Rozpočet obce na rok 2026", "obec": "Blešno"},
    "notice-2": {"doc_id": "notice-2", "title": "Svoz odpadu", "obec": "Blešno"},
    "page-doc": {"doc_id": "page-doc", "title": "Vyhláška"},
}


def _chunk(doc_id: str, section: str = "", page: int = 1, citation: str | None = None) -> dict:
    return {
        "doc_id": doc_id,
        "page_start": page,
        "page_end": page,
        "section": section,
        "citation": citation or DOCUMENTS[doc_id].get("citation"),
        "title": DOCUMENTS[doc_id]["title"],
        "text": TEXT,
        "source": "test",
    }


GOLD = [
    {"id": "q1", "gold": [{"act": "40/2009 Sb.", "provision": "§ 205"}]},
    {"id": "q2", "gold": [{"act": "1/1993 Sb."}]},
    {"id": "q3", "gold": [{"file_number": "4 Tz 8/2007"}]},
    {"id": "q4", "gold": [{"place": "Blešno", "title_any": ["rozpočet"]}]},
    {"id": "q5", "gold": [{"doc_id": "page-doc", "page": 2, "evidence": "x"}]},
    {"id": "q6", "expect": "not_in_collection", "gold": [{"unanswerable": True, "governing_act": "262/2006 Sb."}]},
]


@pytest.fixture
def held(tmp_path) -> HeldOutGold:
    (tmp_path / "set.jsonl").write_text("\n".join(json.dumps(q, ensure_ascii=False) for q in GOLD) + "\n")
    return HeldOutGold([tmp_path / "set.jsonl"], DOCUMENTS)


@pytest.mark.parametrize(
    ("chunk", "excluded"),
    [
        (_chunk("/eli/cz/sb/2009/40", "část 2 > hlava 5 TRESTNÉ ČINY PROTI MAJETKU > Krádež > § 205"), True),
        (_chunk("/eli/cz/sb/2009/40", "část 2 > hlava 5 > § 204"), False),  # the code's other §§ are drawn
        (_chunk("/eli/cz/sb/2009/40", "část 2 > hlava 5 > § 2051"), False),
        (_chunk("/eli/cz/sb/1993/1", "HLAVA DRUHÁ > Čl. 16"), True),  # act gold: every passage of the act
        (_chunk("ECLI:CZ:NS:2020:4.TZ.8.2007.1"), True),  # decision gold: the decision
        (_chunk("notice-1"), True),  # notice gold: the notice of that place whose title holds the word
        (_chunk("notice-2"), False),
        (_chunk("page-doc", page=2), True),  # passage gold: its page
        (_chunk("page-doc", page=3), False),
    ],
)
def test_gold_of_every_kind_is_held_out(held, chunk, excluded):
    assert (chunk in held) is excluded


def test_provision_gold_in_a_passage_that_opens_it_is_held_out(held):
    opening = {**_chunk("/eli/cz/sb/2009/40", "část 2 > hlava 5 > § 204"), "text": "§ 204\n...\n§ 205\nKrádež\n" + TEXT}
    assert opening in held


def test_no_synthetic_question_is_drawn_from_held_out_gold(held):
    # one passage a § of the code, each on its own page (the page tells which § a question was drawn from)
    chunks = [_chunk("/eli/cz/sb/2009/40", f"část 2 > hlava 5 > § {n}", page=n) for n in range(200, 210)]
    questions = synthetic_questions(chunks, 50, seed=3, excluded=held)
    drawn = {q["gold"][0]["page"] for q in questions}
    assert drawn and 205 not in drawn
    assert synthetic_questions([chunks[5]], 5, seed=3, excluded=None)  # § 205 alone gives a question ...
    assert synthetic_questions([chunks[5]], 5, seed=3, excluded=held) == []  # ... unless it is gold somewhere


def test_every_question_file_is_held_out():
    names = {path.name for path in question_files()}
    assert {"dev.jsonl", "heldout.jsonl", "dev_codes.jsonl", "heldout_codes.jsonl", "dev_codes2.jsonl"} <= names
