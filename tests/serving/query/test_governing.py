"""The act that governs a plain question, from the domain graph: named with the part of it that deals with the
question's area, whether or not the collection holds it."""

import pytest

from serving.query.governing import governing_acts
from serving.ranking.bundle_lists import names_something


@pytest.mark.parametrize(
    "question, citation, area, section",
    [
        ("Jak dlouhá může být zkušební doba?", "262/2006 Sb.", "domain:zkusebni-doba", 35),
        ("jak dlouha muze byt zkusebni doba", "262/2006 Sb.", "domain:zkusebni-doba", 35),  # typed plainly
        ("Do kdy můžu reklamovat vadu zboží?", "89/2012 Sb.", "domain:kupni-smlouva", 2099),
        ("Kdo dědí, když není závěť?", "89/2012 Sb.", "domain:dedicke-pravo", 1633),
        ("Jaký trest hrozí za krádež v obchodě?", "40/2009 Sb.", "domain:kradez", 205),
        ("Kolik je sazba DPH na potraviny?", "235/2004 Sb.", "domain:dph", None),
        ("povinne ruceni auto", "30/2024 Sb.", "domain:povinne-ruceni", None),
        ("overeni podpisu na poste", "21/2006 Sb.", "domain:overovani", None),
    ],
)
def test_the_governing_act_and_its_part(question, citation, area, section):
    act = governing_acts(question)[0]
    assert (act.citation, act.area) == (citation, area)
    assert act.covers(section) if section else not act.sections
    assert not act.covers(1)


def test_an_amending_act_never_governs_and_nothing_is_named_for_a_vague_question():
    acts = governing_acts("Jaká je výpovědní doba u pracovního poměru?")
    assert [a.citation for a in acts] == ["262/2006 Sb."]  # not its amendment 120/2025 Sb.
    assert governing_acts("Kdo vyhrál poptávkové řízení na radarové ukazatele rychlosti?") == []


@pytest.mark.parametrize(
    "query, particular",
    [
        ("stipendium od města Kadaň", True),
        ("Pronájem prostor na Mírovém náměstí", True),
        ("Jaká je sazba DPH?", False),  # an abbreviation is not a name
        ("Jak dlouhá je zkušební doba", False),
    ],
)
def test_a_question_about_something_named_is_not_about_the_law(query, particular):
    assert names_something(query) is particular
