"""The table of acts cited by name (mendel/data/acts_by_name.v1.yaml): its own rules, the declension of names, and
the matcher that finds acts in text."""

from __future__ import annotations

import pytest

from mendel.law.acts_table import (
    HEAD_NOUNS,
    ActMatcher,
    ActsTableError,
    acts_by_citation,
    decline,
    find_named_acts,
    load_acts_table,
)
from mendel.law.identifiers import parse_citation


def citations(text: str) -> list[str]:
    return [m.citation for m in find_named_acts(text)]


def test_the_table_holds_at_least_200_acts_with_unique_well_formed_citations():
    acts = load_acts_table()
    assert len(acts) >= 200
    assert len({a.citation for a in acts}) == len(acts)
    for act in acts:
        assert act.title and act.names, act.citation
        if act.kind != "nařízení EU":
            assert parse_citation(act.citation).citation == act.citation


@pytest.mark.parametrize(
    "citation, title_part",
    [
        ("89/2012 Sb.", "občanský zákoník"),
        ("262/2006 Sb.", "zákoník práce"),
        ("40/2009 Sb.", "trestní zákoník"),
        ("99/1963 Sb.", "občanský soudní řád"),
        ("283/2021 Sb.", "stavební zákon"),
        ("235/2004 Sb.", "přidané hodnoty"),
        ("586/1992 Sb.", "daních z příjmů"),
        ("500/2004 Sb.", "správní řád"),
        ("182/2006 Sb.", "insolvenční zákon"),
        ("1/1993 Sb.", "Ústava"),
        ("90/2012 Sb.", "obchodních korporacích"),
        ("120/2001 Sb.", "exekuční řád"),
        ("435/2004 Sb.", "zaměstnanosti"),
        ("117/1995 Sb.", "státní sociální podpoře"),
        ("111/2006 Sb.", "hmotné nouzi"),
        ("256/2001 Sb.", "pohřebnictví"),
        ("96/1993 Sb.", "stavebním spoření"),
    ],
)
def test_well_known_acts_have_their_numbers(citation, title_part):
    assert title_part in acts_by_citation()[citation].title


def test_names_are_declined_into_their_cases():
    assert decline("občanský zákoník") == (
        "občanský zákoník",
        "občanského zákoníku",
        "občanskému zákoníku",
        "občanském zákoníku",
        "občanským zákoníkem",
    )
    assert "trestního řádu" in decline("trestní řád") and "trestním řádem" in decline("trestní řád")
    assert decline("zákon o obchodních korporacích")[1] == "zákona o obchodních korporacích"
    assert "vyhláškou o požární prevenci" in decline("vyhláška o požární prevenci")
    assert "Ústavou České republiky" in decline("Ústava České republiky")
    assert decline("GDPR") == ("GDPR",)  # no head noun: as written


def test_irregular_names_take_their_forms_from_the_table():
    zp = acts_by_citation()["262/2006 Sb."]
    assert {"zákoník práce", "zákoníku práce", "zákoníkem práce"} <= set(zp.forms)
    assert "soudního řádu správního" in acts_by_citation()["150/2002 Sb."].forms


@pytest.mark.parametrize(
    "text, expected",
    [
        ("výpovědní doba podle zákoníku práce", ["262/2006 Sb."]),
        ("§ 2079 občanského zákoníku", ["89/2012 Sb."]),
        ("kupní smlouva podle NOZ", ["89/2012 Sb."]),
        ("dovolání podle o.s.ř. a zároveň OSŘ", ["99/1963 Sb.", "99/1963 Sb."]),
        ("povolení podle stavebního zákona", ["283/2021 Sb."]),
        ("sazba daně podle zákona o DPH", ["235/2004 Sb."]),
        ("čl. 10 Listiny a čl. 36 Ústavy", ["2/1993 Sb.", "1/1993 Sb."]),
        ("s. ř. s.", ["150/2002 Sb."]),
        ("zákon o zbraních a střelivu", ["90/2024 Sb."]),
    ],
)
def test_the_matcher_finds_acts_in_any_case(text, expected):
    assert citations(text) == expected


def test_ambiguous_abbreviations_only_in_a_citing_context():
    assert citations("§ 52 písm. g) ZP") == ["262/2006 Sb."]
    assert citations("podle OZ") == ["89/2012 Sb."]
    assert citations("ZP") == [] and citations("OZ je zkratka") == []


def test_capitalised_names_are_matched_only_as_written():
    assert citations("kupní listina k pozemku") == []
    assert citations("Listina základních práv a svobod") == ["2/1993 Sb."]
    assert citations("listina základních práv a svobod") == ["2/1993 Sb."]  # the full name in any case


