"""Chunks in three layers: L1 the document, L2 its sections, L3 passages of about 500 characters. An L3 chunk prefers
to start at a heading (``§ 5``, ``Čl. II``), else it ends at the sentence boundary nearest the target size; it never
runs into the next § / čl. (a short provision is a short passage: run on, it would hide in its neighbour's section).
An L2 chunk is a run of passages that share a section path. Every chunk keeps its pages, section path, character
offsets into the document text and its parent in the layer above. A passage's section is the one open where it
starts, save one that opens a division with a § / čl. after its headings, or a group heading right above a § /
čl.: that provision's.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from dataclasses import dataclass, replace

from mendel.extract.model import join_pages, page_at
from mendel.extract.sections import HEADING_LEVELS, HEADING_RE, find_headings, heading_kind, section_paths

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
    layer: int = 3
    parent: int | None = None  # seq of the chunk one layer up (L3 -> L2, L2 -> the L1 chunk, 0)

    @property
    def content_hash(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


def _best_end(
    text: str, pos: int, heading_offsets: list[int], target: int, min_len: int, max_len: int, leads: list[int] = ()
) -> int:
    following = bisect.bisect_right(leads, pos)
    if following < len(leads) and leads[following] < pos + min_len:
        return leads[following]  # the next provision starts before the passage has its least length: it stops short
    limit = min(len(text), pos + max_len)
    if limit == len(text) and limit - pos <= max_len:
        # Still split before a heading inside the tail, so the heading starts its own chunk.
        for offset in heading_offsets[bisect.bisect_left(heading_offsets, pos + min_len) :]:
            if offset < limit:
                return offset
        return limit
    for offset in heading_offsets[bisect.bisect_left(heading_offsets, pos + min_len) :]:
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


_PROVISION_KINDS = frozenset({"§", "Čl."})
_DIVISION_KINDS = frozenset(kind for kind, level in HEADING_LEVELS.items() if level < HEADING_LEVELS["§"]) - {"PŘÍLOHA"}


def _kind_of(path: str) -> str | None:
    """The kind of the heading that opens the section at ``path`` (its last label); None for a generic heading."""
    label = path.rsplit(" > ", 1)[-1]
    return heading_kind(label) if HEADING_RE.match(label) else None


def _heading_lines(segment: str) -> bool:
    """Whether ``segment`` (from one heading to the next) is headings' lines only: a division's label and title, a
    group heading (``Díl 3`` ``Součást věci a příslušenství věci`` ``Součást věci``), none a sentence."""
    lines = [line.strip() for line in segment.splitlines() if line.strip()]
    return len(lines) <= HEADING_BLOCK_LINES and all(
        len(line) <= HEADING_LINE_MAX and not line.endswith((".", ",", ";")) for line in lines
    )


HEADING_BLOCK_LINES = 4
HEADING_LINE_MAX = 150


def provision_leads(paths: list[tuple[int, str]], text: str) -> dict[int, str]:
    """Where each § / čl. begins -> its path: with the division headings printed right above it (``Díl 2``
    ``Rozdělení věcí`` ``§ 496``), else with the group heading line right above it (``Vznik spolku`` ``§ 226``: the
    heading of the §§ that follow, not the end of the § before). No passage runs across one."""
    leads: dict[int, str] = {}
    for index, (offset, path) in enumerate(paths):
        if _kind_of(path) not in _PROVISION_KINDS:
            continue
        lead = offset
        for above, above_path in reversed(paths[:index]):
            if _kind_of(above_path) not in _DIVISION_KINDS or not _heading_lines(text[above:lead]):
                break
            lead = above
        if lead == offset:
            lead = _group_heading_start(text, offset, paths[index - 1][0] if index else 0)
        leads[lead] = path
    return leads


_GROUP_HEADING_RE = re.compile(r"[A-ZÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ][^\n]{1,%d}" % (HEADING_LINE_MAX - 2))


def _group_heading_start(text: str, offset: int, floor: int) -> int:
    """Where the heading line printed right above the provision at ``offset`` starts (after a sentence's end, not
    itself one: ``… podle § 218.`` ``Vznik spolku`` ``§ 226``); ``offset`` when there is none. Not before ``floor``,
    the heading before it."""
    if offset < 2 or text[offset - 1] != "\n":
        return offset
    start = text.rfind("\n", 0, offset - 1) + 1
    line = text[start : offset - 1].strip()
    if start <= floor or not _GROUP_HEADING_RE.fullmatch(line) or line.endswith((".", ",", ";", ":")):
        return offset
    before = text[:start].rstrip()
    return start if before.endswith((".", ":")) else offset


def _passage_section(
    paths: list[tuple[int, str]], path_offsets: list[int], start: int, end: int, leads: dict[int, str]
) -> str:
    """The section path of the passage text[start:end]: the provision's whose lead it starts at (``leads``), else
    the section open where it starts; but a passage that begins a division and holds only that division's headings
    before its first § / čl. (``HLAVA II`` ``OSOBY`` ``Díl 1`` ``Všeobecná ustanovení`` ``§ 15`` ``(1) …``) is that
    provision's: its wording starts there, and citations look a provision up by the end of the path. The headings
    stay in the text."""
    if start in leads:
        return leads[start]
    index = bisect.bisect_right(path_offsets, start) - 1
    if index < 0:
        return ""
    opened = paths[index][1]
    if path_offsets[index] != start or _kind_of(opened) not in _DIVISION_KINDS:
        return opened
    for offset, path in paths[index + 1 :]:
        if offset >= end or not path.startswith(opened + " > "):
            break  # the passage ends first, or the division closes before a provision starts
        kind = _kind_of(path)
        if kind in _PROVISION_KINDS:
            return path
        if kind is not None and kind not in _DIVISION_KINDS:
            break  # a příloha: not a division's heading
    return opened


def chunk_pages(
    pages: list[str],
    target: int = 500,
    min_len: int = 150,
    max_len: int = 800,
    sections: list[tuple[int, str]] | None = None,
) -> list[Chunk]:
    """Chunks of the joined pages. ``sections`` are (char_start, path) from extraction; without them the
    headings are found in the text."""
    text, page_starts = join_pages(pages)
    if sections is None:
        paths = section_paths(find_headings(text))
    else:
        paths = sorted(sections)
    leads = provision_leads(paths, text)
    # a provision's passage starts at its lead: the heading line above it goes with it
    moved = {offset for offset, path in paths if _kind_of(path) in _PROVISION_KINDS} - set(leads)
    heading_offsets = sorted({offset for offset, _ in paths} - moved | set(leads))
    path_offsets = [offset for offset, _ in paths]
    lead_offsets = sorted(leads)
    chunks: list[Chunk] = []
    pos = 0
    while pos < len(text):
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        end = _best_end(text, pos, heading_offsets, target, min_len, max_len, lead_offsets)
        if end <= pos:
            end = min(len(text), pos + max_len)
        body = text[pos:end].rstrip()
        if body:
            chunks.append(
                Chunk(
                    seq=len(chunks),
                    char_start=pos,
                    char_end=pos + len(body),
                    page_start=page_at(page_starts, pos),
                    page_end=page_at(page_starts, pos + len(body) - 1),
                    section_path=_passage_section(paths, path_offsets, pos, pos + len(body), leads),
                    text=body,
                )
            )
        pos = end
    return chunks


SECTION_MAX = 4000  # characters of one L2 chunk; a longer section is split at L3 boundaries
SECTION_MIN = 200  # a shorter run of L3 chunks (a bare heading, a title block) joins the run after it
DOCUMENT, SECTION, PASSAGE = 1, 2, 3


@dataclass(frozen=True)
class DocumentLayers:
    document: Chunk | None  # L1; None when the document has no text
    sections: list[Chunk]  # L2, in order, non-overlapping
    passages: list[Chunk]  # L3, in order; ``parent`` is the seq of the L2 chunk holding it

    def all(self) -> list[Chunk]:
        return ([self.document] if self.document else []) + self.sections + self.passages


def _common_path(paths: list[str]) -> str:
    parts = [p.split(" > ") if p else [] for p in paths]
    common: list[str] = []
    for level in zip(*parts):
        if len(set(level)) != 1:
            break
        common.append(level[0])
    return " > ".join(common)


def _section_runs(passages: list[Chunk], section_min: int, section_max: int) -> list[list[Chunk]]:
    runs: list[list[Chunk]] = []
    for chunk in passages:
        if runs and runs[-1][-1].section_path == chunk.section_path:
            runs[-1].append(chunk)
        else:
            runs.append([chunk])
    length = lambda run: run[-1].char_end - run[0].char_start  # noqa: E731
    merged: list[list[Chunk]] = []
    carry: list[Chunk] = []
    for i, run in enumerate(runs):
        run, carry = carry + run, []
        if length(run) < section_min and i < len(runs) - 1:
            carry = run  # too short to stand alone (a bare heading, a title block): joins the run after it
            continue
        merged.append(run)
    if len(merged) > 1 and length(merged[-1]) < section_min:
        merged[-2].extend(merged.pop())  # a short tail (signatures) joins the run before it
    split: list[list[Chunk]] = []
    for run in merged:
        piece: list[Chunk] = []
        for chunk in run:
            if piece and chunk.char_end - piece[0].char_start > section_max:
                split.append(piece)
                piece = []
            piece.append(chunk)
        split.append(piece)
    return split


def build_layers(
    pages: list[str],
    sections: list[tuple[int, str]] | None = None,
    *,
    target: int = 500,
    min_len: int = 150,
    max_len: int = 800,
    section_min: int = SECTION_MIN,
    section_max: int = SECTION_MAX,
) -> DocumentLayers:
    """L1, L2 and L3 chunks of one document; L3 is exactly ``chunk_pages`` with parents set."""
    text, _ = join_pages(pages)
    passages = chunk_pages(pages, target=target, min_len=min_len, max_len=max_len, sections=sections)
    if not passages:
        return DocumentLayers(None, [], [])
    runs = _section_runs(passages, section_min, section_max)
    section_chunks: list[Chunk] = []
    parented: list[Chunk] = []
    for seq, run in enumerate(runs):
        start, end = run[0].char_start, run[-1].char_end
        section_chunks.append(
            Chunk(
                seq=seq,
                char_start=start,
                char_end=end,
                page_start=run[0].page_start,
                page_end=run[-1].page_end,
                section_path=_common_path([c.section_path for c in run]),
                text=text[start:end],
                layer=SECTION,
                parent=0,
            )
        )
        parented += [replace(c, layer=PASSAGE, parent=seq) for c in run]
    start, end = passages[0].char_start, passages[-1].char_end
    document = Chunk(
        seq=0,
        char_start=start,
        char_end=end,
        page_start=passages[0].page_start,
        page_end=passages[-1].page_end,
        section_path="",
        text=text[start:end],
        layer=DOCUMENT,
    )
    return DocumentLayers(document, section_chunks, parented)
