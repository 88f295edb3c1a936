"""Optional cross-encoder rerank from a local model directory, in numpy (no torch, no network).

The directory is a BERT sequence-classification model as exported for Hugging Face transformers:

- ``config.json``: ``hidden_size``, ``num_hidden_layers``, ``num_attention_heads``, ``intermediate_size``,
  ``max_position_embeddings``, ``type_vocab_size``, ``layer_norm_eps``, ``hidden_act`` (gelu), ``num_labels``;
- ``model.safetensors``: the weights under their usual names (``bert.embeddings.word_embeddings.weight``,
  ``bert.encoder.layer.N.attention.self.query.weight``, ..., ``bert.pooler.dense.weight``, ``classifier.weight``);
  F32, F16 or BF16;
- ``vocab.txt`` (WordPiece) and optionally ``tokenizer_config.json`` (``do_lower_case``, ``strip_accents``,
  ``model_max_length``).

Query and passage are encoded as one pair (``[CLS] query [SEP] passage [SEP]``, token types 0 and 1, the longer
side truncated first); the score is the classifier's logit (one label) or the positive-class margin (two). Only
BERT-family WordPiece models load (e.g. the ms-marco MiniLM cross-encoders); an XLM-R/SentencePiece model is
refused with a clear error.
"""

from __future__ import annotations

import json
import math
import struct
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MAX_PAIR_TOKENS = 256   # tokens per pair: cross-encoders are trained on short passages; keeps the cost bounded
BATCH_SIZE = 16

_SAFETENSORS_DTYPES = {"F32": np.float32, "F16": np.float16, "F64": np.float64, "I64": np.int64, "I32": np.int32}


class CrossEncoderError(ValueError):
    """The model directory cannot be used; the message says why."""


# --- weights -----------------------------------------------------------------------------------------------


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Tensors of a ``.safetensors`` file (8-byte little-endian header length, JSON header, raw data)."""
    data = Path(path).read_bytes()
    if len(data) < 8:
        raise CrossEncoderError(f"{path}: not a safetensors file (too short)")
    (header_length,) = struct.unpack("<Q", data[:8])
    if header_length > len(data) - 8:
        raise CrossEncoderError(f"{path}: not a safetensors file (header length {header_length})")
    try:
        header = json.loads(data[8:8 + header_length])
    except ValueError as exc:
        raise CrossEncoderError(f"{path}: unreadable safetensors header ({exc})") from exc
    base = 8 + header_length
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        raw = data[base + start: base + end]
        if info["dtype"] == "BF16":  # bfloat16: the high half of a float32
            values = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        elif info["dtype"] in _SAFETENSORS_DTYPES:
            values = np.frombuffer(raw, dtype=np.dtype(_SAFETENSORS_DTYPES[info["dtype"]]).newbyteorder("<"))
        else:
            raise CrossEncoderError(f"{path}: tensor {name} has unsupported dtype {info['dtype']}")
        tensors[name] = values.reshape(info["shape"]).astype(np.float32)
    return tensors


def write_safetensors(path: Path, tensors: dict[str, np.ndarray]) -> None:
    """Write float32 tensors as ``.safetensors`` (used to export models and by the tests)."""
    header, chunks, offset = {}, [], 0
    for name, array in tensors.items():
        raw = np.ascontiguousarray(array, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(array.shape), "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    encoded = json.dumps(header).encode()
    encoded += b" " * (-len(encoded) % 8)
    Path(path).write_bytes(struct.pack("<Q", len(encoded)) + encoded + b"".join(chunks))


# --- tokenizer ---------------------------------------------------------------------------------------------


def _is_punctuation(char: str) -> bool:
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_cjk(code: int) -> bool:
    return (0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF or 0x20000 <= code <= 0x2A6DF
            or 0xF900 <= code <= 0xFAFF or 0x2F800 <= code <= 0x2FA1F)


class WordPieceTokenizer:
    """BERT's tokenisation: clean, split on whitespace and punctuation (CJK per character), optionally lower
    case and strip accents, then greedy longest-match WordPiece with ``##`` continuations."""

    def __init__(self, vocab: list[str], lower_case: bool = True, strip_accents: bool | None = None,
                 max_chars_per_word: int = 100):
        self.vocab = {token: i for i, token in enumerate(vocab)}
        self.lower_case = lower_case
        self.strip_accents = lower_case if strip_accents is None else strip_accents
        self.max_chars_per_word = max_chars_per_word
        for special in ("[CLS]", "[SEP]", "[UNK]", "[PAD]"):
            if special not in self.vocab:
                raise CrossEncoderError(f"vocabulary lacks {special}")
        self.cls, self.sep, self.unk, self.pad = (self.vocab[t] for t in ("[CLS]", "[SEP]", "[UNK]", "[PAD]"))

    @classmethod
    def from_directory(cls, directory: Path) -> "WordPieceTokenizer":
        vocab_path = directory / "vocab.txt"
        if not vocab_path.exists():
            raise CrossEncoderError(f"{directory}: no vocab.txt; only BERT-family WordPiece cross-encoders are "
                                    "supported (not SentencePiece models such as XLM-R)")
        vocab = vocab_path.read_text(encoding="utf-8").split("\n")
        if vocab and vocab[-1] == "":
            vocab.pop()
        config = {}
        if (directory / "tokenizer_config.json").exists():
            config = json.loads((directory / "tokenizer_config.json").read_text(encoding="utf-8"))
        return cls(vocab, lower_case=bool(config.get("do_lower_case", True)),
                   strip_accents=config.get("strip_accents"))

    def _words(self, text: str) -> list[str]:
        cleaned = []
        for char in text:
            code = ord(char)
            if code == 0 or code == 0xFFFD or (unicodedata.category(char).startswith("C") and char not in "\t\n\r"):
                continue
            if _is_cjk(code):
                cleaned.append(f" {char} ")
            else:
                cleaned.append(" " if char.isspace() else char)
        words = []
        for word in "".join(cleaned).split():
            if self.lower_case:
                word = word.lower()
            if self.strip_accents:
                word = "".join(c for c in unicodedata.normalize("NFD", word) if unicodedata.category(c) != "Mn")
            current = ""
            for char in word:
                if _is_punctuation(char):
                    if current:
                        words.append(current)
                    words.append(char)
                    current = ""
                else:
                    current += char
            if current:
                words.append(current)
        return words

    def _pieces(self, word: str) -> list[int]:
        if len(word) > self.max_chars_per_word:
            return [self.unk]
        pieces, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.vocab:
                    pieces.append(self.vocab[piece])
                    break
                end -= 1
            else:
                return [self.unk]
            start = end
        return pieces

    def tokenize(self, text: str) -> list[int]:
        return [i for word in self._words(text) for i in self._pieces(word)]

    def encode_pair(self, first: str, second: str, max_tokens: int) -> tuple[list[int], list[int]]:
        """(token ids, token types) of ``[CLS] first [SEP] second [SEP]``, the longer side cut first."""
        a, b = self.tokenize(first), self.tokenize(second)
        budget = max(max_tokens - 3, 2)
        while len(a) + len(b) > budget:
            if len(a) > len(b):
                a.pop()
            else:
                b.pop()
        ids = [self.cls] + a + [self.sep] + b + [self.sep]
        return ids, [0] * (len(a) + 2) + [1] * (len(b) + 1)


