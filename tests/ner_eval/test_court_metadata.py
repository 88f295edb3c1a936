"""The court-metadata gold: the lists as the exports write them, the exports as published (dirty), the scores."""

from __future__ import annotations

import pytest

from ner_eval.court_metadata import (
    DECISIONS_DIR,
    Decision,
    format_report,
    load_decisions,
    pairs_of_norm,
    parse_listed,
    score_decisions,
)

O = "99/1963 Sb."


@pytest.mark.parametrize(
    "value, pairs",
    [
        ("§ 142 z. č. 99/1963 Sb.", [(O, "§ 142")]),
        ("§ 14b vyhl. č. 177/1996 Sb.", [("177/1996 Sb.", "§ 14b")]),
        ("§ 2 nař. vl. č. 351/2013 Sb.", [("351/2013 Sb.", "§ 2")]),
        ("§ 12A z. č. 99/1963 Sb.", [(O, "§ 12a")]),
        ("§ 5 odst. 2,3 z. č. 99/1963 Sb.", [(O, "§ 5")]),
        ("§ 2,§ 3 z. č. 99/1963 Sb.", [(O, "§ 2"), (O, "§ 3")]),
        ("§ 5,6 z. č. 99/1963 Sb.", [(O, "§ 5"), (O, "§ 6")]),
        ("§  7 z. č. 99/1963 Sb.", [(O, "§ 7")]),
        ("§ 7 odst.1 písm.c) z. č. 99/1963 Sb.", [(O, "§ 7")]),
        ("čl. 6 Listiny", []),
        ("§ 7", []),
    ],
)
def test_a_listed_provision_is_read_as_the_court_system_writes_it(value, pairs):
    assert parse_listed(value) == pairs


@pytest.mark.parametrize(
    "norm, pair",
    [
        ("99/1963 Sb. § 142 odst. 1", (O, "§ 142")),
        ("89/2012 Sb. § 2395", ("89/2012 Sb.", "§ 2395")),
        ("§ 5 odst. 2", (None, "§ 5")),
        ("2/1993 Sb. čl. 36", None),
        ("89/2012 Sb.", None),
    ],
)
def test_a_norm_gives_its_act_and_section(norm, pair):
    assert pairs_of_norm(norm) == pair


def test_the_exports_are_read_whole_though_two_are_broken_and_one_cut_off():
    decisions, report = load_decisions()
    assert report.files == 16 and report.records == 1504
    assert report.skipped_repeated == 4  # export-sample.xml repeats four decisions of export-1
    assert report.skipped_incomplete == 2  # two records with neither verdict nor reasoning
    assert report.decisions == len(decisions) == 1498
    assert set(report.parse_errors) == {"export-1-100000.xml", "export-2-1000000.xml", "export-sample.xml"}
    assert any("line 2030" in e for e in report.parse_errors["export-1-100000.xml"])
    assert sum(len(d.listed) for d in decisions) == 11777
    assert len({(d.court, d.file_number) for d in decisions}) == len(decisions)


def test_the_cut_off_sample_alone_gives_its_four_decisions():
    decisions, report = load_decisions([DECISIONS_DIR / "export-sample.xml"])
    assert report.decisions == 4 and "export-sample.xml" in report.parse_errors


def _decision(listed, text="", court="Okresní soud v Kladně"):
    return Decision("1 C 1/2025-1", court, "", text, frozenset(listed), "test")


def test_recall_share_per_court_and_act_and_misses_by_kind():
    decisions = [
        _decision({(O, "§ 142"), (O, "§ 151"), ("89/2012 Sb.", "§ 2395")}, "podle § 151 o. s. ř. a § 2395 dále"),
        _decision({(O, "§ 160")}, court="Krajský soud v Praze"),
    ]
    predicted = [["99/1963 Sb. § 142 odst. 1", "§ 151", "177/1996 Sb. § 7"], ["99/1963 Sb. § 160"]]
    result = score_decisions(decisions, lambda texts: predicted[: len(texts)])
    assert (result.overall.listed, result.overall.found, result.overall.predicted) == (4, 2, 3)
    assert result.overall.recall == 0.5 and result.overall.precision_share == pytest.approx(2 / 3)
    assert result.by_court["Krajský soud v Praze"].recall == 1.0
    assert result.by_act[O].listed == 3 and result.by_act["177/1996 Sb."].predicted_listed == 0
    assert [m["section"] for m in result.misses["without_act"]] == ["§ 151"]
    assert [m["section"] for m in result.misses["after_section_mark"]] == ["§ 2395"]
    assert "misses by kind" in format_report(result)
    # written in the text: § 151 with its act (o. s. ř.); § 142 is not written, 89/2012 not named, § 160 neither
    assert (result.written.listed, result.written.found) == (1, 0)


@pytest.mark.parametrize(
    "text, section, written, kind",
    [
        ("podle § 45 až § 50 o. s. ř.", "§ 47", True, "in_a_range"),
        ("podle §§ 45–50 o. s. ř.", "§ 46", True, "in_a_range"),
        ("podle § 45 až 50 o. s. ř.", "§ 49", True, "in_a_range"),
        ("podle § 45 až 50 o. s. ř.", "§ 50", True, "in_a_list"),
        ("podle § 45 až 50 o. s. ř.", "§ 51", False, "not_in_text"),
        ("podle § 1 až § 200 o. s. ř.", "§ 100", False, "not_in_text"),  # too long to be one range
        ("podle § 45 a § 50 o. s. ř.", "§ 47", False, "not_in_text"),
        ("podle § 2 395 o. s. ř.", "§ 2395", True, "after_section_mark"),
    ],
)
def test_a_section_inside_a_written_range_counts_as_written(text, section, written, kind):
    result = score_decisions([_decision({(O, section)}, text)], lambda texts: [[] for _ in texts])
    assert (result.written.listed == 1) is written
    assert [kind for kind, found in result.misses.items() if found] == [kind]
