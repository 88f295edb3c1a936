"""Do two trees answer alike? The top hits (chunk ids, scores and lists) of every dev question on one bundle, written
to a file; given a file written before a change, the same search after it is compared hit by hit.

    MENDEL_ENCODER_CACHE=/tmp/enc .venv/bin/python benchmarks/same_answers.py BUNDLE --out before.json
    (change the code)
    MENDEL_ENCODER_CACHE=/tmp/enc .venv/bin/python benchmarks/same_answers.py BUNDLE --out after.json --against before.json

The search is the default one (``Searcher.search_with_coverage``: the learned stage, sub-queries, the coverage
block and the floor) with the default query encoder, each question searched twice (the second time from the
encoder's cache: both must agree). Exits 1 when any question's answer differs. The held-out questions are never read.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from retrieval_eval import DEV_QUESTIONS  # noqa: E402

K = 10


def answers(bundle_path: Path, k: int = K) -> dict[str, dict]:
    """Question id -> {"hits": [[chunk id, score, lists], ...], "weak", "empty"} for every dev question."""
    from serving.ranking.search import Searcher

    searcher = Searcher(bundle_path)
    found = {}
    for line in DEV_QUESTIONS.open(encoding="utf-8"):
        question = json.loads(line)
        results = [searcher.search_with_coverage(question["question"], k=k) for _ in range(2)]
        first, again = ({"hits": [[h.chunk_id, h.score, h.lists] for h in r.hits], "weak": r.weak} for r in results)
        if first != again:
            raise AssertionError(f"{question['id']}: a repeated search answered otherwise")
        found[question["id"]] = {**first, "empty": bool(results[0].coverage.get("empty"))}
    return found


def differences(before: dict[str, dict], after: dict[str, dict]) -> list[str]:
    """One line per question whose answer differs (ids first, then scores or lists)."""
    lines = []
    for qid in sorted(set(before) | set(after)):
        a, b = before.get(qid), after.get(qid)
        if a == b:
            continue
        if a is None or b is None:
            lines.append(f"{qid}: only {'after' if a is None else 'before'}")
        elif [h[0] for h in a["hits"]] != [h[0] for h in b["hits"]]:
            lines.append(f"{qid}: top {K} ids differ: {[h[0] for h in a['hits']]} -> {[h[0] for h in b['hits']]}")
        else:
            lines.append(f"{qid}: same ids, scores/lists/weak differ")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--against", type=Path, help="answers written before the change")
    args = parser.parse_args()
    found = answers(args.bundle)
    args.out.write_text(json.dumps(found, ensure_ascii=False, indent=1), encoding="utf-8")
    print(f"{len(found)} dev questions answered: {args.out}")
    if args.against:
        lines = differences(json.loads(args.against.read_text(encoding="utf-8")), found)
        print("\n".join(lines) if lines else f"identical answers to {args.against} for all {len(found)} questions")
        sys.exit(1 if lines else 0)


if __name__ == "__main__":
    main()
