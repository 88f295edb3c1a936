"""AMENDS / REPEALS relations read from real amending acts of the sample corpus.

The texts are pages of the bundled Sbírka PDFs (copied into a smaller PDF with PDFium so that the
test stays fast), extracted with ``mendel.extract`` exactly as the pipeline extracts them.
"""

import json

import pytest

from mendel.ner.relations import AMENDS, REPEALS, Relation, extract_relations, provisions
from tests.support import REPO_ROOT
from tests.support.index import pages_text

CORPUS = REPO_ROOT / "sample_corpus"


def pairs(relations: list[Relation]) -> set[tuple[str, str]]:
    return {(r.kind, r.object_norm) for r in relations}


CASES = [
    # (act, pages, subject, present, absent)
    (
        "270-2025",
        (1, 2, 16),
        "270/2025 Sb.",
        [
            (AMENDS, "40/2009 Sb."),  # "Zákon č. 40/2009 Sb., trestní zákoník, ve znění …, se mění takto:"
            (AMENDS, "40/2009 Sb. § 34 odst. 1 písm. a)"),  # "1. V § 34 odst. 1 písm. a) se za slovo …"
            (AMENDS, "40/2009 Sb. § 39 odst. 8"),  # "4. V § 39 odst. 8 se věta druhá zrušuje." changes, not repeals
            (REPEALS, "40/2009 Sb. § 312c"),
        ],  # "92. § 312c se včetně nadpisu zrušuje."
        [
            (AMENDS, "306/2009 Sb."),
            (AMENDS, "24/2025 Sb."),  # the "ve znění" list names earlier amendments
            (AMENDS, "141/1961 Sb."),  # named only in the title ("kterým se mění … zákon č. 141/1961 Sb.")
            (REPEALS, "40/2009 Sb. § 39 odst. 8"),
            (REPEALS, "40/2009 Sb."),
            (AMENDS, "270/2025 Sb."),
        ],
    ),
    (
        "270-2025",
        (20, 21, 32),
        "270/2025 Sb.",
        [
            (AMENDS, "141/1961 Sb."),
            (AMENDS, "141/1961 Sb. § 35a"),  # "5. Za § 35 se vkládá nový § 35a"
            (REPEALS, "141/1961 Sb. § 310"),
            (REPEALS, "141/1961 Sb. § 313"),
        ],
        [(REPEALS, "141/1961 Sb."), (AMENDS, "40/2009 Sb.")],
    ),
    (
        "270-2025",
        (64,),
        "270/2025 Sb.",
        [(AMENDS, "563/2004 Sb. § 29a")],  # "V zákoně č. 563/2004 Sb., …, § 29a zní:"
        [(AMENDS, "383/2005 Sb."), (REPEALS, "563/2004 Sb.")],
    ),
    (
        "285-2025",
        (12, 17),
        "285/2025 Sb.",
        [
            (REPEALS, "265/2001 Sb. čl. II bod 7"),  # "V čl. II zákona č. 265/2001 Sb., …, se bod 7 zrušuje."
            (REPEALS, "23/2002 Sb."),
            (REPEALS, "508/2020 Sb."),
        ],  # "Zrušují se: 1. Vyhláška č. 23/2002 Sb. …"
        [(REPEALS, "141/1961 Sb."), (REPEALS, "265/2001 Sb.")],
    ),
    (
        "90-2024",
        (74,),
        "90/2024 Sb.",
        [(REPEALS, "119/2002 Sb.")],  # "Zrušují se: 1. Zákon č. 119/2002 Sb., o střelných zbraních …"
        [
            (REPEALS, "320/2002 Sb."),  # "2. Část padesátá třetí zákona č. 320/2002 Sb." repeals a part only
            (REPEALS, "140/1961 Sb."),
        ],
    ),  # named in the title of a repealed amending act
    (
        "324-2025",
        (5,),
        "324/2025 Sb.",
        [(AMENDS, "589/1992 Sb. § 5a")],  # "V § 5a zákona č. 589/1992 Sb., …, se doplňuje odstavec 3"
        [(AMENDS, "455/2022 Sb.")],
    ),
    (
        "573-2025",
        (1, 2, 3, 4),
        "573/2025 Sb.",
        [(REPEALS, "475/2024 Sb.")],  # "Vyhláška č. 475/2024 Sb., …, se zrušuje."
        [],
    ),
]


