"""The recogniser's gazetteer: the acts table as one trie-shaped pattern."""

from __future__ import annotations

import re

from mendel.ner.acts import NAMED_ACTS, Gazetteer, NamedAct, act_for_citation, gazetteer, trie_pattern


def test_a_trie_pattern_matches_every_alternative_and_prefers_the_longer():
    words = [list("zákon"), list("zákoník"), list("zákona"), list("řád")]
    pattern = re.compile(trie_pattern(words))
    assert [pattern.fullmatch(w).group() for w in ("zákon", "zákoník", "zákona", "řád")]
    assert pattern.match("zákoníku").group() == "zákoník"
    assert pattern.pattern.count("z") == 1  # the shared beginning is written once


def test_the_gazetteer_is_the_acts_table():
    assert len(NAMED_ACTS) >= 200
    assert act_for_citation("99/1963 Sb.").abbreviations == ("OSŘ", "o. s. ř.")
    assert "Ústavy" in act_for_citation("1/1993 Sb.").proper


def test_names_abbreviations_and_strict_ones():
    g = gazetteer()
    found = [(m.citation, m.strict) for m in g.finditer("Občanského zákoníku, o.s.ř. a OZ, ústavy nikoli")]
    assert found == [("89/2012 Sb.", False), ("99/1963 Sb.", False), ("89/2012 Sb.", True)]
    assert g.match_at("x § 5 ZP", 6).strict and g.match_at("x § 5 ZP", 6, allow_strict=False) is None
    assert g.match_at("zákoníku práce", 1) is None  # not at a word's start


def test_a_gazetteer_of_other_acts():
    own = Gazetteer(
        [NamedAct("1/2001 Sb.", None, names=("pokusný zákon", "pokusného zákona"), abbreviations=("PokZ",))]
    )
    assert [m.citation for m in own.finditer("Pokusného zákona a PokZ")] == ["1/2001 Sb.", "1/2001 Sb."]
    assert Gazetteer([]).empty and list(Gazetteer([]).finditer("cokoli")) == []
