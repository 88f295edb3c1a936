"""Czech municipalities named in a text (``mendel/data/obce.v1.tsv``, all 6,258 obce of RÚIAN).

A query names a place as people write it: declined ("ve Slavičíně", "v Hradci Králové", "z Kadaně"), after a
preposition or "obec/město". A name is compared word by word on its analysed stem (lower case, no diacritics, the
BM25 analyser's light stemming), allowing the last two letters to differ (case endings, the e/∅ alternation of
"Hradec/Hradci"). :func:`mentioned_in` tells whether a vocabulary (a bundle's BM25 terms) holds the same words.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass
from pathlib import Path

from mendel.index.analyzer import stem, strip_diacritics

MUNICIPALITIES = Path(__file__).resolve().parent / "data" / "obce.v1.tsv"
KEY_CHARS = 3  # bucket by the first letters: Praha/Praze differ in the fourth
# A place is looked for after these words only: a capitalised word elsewhere is as likely a sentence start.
_LEAD = r"(?:v|ve|na|u|z|ze|do|k|ke|od|pro|po|obec|obce|obci|obcí|město|města|městě|městys|městyse|městysi)"
_NAME_WORD = r"[A-ZÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ][\wáčďéěíňóřšťúůýž-]+"
_CANDIDATE_RE = re.compile(
    rf"(?<!\w){_LEAD}\s+(?P<name>{_NAME_WORD}(?:\s+(?:nad|pod|u|v|ve|na|při)?\s*{_NAME_WORD})*)")


@dataclass(frozen=True)
class Municipality:
    code: str
    name: str
    okres: str
    kraj: str


@dataclass(frozen=True)
class PlaceMention:
    text: str
    start: int
    end: int
    municipalities: tuple[Municipality, ...]  # every obec of that name (there are 8 Hradiště)


def word_stem(word: str) -> str:
    return stem(strip_diacritics(word.lower()))


def _common(a: str, b: str) -> int:
    common = 0
    for x, y in zip(a, b):
        if x != y:
            break
        common += 1
    return common


def _without_mobile_e(word: str) -> str:
    return word[:-2] + word[-1] if len(word) > 3 and word[-2] == "e" else word


def _closeness(a: str, b: str) -> int:
    if a == b or _without_mobile_e(a) == b or _without_mobile_e(b) == a:
        return 100
    return _common(a, b) - abs(len(a) - len(b))


def close(a: str, b: str) -> bool:
    """Same word up to its ending: the last letter (two in words of six or more: Hradec/Hradci), h/z as in
    Praha/Praze, or a mobile e (Písek/Písku)."""
    if _without_mobile_e(a) == b or _without_mobile_e(b) == a:
        return True
    longest = max(len(a), len(b))
    return _common(a, b) >= max(KEY_CHARS, longest - (2 if longest >= 6 else 1))


@functools.lru_cache(maxsize=2)
def load_municipalities(path: Path = MUNICIPALITIES) -> tuple[Municipality, ...]:
    rows = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#") or line.startswith("kod\t"):
            continue
        code, name, okres, kraj = line.split("\t")
        rows.append(Municipality(code, name, okres, kraj))
    return tuple(rows)


@functools.lru_cache(maxsize=2)
def _by_key(path: Path = MUNICIPALITIES) -> dict[tuple[str, ...], list[tuple[tuple[str, ...], Municipality]]]:
    index: dict = {}
    for m in load_municipalities(path):
        stems = tuple(word_stem(w) for w in re.split(r"[\s-]+", m.name) if w)
        index.setdefault(tuple(s[:KEY_CHARS] for s in stems), []).append((stems, m))
    return index


def find_places(text: str) -> list[PlaceMention]:
    """Municipalities named in ``text`` after a preposition or "obec/město" (the longest name that fits)."""
    index = _by_key()
    found = []
    for m in _CANDIDATE_RE.finditer(text):
        words = list(re.finditer(r"\S+", m.group("name")))
        for n in range(len(words), 0, -1):
            stems = tuple(word_stem(part) for w in words[:n] for part in w.group(0).split("-") if part)
            if not stems or words[n - 1].group(0).islower():  # a name ends on a capitalised word
                continue
            scored = [(sum(_closeness(a, b) for a, b in zip(known, stems)), mun)
                      for known, mun in index.get(tuple(s[:KEY_CHARS] for s in stems), [])
                      if len(known) == len(stems) and all(close(a, b) for a, b in zip(known, stems))]
            best = max((score for score, _ in scored), default=None)
            matches = tuple(mun for score, mun in scored if score == best)  # the closest names only
            if matches:
                start = m.start("name")
                end = start + words[n - 1].end()
                found.append(PlaceMention(text[start:end], start, end, matches))
                break
    return found


def mentioned_in(name: str, sorted_vocabulary: list[str]) -> bool:
    """Whether every word of ``name`` has a close analysed term in ``sorted_vocabulary`` (sorted BM25 terms)."""
    for part in (p for p in re.split(r"[\s-]+", name) if p):
        wanted = word_stem(part)
        lo = bisect.bisect_left(sorted_vocabulary, wanted[:KEY_CHARS])
        hit = False
        for term in sorted_vocabulary[lo:]:
            if not term.startswith(wanted[:KEY_CHARS]):
                break
            if close(term, wanted):
                hit = True
                break
        if not hit:
            return False
    return True
