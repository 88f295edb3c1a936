"""A release's retrieval evaluation: every question set on one published bundle, side by side, in one run — the
dev sets (tuned on), the team's held-out sets (measured only) and the blind sets (evaluated once per release,
never tuned on). The blind sets are run by this command alone: each run is appended to the release log
(``retrieval_eval/releases.jsonl``, committed with the report) and a second evaluation of the same commit is
refused, so a blind figure can't be looked at, tuned against and looked at again unseen.

    python -m retrieval_eval.release --bundles $MENDEL_HOME/bundles
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from retrieval_eval import QUESTIONS_DIR

REPO = Path(__file__).resolve().parent.parent
RELEASE_LOG = Path(__file__).resolve().parent / "releases.jsonl"
RESULTS_DIR = REPO / "benchmarks" / "results" / "retrieval"

SIDE_VARIANTS = ("bm25", "dense", "hybrid", "default")


@dataclass(frozen=True)
class QuestionSet:
    label: str
    file: str
    role: str  # dev: tuned on; held-out: measured only; blind: evaluated once per release
    typo: bool = False

    @property
    def path(self) -> Path:
        return QUESTIONS_DIR / self.file


SETS = (
    QuestionSet("dev", "dev.jsonl", "dev"),
    QuestionSet("dev codes", "dev_codes.jsonl", "dev"),
    QuestionSet("dev codes 2", "dev_codes2.jsonl", "dev"),
    QuestionSet("dev codes 3", "dev_codes3.jsonl", "dev"),
    QuestionSet("dev codes 4", "dev_codes4.jsonl", "dev"),
    QuestionSet("dev codes 5", "dev_codes5.jsonl", "dev"),
    QuestionSet("dev codes keywords", "dev_codes_keywords.jsonl", "dev"),
    QuestionSet("dev decisions", "dev_decisions.jsonl", "dev"),
    QuestionSet("dev absent acts", "dev_absent.jsonl", "dev"),
    QuestionSet("dev absent acts 2", "dev_absent2.jsonl", "dev"),
    QuestionSet("held-out", "heldout.jsonl", "held-out"),
    QuestionSet("held-out codes", "heldout_codes.jsonl", "held-out"),
    QuestionSet("blind v1", "blind.jsonl", "blind"),
    QuestionSet("blind v2", "blind_v2.jsonl", "blind"),  # its own typed slips, as written by its author
)


def already_released(log: Path, commit: str) -> dict | None:
    """The log's entry that evaluated the blind sets on ``commit``, if any."""
    if not log.is_file():
        return None
    for line in log.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line) if line.strip() else {}
        if entry.get("commit") == commit and entry.get("blind"):
            return entry
    return None


def report_path(results: Path, today: str, blind: bool) -> Path:
    """Where a release's report goes: a second blind release of one day gets a name of its own (b, c, ...); the
    first one's report stays as it was evaluated."""
    if not blind:
        return results / f"release_{today}_without_blind.md"
    for suffix in ("", *"bcdefgh"):
        path = results / f"release_{today}{suffix}.md"
        if not path.exists():
            return path
    raise RuntimeError(f"more than eight blind releases on {today}: once per release")


def git_commit(repo: Path = REPO) -> tuple[str, bool]:
    """(HEAD, whether the work tree has changes git tracks)."""
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True)
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"], cwd=repo, capture_output=True, text=True, check=True
    )
    return head.stdout.strip(), bool(status.stdout.strip())


def evaluate_set(searcher, question_set: QuestionSet, variants: Sequence[str]) -> dict | None:
    """The set as written and without diacritics (and with slips where asked), on the questions the bundle
    grounds; None when the set's file does not exist."""
    from retrieval_eval.retrieval import evaluate_forms, grounding, load_questions, schema_errors
    from retrieval_eval.typed_forms import with_ascii, with_typos

    if not question_set.path.is_file():
        return None
    questions = with_ascii(load_questions(question_set.path))
    if question_set.typo:
        questions = with_typos(questions)
    problems = schema_errors(questions)
    if problems:
        raise ValueError(f"{question_set.path}: {problems[0]}")
    kept, skipped, warnings = grounding(questions, searcher.chunks, searcher.documents)
    result = evaluate_forms(searcher, kept, variants=variants)
    result.update({"label": question_set.label, "questions_file": question_set.file, "questions_total": len(questions)})
    if skipped:
        result["skipped"] = skipped
    if warnings:
        result["gold_warnings"] = warnings
    return result


def headline(result: dict) -> dict:
    """The figures a release is judged by, for the log and the side-by-side table."""
    default = result["variants"]["default"]["overall"]
    out = {
        "questions": result["questions"],
        "recall@10": round(default.get("recall@10", 0.0), 4),
        "mrr": round(default.get("mrr", 0.0), 4),
    }
    for variant in SIDE_VARIANTS:
        if variant != "default" and variant in result["variants"]:
            overall = result["variants"][variant]["overall"]
            out[variant] = [round(overall.get("recall@10", 0.0), 4), round(overall.get("mrr", 0.0), 4)]
    for form, own in (result.get("forms") or {}).items():
        figures = own["variants"]["default"]["overall"]
        out[form] = [round(figures.get("recall@10", 0.0), 4), round(figures.get("mrr", 0.0), 4)]
    absent = result.get("not_in_collection")
    if absent:
        out["not_in_collection"] = [absent["admitted"], absent["questions"]]
    return out


