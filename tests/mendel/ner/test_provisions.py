"""Provision chains: every element with its own span and norm, the act named once given to all of them."""

from __future__ import annotations

import pytest

from mendel.ner import recognise_text
from mendel.ner.provisions import chain_elements

A = "177/1996 Sb."
O = "99/1963 Sb."
Z = "89/2012 Sb."


def law_refs(text: str):
    return [e for e in recognise_text(text) if e.label == "LAW_REF"]


@pytest.mark.parametrize(
    "text, chain, norms",
    [
        # the act named once, at the end
        (
            "dle § 6 odst. 1 a § 14b vyhlášky č. 177/1996 Sb.",
            "§ 6 odst. 1 a § 14b vyhlášky č. 177/1996 Sb.",
            [f"{A} § 6 odst. 1", f"{A} § 14b"],
        ),
        (
            "(§ 137 odst. 3, § 151 odst. 2 o. s. ř.)",
            "§ 137 odst. 3, § 151 odst. 2 o. s. ř.",
            [f"{O} § 137 odst. 3", f"{O} § 151 odst. 2"],
        ),
        # sub-units of one provision, ranges, "až"
        ("podle § 5 odst. 1 a 2 o. s. ř.", "§ 5 odst. 1 a 2 o. s. ř.", [f"{O} § 5 odst. 1", f"{O} § 5 odst. 2"]),
        (
            "§ 45 až § 50 o. s. ř. (zásada)",
            "§ 45 až § 50 o. s. ř.",
            [f"{O} § {n}" for n in range(45, 51)],
        ),
        (
            "§ 4 odst. 1 až odst. 7 o. s. ř.",
            "§ 4 odst. 1 až odst. 7 o. s. ř.",
            [f"{O} § 4 odst. {n}" for n in range(1, 8)],
        ),
        (
            "§ 212a odst. 1, 3, 5 o.s.ř. Přitom",
            "§ 212a odst. 1, 3, 5 o.s.ř.",
            [f"{O} § 212a odst. 1", f"{O} § 212a odst. 3", f"{O} § 212a odst. 5"],
        ),
        # bare numbers: a small one continues the sub-unit, a large one is a provision
        (
            "§ 1746, 2079 a násl., § 2048 zákona č. 89/2012 Sb.",
            "§ 1746, 2079 a násl., § 2048 zákona č. 89/2012 Sb.",
            [f"{Z} § 1746", f"{Z} § 2079", f"{Z} § 2048"],
        ),
        ("§ 39 a 41 obč. zák. platí", "§ 39 a 41 obč. zák.", [f"{Z} § 39", f"{Z} § 41"]),
        # letters, points, "a násl.", "an.", "a n."
        (
            "§ 11 odst. 1 písm. a), d), g) vyhl. č. 177/1996 Sb.",
            "§ 11 odst. 1 písm. a), d), g) vyhl. č. 177/1996 Sb.",
            [f"{A} § 11 odst. 1 písm. a)", f"{A} § 11 odst. 1 písm. d)", f"{A} § 11 odst. 1 písm. g)"],
        ),
        (
            "§ 7 bod 5, § 8 odst. 1 advokátního tarifu",
            "§ 7 bod 5, § 8 odst. 1 advokátního tarifu",
            [f"{A} § 7 bod 5", f"{A} § 8 odst. 1"],
        ),
        (
            "§ 2395 a násl. a § 2048 a násl. občanského zákoníku",
            "§ 2395 a násl. a § 2048 a násl. občanského zákoníku",
            [f"{Z} § 2395", f"{Z} § 2048"],
        ),
        ("§ 2395 an. o.s.ř.", "§ 2395 an. o.s.ř.", [f"{O} § 2395"]),
        ("§ 2910 a n. občanského zákoníku", "§ 2910 a n. občanského zákoníku", [f"{Z} § 2910"]),
        # sentences and paragraphs as courts write them
        (
            "§ 160 odst. 1 věta před středníkem o. s. ř.",
            "§ 160 odst. 1 věta před středníkem o. s. ř.",
            [f"{O} § 160 odst. 1"],
        ),
        (
            "§ 160 odst. 1, část věty před středníkem o.s.ř.",
            "§ 160 odst. 1, část věty před středníkem o.s.ř.",
            [f"{O} § 160 odst. 1"],
        ),
        ("§ 564 odst. 1 věta prvá o. z. vyžaduje", "§ 564 odst. 1 věta prvá o. z.", [f"{Z} § 564 odst. 1"]),
        ("§ 160 (1) o. s. ř. třeba", "§ 160 (1) o. s. ř.", [f"{O} § 160 odst. 1"]),
        ("§ 151 odst. l o.s.ř. za", "§ 151 odst. l o.s.ř.", [f"{O} § 151 odst. 1"]),
        ("podle § 115a) o. s. ř. nevyjádřil", "§ 115a) o. s. ř.", [f"{O} § 115a"]),
        ("dle ust. § 5 a ust. § 6 o. s. ř.", "§ 5 a ust. § 6 o. s. ř.", [f"{O} § 5", f"{O} § 6"]),
        (
            "podle § 142 odst 2 občanského soudního řádu",
            "§ 142 odst 2 občanského soudního řádu",
            [f"{O} § 142 odst. 2"],
        ),
        (
            "dle § 580 a 588 zákona občanského zákoníku",
            "§ 580 a 588 zákona občanského zákoníku",
            [f"{Z} § 580", f"{Z} § 588"],
        ),
        ("Podle § 1958 odst. 2, občanského zákoníku", "§ 1958 odst. 2, občanského zákoníku", [f"{Z} § 1958 odst. 2"]),
        (
            "z § 160 odst. 1 věty před středníkem, o. s. ř., splatnost",
            "§ 160 odst. 1 věty před středníkem, o. s. ř.",
            [f"{O} § 160 odst. 1"],
        ),
        # "ve znění …" stays out of the norm and the span
        (
            "§ 3 zákona č. 40/2009 Sb., ve znění zákona č. 330/2011 Sb.",
            "§ 3 zákona č. 40/2009 Sb.",
            ["40/2009 Sb. § 3"],
        ),
        (
            "§ 13 odst. 4 advokátního tarifu, ve znění do 31. 12. 2024",
            "§ 13 odst. 4 advokátního tarifu",
            [f"{A} § 13 odst. 4"],
        ),
    ],
)
def test_a_chain_gives_every_element_its_act(text, chain, norms):
    [entity] = [e for e in law_refs(text) if e.text == chain]
    assert list(entity.norms) == norms
    assert entity.norm == norms[0]
    assert all(entity.start <= el.start < el.end <= entity.end for el in entity.elements)


