"""Build ``gold/sample_gold.jsonl`` (what the gate scores) from ``gold/annotations.yaml`` (what people review): compute
each entity's character offsets and validate labels, norms, ids and near-duplicate texts.

Run ``python -m ner_eval.build_gold`` after editing the annotations; a test checks that the committed JSONL is what
the annotations build.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from dataclasses import dataclass
from difflib import SequenceMatcher
from itertools import combinations
from pathlib import Path

import yaml

GOLD_DIR = Path(__file__).resolve().parent / "gold"
ANNOTATIONS_PATH = GOLD_DIR / "annotations.yaml"
GOLD_PATH = GOLD_DIR / "sample_gold.jsonl"

_SINGLE_LINE = r"\S+(?: \S+)*"  # no leading, trailing, doubled or line-breaking whitespace
_ISO_DATE = r"\d{4}-\d{2}(?:-\d{2})?"
NORM_FORMATS: dict[str, re.Pattern] = {  # the labels the gold may use, each with the format of its norm
    "LAW_REF": re.compile(_SINGLE_LINE),
    "DECISION_REF": re.compile(_SINGLE_LINE),
    "DATE": re.compile(f"{_ISO_DATE}(?:/{_ISO_DATE})?"),
    "MONEY": re.compile(r"\d+(?:\.(?!0+ )\d{2,})? [A-Z]{3}"),  # a fraction only when not zero, two digits at least
    "INSTITUTION": re.compile(_SINGLE_LINE),
}
RECORD_KEYS = {"id", "source", "text", "entities"}
ENTITY_KEYS = {"surface", "label", "norm", "occurrence"}
NEAR_DUPLICATE = 0.8  # share of text above which two records count as the same passage
SHARED_PASSAGE = 20  # characters: shorter common runs are phrases, not the same passage


class GoldError(ValueError):
    """An annotation that cannot be turned into a gold record; the message names the record and the entity."""


@dataclass(frozen=True)
class NearDuplicate:
    first: str
    second: str
    similarity: float  # difflib ratio of the two texts
    containment: float  # share of the shorter text found in passages of the longer one

    def __str__(self) -> str:
        return f"{self.first} ~ {self.second}: similarity {self.similarity:.2f}, containment {self.containment:.2f}"


def load_annotations(path: Path | None = None) -> list[dict]:
    path = ANNOTATIONS_PATH if path is None else path
    records = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    if not isinstance(records, list):
        raise GoldError(f"{path}: expected a list of records")
    return records


def _check_norm(where: str, label: str, norm) -> None:
    pattern = NORM_FORMATS.get(label)
    if pattern is None:
        raise GoldError(f"{where}: unknown label {label!r} (known: {', '.join(NORM_FORMATS)})")
    if not isinstance(norm, str) or not pattern.fullmatch(norm):
        raise GoldError(f"{where}: norm {norm!r} does not fit the {label} format {pattern.pattern}")


def _nth(text: str, surface: str, n: int) -> int:
    start = -1
    for _ in range(n):
        start = text.find(surface, start + 1)
        if start < 0:
            break
    return start


def locate(record: dict) -> list[dict]:
    """The record's entities with offsets, in text order; raises GoldError on any annotation mistake."""
    rid, text, entities = record.get("id"), record.get("text"), record.get("entities")
    if set(record) != RECORD_KEYS:
        raise GoldError(f"{rid}: record keys are {sorted(record)}, expected {sorted(RECORD_KEYS)}")
    if not isinstance(record["source"], str) or not record["source"]:
        raise GoldError(f"{rid}: source document missing")
    if not isinstance(text, str) or not text:
        raise GoldError(f"{rid}: text must be a non-empty string")
    if not isinstance(entities, list):
        raise GoldError(f"{rid}: entities must be a list (`[]` for none)")
    located, previous_end = [], 0
    for index, entity in enumerate(entities):
        where = f"{rid}: entity {index + 1}"
        if not isinstance(entity, dict):
            raise GoldError(f"{where}: expected {{surface, label, norm}}, got {entity!r}")
        surface = entity.get("surface")
        where += f" ({surface!r})"
        if unknown := set(entity) - ENTITY_KEYS:
            raise GoldError(f"{where}: unknown keys {sorted(unknown)}")
        if not isinstance(surface, str) or not surface:
            raise GoldError(f"{where}: surface must be a non-empty string")
        _check_norm(where, entity.get("label"), entity.get("norm"))
        occurrence = entity.get("occurrence")
        if occurrence is None:
            start = text.find(surface, previous_end)
            if start < 0:
                missing = (
                    "not in the text"
                    if surface not in text
                    else f"not after offset {previous_end}, where the previous entity ends (entities go in text order)"
                )
                raise GoldError(f"{where}: surface {missing}")
        else:
            start = _nth(text, surface, occurrence) if isinstance(occurrence, int) and occurrence > 0 else -1
            if start < 0:
                raise GoldError(f"{where}: occurrence {occurrence!r}, but the text has {text.count(surface)}")
            if start < previous_end:
                raise GoldError(f"{where}: occurrence {occurrence} starts at {start}, before the previous entity ends")
        end = start + len(surface)
        located.append({"start": start, "end": end, "label": entity["label"], "text": surface, "norm": entity["norm"]})
        previous_end = end
    return located


