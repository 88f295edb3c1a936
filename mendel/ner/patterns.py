"""Versioned spaCy pattern files generated from the gazetteer tables.

``data/patterns/institutions.v{N}.jsonl`` holds one SpanRuler phrase pattern per case form or
abbreviation of ``data/institutions.yaml`` (label ``INSTITUTION``, ``id`` = canonical norm). ``N`` is
the gazetteer's ``version``; ``python -m mendel.ner.patterns`` rewrites the file after the table
changes (a test checks that the checked-in file is current).

Left to the regex recogniser (``mendel.ner.institutions``): complements (seats, territories),
names that are only marked with a complement, and municipalities, whose "place, not authority"
test looks at the preceding preposition.
"""
from __future__ import annotations

import json
import sys
from importlib import resources
from pathlib import Path

from mendel.ner.institutions import INSTITUTION, load_gazetteer

# Czech legal abbreviations kept whole by the tokenizer ("odst." not "odst" + ".");
# glued pairs are split into their two abbreviations.
LEGAL_ABBREVIATIONS: tuple[str, ...] = (
    "odst.", "písm.", "č.", "Č.", "Sb.", "čl.", "Čl.", "sp.", "zn.", "j.", "sen.", "násl.", "zák.", "vyhl.",
    "tr.", "ř.", "obč.", "rozh.", "odd.", "resp.", "tj.", "např.", "srov.", "tzv.", "tis.", "mil.", "mld.", "Kčs.",
)
GLUED_ABBREVIATIONS: dict[str, tuple[str, ...]] = {
    "sp.zn.": ("sp.", "zn."), "č.j.": ("č.", "j."), "Č.j.": ("Č.", "j."), "sen.zn.": ("sen.", "zn."),
}


def patterns_filename(version: int | None = None) -> str:
    return f"institutions.v{version if version is not None else load_gazetteer().version}.jsonl"


def build_patterns() -> list[dict]:
    """SpanRuler phrase patterns for every bare name form and abbreviation, sorted and de-duplicated."""
    gaz = load_gazetteer()
    patterns: dict[str, str] = {}
    for inst in gaz.institutions:
        if inst.required:
            continue
        for form in inst.forms:
            patterns.setdefault(form, inst.norm())
    for abbr, norm in gaz.abbreviations.items():
        patterns.setdefault(abbr, norm)
    return [{"label": INSTITUTION, "pattern": text, "id": norm} for text, norm in sorted(patterns.items())]


def bundled_patterns_path() -> Path:
    return Path(str(resources.files("mendel.ner").joinpath("data", "patterns", patterns_filename())))


def load_patterns() -> list[dict]:
    path = bundled_patterns_path()
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def render_patterns() -> str:
    return "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in build_patterns())


def main(argv: list[str] | None = None) -> int:
    path = bundled_patterns_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    for stale in path.parent.glob("institutions.v*.jsonl"):
        if stale != path:
            stale.unlink()
    path.write_text(render_patterns(), encoding="utf-8")
    print(f"wrote {len(build_patterns())} patterns to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