@pytest.mark.parametrize(
    "act,pages,subject,present,absent", CASES, ids=[f"{c[0]}-p{'-'.join(map(str, c[1]))}" for c in CASES]
)
def test_relations_on_real_acts(act, pages, subject, present, absent):
    text = pages_text(act, pages)
    relations = extract_relations(text, subject)
    found = pairs(relations)
    for pair in present:
        assert pair in found, (pair, sorted(found)[:20])
    for pair in absent:
        assert pair not in found, pair
    for r in relations:
        assert r.subject_norm == subject and r.kind in (AMENDS, REPEALS)
        span = text[r.start : r.end]
        assert r.evidence.rstrip("…") in " ".join(span.split())  # evidence is the span, whitespace collapsed
        number = r.object_norm.split(" Sb.")[0].split("/")[0]
        provision = r.object_norm.split(" Sb. ", 1)[1].split()[1] if " Sb. " in r.object_norm else None
        # the span names what the relation is about: the act's number, or (in a block) the provision
        assert number in span or (provision is not None and provision in span), (r, span)


def test_a_new_act_and_a_court_decision_give_no_relations():
    new_act = pages_text("175-2025", (1, 2))  # zákon o podpoře bydlení: no amending language
    assert extract_relations(new_act, "175/2025 Sb.") == []
    decision = next(
        json.loads(line)["full_text"]
        for line in (CORPUS / "courts" / "ns_decisions_sample.jsonl").read_text(encoding="utf-8").splitlines()
        if "20 Cdo 3327/2025" in line
    )
    assert "se zrušuje" in decision  # "Usnesení Krajského soudu … se zrušuje a věc se vrací …"
    assert extract_relations(decision, "20 Cdo 3327/2025") == []


@pytest.mark.parametrize("subject", [None, ""])
def test_unknown_subject_gives_nothing(subject):
    assert extract_relations(pages_text("573-2025", (1, 2, 3, 4)), subject) == []


def test_quoted_new_wording_is_not_an_instruction():
    text = (
        "Čl. I\nZákon č. 247/1995 Sb., o volbách, se mění takto:\n"
        "1. § 64 včetně nadpisu zní:\n„§ 64\nPřestupek\n(1) Zákon č. 1/2000 Sb. se zrušuje.\n"
        "2. § 12 se zrušuje.“.\n2. V § 65 odst. 2 se slovo „nebo“ zrušuje.\n"
    )
    found = pairs(extract_relations(text, "89/2024 Sb."))
    assert found == {(AMENDS, "247/1995 Sb."), (AMENDS, "247/1995 Sb. § 64"), (AMENDS, "247/1995 Sb. § 65 odst. 2")}


@pytest.mark.parametrize(
    "fragment,paths",
    [
        ("§ 34 odst. 1 písm. a)", ["§ 34 odst. 1 písm. a)"]),
        ("§ 205, 206 a 209", ["§ 205", "§ 206", "§ 209"]),
        ("§ 210 až 212", ["§ 210", "§ 211", "§ 212"]),
        ("§ 12 odst. 1 a § 25 odst. 1", ["§ 12 odst. 1", "§ 25 odst. 1"]),
        ("§ 5 včetně poznámky pod čarou č. 2b a § 6", ["§ 5", "§ 6"]),
        ("§ 32m odst. 2 a v § 32o odst. 3 a 4", ["§ 32m odst. 2", "§ 32o odst. 3", "§ 32o odst. 4"]),
        ("§ 7 odst. 3 až 5 a § 19 odst. 5", ["§ 7 odst. 3", "§ 7 odst. 4", "§ 7 odst. 5", "§ 19 odst. 5"]),
        ("čl. II bodu 7", ["čl. II bod 7"]),
        ("§ 2 až 900", ["§ 2", "§ 900"]),  # an implausible range is not expanded
        ("poznámky pod čarou č. 12", []),
    ],
)
def test_provision_lists(fragment, paths):
    assert provisions(fragment) == paths


def test_a_text_over_a_million_characters_is_read_whole():
    # a consolidated code runs to 1.2 M characters; spaCy's default limit refused it every night
    text = (
        "Zákon č. 40/2009 Sb., trestní zákoník, se mění takto:\n1. V § 205 odst. 1 se slova „a“ nahrazují slovy „b“.\n"
    )
    text += "Věc je vše, co je rozdílné od osoby a slouží potřebě lidí. " * 17_500
    assert len(text) > 1_000_000
    assert pairs(extract_relations(text, "270/2025 Sb.")) == {
        (AMENDS, "40/2009 Sb."),
        (AMENDS, "40/2009 Sb. § 205 odst. 1"),
    }