# --- the model ---------------------------------------------------------------------------------------------


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def _gelu(x: np.ndarray) -> np.ndarray:
    from scipy.special import erf

    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def _gelu_tanh(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


_ACTIVATIONS = {"gelu": _gelu, "gelu_new": _gelu_tanh, "gelu_pytorch_tanh": _gelu_tanh,
                "relu": lambda x: np.maximum(x, 0.0)}


@dataclass
class _Config:
    hidden: int
    layers: int
    heads: int
    max_positions: int
    eps: float
    activation: str
    labels: int


class CrossEncoder:
    """A BERT sequence classifier scoring (query, passage) pairs; load with :meth:`load`."""

    def __init__(self, config: _Config, weights: dict[str, np.ndarray], tokenizer: WordPieceTokenizer,
                 path: Path | None = None, max_tokens: int = MAX_PAIR_TOKENS):
        self.config = config
        self.weights = weights
        self.tokenizer = tokenizer
        self.path = path
        self.max_tokens = min(max_tokens, config.max_positions)
        self._activation = _ACTIVATIONS[config.activation]

    @classmethod
    def load(cls, path: Path | str, max_tokens: int = MAX_PAIR_TOKENS) -> "CrossEncoder":
        directory = Path(path)
        if not directory.is_dir():
            raise CrossEncoderError(f"{directory}: not a model directory")
        config_path = directory / "config.json"
        if not config_path.exists():
            raise CrossEncoderError(f"{directory}: no config.json")
        raw = json.loads(config_path.read_text(encoding="utf-8"))
        model_type = raw.get("model_type", "bert")
        if model_type != "bert":
            raise CrossEncoderError(f"{directory}: model_type {model_type!r} is not supported (BERT only)")
        activation = raw.get("hidden_act", "gelu")
        if activation not in _ACTIVATIONS:
            raise CrossEncoderError(f"{directory}: hidden_act {activation!r} is not supported")
        labels = int(raw.get("num_labels") or len(raw.get("id2label") or {0: 0}))
        config = _Config(hidden=int(raw["hidden_size"]), layers=int(raw["num_hidden_layers"]),
                         heads=int(raw["num_attention_heads"]),
                         max_positions=int(raw.get("max_position_embeddings", 512)),
                         eps=float(raw.get("layer_norm_eps", 1e-12)), activation=activation, labels=labels)
        if config.hidden % config.heads:
            raise CrossEncoderError(f"{directory}: hidden_size {config.hidden} is not a multiple of "
                                    f"num_attention_heads {config.heads}")
        weights_path = directory / "model.safetensors"
        if not weights_path.exists():
            raise CrossEncoderError(f"{directory}: no model.safetensors (pytorch_model.bin needs torch)")
        weights = {_canonical_name(k): v for k, v in read_safetensors(weights_path).items()}
        missing = [name for name in _required_names(config) if name not in weights]
        if missing:
            raise CrossEncoderError(f"{directory}: weights missing: {', '.join(missing[:5])}"
                                    + (f" and {len(missing) - 5} more" if len(missing) > 5 else ""))
        return cls(config, weights, WordPieceTokenizer.from_directory(directory), path=directory,
                   max_tokens=max_tokens)

    def _forward(self, ids: np.ndarray, types: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w, c = self.weights, self.config
        batch, length = ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][np.arange(length)][None, :, :]
             + w["embeddings.token_type_embeddings.weight"][types])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], c.eps)
        head_dim = c.hidden // c.heads
        blocked = np.where(mask[:, None, None, :], 0.0, -1e9).astype(np.float32)  # padding is never attended

        def dense(h, name):
            return h @ w[f"{name}.weight"].T + w[f"{name}.bias"]

        for n in range(c.layers):
            p = f"encoder.layer.{n}"

            def heads(h):
                return h.reshape(batch, length, c.heads, head_dim).transpose(0, 2, 1, 3)

            q = heads(dense(x, f"{p}.attention.self.query"))
            k = heads(dense(x, f"{p}.attention.self.key"))
            v = heads(dense(x, f"{p}.attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(head_dim) + blocked
            scores -= scores.max(axis=-1, keepdims=True)
            attention = np.exp(scores)
            attention /= attention.sum(axis=-1, keepdims=True)
            context = (attention @ v).transpose(0, 2, 1, 3).reshape(batch, length, c.hidden)
            x = _layer_norm(x + dense(context, f"{p}.attention.output.dense"),
                            w[f"{p}.attention.output.LayerNorm.weight"], w[f"{p}.attention.output.LayerNorm.bias"],
                            c.eps)
            inner = self._activation(dense(x, f"{p}.intermediate.dense"))
            x = _layer_norm(x + dense(inner, f"{p}.output.dense"), w[f"{p}.output.LayerNorm.weight"],
                            w[f"{p}.output.LayerNorm.bias"], c.eps)
        pooled = np.tanh(dense(x[:, 0, :], "pooler.dense"))
        return dense(pooled, "classifier")

    def score(self, query: str, passages: list[str]) -> np.ndarray:
        """One relevance score per passage (higher is more relevant), float32."""
        out = np.zeros(len(passages), dtype=np.float32)
        for start in range(0, len(passages), BATCH_SIZE):
            batch = [self.tokenizer.encode_pair(query, p, self.max_tokens) for p in passages[start:start + BATCH_SIZE]]
            length = max(len(ids) for ids, _ in batch)
            ids = np.full((len(batch), length), self.tokenizer.pad, dtype=np.int64)
            types = np.zeros((len(batch), length), dtype=np.int64)
            mask = np.zeros((len(batch), length), dtype=bool)
            for row, (token_ids, token_types) in enumerate(batch):
                ids[row, :len(token_ids)] = token_ids
                types[row, :len(token_types)] = token_types
                mask[row, :len(token_ids)] = True
            logits = self._forward(ids, types, mask)
            out[start:start + len(batch)] = logits[:, 0] if logits.shape[1] == 1 else logits[:, 1] - logits[:, 0]
        return out


def _canonical_name(name: str) -> str:
    """``bert.encoder...`` -> ``encoder...``; old ``LayerNorm.gamma/beta`` -> ``weight/bias``."""
    name = name.removeprefix("bert.")
    return name.replace("LayerNorm.gamma", "LayerNorm.weight").replace("LayerNorm.beta", "LayerNorm.bias")


def _required_names(config: _Config) -> list[str]:
    names = ["embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight",
             "embeddings.token_type_embeddings.weight", "embeddings.LayerNorm.weight", "embeddings.LayerNorm.bias",
             "pooler.dense.weight", "pooler.dense.bias", "classifier.weight", "classifier.bias"]
    for n in range(config.layers):
        p = f"encoder.layer.{n}"
        for part in ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
                     "intermediate.dense", "output.dense"):
            names += [f"{p}.{part}.weight", f"{p}.{part}.bias"]
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            names += [f"{p}.{norm}.weight", f"{p}.{norm}.bias"]
    return names