def test_each_element_has_its_own_span():
    text = "podle § 142 odst. 1 a § 151 odst. 2 o. s. ř."
    [entity] = law_refs(text)
    assert [text[e.start : e.end] for e in entity.elements] == ["§ 142 odst. 1", "§ 151 odst. 2"]
    assert entity.text == "§ 142 odst. 1 a § 151 odst. 2 o. s. ř."
    assert entity.to_dict()["elements"][1] == {"start": 22, "end": 35, "norm": f"{O} § 151 odst. 2"}


def test_a_single_provision_has_no_elements_and_the_old_dict():
    [entity] = law_refs("podle § 142 odst. 1 o. s. ř.")
    assert entity.elements == () and "elements" not in entity.to_dict() and entity.norms == (entity.norm,)


@pytest.mark.parametrize(
    "text, norms",
    [
        # joined chains share the act of the one that names it
        ("§ 7 ve spojení s ust. § 9 odst. 3 vyhlášky č. 177/1996 Sb.", [[f"{A} § 7"], [f"{A} § 9 odst. 3"]]),
        ("§ 151 odst. 1 za použití § 142 odst. 1 o. s. ř.", [[f"{O} § 151 odst. 1"], [f"{O} § 142 odst. 1"]]),
        (
            "§ 142 odst. 1 o. s. ř. ve spojení s § 14b vyhlášky č. 177/1996 Sb.",
            [[f"{O} § 142 odst. 1"], [f"{A} § 14b"]],
        ),
        # pointing back to the last act of the kind
        (
            "zákona č. 257/2016 Sb. ... podle § 87 odst. 1 citovaného zákona",
            [["257/2016 Sb."], ["257/2016 Sb. § 87 odst. 1"]],
        ),
        (
            "vyhlášky č. 177/1996 Sb. a zákona č. 1/2000 Sb. ... § 13 odst. 3 téže vyhlášky",
            [[A], ["1/2000 Sb."], [f"{A} § 13 odst. 3"]],
        ),
        ("§ 1746 odstavec 2 téhož obč. zák.", [[f"{Z} § 1746 odst. 2"]]),
        ("§ 157 odst. 4 zákona o.s.ř.", [[f"{O} § 157 odst. 4"]]),
        # nothing to point to, nothing named: no act
        ("podle § 5 citovaného zákona", [["§ 5"]]),
        ("podle § 5, který stanoví", [["§ 5"]]),
        ("podle § 5 zákona, který stanoví", [["§ 5"]]),
    ],
)
def test_chains_take_the_act_they_are_joined_or_point_to(text, norms):
    assert [list(e.norms) for e in law_refs(text)] == norms


