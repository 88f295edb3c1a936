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


@pytest.mark.parametrize(
    "question, citation",
    [
        # areas whose act the collection lacks, asked as people ask (with and without diacritics)
        ("Kolik minimálně platí živnostník na sociálním pojištění?", "589/1992 Sb."),
        ("kdo mi plati zdravotni pojisteni kdyz jsem nezamestnany", "48/1997 Sb."),
        ("Proplatí zdravotní pojišťovna dítěti rovnátka?", "48/1997 Sb."),
        ("V kolika letech můžu odejít do předčasného důchodu?", "155/1995 Sb."),
        ("Jak dlouho se pobírá mateřská?", "187/2006 Sb."),
        ("jak dlouho muzu cerpat rodicovsky prispevek", "117/1995 Sb."),
        ("Musím platit silniční daň za auto?", "16/1993 Sb."),
        ("Jak vysoká je spotřební daň z cigaret?", "353/2003 Sb."),
        ("Kolik může banka chtít za předčasné splacení spotřebitelského úvěru?", "257/2016 Sb."),
        ("Jak dlouho trvá osobní bankrot?", "182/2006 Sb."),
        ("Kolik bodů dostanu za jízdu na červenou?", "361/2000 Sb."),
        ("Jak často musí auto na technickou kontrolu?", "56/2001 Sb."),
        ("Potřebuju dálniční známku i na motorku?", "13/1997 Sb."),
        ("je posledni rok ve skolce povinny", "561/2004 Sb."),
        ("Může myslivec zastřelit psa, který se toulá v lese?", "449/2001 Sb."),
        ("Musím nahlásit ztrátu občanky?", "269/2021 Sb."),
        ("Co potřebuje cizinec k získání trvalého pobytu?", "326/1999 Sb."),
        ("jak si zmenim trvale bydliste", "133/2000 Sb."),
        ("Může mi lékař odmítnout dát kopii zdravotní dokumentace?", "372/2011 Sb."),
        ("Smí se kouřit na zastávce autobusu?", "65/2017 Sb."),
        ("Jak vypovědět smlouvu s mobilním operátorem?", "127/2005 Sb."),
        ("Musí mi obchodník vydat doklad o zakoupení zboží?", "634/1992 Sb."),
        ("Kdy se promlčí přestupek?", "250/2016 Sb."),
        ("Kolik je záloha na zdravotní pojištění pro OSVČ?", "592/1992 Sb."),
        ("Jak přepsat auto na nového majitele?", "56/2001 Sb."),
        ("Jak omluvit dítě ze školy?", "561/2004 Sb."),
        # areas whose act it holds
        ("Jakou pokutu můžu dostat za rušení nočního klidu?", "251/2016 Sb."),
        ("Jak můžu volit mimo místo, kde mám trvalý pobyt?", "88/2024 Sb."),
        ("Co potřebuju k ohlášení řemeslné živnosti?", "455/1991 Sb."),
    ],
)
def test_the_act_governing_a_lay_question(question, citation):
    assert governing_acts(question)[0].citation == citation


@pytest.mark.parametrize(
    "question",
    [
        "Je trestné nalít dítěti alkohol?",  # the criminal code's, not the act on addictive substances
        "Kdy musím zaplatit cenu za dílo podle smlouvy o dílo?",  # a contract for work, not copyright
        "Může soused sázet stromy hned u hranice mého pozemku?",  # planting, not betting
        "Kdo vyhrál poptávkové řízení na radarové ukazatele rychlosti?",
    ],
)
def test_a_word_shared_with_another_area_names_no_act_of_that_area(question):
    wrong = {"65/2017 Sb.", "121/2000 Sb.", "186/2016 Sb.", "361/2000 Sb."}
    assert not wrong & {a.citation for a in governing_acts(question)}


def test_a_wide_area_gives_way_to_its_own_part_that_matched_the_same_words():
    # "sociální pojištění" names social security and its premiums alike: the premiums' act, not the monthly report's
    acts = governing_acts("Kolik se platí na sociálním pojištění?")
    assert [a.area for a in acts] == ["domain:pojistne-socialni"]


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
