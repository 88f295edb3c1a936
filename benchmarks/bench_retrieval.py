"""Retrieval benchmark over the latest published bundle of the full sample corpus: the search variants on the dev and
held-out questions, then peers and the scaling study.

    .venv/bin/python benchmarks/bench_retrieval.py                        # bundle from $MENDEL_HOME (make run)
    .venv/bin/python benchmarks/bench_retrieval.py --bundles DIR --no-scaling
    .venv/bin/python benchmarks/bench_retrieval.py --scaling-sizes 30,300
    .venv/bin/python benchmarks/bench_retrieval.py --peers-from peers.json --scaling-from scaling.json

Writes benchmarks/results/retrieval.json and the report with its PNGs under benchmarks/results/retrieval/.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # FAISS/BLAS threads must not spin on a shared machine

import argparse  # noqa: E402
import importlib  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from retrieval_eval import DEV_QUESTIONS, HELDOUT_QUESTIONS  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
DEV = DEV_QUESTIONS
HELDOUT = HELDOUT_QUESTIONS


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def ablations(searcher, questions_path: Path, label: str) -> dict:
    from retrieval_eval.retrieval import evaluate, format_table, load_questions, schema_errors, split_grounded

    questions = load_questions(questions_path)
    problems = schema_errors(questions)
    if problems:
        raise SystemExit(f"{questions_path}: {problems[0]}")
    kept, skipped = split_grounded(questions, searcher.chunks, searcher.documents)
    if skipped:
        log(
            f"{label}: {len(skipped)} gold items not in this bundle, {len(kept)}/{len(questions)} questions kept "
            f"(first: {skipped[0]})"
        )
    if not kept:
        return {}
    result = evaluate(searcher, kept)
    result.update(
        {
            "label": label,
            "questions_file": str(questions_path.relative_to(ROOT)),
            "questions_total": len(questions),
            "skipped": skipped,
        }
    )
    print(format_table(result), flush=True)
    return result


def optional_study(module_name: str, bundles: Path, questions: Path, **kwargs) -> dict | None:
    """``module.run(bundles, questions)`` when the module exists and has ``run``; None (with a note) otherwise."""
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        log(f"{module_name} not available ({exc}); skipped")
        return None
    if not callable(getattr(module, "run", None)):
        log(f"{module_name} has no run(); skipped")
        return None
    started = time.perf_counter()
    found = module.run(bundles, questions, **kwargs)
    log(f"{module_name}: {time.perf_counter() - started:.0f} s")
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bundles", type=Path, default=None, help="bundles directory (default: settings)")
    parser.add_argument("--out", type=Path, default=RESULTS / "retrieval.json")
    parser.add_argument("--report-dir", type=Path, default=RESULTS / "retrieval")
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--no-scaling", action="store_true")
    parser.add_argument("--scaling-sizes", default=None, help="documents per size, e.g. 30,300,3000 (module default)")
    parser.add_argument(
        "--peers-from",
        type=Path,
        default=None,
        help="take the peers section from this JSON (a saved peers.run result) instead of running it",
    )
    parser.add_argument(
        "--scaling-from",
        type=Path,
        default=None,
        help="take the scaling section from this JSON (a saved scaling.run result)",
    )
    args = parser.parse_args(argv)

    from retrieval_eval.report import write_report
    from serving.ranking.search import Searcher

    bundles = args.bundles
    if bundles is None:
        from mendel.core.config import get_settings

        bundles = get_settings().bundles_dir
    searcher = Searcher.latest(Path(bundles))
    log(f"bundle {searcher.path} ({len(searcher.documents)} documents, {len(searcher.chunks)} chunks)")
    results = ablations(searcher, DEV, "dev")
    if not results:
        raise SystemExit("no dev question is grounded in this bundle: publish the full sample corpus (make run)")
    heldout = ablations(searcher, HELDOUT, "held-out")
    if heldout:
        results["heldout"] = heldout
    if args.peers_from:
        results["peers"] = json.loads(args.peers_from.read_text(encoding="utf-8"))
    elif not args.no_peers:
        peers = optional_study("retrieval_eval.peers", Path(bundles), DEV)
        if peers:
            results["peers"] = peers
    if args.scaling_from:
        results["scaling"] = json.loads(args.scaling_from.read_text(encoding="utf-8"))
    elif not args.no_scaling:
        kwargs = {"sizes": [int(s) for s in args.scaling_sizes.split(",")]} if args.scaling_sizes else {}
        scaling = optional_study("retrieval_eval.scaling", Path(bundles), DEV, **kwargs)
        if scaling:
            results["scaling"] = scaling
    results["machine"] = {
        "cpus": os.cpu_count(),
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "python": sys.version.split()[0],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, ensure_ascii=False, indent=1), encoding="utf-8")
    report = write_report(results, args.report_dir)
    log(f"wrote {args.out} and {report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
