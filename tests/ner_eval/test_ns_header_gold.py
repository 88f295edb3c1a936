"""The held-out gold: the Nejvyšší soud headers' Dotčené předpisy read into (act, §) pairs, the text scored without
its header."""

from __future__ import annotations

import pytest

from ner_eval.ns_header_gold import (
    DECISIONS_DIR,
    evaluate,
    format_report,
    listed_pairs,
    load_decisions,
    without_header_blocks,
)


@pytest.mark.parametrize(
    "item, pairs",
    [
        ("§ 448 odst. 1 písm. a) tr. ř.", {("141/1961 Sb.", "§ 448")}),
        ("§ 92 odst. 4 tr. zákoníku", {("40/2009 Sb.", "§ 92")}),
        ("§ 59 písm. a) předpisu č. 328/1991Sb.", {("328/1991 Sb.", "§ 59")}),
        ("§ 8 odst. 1 písm. d) předpisu č. 418/2011 Sb.", {("418/2011 Sb.", "§ 8")}),
        ("§ 237 odst. 1 písm. f) předpisu č. 99/1963Sb. ve znění do 31.12.2000", {("99/1963 Sb.", "§ 237")}),
        ("§ 243b odst. 2 o. s. ř.", {("99/1963 Sb.", "§ 243b")}),
        # the codes of 1961 and 1964 as the court's lists name them, the newer ones otherwise
        ("§ 174 tr. zák.", {("140/1961 Sb.", "§ 174")}),
        ("§ 123 obč. zák.", {("40/1964 Sb.", "§ 123")}),
        ("§ 2758 odst. 2 o. z.", {("89/2012 Sb.", "§ 2758")}),
        ("čl. 38 odst. 1 předpisu č. 2/1993Sb.", set()),  # an article: the development gold scores § alone
        ("§ 30 t.o.p.o.", set()),  # an abbreviation the acts table does not know: unread, never guessed
        ("§ 243b odst. 2 části věty za středníkem", set()),  # no act
    ],
)
def test_a_listed_item_is_read_as_the_citator_reads_it(item, pairs):
    assert listed_pairs([item])[0] == [pairs]


def test_a_header_the_text_repeats_is_taken_out():
    text = "Rozsudek\n\nSoud: Nejvyšší soud\n\nSpisová značka: 1 Tz 1/2020\n\nDotčené předpisy: § 1 tr. ř.\n\nDal text"
    assert without_header_blocks(text) == ("Rozsudek\n\nDal text", 1)
    assert without_header_blocks("Soud: Nejvyšší soud rozhodl takto") == ("Soud: Nejvyšší soud rozhodl takto", 0)


def test_every_file_is_read_and_the_lists_give_their_pairs():
    decisions, load = load_decisions()
    assert (load.files, load.decisions, load.listing) == (957, 957, 320) == (957, 957, len(decisions))
    assert load.items == 793 and sum(len(d.listed) for d in decisions) == 702
    assert len(load.unread) == 27 and load.unread_with_section == 14
    assert len(load.header_blocks_in_text) == 6  # files that repeat their own header inside the text
    assert not any("Dotčené předpisy:" in d.text or "\nPředpisy:" in d.text for d in decisions)
    by_file = {d.source: d for d in decisions}
    tz = by_file["rozhodnuti-11_Tz_117_2005.txt"]
    assert tz.listed == {("141/1961 Sb.", "§ 448"), ("141/1961 Sb.", "§ 173"), ("141/1961 Sb.", "§ 72")}
    assert (tz.agenda, tz.register, tz.category, tz.decision_type) == ("trestní", "Tz", "B", "Rozsudek")
    assert by_file["NS2.txt"].agenda == "civilní" and ("89/2012 Sb.", "§ 2758") in by_file["NS2.txt"].listed


def test_the_recogniser_reads_the_text_alone_and_is_scored_per_group():
    paths = [DECISIONS_DIR / "rozhodnuti-11_Tz_117_2005.txt", DECISIONS_DIR / "NS2.txt"]
    seen: list[str] = []

    def norms(texts):  # the files in name order: NS2.txt first
        seen.extend(texts)
        return [["89/2012 Sb. § 2758 odst. 2"], ["141/1961 Sb. § 448 odst. 1", "141/1961 Sb. § 2", "§ 72"]]

    result = evaluate(paths, norms)
    assert len(seen) == 2 and not any("Dotčené předpisy" in text or "Hesla:" in text for text in seen)
    overall = result.score.overall
    assert (overall.decisions, overall.listed, overall.found, overall.predicted) == (2, 8, 2, 3)
    assert result.score.by_group["agenda"]["trestní"].found == 1
    assert result.score.by_group["agenda"]["civilní"].listed == 5
    assert [m["section"] for m in result.score.misses["without_act"]] == ["§ 72"]
    assert result.as_dict()["held_out"] is True
    assert "HELD-OUT" in format_report(result)
