"""Reading and writing ``.safetensors`` files (8-byte little-endian header length, JSON header, raw data).

Hand-written rather than the ``safetensors`` package: its numpy API cannot read BF16, which exported models use.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np

from mendel.encoder import ModelError

_DTYPES = {"F32": np.float32, "F16": np.float16, "F64": np.float64, "I64": np.int64, "I32": np.int32}


def read_safetensors(path: Path | str) -> dict[str, np.ndarray]:
    """Every tensor of the file as float32 (F32, F16, BF16, F64 and integer tensors)."""
    data = Path(path).read_bytes()
    if len(data) < 8:
        raise ModelError(f"{path}: not a safetensors file (too short)")
    (header_length,) = struct.unpack("<Q", data[:8])
    if header_length > len(data) - 8:
        raise ModelError(f"{path}: not a safetensors file (header length {header_length})")
    try:
        header = json.loads(data[8 : 8 + header_length])
    except ValueError as exc:
        raise ModelError(f"{path}: unreadable safetensors header ({exc})") from exc
    base = 8 + header_length
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        raw = data[base + start : base + end]
        if info["dtype"] == "BF16":  # bfloat16: the high half of a float32
            values = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        elif info["dtype"] in _DTYPES:
            values = np.frombuffer(raw, dtype=np.dtype(_DTYPES[info["dtype"]]).newbyteorder("<"))
        else:
            raise ModelError(f"{path}: tensor {name} has unsupported dtype {info['dtype']}")
        tensors[name] = values.reshape(info["shape"]).astype(np.float32)
    return tensors


def write_safetensors(path: Path | str, tensors: dict[str, np.ndarray]) -> None:
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
