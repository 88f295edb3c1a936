"""L3 chunks of about 500 characters that follow Czech legal structure and sentence ends.

A chunk prefers to start at a heading (`§ 5`, `Čl. II`, `HLAVA I`), so a provision's heading
stays with its text; otherwise it ends at the sentence boundary nearest to the target size.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from dataclasses import dataclass

from mendel.extract.sections import find_headings, section_paths

PAGE_SEPARATOR = "\n\n"
SENTENCE_END_RE = re.compile(r"[.;:!?][)\"”]?\s+(?=[\(\"„A-ZÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ0-9§a-z])")
NEWLINE_RE = re.compile(r"\n")


@dataclass(frozen=True)
class Chunk:
    seq: int
    char_start: int
    char_end: int
    page_start: int
    page_end: int
    section_path: str
    text: str

    @property
    def content_hash(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


def join_pages(pages: list[str]) -> tuple[str, list[int]]:
    """The document text and the offset at which each page starts."""
    starts, parts, offset = [], [], 0
    for text in pages:
        starts.append(offset)
        parts.append(text)
        offset += len(text) + len(PAGE_SEPARATOR)
    return PAGE_SEPARATOR.join(parts), starts


def page_at(page_starts: list[int], offset: int) -> int:
    return max(1, bisect.bisect_right(page_starts, offset))


def _best_end(text: str, pos: int, heading_offsets: list[int], target: int, min_len: int, max_len: int) -> int:
    limit = min(len(text), pos + max_len)
    if limit == len(text) and limit - pos <= max_len:
        # Still split before a heading inside the tail, so the heading starts its own chunk.
        for offset in heading_offsets[bisect.bisect_left(heading_offsets, pos + min_len):]:
            if offset < limit:
                return offset
        return limit
    for offset in heading_offsets[bisect.bisect_left(heading_offsets, pos + min_len):]:
        if offset >= limit:
            break
        return offset
    window = text[pos:limit]
    for pattern in (SENTENCE_END_RE, NEWLINE_RE):
        ends = [pos + m.end() for m in pattern.finditer(window) if m.end() >= min_len]
        if ends:
            return min(ends, key=lambda e: abs(e - (pos + target)))
    space = window.rfind(" ", min_len)
    return pos + space + 1 if space > 0 else limit


def chunk_pages(pages: list[str], target: int = 500, min_len: int = 150, max_len: int = 800,
                sections: list[tuple[int, str]] | None = None) -> list[Chunk]:
    """Chunks of the joined pages. ``sections`` are (char_start, path) from extraction; without them the
    headings are found in the text."""
    text, page_starts = join_pages(pages)
    if sections is None:
        paths = section_paths(find_headings(text))
    else:
        paths = sorted(sections)
    heading_offsets = sorted({offset for offset, _ in paths})
    path_offsets = [offset for offset, _ in paths]
    chunks: list[Chunk] = []
    pos = 0
    while pos < len(text):
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        end = _best_end(text, pos, heading_offsets, target, min_len, max_len)
        if end <= pos:
            end = min(len(text), pos + max_len)
        body = text[pos:end].rstrip()
        if body:
            # The section a chunk belongs to is the one open where its text starts.
            index = bisect.bisect_right(path_offsets, pos) - 1
            chunks.append(
                Chunk(
                    seq=len(chunks),
                    char_start=pos,
                    char_end=pos + len(body),
                    page_start=page_at(page_starts, pos),
                    page_end=page_at(page_starts, pos + len(body) - 1),
                    section_path=paths[index][1] if index >= 0 else "",
                    text=body,
                )
            )
        pos = end
    return chunks
