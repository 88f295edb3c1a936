"""The second blind question set (retrieval_eval/questions/blind_v2.jsonl) and how the evaluation scores it: its
typed forms, its kinds and its unanswerable questions, on a fake searcher with synthetic hits. No bundle and no
search of the real collection: the set is evaluated once per release, never here."""

from __future__ import annotations

import re
from collections import Counter
from types import SimpleNamespace

from pytest import approx

from mendel.czech.analyzer import strip_diacritics
from retrieval_eval import QUESTIONS_DIR
from retrieval_eval.report import write_report
from retrieval_eval.retrieval import (
    FORMS,
    KINDS,
    answerable,
    evaluate_forms,
    format_table,
    governing_act,
    load_questions,
    question_forms,
    schema_errors,
)

BLIND_V2 = QUESTIONS_DIR / "blind_v2.jsonl"
BIG_CODES = {"89/2012 Sb.", "40/2009 Sb."}


def test_blind_v2_is_valid_and_shaped_as_promised():
    questions = load_questions(BLIND_V2)
    assert schema_errors(questions) == []
    assert len(questions) >= 100
    kinds = Counter(q["kind"] for q in questions)
    assert set(kinds) == set(KINDS)
    assert kinds["code"] * 2 >= len(questions)  # half about the big codes
    assert 0.18 <= kinds["unanswerable"] / len(questions) <= 0.25  # about a fifth
    assert sum(q["register"] == "lay" for q in questions) > len(questions) / 2
    for q in questions:
        first = q["gold"][0]
        if q["kind"] == "code":
            assert first["act"] in BIG_CODES and first.get("provision"), q["id"]
        elif q["kind"] == "act":
            assert first["act"] not in BIG_CODES, q["id"]
        elif q["kind"] == "decision":
            assert all("file_number" in g for g in q["gold"]), q["id"]
        elif q["kind"] == "notice":
            assert all("place" in g for g in q["gold"]), q["id"]
        else:
            assert not answerable(q) and governing_act(q), q["id"]


def test_unanswerable_questions_name_an_act_no_question_has_as_gold():
    questions = load_questions(BLIND_V2)
    gold_acts = {g["act"] for q in questions for g in q["gold"] if "act" in g}
    governing = {governing_act(q) for q in questions if not answerable(q)}
    assert governing and not governing & gold_acts
    assert "262/2006 Sb." in governing and "235/2004 Sb." in governing


def test_every_question_is_also_typed_without_diacritics_and_some_in_a_hurry():
    questions = load_questions(BLIND_V2)
    assert all(q["variants"]["ascii"] == strip_diacritics(q["question"]) for q in questions)
    hurried = [q for q in questions if "typo" in q["variants"]]
    assert len(hurried) >= len(questions) // 3
    for q in hurried:
        typo = q["variants"]["typo"]
        assert strip_diacritics(typo) == typo and typo not in (q["question"], q["variants"]["ascii"]), q["id"]
    forms = question_forms(questions)
    assert set(forms) == set(FORMS) and len(forms["ascii"]) == len(questions)


def test_header_states_date_rules_and_the_files_counts():
    header = (QUESTIONS_DIR / "BLIND_V2.md").read_text(encoding="utf-8")
    questions = load_questions(BLIND_V2)
    assert "2026-12-03" in header and "before any search" in header and "never tuned on" in header.lower()
    kinds = Counter(q["kind"] for q in questions)
    for kind, n in kinds.items():
        assert re.search(rf"\| `{kind}` \|.*\| {n} \|", header), kind
    assert f"**{len(questions)}**" in header or f"{len(questions)} questions" in header
    assert f"{sum('typo' in q['variants'] for q in questions)} also have `variants.typo`" in header


# --- scoring on a fake searcher -----------------------------------------------------------------------------


def hit(doc, section="", citation=None, text=""):
    return {"doc_id": doc, "page": 1, "page_end": 1, "section": section, "citation": citation, "text": text}


NAJEM = hit("/eli/cz/sb/2012/89", "ČÁST ČTVRTÁ > § 2235", "89/2012 Sb.")
OTHER = hit("/eli/cz/sb/2012/89", "§ 1", "89/2012 Sb.")
KRADEZ = hit("/eli/cz/sb/2009/40", "§ 205", "40/2009 Sb.")
DECISION = hit("n1", citation="11 Tz 117/2005")
MISSING_ZP = {"missing": [{"kind": "act", "id": "262/2006 Sb.", "status": "missing", "message": "…"}]}

QUESTIONS = [
    {
        "id": "c1",
        "question": "Nájem bytu, co platí?",
        "type": "paraphrase",
        "register": "lay",
        "kind": "code",
        "gold": [{"act": "89/2012 Sb.", "provision": "§ 2235"}],
        "variants": {"ascii": "Najem bytu, co plati?", "typo": "najem bitu"},
    },
    {
        "id": "c2",
        "question": "Krádež v obchodě",
        "type": "paraphrase",
        "register": "lay",
        "kind": "code",
        "gold": [{"act": "40/2009 Sb.", "provision": "§ 205"}],
        "variants": {"ascii": "Kradez v obchode"},
    },
    {
        "id": "d1",
        "question": "11 Tz 117/2005",
        "type": "identifier",
        "register": "expert",
        "kind": "decision",
        "gold": [{"file_number": "11 Tz 117/2005"}],
        "variants": {"ascii": "11 Tz 117/2005"},
    },
    {
        "id": "n1",
        "question": "Přesčasy za rok",
        "type": "paraphrase",
        "register": "lay",
        "kind": "unanswerable",
        "expect": "not_in_collection",
        "gold": [{"unanswerable": True, "governing_act": "262/2006 Sb."}],
        "variants": {"ascii": "Prescasy za rok"},
    },
    {
        "id": "n2",
        "question": "Plátce DPH od jakého obratu",
        "type": "paraphrase",
        "register": "lay",
        "kind": "unanswerable",
        "expect": "not_in_collection",
        "gold": [{"unanswerable": True, "governing_act": "235/2004 Sb."}],
        "variants": {"ascii": "Platce DPH od jakeho obratu"},
    },
]

