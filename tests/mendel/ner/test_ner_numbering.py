"""The numbering forms of Czech legislation (provision suffixes, sub-units, ranges, lists, lists of acts), one
case per block of ``tests/support/data/ner_numbering_forms.yaml``: the LAW_REF entities and norms, the members of a
chain, and norms that the norm helpers (``split_law_ref_norm``, ``eli_for``) read as before."""

import pytest
import yaml

from mendel.ner import recognise_text
from mendel.ner.relations import provisions
from mendel.ner.rules import LAW_REF, eli_for, split_law_ref_norm
from tests.support import DATA

CASES = yaml.safe_load((DATA / "ner_numbering_forms.yaml").read_text(encoding="utf-8"))


def law_refs(case: dict):
    return [e for e in recognise_text(case["text"], default_act=case.get("default_act")) if e.label == LAW_REF]


@pytest.mark.parametrize("case", CASES, ids=[c["form"] for c in CASES])
def test_entities_and_norms(case):
    found = law_refs(case)
    assert [[e.text, e.norm] for e in found] == case["entities"]
    assert all(case["text"][e.start : e.end] == e.text for e in found)


@pytest.mark.parametrize("case", [c for c in CASES if "provisions" in c], ids=lambda c: c["form"])
def test_chain_members(case):
    first = law_refs(case)[0]
    members = provisions(first.text)
    assert members == case["provisions"]
    assert split_law_ref_norm(first.norm)[1] == members[0]  # the norm names the chain's first member


@pytest.mark.parametrize("case", [c for c in CASES if c["entities"]], ids=lambda c: c["form"])
def test_norms_stay_readable_by_the_norm_helpers(case):
    for entity in law_refs(case):
        act, provision = split_law_ref_norm(entity.norm)
        assert " ".join(part for part in (act, provision) if part) == entity.norm
        if act and " Sb." in act:
            assert eli_for(act) and eli_for(entity.norm) == eli_for(act)
        if provision:
            assert provision.split()[0] in ("§", "čl.")


def test_the_table_covers_every_kind_of_form():
    forms = " ".join(c["form"] for c in CASES)
    for kind in (
        "one-letter suffix",
        "two-letter suffix",
        "range",
        "dash",
        "list",
        "list of acts",
        "písmena",
        "odstavce",
        "ve znění",
    ):
        assert kind in forms, kind