def test_a_pointing_word_keeps_the_span_to_the_chain():
    text = "zákona č. 257/2016 Sb. a podle § 87 citovaného zákona"
    assert [e.text for e in law_refs(text)] == ["zákona č. 257/2016 Sb.", "§ 87"]


@pytest.mark.parametrize(
    "chain, paths",
    [
        ("§ 5 odst. 1 a 2", ["§ 5 odst. 1", "§ 5 odst. 2"]),
        ("§ 5 odst. 1, 6 odst. 2", ["§ 5 odst. 1", "§ 6 odst. 2"]),
        ("§ 137 odst. 3, 151", ["§ 137 odst. 3", "§ 151"]),
        ("čl. I bodů 2 až 11", [f"čl. I bod {n}" for n in range(2, 12)]),
        ("§ 88 odst. 2 písm. b) bodech 1 až 6", [f"§ 88 odst. 2 písm. b) bod {n}" for n in range(1, 7)]),
        ("§ 228 odst. 1, odst. 3 písm. b)", ["§ 228 odst. 1", "§ 228 odst. 3 písm. b)"]),
    ],
)
def test_chain_elements(chain, paths):
    assert [path for _, _, path in chain_elements(chain, 0, len(chain))] == paths


@pytest.mark.parametrize(
    "chain, paths",
    [
        # every section of a range of plain numbers, whichever way it is written
        ("§ 45 až § 48", ["§ 45", "§ 46", "§ 47", "§ 48"]),
        ("§§ 45–48", ["§ 45", "§ 46", "§ 47", "§ 48"]),
        ("§ 45 až 48", ["§ 45", "§ 46", "§ 47", "§ 48"]),
        ("§ 45 - 47", ["§ 45", "§ 46", "§ 47"]),
        ("§ 106 až 108 a § 109 odst. 1", ["§ 106", "§ 107", "§ 108", "§ 109 odst. 1"]),
        # paragraphs of one section
        ("§ 118a odst. 1 až 3", ["§ 118a odst. 1", "§ 118a odst. 2", "§ 118a odst. 3"]),
        ("§ 4 odst. 2 až odst. 4", ["§ 4 odst. 2", "§ 4 odst. 3", "§ 4 odst. 4"]),
        # only the ends: neighbours, lettered sections, ends of different depth, a range too long to be one
        ("§ 3 až 4", ["§ 3", "§ 4"]),
        ("§ 14a až § 14d", ["§ 14a", "§ 14d"]),
        ("§ 45 odst. 1 až § 48", ["§ 45 odst. 1", "§ 48"]),
        ("§ 1 až § 200", ["§ 1", "§ 200"]),
        ("§ 45 a § 48", ["§ 45", "§ 48"]),
    ],
)
def test_a_range_gives_every_provision_in_it(chain, paths):
    assert [path for _, _, path in chain_elements(chain, 0, len(chain))] == paths