# query -> (hits, weak, coverage): the ascii forms lose the provision (rank 3, then not at all), the typo finds it
ANSWERS = {
    "Nájem bytu, co platí?": ([NAJEM, OTHER], False, {}),
    "Najem bytu, co plati?": ([OTHER, OTHER, NAJEM], False, {}),
    "najem bitu": ([NAJEM], False, {}),
    "Krádež v obchodě": ([OTHER, KRADEZ], False, {}),
    "Kradez v obchode": ([OTHER], False, {}),
    "11 Tz 117/2005": ([DECISION], False, {}),
    "Přesčasy za rok": ([OTHER], False, MISSING_ZP),  # named the governing act
    "Prescasy za rok": ([OTHER], True, {}),  # weak, but named nothing
    "Plátce DPH od jakého obratu": ([OTHER], False, {}),  # a confident answer from an unrelated act
    "Platce DPH od jakeho obratu": ([], False, {}),
}


class FakeSearcher:
    path = ""
    chunks: list = []
    documents: dict = {}

    def search_with_coverage(self, query, k=10, **_):
        hits, weak, coverage = ANSWERS[query]
        return SimpleNamespace(hits=hits, weak=weak, coverage=coverage)

    def search(self, query, k=10, **_):
        return ANSWERS[query][0]


def test_forms_kinds_and_admissions_are_scored_apart():
    result = evaluate_forms(FakeSearcher(), QUESTIONS, ks=(1, 10), variants=("default",))
    default = result["variants"]["default"]
    assert result["questions"] == 3 and result["kinds"] == {"code": 2, "decision": 1}
    assert default["overall"]["recall@10"] == 1.0 and default["overall"]["mrr"] == approx((1 + 0.5 + 1) / 3, abs=1e-4)
    assert default["by_kind"]["code"]["mrr"] == 0.75 and default["by_kind"]["decision"]["mrr"] == 1.0
    ascii_form = result["forms"]["ascii"]
    assert ascii_form["questions"] == 3
    assert ascii_form["variants"]["default"]["overall"]["recall@10"] == approx(2 / 3, abs=1e-4)
    assert ascii_form["variants"]["default"]["by_kind"]["code"]["mrr"] == approx((1 / 3) / 2, abs=1e-4)
    # the typo form holds one question: beside it, that question as written
    typo = result["forms"]["typo"]
    assert typo["questions"] == 1 and typo["variants"]["default"]["overall"]["mrr"] == 1.0
    assert typo["as_written"]["default"]["mrr"] == 1.0 and typo["as_written"]["default"]["recall@1"] == 1.0
    assert ascii_form["as_written"]["default"]["mrr"] == default["overall"]["mrr"]
    nic = result["not_in_collection"]
    assert (nic["questions"], nic["admitted"], nic["names_governing_act"], nic["weak_or_empty"]) == (2, 1, 1, 0)
    by_id = {u["id"]: u for u in nic["per_question"]}
    assert by_id["n1"]["governing_act"] == "262/2006 Sb." and by_id["n1"]["names_governing_act"]
    assert not by_id["n2"]["admits"] and by_id["n2"]["kind"] == "unanswerable"
    ascii_nic = ascii_form["not_in_collection"]
    assert (ascii_nic["admitted"], ascii_nic["names_governing_act"], ascii_nic["weak_or_empty"]) == (2, 0, 2)
    ranks = {e["id"]: e["first_relevant_rank"]["default"] for e in ascii_form["per_question"]}
    assert ranks == {"c1": 3, "c2": None, "d1": 1}


def test_table_and_report_show_forms_kinds_and_admissions(tmp_path):
    result = evaluate_forms(FakeSearcher(), QUESTIONS, ks=(1, 10), variants=("default",))
    result["skipped"] = ["x1: the bundle holds none of 89/2012 Sb. § 1"]
    table = format_table(result)
    assert "| default | 1.000 / 0.833 | 0.667 / 0.444 | -0.333 / -0.389 | 1.000 / 1.000 | +0.000 / +0.000 |" in table
    assert "| code | 1.000 / 0.750 (2) | 0.500 / 0.167 (2) | 1.000 / 1.000 (1) |" in table
    assert "| as written | 2 | 1 (0.50) | 0 (0.00) | 1 (0.50) | 1 (0.50) |" in table
    assert "| ascii | 2 | 0 (0.00) | 2 (1.00) | 2 (1.00) | 0 (0.00) |" in table
    text = write_report(result, tmp_path).read_text(encoding="utf-8")
    assert "recall@10 / MRR per question kind (n):" in text and "| default | 1.000 / 0.750 | 1.000 / 1.000 |" in text
    assert "| variant (recall@10 / MRR) | as written (3) | ascii (3) | ascii − as written | typo (1) |" in text
    assert "governing act named" in text and "Questions left out (the bundle does not hold their gold): 1" in text
