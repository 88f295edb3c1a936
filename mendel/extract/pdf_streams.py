"""Decompression bombs in a PDF, refused before any parser inflates them: every Flate stream is inflated once, in
bounded steps; a content or font stream past ``limits.max_stream_bytes`` (an image stream past 8 bytes per allowed
pixel) raises ExtractionError."""

from __future__ import annotations

import re
import zlib

from mendel.extract.model import ExtractionError, ExtractionLimits

_STREAM_START = re.compile(rb"(?<!end)stream(?:\r\n|\n|\r)")
_OBJECT_NUMBERS = re.compile(rb"(\d+)\s+\d+\s+$")
_INFLATE_STEP = 1 << 20


def _inflated_size(compressed: bytes, limit: int) -> int | None:
    """Bytes a zlib stream inflates to, counting no further than just past `limit`; None if not zlib."""
    inflater = zlib.decompressobj()
    total = 0
    try:
        total = len(inflater.decompress(compressed, _INFLATE_STEP))
        while inflater.unconsumed_tail and not inflater.eof and total <= limit:
            before = len(inflater.unconsumed_tail)
            out = inflater.decompress(inflater.unconsumed_tail, _INFLATE_STEP)
            total += len(out)
            if not out and len(inflater.unconsumed_tail) == before:
                break
    except zlib.error:
        return None if total == 0 else total
    return total


def _object_header(head: bytes) -> tuple[int, int | None]:
    """(offset of the last `N G obj` in head, N), or (0, None); searched backwards, as a forward regex over
    binary stream data backtracks badly."""
    at = head.rfind(b"obj")
    while at >= 0:
        numbers = _OBJECT_NUMBERS.search(head, max(0, at - 24), at)
        if numbers:
            return numbers.start(), int(numbers.group(1))
        at = head.rfind(b"obj", 0, at)
    return 0, None


def check_streams(data: bytes, limits: ExtractionLimits) -> None:
    """Raise ExtractionError for a Flate stream that inflates past its limit (see the module docstring).
    Streams are found in the raw bytes (streams never sit inside object streams); encrypted or non-zlib
    streams don't inflate and are left to the parsers."""
    for match in _STREAM_START.finditer(data):
        head = data[max(0, match.start() - 4096) : match.start()]
        start, number = _object_header(head)
        head = head[start:]
        if b"/FlateDecode" not in head:
            continue
        end = data.find(b"endstream", match.end())
        compressed = data[match.end() : end if end >= 0 else len(data)]
        image = re.search(rb"/Subtype\s*/Image\b", head) is not None
        limit = 8 * limits.max_pixels if image else limits.max_stream_bytes
        size = _inflated_size(compressed, limit)
        if size is not None and size > limit:
            name = f"object {number}" if number is not None else f"at byte {match.start()}"
            raise ExtractionError(
                f"decompression bomb: PDF {'image ' if image else ''}stream {name} inflates past "
                f"{limit / 2**20:.0f} MiB from {len(compressed) / 1024:.0f} KiB"
            )
