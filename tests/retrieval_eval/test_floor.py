"""The relevance floor's calibration (``retrieval_eval.floor``): thresholds that keep the answered dev questions of
each register and catch the negatives, and the stored floor (``serving/ranking/floor.json``) fitted to lay questions
too."""

import json

import pytest

from retrieval_eval import DEV_QUESTIONS
from retrieval_eval.floor import CALIBRATION_SETS, MAX_FALSE_WEAK, calibrate, choose, weak
from serving.ranking.coverage import FLOOR_FILE, Floor


def _rows(register: str, lexical: float, dense: float | None, count: int) -> list[dict]:
    return [{"register": register, "lexical": lexical, "dense": dense}] * count


def test_a_floor_fitted_to_the_expert_questions_does_not_mark_the_lay_ones_weak():
    """Lay questions use words the collection rarely writes, so their lexical signal runs low: pooled, the two lay
    questions are 5% of the forty and a floor above them would catch three negatives; each register apart, it
    may not."""
    positives = _rows("expert", 0.40, None, 38) + _rows("lay", 0.15, None, 2)
    negatives = _rows("", 0.20, None, 3)
    chosen = choose(positives, negatives)
    assert chosen["positives_weak_by_register"] == {"expert": [0, 38], "lay": [0, 2]}
    assert chosen["lexical"] <= 0.15 and chosen["negatives_weak"] == 0


@pytest.mark.parametrize(
    "lay_dense, caught",
    [
        (0.86, 3),  # the lay questions' dense signal is high: a dense floor keeps them and catches the negatives
        (0.70, 0),  # it is not: nothing can be caught without marking them weak
    ],
)
def test_the_dense_signal_keeps_lay_questions_a_lexical_floor_would_lose(lay_dense, caught):
    positives = _rows("expert", 0.40, 0.84, 38) + _rows("lay", 0.15, lay_dense, 20)
    negatives = _rows("", 0.20, 0.80, 3)
    chosen = choose(positives, negatives)
    assert chosen["negatives_weak"] == caught
    assert chosen["positives_weak_by_register"]["lay"][0] <= MAX_FALSE_WEAK * 20


@pytest.mark.parametrize("name", ["blind.jsonl", "blind_v2.jsonl", "heldout.jsonl", "heldout_codes.jsonl"])
def test_the_floor_is_never_calibrated_on_the_blind_or_held_out_questions(name):
    with pytest.raises(ValueError, match="never on the blind set"):
        calibrate(None, questions_path=[DEV_QUESTIONS, DEV_QUESTIONS.with_name(name)])


def test_the_stored_floor_was_fitted_to_the_lay_questions_and_keeps_them():
    """The stored floor names the dev sets it was calibrated on -- the lay questions to the big codes among them --
    and on that calibration marked at most ``max_false_weak`` of the answered questions of each register weak; with a
    dense threshold it carries a lexical one to stand alone."""
    data = json.loads(FLOOR_FILE.read_text(encoding="utf-8"))
    source = data["source"]
    assert {f"retrieval_eval/questions/{path.name}" for path in CALIBRATION_SETS} <= set(source["questions_files"])
    by_register = source["positives_weak_by_register"]
    assert by_register["lay"][1] >= 50  # the lay questions counted, not a handful
    for register, (weak_count, total) in by_register.items():
        assert weak_count <= source["max_false_weak"] * total, register
    floor = Floor.load()
    if floor.dense is not None:
        assert floor.lexical_alone is not None and floor.lexical_alone <= floor.lexical


@pytest.mark.parametrize(
    "row, expected",
    [
        ({"lexical": 0.1, "dense": 0.90}, False),  # the dense signal clears its floor
        ({"lexical": 0.1, "dense": 0.80}, True),  # below both
        ({"lexical": 0.3, "dense": None}, False),  # the lexical one clears its floor
        ({"lexical": 0.1, "dense": None}, True),  # no dense signal to lean on
    ],
)
def test_an_answer_is_weak_only_below_both_signals(row, expected):
    assert weak(row, 0.2, 0.85) is expected