def test_the_inner_provisions_of_a_range_span_the_range():
    text = "podle § 45 až § 48 o. s. ř."
    [entity] = law_refs(text)
    assert [(text[e.start : e.end], e.norm) for e in entity.elements] == [
        ("§ 45", f"{O} § 45"),
        ("§ 45 až § 48", f"{O} § 46"),
        ("§ 45 až § 48", f"{O} § 47"),
        ("§ 48", f"{O} § 48"),
    ]


@pytest.mark.parametrize(
    "text, norms",
    [
        # a letter set apart before a paragraph suffixes the section: a lettered point has no paragraphs
        ("dle § 14 b/ odst. 1 vyhl. č. 177/1996 Sb.", [f"{A} § 14b odst. 1"]),
        ("dle § 14 b) odst. 5 písm. a) vyhl. č. 177/1996 Sb.", [f"{A} § 14b odst. 5 písm. a)"]),
        ("dle § 14 b odst.5 vyhl. č. 177/1996 Sb.", [f"{A} § 14b odst. 5"]),
        ("písm. a), d), § 14 b odst. 1 vyhl. č. 177/1996 Sb.", [f"{A} § 14b odst. 1"]),
        # "a" is "and"; a letter with no paragraph after it may be a point: as before
        ("dle § 5 a odst. 2 o. s. ř.", [f"{O} § 5", f"{O} § 5 odst. 2"]),
        ("§ 5 v odst. 2 o. s. ř.", ["§ 5"]),
        (
            "§ 11 odst. 1 písm. a), d) vyhl. č. 177/1996 Sb.",
            [f"{A} § 11 odst. 1 písm. a)", f"{A} § 11 odst. 1 písm. d)"],
        ),
    ],
)
def test_a_split_section_suffix_before_a_paragraph_is_joined(text, norms):
    assert [n for e in law_refs(text) if "§" in e.text for n in e.norms] == norms


@pytest.mark.parametrize(
    "text, chain, norms",
    [
        # a dot after the last number, before a lower-case act
        ("dle § 101 odst. 3. o. s. ř., v", "§ 101 odst. 3. o. s. ř.", [f"{O} § 101 odst. 3"]),
        (
            "dle § 5 odst. 4. vyhlášky č. 177/1996 Sb. Koncový",
            "§ 5 odst. 4. vyhlášky č. 177/1996 Sb.",
            [f"{A} § 5 odst. 4"],
        ),
        (
            "dle § 7 bod 5., § 8 odst. 1 vyhl. č. 177/1996 Sb.",
            "§ 7 bod 5., § 8 odst. 1 vyhl. č. 177/1996 Sb.",
            [f"{A} § 7 bod 5", f"{A} § 8 odst. 1"],
        ),
        # a sub-unit left without its value
        ("podle § 142 odst. o. s. ř., když", "§ 142 odst. o. s. ř.", [f"{O} § 142"]),
        (
            "dle § 101 odst. 1 písm. zákona č. 99/1963 Sb.",
            "§ 101 odst. 1 písm. zákona č. 99/1963 Sb.",
            [f"{O} § 101 odst. 1"],
        ),
        # the bracket of a lettered section before its paragraph
        ("s ust. § 118a) odst. 1 o.s.ř. skutková", "§ 118a) odst. 1 o.s.ř.", [f"{O} § 118a odst. 1"]),
    ],
)
def test_stray_marks_between_a_chain_and_its_act(text, chain, norms):
    [entity] = [e for e in law_refs(text) if "§" in e.text]
    assert (entity.text, list(entity.norms)) == (chain, norms)


