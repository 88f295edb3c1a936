"""The release evaluation's bookkeeping: the blind sets once per commit, the side-by-side table. No bundle and no
search here (the evaluation itself is retrieval_eval.retrieval's, tested there)."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from retrieval_eval import release
from retrieval_eval.learn_lay import DEV_LAY_FILES
from retrieval_eval.release import SETS, already_released, headline, side_by_side


def _log(tmp_path, *entries):
    path = tmp_path / "releases.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "entries, commit, found",
    [
        ((), "abc", False),
        (({"commit": "abc", "blind": True, "date": "2026-12-04", "bundle": "B"},), "abc", True),
        (({"commit": "abc", "blind": True, "date": "2026-12-04", "bundle": "B"},), "def", False),
        (({"commit": "abc", "blind": False, "date": "2026-12-04", "bundle": "B"},), "abc", False),
    ],
)
def test_a_commit_is_released_once(tmp_path, entries, commit, found):
    assert (already_released(_log(tmp_path, *entries), commit) is not None) is found


def test_a_second_blind_evaluation_of_a_commit_is_refused(tmp_path, monkeypatch, capsys):
    log = _log(tmp_path, {"commit": "abc", "blind": True, "date": "2026-12-04", "bundle": "B"})
    monkeypatch.setattr(release, "git_commit", lambda: ("abc", False))
    assert release.main(["--log", str(log), "--bundles", str(tmp_path)]) == 2
    assert "once per release" in capsys.readouterr().err
    monkeypatch.setattr(release, "git_commit", lambda: ("new", True))
    assert release.main(["--log", str(log), "--bundles", str(tmp_path)]) == 2  # uncommitted changes
    assert "commit or stash" in capsys.readouterr().err


def test_a_ninth_blind_release_of_a_day_is_refused_before_any_set_is_evaluated(tmp_path, monkeypatch, capsys):
    today = dt.date.today().isoformat()
    for suffix in ("", *"bcdefgh"):
        (tmp_path / f"release_{today}{suffix}.md").write_text("a release of the day")
    monkeypatch.setattr(release, "RESULTS_DIR", tmp_path)
    monkeypatch.setattr(release, "git_commit", lambda: ("new", False))

    def evaluated(*_):
        raise AssertionError("a set was evaluated")

    monkeypatch.setattr(release, "evaluate_set", evaluated)
    assert release.main(["--log", str(tmp_path / "log.jsonl"), "--bundles", str(tmp_path)]) == 2
    assert "more than eight blind releases" in capsys.readouterr().err


def test_every_set_file_named_exists_but_the_optional_dev_sets():
    missing = [s.file for s in SETS if not s.path.is_file()]
    assert set(missing) <= {"dev_absent.jsonl"}
    assert {s.role for s in SETS} == {"dev", "held-out", "blind"}


def test_the_lay_stage_learns_from_the_release_dev_sets_only():
    assert set(DEV_LAY_FILES) == {s.file for s in SETS if s.role == "dev"}
    assert "dev_codes5.jsonl" in DEV_LAY_FILES


def test_headline_and_table_carry_forms_components_and_admissions():
    overall = {"default": (0.9, 0.8), "bm25": (0.7, 0.5), "dense": (0.6, 0.4), "hybrid": (0.8, 0.6)}
    result = {
        "questions": 10,
        "variants": {v: {"overall": {"recall@10": r, "mrr": m}} for v, (r, m) in overall.items()},
        "forms": {"ascii": {"variants": {"default": {"overall": {"recall@10": 0.88, "mrr": 0.79}}}}},
        "not_in_collection": {"admitted": 4, "questions": 5},
    }
    figures = headline(result)
    assert figures["recall@10"] == 0.9 and figures["ascii"] == [0.88, 0.79] and figures["bm25"] == [0.7, 0.5]
    (row,) = side_by_side([(SETS[-1], figures)])[2:]
    assert "**0.900 / 0.800**" in row and "0.880 / 0.790" in row and "4 of 5 (0.80)" in row
    assert row.count("–") == 1  # no slips form


def test_a_second_release_of_a_day_keeps_the_first_report(tmp_path):
    from retrieval_eval.release import report_path

    first = report_path(tmp_path, "2026-12-04", blind=True)
    assert first.name == "release_2026-12-04.md"
    first.write_text("the morning's release")
    assert report_path(tmp_path, "2026-12-04", blind=True).name == "release_2026-12-04b.md"
    assert report_path(tmp_path, "2026-12-04", blind=False).name == "release_2026-12-04_without_blind.md"


@pytest.mark.parametrize(
    "bm25_mrr, named",
    [(0.7914, ["bm25"]), (0.7896, []), (0.5, [])],  # the held-out set of the last three releases, then ties and less
)
def test_a_component_above_the_default_is_named_in_the_report(bm25_mrr, named):
    figures = {"questions": 45, "recall@10": 0.878, "mrr": 0.7896, "bm25": [0.889, bm25_mrr], "dense": [0.7, 0.62]}
    assert list(release.components_above_default(figures)) == named
    lines = release.below_components([(SETS[-1], figures)])
    assert any("below bm25" in line for line in lines) is bool(named)