def test_everyday_questions_name_no_act():
    assert citations("kolik můžu dostat na alimenty") == []
    assert citations("kdy mi můžou dát výpověď z bytu") == []


def test_a_longer_name_wins_over_its_prefix():
    found = find_named_acts("zákon o zbraních a střelivu")
    assert len(found) == 1 and found[0].text == "zákon o zbraních a střelivu"


def test_a_malformed_table_is_refused(tmp_path):
    bad = tmp_path / "acts.yaml"
    bad.write_text("acts:\n  - {citation: 89/2012, title: x, kind: zákon, names: [x]}\n", encoding="utf-8")
    with pytest.raises(ActsTableError, match="citation"):
        load_acts_table(bad)
    twice = tmp_path / "twice.yaml"
    twice.write_text(
        "acts:\n  - {citation: 89/2012 Sb., title: a, kind: zákon, names: [a zákon]}\n"
        "  - {citation: 89/2012 Sb., title: b, kind: zákon, names: [b zákon]}\n",
        encoding="utf-8",
    )
    with pytest.raises(ActsTableError, match="twice"):
        load_acts_table(twice)
    shared = tmp_path / "shared.yaml"
    shared.write_text(
        "acts:\n  - {citation: 1/2000 Sb., title: a, kind: zákon, names: [lesní zákon]}\n"
        "  - {citation: 2/2000 Sb., title: b, kind: zákon, names: [lesní zákon]}\n",
        encoding="utf-8",
    )
    with pytest.raises(ActsTableError, match="given to"):
        load_acts_table(shared)


def test_a_matcher_over_another_table(tmp_path):
    table = tmp_path / "acts.yaml"
    table.write_text(
        "acts:\n  - {citation: 12/2001 Sb., title: zákon o pokusech, kind: zákon,"
        " names: [pokusný zákon], abbreviations: [PokZ]}\n",
        encoding="utf-8",
    )
    matcher = ActMatcher(load_acts_table(table))
    assert [m.citation for m in matcher.find("podle pokusného zákona a PokZ")] == ["12/2001 Sb.", "12/2001 Sb."]


def test_every_name_is_built_on_a_head_noun_or_has_its_forms():
    """A name without an act noun is a flow-list item split at a comma of its name (``[zákon o matrikách, jménu a
    příjmení]`` lists "jménu a příjmení"): quote a name that holds a comma."""
    without_head_noun = {"infozákon", "rozpočtová pravidla"}  # one word; a plural whose forms the table lists
    for act in load_acts_table():
        for name in act.names:
            assert any(word.lower() in HEAD_NOUNS for word in name.split()) or name in without_head_noun, (
                act.citation,
                name,
            )
    assert "rozpočtových pravidel" in acts_by_citation()["218/2000 Sb."].forms


def test_proper_names_are_matched_only_with_their_capital():
    gdpr = acts_by_citation()["nařízení (EU) 2016/679"]
    assert "Obecné nařízení" in gdpr.proper_forms and gdpr.is_proper("Obecným nařízením")
    assert not gdpr.is_proper("obecného nařízení o ochraně osobních údajů")
    assert citations("podle Obecného nařízení") == ["nařízení (EU) 2016/679"]
    assert citations("obecného nařízení obce") == []


@pytest.mark.parametrize(
    "citation, name",
    [
        ("177/1996 Sb.", "advokátního tarifu"),
        ("549/1991 Sb.", "zákona o soudních poplatcích"),
        ("30/2024 Sb.", "zákona o pojištění odpovědnosti z provozu vozidla"),
        ("168/1999 Sb.", "zákonem o pojištění odpovědnosti za škodu způsobenou provozem vozidla"),
        ("513/1991 Sb.", "obchodního zákoníku"),
        ("229/1991 Sb.", "zákona o půdě"),
        ("209/1992 Sb.", "Úmluvy o ochraně lidských práv a základních svobod"),
        ("89/2012 Sb.", "obč. zákoníku"),
    ],
)
def test_acts_the_courts_cite_are_found_by_their_names_in_any_case(citation, name):
    assert citations(f"podle {name}") == [citation]


@pytest.mark.parametrize(
    "text, citation, written",
    [
        ("vypovedni doba podle zakoniku prace", "262/2006 Sb.", "zakoniku prace"),
        ("podle obcanskeho soudniho radu", "99/1963 Sb.", "obcanskeho soudniho radu"),
        ("§ 52 odst. 1 pism. a) ZP", "262/2006 Sb.", "ZP"),  # a strict abbreviation after a provision typed plainly
    ],
)
def test_names_found_without_diacritics(text, citation, written):
    (mention,) = find_named_acts(text)
    assert (mention.citation, mention.text, text[mention.start : mention.end]) == (citation, written, written)
