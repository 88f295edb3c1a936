"""The lay stage: its candidates reach the acts' own lists, its features tell an act's provision from a decision
or an amending act, the stored model loads only with its features, the search orders a lay question by it, and
its training refuses measured question files."""

import json
from pathlib import Path

import numpy as np
import pytest

from retrieval_eval.learn_lay import refuse_measured
from serving.ranking.answer import SearchFlow
from serving.ranking.fusion import LearnedFusion, Signals
from serving.ranking.lay_stage import LAY_CANDIDATES, LAY_FEATURES, LayFusion, lay_candidates, lay_features
from serving.ranking.query_lists import Ranked

CHUNKS = [
    {"text": "Soud prvního stupně žalobu zamítl, neboť kupující vadu nevytkl včas. " * 5, "section": "Odůvodnění"},
    {
        "text": "§ 2099 Prodávající plní vadně, nemá-li věc při přechodu nebezpečí škody na kupujícího vlastnosti.",
        "section": "ČÁST ČTVRTÁ > HLAVA II > Díl 1 > § 2099",
        "citation": "89/2012 Sb.",
        "title": "Občanský zákoník",
    },
    {
        "text": "V § 2099 se slova „kupujícího“ nahrazují slovy „kupujícího nebo jiného“.",
        "section": "Čl. I",
        "citation": "303/2013 Sb.",
        "title": "Zákon, kterým se mění některé zákony v souvislosti s přijetím rekodifikace",
    },
]


def test_candidates_hold_each_lists_best_and_the_fused_best_up_to_the_cap():
    fused = list(range(200))
    signals = Signals(rankings={"acts_dense": [900, 901], "governing": [902], "bm25": [0, 950]})
    candidates = lay_candidates(fused, signals)
    assert len(candidates) == LAY_CANDIDATES
    assert {900, 901, 902, 950} <= set(candidates) and candidates[0] == 0
    assert len(set(candidates)) == len(candidates)
    assert lay_candidates([1, 2], Signals(rankings={"acts_bm25": [2, 7]})) == [1, 2, 7]


def test_features_tell_an_acts_provision_from_a_decision_and_an_amending_act():
    signals = Signals(
        bm25=[0, 2],
        bm25_scores=[3.0, 1.0],
        dense=[0, 1],
        dense_sims=[0.85, 0.83],
        rankings={
            "acts_dense": [1, 2],
            "wordings": [2, 1],
            "wordings_bm25": [1],
            "governing": [1],
            "bm25": [0, 2],
            "dense": [0, 1],
        },
        governing={"89/2012 Sb."},
    )
    rows = lay_features([0, 1, 2], [0, 1, 2], signals, CHUNKS)
    assert rows.shape == (3, len(LAY_FEATURES))
    column = dict(zip(LAY_FEATURES, rows.T))
    assert list(column["act"]) == [0.0, 1.0, 0.0]  # a decision, the code, an amending act
    assert list(column["provision"]) == [0.0, 1.0, 1.0]
    assert list(column["acts_dense_inv"]) == [0.0, 1.0, 0.5]
    assert list(column["wordings_inv"]) == [0.0, 0.5, 1.0]  # the provisions nearest by their own lay wordings
    assert list(column["wordings_bm25_inv"]) == [0.0, 1.0, 0.0]  # ... and those whose wordings hold its words
    assert list(column["governing_inv"]) == [0.0, 1.0, 0.0] and list(column["governing"]) == [0.0, 1.0, 0.0]
    assert list(column["amendment"]) == [0.0, 0.0, 1.0]
    assert column["lists"][1] == pytest.approx(5 / 9)  # dense, acts_dense, both wordings lists, governing of nine
    # each list's rank once more, flatter than its inverse: 10 / (10 + rank), 0 where the list lacks it
    assert list(column["wordings_near"]) == pytest.approx([0.0, 10 / 12, 10 / 11])
    assert list(column["fused_near"]) == pytest.approx([10 / 11, 10 / 12, 10 / 13])
    assert column["wordings_bm25_near"][2] == 0.0


def test_the_stored_model_loads_only_with_its_own_features(tmp_path: Path):
    path = tmp_path / "lay.json"
    LayFusion(np.arange(len(LAY_FEATURES), dtype=float), provenance={"trained_on": "test"}).save(path)
    loaded = LayFusion.load(path)
    assert loaded is not None and list(loaded.weights) == list(range(len(LAY_FEATURES)))
    assert LearnedFusion.load(path) is None  # the general stage's features differ
    data = json.loads(path.read_text(encoding="utf-8"))
    data["features"] = data["features"][:-1]
    path.write_text(json.dumps(data), encoding="utf-8")
    assert LayFusion.load(path) is None


class _Layer:
    chunks = CHUNKS


def _lay_ranked() -> Ranked:
    signals = Signals(bm25=[0], bm25_scores=[2.0], rankings={"bm25": [0], "acts_dense": [1]}, lay=True)
    return Ranked([(0, 0.03, ["bm25"]), (2, 0.02, ["bm25"]), (1, 0.01, ["acts_dense"])], {}, signals)


def test_a_lay_question_is_ordered_by_the_lay_stage_and_keeps_its_fused_order_without_one():
    flow = SearchFlow()
    flow.lay_fusion = None
    assert [item for item, _, _ in flow.second_order(_lay_ranked(), _Layer())] == [0, 2, 1]
    weights = np.zeros(len(LAY_FEATURES))
    weights[LAY_FEATURES.index("act")] = 1.0  # an act's own provision first
    flow.lay_fusion = LayFusion(weights)
    order = flow.second_order(_lay_ranked(), _Layer())
    assert [item for item, _, _ in order] == [1, 0, 2]
    assert [score for _, score, _ in order] == [0.03, 0.02, 0.01]  # the scores keep their values, in the new order


def test_the_lay_stage_places_the_governing_act_itself():
    """A lay question's governing act is one of the lay stage's features, not a rule that puts its passage first."""
    ranked = _lay_ranked()
    ranked.signals.governing = {"89/2012 Sb."}  # chunk 1, third in the fused order
    flow = SearchFlow()
    weights = np.zeros(len(LAY_FEATURES))
    weights[LAY_FEATURES.index("fused_inv")] = 1.0  # a model that keeps the fused order
    flow.lay_fusion = LayFusion(weights)
    assert [item for item, _, _ in flow.second_order(ranked, _Layer())] == [0, 2, 1]
    weights[LAY_FEATURES.index("governing")] = 2.0  # ... and one that weighs the governing act's passages
    assert [item for item, _, _ in flow.second_order(ranked, _Layer())] == [1, 0, 2]


@pytest.mark.parametrize(
    "name, refused",
    [("dev_codes3.jsonl", False), ("dev.jsonl", False), ("heldout.jsonl", True), ("blind_v2.jsonl", True)],
)
def test_training_refuses_measured_question_files(name, refused):
    if refused:
        with pytest.raises(ValueError, match="only dev"):
            refuse_measured([Path(name)])
    else:
        refuse_measured([Path(name)])
