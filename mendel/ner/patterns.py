"""The versioned pattern file of institution names, generated from the gazetteer.

``data/patterns/institutions.v{N}.jsonl`` holds every case form of every name in
``data/institutions.yaml`` (declined by ``mendel.ner.institution_names.decline``), one spaCy phrase pattern
a line: ``{"label": "INSTITUTION", "pattern": <form>, "id": <canonical name>}``, in gazetteer order.
``N`` is the gazetteer's ``version``: bump it when the table changes, then run
``python -m mendel.ner.patterns`` to write the new file (a test checks that the checked-in file is
current). The institution finder reads its names from this file only, so a reviewer sees each
surface form the recogniser looks for, and the file name says which table made the entities.

Abbreviations, complements (seats, territories) and municipalities are read from the yaml table.
"""

from __future__ import annotations

import json
import sys
from importlib import resources
from pathlib import Path

from mendel.ner.institution_names import INSTITUTION, load_gazetteer

PATTERN_FILE_GLOB = "institutions.v*.jsonl"


def patterns_filename(version: int | None = None) -> str:
    return f"institutions.v{version if version is not None else load_gazetteer().version}.jsonl"


def build_patterns() -> list[dict]:
    """One phrase pattern per name form, in gazetteer order (a form shared by two names stays with the first)."""
    seen: set[str] = set()
    patterns = []
    for inst in load_gazetteer().institutions:
        for form in inst.forms:
            if form not in seen:
                seen.add(form)
                patterns.append({"label": INSTITUTION, "pattern": form, "id": inst.name})
    return patterns


def bundled_patterns_path() -> Path:
    return Path(str(resources.files("mendel.ner").joinpath("data", "patterns", patterns_filename())))


def load_patterns() -> list[dict]:
    with open(bundled_patterns_path(), encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def render_patterns() -> str:
    return "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in build_patterns())


def main(argv: list[str] | None = None) -> int:
    path = bundled_patterns_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    for stale in path.parent.glob(PATTERN_FILE_GLOB):
        if stale != path:
            stale.unlink()
    path.write_text(render_patterns(), encoding="utf-8")
    print(f"wrote {len(build_patterns())} patterns to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
