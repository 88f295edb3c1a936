"""The part of a governing act a question is about: the § spans the domain graph gives for its area, else the
sections whose headings carry the question's words. :class:`GoverningPart` is mixed into
``serving.ranking.query_lists.QueryLists``, whose lists it reads (``act_router``, ``bm25_ranking``, ``layer``,
``passages``, ``documents``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from mendel.czech.analyzer import analyze
from serving.ranking.fusion import placed_at
from serving.ranking.layers import LayerIndex


def content_terms(text: str) -> frozenset[str]:
    """The analysed terms of a query that carry its topic (question words and "zákon" left out)."""
    from mendel.law.domain_routing import QUERY_STOPWORDS

    return frozenset(analyze(text)) - QUERY_STOPWORDS


SECTION_NUMBER_RE = re.compile(r"§\s*(\d+)")
PART_SECTIONS = 3  # sections of the governing act whose headings match a question best: the part it is about
# A part of at most this many passages stands in the governing act's list in the code's order when BM25 finds none
# of the question's words in it: the domain graph routed the question there ("ať to už nevracím" is a forgiven
# debt, OZ §§ 1995-1996, whose wording shares no word with it). Dev: devc3-38 8 -> 5, devc5-13 none -> 28, no other
# question moved; 40 passages gave the same ranks.
SMALL_PART_PASSAGES = 12


def small_part_in_order(part: np.ndarray | None, allowed: np.ndarray | None = None) -> list[int]:
    """The rows of ``part`` (a mask; within ``allowed``) in the order the layer holds them, when there are at most
    :data:`SMALL_PART_PASSAGES`; else none."""
    if part is None:
        return []
    rows = np.flatnonzero(part if allowed is None else part & allowed)
    return rows.tolist() if len(rows) <= SMALL_PART_PASSAGES else []


# The rank the governing act's first passage in the question's part (the domain graph's § span for the area it
# routed the question to) gets at least. The part's list is one list among many: alone there, the provision a lay
# question is about could not outweigh passages several lists agree on (dev: a deposit, OZ § 1808, at 30; a
# receipt, OZ § 1949, at 29; usury, TZ § 218, at 20). Dev codes: 11 questions up (to 2 or 3), one 3 -> 4, the
# rest the same; at rank 1, 17 up and 17 down; parts of any size the same as of up to 20 passages.
PART_SLOT = 2


def with_part_slot(fused: list[tuple], governing: list[int], part: set[int], slot: int = PART_SLOT) -> list[tuple]:
    """``fused`` with the first of ``governing`` (the governing act's list) at rank ``slot`` when it lies in
    ``part`` (the rows of the question's part of the act) and no passage of the part stands that high; scored
    between its new neighbours and marked "part" (with its lists)."""
    if not part or not governing or governing[0] not in part or len(fused) < slot:
        return fused
    if any(item in part for item, _, _ in fused[:slot]):
        return fused
    return placed_at(fused, governing[0], slot, "part", ["governing"])


# After the decision rules (serving.ranking.decision_rules), which may put ten decisions' passages first: the part
# keeps a place among the first PART_KEPT_DEPTH. Citizen questions probed with a held act routed to a § span (403;
# not an evaluation set): the part's first passage out of the first ten 13 -> 6 (an employee taking from the till,
# TZ § 206, had ten decisions on embezzlement first), at 4 or lower 5 -> 4; those at 3 stay (a decision's slot at 2
# stands). Dev: one code question 11 -> 12, nothing else moved.
PART_KEPT_DEPTH = 3


def with_part_kept(
    fused: list[tuple], governing: list[int], part: set[int], depth: int = PART_KEPT_DEPTH
) -> list[tuple]:
    """``fused`` with the part's slot (:func:`with_part_slot`) again when no passage of ``part`` stands among its
    first ``depth``; one that does keeps its place."""
    if any(item in part for item, _, _ in fused[:depth]):
        return fused
    return with_part_slot(fused, governing, part)


def heading_lines(section: dict) -> list[str]:
    """A section's (layer 2) heading: its path, the division lines its text opens with ("HLAVA II", "Vymezení
    některých pojmů") and the provision's designation with its printed heading ("§ 205", "Krádež"); the wording
    after them is left out."""
    lines = [section.get("section") or ""]
    text = [line.strip() for line in (section.get("text") or "").splitlines()[:HEADING_LINES]]
    for number, line in enumerate(text):
        if not line or line.startswith("(") or len(line) > HEADING_CHARS:
            break
        lines.append(line)
        if PROVISION_LINE_RE.match(line):  # the designation: at most its heading follows
            after = text[number + 1] if number + 1 < len(text) else ""
            if after and not after.startswith("(") and len(after) <= HEADING_CHARS and not after.endswith(":"):
                lines.append(after)
            break
    return lines


HEADING_LINES = 6
HEADING_CHARS = 80
PROVISION_LINE_RE = re.compile(r"^(?:§|Čl\.|Článek)\s*\d", re.IGNORECASE)


@dataclass
class SectionHeadings:
    """The headings of some acts' sections (layer 2): term -> the rows whose heading carries it."""

    doc_ids: set[str]
    rows: dict[str, list[int]]
    count: int  # sections of these acts
    size: int  # rows of the layer

    def mask(self, rows) -> np.ndarray:
        found = np.zeros(self.size, dtype=bool)
        found[list(rows)] = True
        return found


class GoverningPart:
    """Which passages of the governing acts a question is about (see the module's docstring)."""

    def governing_rows(
        self, governing, layer: LayerIndex, text: str = ""
    ) -> tuple[np.ndarray | None, np.ndarray | None]:
        """Masks over ``layer`` of the chunks of the governing acts it holds, and of those in the part of the
        act the question is about: the § spans the domain graph gives for its area, else the sections whose
        headings and wording match ``text`` best (:meth:`heading_part`); None when neither finds one."""
        held = [act for act in governing if act.citation in self.act_router.rows]
        if not held or layer is not self.passages:
            return None, None
        acts = self.act_router.mask([act.citation for act in held])
        part = np.zeros(len(layer.chunks), dtype=bool)
        for act in held:
            numbers, rows = self.section_numbers(layer).get(act.citation, (None, None))
            for first, last in act.sections if numbers is not None else ():
                part[rows[(numbers >= first) & (numbers <= last)]] = True
        if not part.any() and text:
            return acts, self.heading_part(text, [act.citation for act in held])
        return acts, (part if part.any() else None)

    def heading_part(self, text: str, citations: list[str]) -> np.ndarray | None:
        """The part of the acts ``citations`` a question is about, found by the headings: their sections (layer 2)
        whose heading (designation and printed heading) carries the question's words, those rare among the acts'
        headings counting most and the acts' own names not at all ("trestný" heads half the criminal code); the
        ``PART_SECTIONS`` best (ties: BM25 over the sections' wording) are the part, their passages a mask over L3.
        None without a section layer or a section whose heading carries a word of the question."""
        sections = self.layer(2)
        if sections is None or not sections.chunks:
            return None
        headings = self.section_headings(sections, citations)
        names = set().union(*(analyze(self.documents[d].get("title") or "") for d in headings.doc_ids), ())
        wanted = content_terms(text) - names
        scores: dict[int, float] = {}
        for term in wanted:
            rows = headings.rows.get(term, ())
            for row in rows:
                scores[row] = scores.get(row, 0.0) + float(np.log(1.0 + headings.count / len(rows)))
        if not scores:
            return None
        bm25_rank = {
            row: rank
            for rank, row in enumerate(
                self.bm25_ranking(text, n=len(scores), allowed=headings.mask(scores), layer=sections)
            )
        }
        best = sorted(scores, key=lambda row: (-scores[row], bm25_rank.get(row, len(bm25_rank)), row))[:PART_SECTIONS]
        part = np.zeros(len(self.passages.chunks), dtype=bool)
        for row in best:
            section = sections.chunks[row]
            label = (section.get("section") or "").rsplit(" > ", 1)[-1].strip().lower()
            part[self.passages.section_chunks.get((section.get("citation"), label), [])] = True
        return part if part.any() else None

    def section_headings(self, sections: LayerIndex, citations: list[str]) -> "SectionHeadings":
        """The headings of the acts' sections (layer 2), analysed once per act set."""
        cache = self.__dict__.setdefault("_section_headings", {})
        key = tuple(sorted(citations))
        if key not in cache:
            by_citation = self.__dict__.get("_docs_by_citation")
            if by_citation is None:
                by_citation = {}
                for doc_id, doc in self.documents.items():
                    if doc.get("citation"):
                        by_citation.setdefault(doc["citation"], set()).add(doc_id)
                self.__dict__["_docs_by_citation"] = by_citation
            doc_ids = set().union(*(by_citation.get(c, set()) for c in citations))
            within = np.flatnonzero(sections.mask(doc_ids))
            rows: dict[str, list[int]] = {}
            for row in within.tolist():
                for term in set(analyze(" ".join(heading_lines(sections.chunks[row])))):
                    rows.setdefault(term, []).append(row)
            cache[key] = SectionHeadings(doc_ids, rows, len(within), len(sections.chunks))
        return cache[key]

    def section_numbers(self, layer: LayerIndex) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Act citation -> (the § number of each chunk of its numbered §§, those chunks' rows) in ``layer``, built
        once: a question's § spans select their chunks in one comparison (a big code has ~3,000 §§)."""
        cache = self.__dict__.setdefault("_section_numbers", {})
        if layer.layer not in cache:
            found: dict[str, tuple[list[int], list[int]]] = {}
            for (citation, label), rows in layer.section_chunks.items():
                m = SECTION_NUMBER_RE.match(label)
                if m:
                    numbers, chunks = found.setdefault(citation, ([], []))
                    numbers.extend([int(m.group(1))] * len(rows))
                    chunks.extend(rows)
            cache[layer.layer] = {
                citation: (np.asarray(numbers, dtype=np.int64), np.asarray(chunks, dtype=np.int64))
                for citation, (numbers, chunks) in found.items()
            }
        return cache[layer.layer]