def components_above_default(figures: dict) -> dict[str, float]:
    """The components whose MRR on a set is above the default's: the default must never rank worse than any of
    them (issue-level rule), so a release says where it does."""
    return {
        variant: figures[variant][1]
        for variant in SIDE_VARIANTS
        if variant != "default" and figures.get(variant) and figures[variant][1] > figures["mrr"]
    }


def below_components(rows: list[tuple[QuestionSet, dict]]) -> list[str]:
    """Markdown lines naming each set where a component's MRR is above the default's; one line when none is."""
    lines = []
    for question_set, figures in rows:
        for variant, mrr in components_above_default(figures).items():
            lines.append(
                f"- **{question_set.label}: the default's MRR {figures['mrr']:.4f} is below {variant}'s {mrr:.4f}**"
            )
    return lines or ["- On every set the default's MRR is at or above each component's."]


def side_by_side(rows: list[tuple[QuestionSet, dict]]) -> list[str]:
    """Markdown: one row a set, the default's recall@10 / MRR as written and typed, its components beside."""
    lines = [
        "| set | role | questions | default recall@10 / MRR | without diacritics | with slips | bm25 | dense "
        '| hybrid | "not in the collection" said |',
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for question_set, figures in rows:

        def pair(key: str) -> str:
            value = figures.get(key)
            return f"{value[0]:.3f} / {value[1]:.3f}" if value else "–"

        absent = figures.get("not_in_collection")
        lines.append(
            f"| {question_set.label} | {question_set.role} | {figures['questions']} | "
            f"**{figures['recall@10']:.3f} / {figures['mrr']:.3f}** | {pair('ascii')} | {pair('typo')} | "
            f"{pair('bm25')} | {pair('dense')} | {pair('hybrid')} | "
            + (f"{absent[0]} of {absent[1]} ({absent[0] / absent[1]:.2f})" if absent else "–")
            + " |"
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m retrieval_eval.release", description=__doc__.split("\n")[0])
    parser.add_argument("--bundles", type=Path, default=None, help="bundles directory (default: settings)")
    parser.add_argument("--out", type=Path, default=None, help="markdown report (default: benchmarks/results/…)")
    parser.add_argument("--log", type=Path, default=RELEASE_LOG)
    parser.add_argument("--without-blind", action="store_true", help="dev and held-out sets only (any number of times)")
    parser.add_argument("--allow-dirty", action="store_true", help="evaluate a work tree with uncommitted changes")
    args = parser.parse_args(argv)

    commit, dirty = git_commit()
    blind = not args.without_blind
    if blind:
        if dirty and not args.allow_dirty:
            print("a release is a commit: commit or stash the changes first", file=sys.stderr)
            return 2
        earlier = already_released(args.log, commit)
        if earlier:
            print(
                f"the blind sets were evaluated on {commit[:12]} already ({earlier['date']}, bundle "
                f"{earlier['bundle']}): once per release",
                file=sys.stderr,
            )
            return 2
    today = dt.date.today().isoformat()
    try:  # where the report goes, before anything is evaluated: a release whose report cannot be kept is no release
        out = args.out or report_path(RESULTS_DIR, today, blind)
    except RuntimeError as refused:
        print(str(refused), file=sys.stderr)
        return 2
    bundles = args.bundles
    if bundles is None:
        from mendel.core.config import get_settings

        bundles = get_settings().bundles_dir
    from retrieval_eval.retrieval import VARIANTS, format_table
    from serving.ranking.search import Searcher

    searcher = Searcher.latest(Path(bundles))
    bundle = searcher.path.name
    rows, tables = [], []
    for question_set in SETS:
        if question_set.role == "blind" and not blind:
            continue
        variants = VARIANTS if question_set.role == "blind" else SIDE_VARIANTS
        result = evaluate_set(searcher, question_set, variants)
        if result is None:
            continue
        rows.append((question_set, headline(result)))
        tables += [f"## {question_set.label} ({question_set.role})", "", format_table(result)]
        print(side_by_side(rows)[-1], file=sys.stderr)
    title = f"Retrieval evaluation of the release {today}: commit {commit[:12]}{' (dirty)' if dirty else ''}, bundle {bundle}"
    report = [
        f"# {title}",
        "",
        "Dev sets are tuned on; held-out sets are measured only; the blind sets are evaluated once per release "
        "and never tuned on. Each set as written, without diacritics and (blind v2) with derived slips.",
        "",
        *side_by_side(rows),
        "",
        *below_components(rows),
        "",
        *tables,
    ]
    out.write_text("\n".join(report) + "\n", encoding="utf-8")
    entry = {
        "date": today,
        "commit": commit,
        "dirty": dirty,
        "bundle": bundle,
        "blind": blind,
        "report": str(out.relative_to(REPO)) if out.is_relative_to(REPO) else str(out),
        "sets": {question_set.label: figures for question_set, figures in rows},
    }
    if blind:
        with args.log.open("a", encoding="utf-8") as log:
            log.write(json.dumps(entry, ensure_ascii=False) + "\n")
    print("\n".join(side_by_side(rows)))
    print("\n".join(below_components(rows)))
    print(f"report: {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