def test_a_new_sentence_after_a_chain_names_no_act_for_it():
    text = "podle § 160 odst. 1. Občanský zákoník stanoví"
    assert [list(e.norms) for e in law_refs(text)] == [["§ 160 odst. 1"], [Z]]


@pytest.mark.parametrize(
    "text, norms",
    [
        # paragraphs in brackets inside a chain, as one court's template writes them
        (
            "(Dle § 50 (2), § 72 (2) zákona 458/2000 Sbírky, o",
            ["458/2000 Sb. § 50 odst. 2", "458/2000 Sb. § 72 odst. 2"],
        ),
        (
            "(Dle § 6 (2, 7), § 10 (1) zákona 549/1991 Sbírky)",
            ["549/1991 Sb. § 6 odst. 2", "549/1991 Sb. § 10 odst. 1"],
        ),
        ("dle § 14b (1 2.) vyhlášky 177/1996 Sbírky", [f"{A} § 14b odst. 1"]),
        # a bracket that holds no paragraph, or a paragraph on the next line (a heading), is no part of the chain
        ("podle § 6 (1 000 Kč) o. s. ř.", ["§ 6", O]),
        ("§ 5\n(1) Zaměstnavatel je povinen", []),
    ],
)
def test_paragraphs_in_brackets_within_a_chain(text, norms):
    assert [n for e in law_refs(text) for n in e.norms] == norms


@pytest.mark.parametrize(
    "text, norms",
    [
        # a section over a thousand with its thousands set apart, not an amount
        ("s ustanovením § 1 970 NOZ nárok", [f"{Z} § 1970"]),
        ("dle § 2 395 a násl. zák. č. 89/2012 Sb., občanský", [f"{Z} § 2395"]),
        ("dle § 2 100 Kč", ["§ 2"]),
        ("dle § 2 150 000 Kč o. s. ř.", ["§ 2", O]),
        # a bracket a paragraph leaves open, a capital point, a part of a sentence without its number
        ("Podle § 755 odst. 1) zák. č. 89/2012 Sb. - občanského", [f"{Z} § 755 odst. 1"]),
        ("(viz § 5 odst. 1) zákona č. 99/1963 Sb.", ["§ 5 odst. 1", O]),
        ("§ 2 odst. 1 písm. H) vyhl. č. 177/1996 Sb.", [f"{A} § 2 odst. 1 písm. h)"]),
        ("dle § 160 odst. 1 před středníkem o.s.ř., když", [f"{O} § 160 odst. 1"]),
        ("podle § 160 odst. 1 v části věty před středníkem o. s. ř.", [f"{O} § 160 odst. 1"]),
        ("z § 160 odst. 1 věta první po středník o. s. ř.", [f"{O} § 160 odst. 1"]),
    ],
)
def test_thousands_brackets_capitals_and_parts_of_sentences(text, norms):
    assert [n for e in law_refs(text) for n in e.norms] == norms


@pytest.mark.parametrize(
    "text, norms",
    [
        # a point written without "písm.", its letter set apart, before the act or another element of the chain
        ("soud proto dle § 115 a/ o.s.ř. věc projednal", [f"{O} § 115 písm. a)"]),
        ("paušál dle § 14 b) vyhl. č. 177/1996 Sb. (když", [f"{A} § 14 písm. b)"]),
        (
            "z ustanovení § 153 b) a § 157 odst. 3 zákona č. 99/1963 Sb., občanského",
            [f"{O} § 153 písm. b)", f"{O} § 157 odst. 3"],
        ),
        (
            "dle ustanovení § 7 a § 11 a), d) vyhl. č. 177/1996 Sb., ve znění",
            [f"{A} § 7", f"{A} § 11 písm. a)", f"{A} § 11 písm. d)"],
        ),
        # a number too large for a paragraph before a point is a section
        ("dle ust. § 142 a 142 a) o. s. ř. náhradu", [f"{O} § 142", f"{O} § 142 písm. a)"]),
        # a letter joined to the number, or before a paragraph, suffixes the section; a bare "a" is "and"
        ("s ust. § 118a) o.s.ř. skutková", [f"{O} § 118a"]),
        ("dle § 14 b/ odst. 1 vyhl. č. 177/1996 Sb.", [f"{A} § 14b odst. 1"]),
        ("podle § 115 a o.s.ř. věc", ["§ 115", O]),
        # a point on the next line starts a list of the text, not of the chain
        ("podle § 38 odst. 1\na) žalobce", ["§ 38 odst. 1"]),
    ],
)
def test_a_point_without_its_mark(text, norms):
    assert [n for e in law_refs(text) for n in e.norms] == norms


