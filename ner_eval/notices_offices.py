"""Blind evaluation of municipal-office recognition (INSTITUTION) on real notice-board texts, in three steps run in
this order and committed in between:

1. ``python -m ner_eval.notices_offices sample`` draws the notices and writes ``gold/notices_offices.v1.yaml``;
2. a person annotates every INSTITUTION mention before the recogniser has seen any of these texts;
3. ``python -m ner_eval.notices_offices score`` builds the JSONL and scores ``mendel.ner.recognise`` on it, overall
   and per kind of authority.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
import sys
from pathlib import Path

import yaml

from mendel.core.config import SAMPLE_CORPUS
from mendel.extract.notice import notice_text
from ner_eval.build_gold import ANNOTATIONS_PATH, GOLD_DIR, build_lines
from ner_eval.scorer import format_table, score

SEED = 20261202
PER_SOURCE = 20  # half drawn from every notice of the source, half from those with an authority cue
ANNOTATIONS = GOLD_DIR / "notices_offices.v1.yaml"
GOLD = GOLD_DIR / "notices_offices.v1.jsonl"
BOARDS = Path("municipal") / "boards"
# Words that announce an authority or a municipality; chosen before annotating, never from the recogniser's output.
CUE = re.compile(
    r"úřad|magistrát|obec|obce|obci|měst|kraj|zastupitel|\brad[ayě]\b|\bM[ěe]?Ú\b|\bOÚ\b|\bKÚ\b", re.IGNORECASE
)
_URL_LINE = re.compile(r"^(Odkaz: .*|- .*?)(?: – https?://\S+)?$")
KINDS = ("municipal office", "regional office", "municipality", "assembly or council", "other")


def _render(item: dict) -> str:
    lines = []
    for line in notice_text(item).splitlines():
        if line.startswith("Odkaz: "):
            continue
        match = _URL_LINE.match(line)
        lines.append(match.group(1) if match and line.startswith("- ") else line)
    return "\n".join(line for line in lines if line.strip() and line != "- ")


def _ofn_notices(path: Path, source: str) -> list[tuple[str, str]]:
    data = json.loads(path.read_text(encoding="utf-8-sig"))
    boards = data if isinstance(data, list) else [data]
    return [
        (f"{source}#{item.get('iri') or item.get('url')}", _render(item))
        for board in boards
        for item in board.get("informace") or []
        if isinstance(item, dict)
    ]


def _karvina(path: Path) -> list[tuple[str, str]]:
    rows = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for row in rows[1:]:
        item = {
            "název": {"cs": row.get("nazev") or ""},
            "vyvěšení": row.get("vyveseni"),
            "relevantní_do": row.get("relevantni_do"),
            "odbor": row.get("odbor"),
        }
        out.append((f"{path.relative_to(SAMPLE_CORPUS.parent)}#{row.get('url')}", _render(item)))
    return out


def _zlin(path: Path) -> list[tuple[str, str]]:
    out = []
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            item = {
                "název": {"cs": row["název"]},
                "popis": {"cs": row["anotace"]},
                "vyvěšení": {"datum_a_čas": row["vyvěšení"]} if row["vyvěšení"] else None,
                "relevantní_do": {"datum_a_čas": row["relevantní_do"]} if row["relevantní_do"] else None,
            }
            out.append((f"{path.relative_to(SAMPLE_CORPUS.parent)}#id={row['id']}", _render(item)))
    return out


def pools(corpus: Path = SAMPLE_CORPUS) -> dict[str, list[tuple[str, str]]]:
    """(source, text) of every notice, per board file; Kadaň's older snapshots without the notices whose title the
    older gold already holds (rules were tuned on those)."""

    def rel(path: Path) -> str:
        return str(path.relative_to(corpus.parent))

    older_gold = ANNOTATIONS_PATH.read_text(encoding="utf-8")
    kadan = []
    for path in sorted((corpus / "municipal" / "kadan_history").glob("*.json")):
        kadan += _ofn_notices(path, rel(path))
    kadan = [(s, t) for s, t in kadan if t.splitlines()[0].removeprefix("Název: ")[:60] not in older_gold]
    return {
        "mvcr": _ofn_notices(corpus / BOARDS / "mvcr_182_boards.json", rel(corpus / BOARDS / "mvcr_182_boards.json")),
        "kadan": kadan,
        "hranice": _ofn_notices(corpus / BOARDS / "hranice_ofn.jsonld", rel(corpus / BOARDS / "hranice_ofn.jsonld")),
        "karvina": _karvina(corpus / BOARDS / "karvina_deska.json"),
        "zlin": _zlin(corpus / BOARDS / "zlinsky_kraj_deska.csv"),
    }


def draw(seed: int = SEED, per_source: int = PER_SOURCE) -> list[dict]:
    """The sampled records (no entities yet): per source, half at random, half at random among cued texts; a text
    drawn twice (same wording on two boards or snapshots) counts once."""
    rng = random.Random(seed)
    records, seen = [], set()
    for name, notices in pools().items():
        unique = list({text: (source, text) for source, text in notices}.values())
        cued = [n for n in unique if CUE.search(n[1])]
        picked: list[tuple[str, str]] = []
        for pool in (unique, cued):
            candidates = [n for n in pool if n[1] not in seen]
            rng.shuffle(candidates)
            for source, text in candidates[: per_source // 2]:
                seen.add(text)
                picked.append((source, text))
        for number, (source, text) in enumerate(picked, start=1):
            records.append({"id": f"ofc-{name}-{number:02d}", "source": source, "text": text, "entities": []})
    return records


def write_skeleton(path: Path = ANNOTATIONS) -> Path:
    if path.exists():
        raise SystemExit(f"{path} exists: the sample is drawn once")
    header = (
        "# Blind gold for municipal-office recognition: notices drawn by ner_eval.notices_offices "
        f"(seed {SEED}).\n# Annotated by hand; see notices_offices.README.md for who, when and how.\n"
    )
    path.write_text(header + yaml.safe_dump(draw(), allow_unicode=True, sort_keys=False, width=120), encoding="utf-8")
    return path


def kind_of(norm: str | None) -> str:
    """The kind of authority an INSTITUTION norm names, for the per-kind breakdown."""
    text = (norm or "").lower()
    if text.startswith("krajský úřad"):
        return "regional office"
    if text.startswith(
        ("obecní úřad", "městský úřad", "úřad městyse", "magistrát", "úřad městské části", "újezdní úřad")
    ):
        return "municipal office"
    if text.startswith(("zastupitelstvo", "rada ")):
        return "assembly or council"
    if (
        text.startswith(("obec ", "město ", "městys ", "statutární město", "hlavní město"))
        or text.endswith(" kraj")
        or text.startswith("kraj ")
    ):
        return "municipality"
    return "other"


def gold_records(path: Path = ANNOTATIONS) -> list[dict]:
    records = yaml.safe_load(path.read_text(encoding="utf-8"))
    for record in records:  # `code` (kód obce / kraj) is ours; the builder knows surface/label/norm/occurrence
        record["entities"] = [{k: v for k, v in e.items() if k != "code"} for e in record["entities"]]
    return [json.loads(line) for line in build_lines(records)]


def run_score(path: Path = ANNOTATIONS) -> dict:
    from mendel.ner import recognise

    records = gold_records(path)
    predictions = dict(zip((r["text"] for r in records), recognise([r["text"] for r in records])))
    overall = score(records, lambda text: predictions[text], labels=["INSTITUTION"])
    per_kind = {}
    for kind in KINDS:

        def only(entities, kind=kind):
            return [e for e in entities if kind_of(e["norm"] if isinstance(e, dict) else e.norm) == kind]

        kind_records = [{**r, "entities": only(r["entities"])} for r in records]
        per_kind[kind] = score(kind_records, lambda text, only=only: only(predictions[text]), labels=["INSTITUTION"])[
            "INSTITUTION"
        ]
        per_kind[kind].label = kind
    return {"records": len(records), "overall": overall, "per_kind": per_kind}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ner_eval.notices_offices")
    parser.add_argument("step", choices=("sample", "score"))
    parser.add_argument("--json", type=Path, help="write the scores and errors as JSON here")
    args = parser.parse_args(argv)
    if args.step == "sample":
        print(write_skeleton())
        return 0
    GOLD.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in gold_records()), encoding="utf-8")
    result = run_score()
    print(f"{result['records']} records, INSTITUTION")
    print(format_table(result["overall"]))
    print("\nper kind of authority (kind from the norm; a false positive counts under its predicted kind)")
    print(format_table(result["per_kind"]))
    for error in result["overall"]["INSTITUTION"].errors:
        print(
            f"  {error['kind']:4} {error['id']}: {error['text']!r} gold {error.get('gold_norm')!r} "
            f"predicted {error.get('pred_norm')!r}"
        )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "records": result["records"],
                    "overall": result["overall"]["INSTITUTION"].as_row(),
                    "errors": result["overall"]["INSTITUTION"].errors,
                    "per_kind": {k: s.as_row() for k, s in result["per_kind"].items()},
                },
                ensure_ascii=False,
                indent=1,
            ),
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