def build_lines(records: list[dict] | None = None) -> list[str]:
    """One JSON line per record, offsets computed; ``records`` default to the annotations file."""
    records = load_annotations() if records is None else records
    seen: set[str] = set()
    lines = []
    for position, record in enumerate(records, start=1):
        rid = record.get("id") if isinstance(record, dict) else None
        if not isinstance(rid, str) or not rid:
            raise GoldError(f"record {position}: not a mapping with an id")
        if rid in seen:
            raise GoldError(f"{rid}: duplicate record id")
        seen.add(rid)
        lines.append(
            json.dumps(
                {"id": rid, "source": record.get("source"), "text": record.get("text"), "entities": locate(record)},
                ensure_ascii=False,
            )
        )
    return lines


def _normalised(text: str) -> str:
    return " ".join(text.split())


def _passages(text: str) -> set[str]:
    return {text[i : i + SHARED_PASSAGE] for i in range(len(text) - SHARED_PASSAGE + 1)}


def containment(shorter: str, longer: str, longer_passages: set[str] | None = None) -> float:
    """Share of ``shorter``'s characters inside runs of at least SHARED_PASSAGE characters that ``longer`` also has."""
    passages = _passages(longer) if longer_passages is None else longer_passages
    covered = [False] * len(shorter)
    for i in range(len(shorter) - SHARED_PASSAGE + 1):
        if shorter[i : i + SHARED_PASSAGE] in passages:
            covered[i : i + SHARED_PASSAGE] = [True] * SHARED_PASSAGE
    return sum(covered) / len(shorter) if shorter else 0.0


def lcs_length(a: str, b: str) -> int:
    """Length of the longest common subsequence (bit-parallel, Allison and Dix); bounds difflib's matches."""
    positions: dict[str, int] = {}
    for index, char in enumerate(a):
        positions[char] = positions.get(char, 0) | 1 << index
    all_ones = (1 << len(a)) - 1
    row = all_ones
    for char in b:
        matches = row & positions.get(char, 0)
        row = ((row + matches) | (row - matches)) & all_ones
    return len(a) - row.bit_count()


def near_duplicates(records: list[dict], threshold: float = NEAR_DUPLICATE) -> list[NearDuplicate]:
    """Record pairs sharing ``threshold`` or more of their text (whitespace normalised), by either measure.

    Similarity is difflib's ratio (two versions of the same passage, or templated titles differing in a date);
    containment catches a short passage lying inside a longer one, whose mentions would be scored twice.
    """
    texts = [_normalised(r["text"]) for r in records]
    passages = [_passages(t) for t in texts]
    characters = [Counter(t) for t in texts]
    found = []
    for i, j in combinations(range(len(texts)), 2):
        a, b = texts[i], texts[j]
        contained = 0.0
        if not passages[i].isdisjoint(passages[j]):
            short, long_, long_index = (a, b, j) if len(a) <= len(b) else (b, a, i)
            contained = containment(short, long_, passages[long_index])
        similar = 0.0
        bound = threshold * (len(a) + len(b)) / 2  # matched characters difflib needs to reach the threshold
        # difflib is slow on long texts: first its cheap upper bounds (lengths, characters in common, LCS)
        if (
            min(len(a), len(b)) >= bound
            and (characters[i] & characters[j]).total() >= bound
            and lcs_length(a, b) >= bound
        ):
            similar = SequenceMatcher(None, a, b, autojunk=False).ratio()
        if similar >= threshold or contained >= threshold:
            found.append(NearDuplicate(records[i]["id"], records[j]["id"], round(similar, 3), round(contained, 3)))
    return found


def main(annotations: Path | None = None, out: Path | None = None) -> int:
    """Validate the annotations and write the gold JSONL; near-duplicates are reported and nothing is written."""
    out = GOLD_PATH if out is None else out
    records = load_annotations(annotations)
    lines = build_lines(records)
    if duplicates := near_duplicates(records):
        print("near-duplicate records (merge or drop one of each pair):", *duplicates, sep="\n  ", file=sys.stderr)
        return 1
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(lines)} records to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
