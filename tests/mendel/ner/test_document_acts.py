"""What a document defines for itself: abbreviations, names and titles, bound to an act for the rest of it."""

from __future__ import annotations

import pytest

from mendel.ner import recognise, recognise_text
from mendel.ner.document_acts import DocumentActs, is_abbreviation


def act_norms(text: str) -> list[str]:
    return [n for e in recognise_text(text) if e.label == "LAW_REF" for n in e.norms]


@pytest.mark.parametrize(
    "text, norm",
    [
        (
            "vyhlášky č. 177/1996 Sb., advokátní tarif, ve znění pozdějších předpisů (dále jen „a. t.“). "
            "Odměna podle § 7 bod 5 a.t. činí",
            "177/1996 Sb. § 7 bod 5",
        ),
        (
            "zákona č. 257/2016 Sb., o spotřebitelském úvěru, v platném znění (dále jen „OdpVoz“). Podle § 86 odst. 1 "
            "OdpVoz poskytovatel",
            "257/2016 Sb. § 86 odst. 1",
        ),
        (
            "zákona č. 99/1963 Sb., občanský soudní řád, dále též jen „o. s. ř.“, a podle § 11 o. s. ř.",
            "99/1963 Sb. § 11",
        ),
        ("zákon č. 1/2000 Sb., o pokusech (dále jen „zákon“). Podle § 5 zákona platí", "1/2000 Sb. § 5"),
        (
            "zákona č. 89/2012 Sb., občanský zákoník, dále jen o.z., jako bezdůvodné obohacení. Dle § 2991 o.z.",
            "89/2012 Sb. § 2991",
        ),
    ],
)
def test_a_defined_abbreviation_or_name_resolves_where_it_recurs(text, norm):
    assert norm in act_norms(text)


@pytest.mark.parametrize(
    "text, norm",
    [
        # the title binds the name to the act the document cites, against the table's choice (257/2016)
        (
            "smlouva podle zákona č. 145/2010 Sb., o spotřebitelském úvěru a o změně některých zákonů, ve znění "
            "účinném do 30. 11. 2016. Podle § 9 zákona o spotřebitelském úvěru",
            "145/2010 Sb. § 9",
        ),
        # the short name in brackets after the title
        (
            "zákona č. 168/1999 Sb., o pojištění odpovědnosti za škodu způsobenou provozem vozidla a o změně "
            "některých souvisejících zákonů (zákon o pojištění odpovědnosti z provozu vozidla). Podle § 10 odst. 1 "
            "zákona o pojištění odpovědnosti z provozu vozidla",
            "168/1999 Sb. § 10 odst. 1",
        ),
        # without a citation in the document, the table's act
        ("Podle § 9 zákona o spotřebitelském úvěru", "257/2016 Sb. § 9"),
        ("Podle § 10 zákona o pojištění odpovědnosti z provozu vozidla", "30/2024 Sb. § 10"),
    ],
)
def test_a_title_names_its_act_in_this_document(text, norm):
    assert norm in act_norms(text)


def test_a_definition_is_bound_to_the_act_before_it_in_the_same_sentence():
    assert act_norms("Žalobce (dále jen „XyZ“) podal. Podle § 5 XyZ") == ["§ 5"]
    text = "zákona č. 1/2000 Sb. Žalobce uvedl, že (dále jen „PokZ“) a podle § 5 PokZ"
    assert act_norms(text)[-1] == "§ 5"


def test_a_definition_naming_a_table_act_beside_it_keeps_the_table_act():
    text = (
        "(čl. II bod 2 zákona č. 296/2017 Sb., kterým se mění zákon č. 99/1963 Sb., občanský soudní řád, zákon č. "
        "292/2013 Sb., o zvláštních řízeních soudních, a některé další zákony), dále opět „o. s. ř.“, a podle "
        "§ 240 odst. 1 o. s. ř."
    )
    assert act_norms(text)[-1] == "99/1963 Sb. § 240 odst. 1"


@pytest.mark.parametrize(
    "defined, act",
    [
        # the code of 2012 cited just before, the code of 1964 last: the name stays with the code it names last
        (
            "zákona č. 40/1964 Sb., občanského zákoníku ve znění účinném do 31. 12. 2013 (dále jen „obč. zák.“)",
            "40/1964",
        ),
        ("zákona č. 40/1964 Sb., občanský zákoník (dále jen „občanský zákoník“)", "40/1964"),
        # the code of 2012 named last: the table's act
        ("zákona č. 89/2012 Sb., občanského zákoníku (dále jen „obč. zák.“)", "89/2012"),
    ],
)
def test_a_name_the_new_code_took_over_stays_with_the_replaced_code_defined(defined, act):
    text = (
        f"podle § 3028 odst. 3 zákona č. 89/2012 Sb., občanského zákoníku, jako smlouvu podle {defined}. Podle § 658 "
    )
    text += "odst. 1 obč. zák. lze" if "obč. zák." in defined else "odst. 1 občanského zákoníku lze"
    assert act_norms(text)[-1] == f"{act} Sb. § 658 odst. 1"


def test_the_acts_title_before_its_amending_clause_is_not_the_bound_act():
    text = (
        "zákona č. 82/1998 Sb., o odpovědnosti za škodu způsobenou při výkonu veřejné moci a o změně zákona "
        "České národní rady č. 358/1992 Sb., o notářích (notářský řád), (dále jen „OdpŠk“). Podle § 5 OdpŠk"
    )
    assert act_norms(text)[-1] == "82/1998 Sb. § 5"


def test_a_standalone_abbreviation_is_an_act_and_its_definition_is_not():
    text = "zákona č. 257/2016 Sb. (dále jen „ZoSÚ“). Smlouva odporuje ZoSÚ."
    entities = [e for e in recognise_text(text) if e.label == "LAW_REF"]
    assert [(e.text, e.norm) for e in entities] == [
        ("zákona č. 257/2016 Sb.", "257/2016 Sb."),
        ("ZoSÚ", "257/2016 Sb."),
    ]
    assert entities[1].start > text.index("“")


def test_the_texts_of_one_document_share_its_definitions():
    texts = ["vyhlášky č. 177/1996 Sb. (dále jen „AdvT“).", "Odměna dle § 7 AdvT.", "Odměna dle § 7 AdvT."]
    together = recognise(texts, documents=["d1", "d1", "d2"])
    assert [e.norm for e in together[1]] == ["177/1996 Sb. § 7"]
    assert [e.norm for e in together[2]] == ["§ 7"]  # another document
    assert [e.norm for e in recognise(texts)[1]] == ["§ 7"]  # every text a document of its own


def test_a_binding_holds_from_where_it_is_made():
    document = DocumentActs()
    texts = ["Dle § 7 AdvT.", "vyhlášky č. 177/1996 Sb. (dále jen „AdvT“).", "Dle § 8 AdvT."]
    found = recognise(texts, documents=["d"] * 3)
    assert [e.norm for e in found[0]] == ["§ 7"] and [e.norm for e in found[2]] == ["177/1996 Sb. § 8"]
    assert document.carried() == []


@pytest.mark.parametrize(
    "term, abbreviation",
    [("a. t.", True), ("ZoSÚ", True), ("OdpVoz", True), ("o.s.ř.", True), ("zákon", False), ("Smlouva", False)],
)
def test_what_counts_as_an_abbreviation(term, abbreviation):
    assert is_abbreviation(term) is abbreviation