@pytest.mark.parametrize(
    "text, chain, norms",
    [
        # a paragraph's number glued to the act after it
        ("za užití § 160 odst.1o.s.ř., když", "§ 160 odst.1o.s.ř.", [f"{O} § 160 odst. 1"]),
        ("podle § 580 odst. 1o. z. je", "§ 580 odst. 1o. z.", [f"{Z} § 580 odst. 1"]),
        (
            "Podle § 2392 odstavec 1občanského zákoníku, při",
            "§ 2392 odstavec 1občanského zákoníku",
            [f"{Z} § 2392 odst. 1"],
        ),
        # a paragraph's letter stays its own
        ("podle § 8 odst. 1a zákona č. 99/1963 Sb.", "§ 8 odst. 1a zákona č. 99/1963 Sb.", [f"{O} § 8 odst. 1a"]),
        ("podle § 8 odst. 1a. Dále", "§ 8 odst. 1a", ["§ 8 odst. 1a"]),
    ],
)
def test_a_number_glued_to_its_act(text, chain, norms):
    [entity] = law_refs(text)
    assert (entity.text, list(entity.norms)) == (chain, norms)


@pytest.mark.parametrize(
    "text, norms",
    [
        # words and sub-units as courts type them
        (
            "Dle ustan. § 50, odst. 1 ve spojení s ustan. § 49, odst. 1 zákona č. 91/2012 Sb., o",
            ["91/2012 Sb. § 50", "91/2012 Sb. § 50 odst. 1", "91/2012 Sb. § 49", "91/2012 Sb. § 49 odst. 1"],
        ),
        ("podle § 146 odst. 2 věty I a § 142 odst. 2 o. s. ř., jak", [f"{O} § 146 odst. 2", f"{O} § 142 odst. 2"]),
        ("s § 146 odst. 2 věty první a druhé o.s.ř.). Vzhledem", [f"{O} § 146 odst. 2"]),
        ("vozidel (§ 1 odst. písm. a) zákona č. 168/1999 Sb., o", ["168/1999 Sb. § 1 písm. a)"]),
        ("uzavřené dle § 61a násl. zákona č. 127/2005 Sb., soud", ["127/2005 Sb. § 61a"]),
        (
            "zákona č. 257/2016 Sb. Podle § 87 odst. 1 cit. zák. poskytne-li",
            ["257/2016 Sb.", "257/2016 Sb. § 87 odst. 1"],
        ),
        (
            "Podle § 2 odst. 1, pís. h), l), vyhl. č. 205/1999 Sb., kterou",
            ["205/1999 Sb. § 2 odst. 1", "205/1999 Sb. § 2 odst. 1 písm. h)", "205/1999 Sb. § 2 odst. 1 písm. l)"],
        ),
        # a sentence's ordinal alone is no list of them; "odst." before a number is no point
        ("podle § 160 odst. 1 věty první a § 5 o. s. ř.", [f"{O} § 160 odst. 1", f"{O} § 5"]),
        ("podle § 160 odst. 1 a písm. b) o. s. ř.", [f"{O} § 160 odst. 1", f"{O} § 160 odst. 1 písm. b)"]),
    ],
)
def test_words_and_sub_units_as_typed(text, norms):
    assert [n for e in law_refs(text) for n in e.norms] == norms
