"""The BERT encoder in numpy: configuration, weight names, the forward pass and the classification head, for every
BERT-shaped model the project runs without a runtime (the sentence-transformers embedder and the cross-encoder).
Weights are float32 arrays under Hugging Face ``BertModel`` names without the ``bert.`` prefix.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mendel.encoder import ModelError
from mendel.encoder.safetensors import read_safetensors


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def _gelu(x: np.ndarray) -> np.ndarray:
    from scipy.special import erf

    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def _gelu_tanh(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


ACTIVATIONS = {
    "gelu": _gelu,
    "gelu_new": _gelu_tanh,
    "gelu_pytorch_tanh": _gelu_tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}
LAYER_PARTS = (
    "attention.self.query",
    "attention.self.key",
    "attention.self.value",
    "attention.output.dense",
    "intermediate.dense",
    "output.dense",
)
LAYER_NORMS = ("attention.output.LayerNorm", "output.LayerNorm")
HEAD_NAMES = ("pooler.dense.weight", "pooler.dense.bias", "classifier.weight", "classifier.bias")


@dataclass(frozen=True)
class BertConfig:
    hidden: int
    layers: int
    heads: int
    max_positions: int
    eps: float
    activation: str
    labels: int = 0  # classifier outputs; 0 for a bare encoder

    @classmethod
    def from_hf(cls, raw: dict, where: object = "config.json") -> "BertConfig":
        """From a Hugging Face ``config.json``; refuses what the forward pass does not implement."""
        model_type = raw.get("model_type", "bert")
        if model_type != "bert":
            raise ModelError(f"{where}: model_type {model_type!r} is not supported (BERT only)")
        activation = raw.get("hidden_act", "gelu")
        if activation not in ACTIVATIONS:
            raise ModelError(f"{where}: hidden_act {activation!r} is not supported")
        config = cls(
            hidden=int(raw["hidden_size"]),
            layers=int(raw["num_hidden_layers"]),
            heads=int(raw["num_attention_heads"]),
            max_positions=int(raw.get("max_position_embeddings", 512)),
            eps=float(raw.get("layer_norm_eps", 1e-12)),
            activation=activation,
            labels=int(raw.get("num_labels") or len(raw.get("id2label") or {0: 0})),
        )
        if config.hidden % config.heads:
            raise ModelError(
                f"{where}: hidden_size {config.hidden} is not a multiple of num_attention_heads {config.heads}"
            )
        return config

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads


def canonical_name(name: str) -> str:
    """``bert.encoder...`` -> ``encoder...``; old ``LayerNorm.gamma/beta`` -> ``weight/bias``."""
    name = name.removeprefix("bert.")
    return name.replace("LayerNorm.gamma", "LayerNorm.weight").replace("LayerNorm.beta", "LayerNorm.bias")


def required_names(config: BertConfig, head: bool) -> list[str]:
    """Weight names the forward pass reads; ``head`` adds the pooler and classifier of a sequence classifier."""
    names = [
        "embeddings.word_embeddings.weight",
        "embeddings.position_embeddings.weight",
        "embeddings.token_type_embeddings.weight",
        "embeddings.LayerNorm.weight",
        "embeddings.LayerNorm.bias",
    ]
    if head:
        names += list(HEAD_NAMES)
    for n in range(config.layers):
        p = f"encoder.layer.{n}"
        for part in LAYER_PARTS:
            names += [f"{p}.{part}.weight", f"{p}.{part}.bias"]
        for norm in LAYER_NORMS:
            names += [f"{p}.{norm}.weight", f"{p}.{norm}.bias"]
    return names


def read_bert_directory(directory: Path | str, head: bool) -> tuple[BertConfig, dict[str, np.ndarray]]:
    """``config.json`` and ``model.safetensors`` of a Hugging Face BERT directory, weights under canonical names."""
    directory = Path(directory)
    if not directory.is_dir():
        raise ModelError(f"{directory}: not a model directory")
    if not (directory / "config.json").is_file():
        raise ModelError(f"{directory}: no config.json")
    config = BertConfig.from_hf(json.loads((directory / "config.json").read_text(encoding="utf-8")), directory)
    if not (directory / "model.safetensors").is_file():
        raise ModelError(f"{directory}: no model.safetensors (pytorch_model.bin needs torch)")
    weights = {canonical_name(k): v for k, v in read_safetensors(directory / "model.safetensors").items()}
    missing = [name for name in required_names(config, head) if name not in weights]
    if missing:
        raise ModelError(
            f"{directory}: weights missing: {', '.join(missing[:5])}"
            + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        )
    return config, weights


def token_states(
    config: BertConfig, weights: dict, ids: np.ndarray, mask: np.ndarray, types: np.ndarray | None = None
) -> np.ndarray:
    """Last-layer states (batch, length, hidden) of padded token ids; ``mask`` marks real tokens (padding is never
    attended); ``types`` are token types (all 0 when None). Positions count from 0 in every row."""
    w, c = weights, config
    batch, length = ids.shape
    types = np.zeros_like(ids) if types is None else types
    x = (
        np.asarray(w["embeddings.word_embeddings.weight"][ids], dtype=np.float32)
        + w["embeddings.position_embeddings.weight"][:length][None, :, :]
        + w["embeddings.token_type_embeddings.weight"][types]
    )
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], c.eps)
    activation = ACTIVATIONS[c.activation]
    blocked = np.where(mask[:, None, None, :], 0.0, -1e9).astype(np.float32)

    def dense(h, name):
        return h @ w[f"{name}.weight"].T + w[f"{name}.bias"]

    def heads(h):
        return h.reshape(batch, length, c.heads, c.head_dim).transpose(0, 2, 1, 3)

    def norm(h, name):
        return layer_norm(h, w[f"{name}.weight"], w[f"{name}.bias"], c.eps)

    for n in range(c.layers):
        p = f"encoder.layer.{n}"
        q, k, v = (heads(dense(x, f"{p}.attention.self.{part}")) for part in ("query", "key", "value"))
        scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(c.head_dim) + blocked
        scores -= scores.max(axis=-1, keepdims=True)
        attention = np.exp(scores)
        attention /= attention.sum(axis=-1, keepdims=True)
        context = (attention @ v).transpose(0, 2, 1, 3).reshape(batch, length, c.hidden)
        x = norm(x + dense(context, f"{p}.attention.output.dense"), f"{p}.attention.output.LayerNorm")
        x = norm(
            x + dense(activation(dense(x, f"{p}.intermediate.dense")), f"{p}.output.dense"), f"{p}.output.LayerNorm"
        )
    return x.astype(np.float32)


def classifier_logits(weights: dict, states: np.ndarray) -> np.ndarray:
    """A sequence classifier's logits (batch, labels): tanh pooler over the first token, then the classifier."""
    pooled = np.tanh(states[:, 0, :] @ weights["pooler.dense.weight"].T + weights["pooler.dense.bias"])
    return pooled @ weights["classifier.weight"].T + weights["classifier.bias"]


def pad_batch(
    rows: list[list[int]], pad: int, types: list[list[int]] | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(ids, mask, types) arrays of token-id rows padded to the longest one."""
    length = max(len(r) for r in rows)
    ids = np.full((len(rows), length), pad, dtype=np.int64)
    mask = np.zeros((len(rows), length), dtype=bool)
    token_types = None if types is None else np.zeros((len(rows), length), dtype=np.int64)
    for i, row in enumerate(rows):
        ids[i, : len(row)] = row
        mask[i, : len(row)] = True
        if token_types is not None:
            token_types[i, : len(types[i])] = types[i]
    return ids, mask, token_types
