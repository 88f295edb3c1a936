"""The passages a citator answer shows for a citing document: the sentence around each citation, the same
sentence on a page once with every way it was found, in reading order; shared by the index build (which cuts
them ahead) and the query (which cuts them on the call where the index cannot)."""

from __future__ import annotations

import re

import psycopg

SENTENCE_CHARS = 400
PASSAGES_PER_DOCUMENT = 5
_SPACES = re.compile(r"\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+(?=[A-ZÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ§(„\"])|\n+")


def sentence_around(text: str, start: int, end: int) -> str:
    """The sentence of ``text`` holding ``[start, end)`` (at most about SENTENCE_CHARS characters)."""
    begin = 0
    for m in _SENTENCE_END.finditer(text, 0, start):
        begin = m.end()
    stop = _SENTENCE_END.search(text, end)
    finish = stop.start() if stop else len(text)
    begin = max(begin, start - SENTENCE_CHARS // 2)
    finish = min(finish, end + SENTENCE_CHARS // 2)
    return _SPACES.sub(" ", text[begin:finish]).strip()


def clip(text: str | None) -> str | None:
    text = re.sub(r"\s+", " ", text or "").strip()
    return (text[: SENTENCE_CHARS - 1] + "…") if len(text) > SENTENCE_CHARS else (text or None)


def passages_of(hits: list[tuple], page_of) -> list[dict]:
    """One citing document's passages from its hits ``(page, start, origin, sentence, key, provision, produces,
    seq)``: in reading order (mentions at the same offset of passages on one page by passage order, then by what
    they cite and how it was found, so which passages are shown never depends on a plan's row order), the same
    sentence on the same page once with every way it was found, at most PASSAGES_PER_DOCUMENT, by page.
    ``page_of(sentence)`` is the page of a link that names none."""
    hits = sorted(
        hits, key=lambda h: (h[0] is None, h[0] or 0, h[1] or 0, h[7] or 0, h[3] or "", h[4] or "", h[5] or "", h[2])
    )
    seen: dict[tuple, dict] = {}
    passages: list[dict] = []
    for page, _, origin, sentence, key, provision, produces, _ in hits:
        if page is None and sentence:
            page = page_of(sentence)
        cited = _cited_label(key, provision)
        entry = seen.get((page, sentence))
        if entry is not None:
            entry["origins"] = sorted(set(entry["origins"]) | {origin})
            entry["cited"] = sorted(set(entry["cited"]) | {cited})
            continue
        if len(passages) >= PASSAGES_PER_DOCUMENT:
            continue
        entry = {
            "sentence": sentence,
            "page": page,
            "cited": [cited],
            "origins": [origin],
            **({"produces_version": produces} if produces else {}),
        }
        seen[(page, sentence)] = entry
        passages.append(entry)
    passages.sort(key=lambda e: (e["page"] is None, e["page"] or 0))
    return passages


def page_of(conn: psycopg.Connection, version_id: int | None, sentence: str, cache: dict) -> int | None:
    """The page of a stored document version whose text holds the start of ``sentence``."""
    if version_id is None:
        return None
    if version_id not in cache:
        cache[version_id] = [
            (page_no, re.sub(r"\s+", "", text))
            for page_no, text in conn.execute(
                "SELECT page_no, text FROM pages WHERE version_id = %s ORDER BY page_no", (version_id,)
            )
        ]
    probe = re.sub(r"\s+", "", sentence)[:40]
    if len(probe) < 8:
        return None
    return next((page_no for page_no, text in cache[version_id] if probe in text), None)


def _cited_label(key: str, provision: str) -> str:
    """What a passage cites, as the citator keeps it: ``§ 140 odst. 2 40/2009 Sb.``, ``III. ÚS 729/00``."""
    return f"{provision} {key}".strip()
