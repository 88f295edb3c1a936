"""Every path and module the README and docs/ name exists: repository paths in code spans and shell blocks
(globs must match something), dotted modules of the project (and the attribute after them), and relative links."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mendel.core.config import PROJECT_ROOT

DOCS = [PROJECT_ROOT / "README.md", *sorted((PROJECT_ROOT / "docs").glob("*.md"))]
TOP = {p.name for p in PROJECT_ROOT.iterdir() if not p.name.startswith(".")}
PACKAGES = {name for name in TOP if (PROJECT_ROOT / name / "__init__.py").exists()}
PLACEHOLDER = re.compile(r"[<>{}…$]")  # `assets/<domain>/`, `bundles/{n}`: a pattern, not a path
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
SHELL_FENCES = {"", "sh", "bash", "shell"}  # mermaid, cypher and json blocks name no files


def code_words(text: str) -> list[str]:
    """Words of inline code spans and of shell blocks."""
    words = []
    for lang, body in FENCE.findall(text):
        if lang in SHELL_FENCES:
            words += body.split()
    for span in re.findall(r"`([^`\n]+)`", FENCE.sub("", text)):
        words += span.split()
    return [part.strip("\"'(),;:") for word in words for part in word.split("=")]


def path_problem(word: str) -> str | None:
    """A word is a path when it starts in the repository's top level and ends in ``/`` or a file extension
    (``mendel/source`` is a Dagster tag key, not a path)."""
    if "/" not in word or PLACEHOLDER.search(word) or word.split("/", 1)[0] not in TOP:
        return None
    if not word.endswith("/") and "." not in word.rsplit("/", 1)[1]:
        return None
    if "*" in word or "?" in word:
        return None if list(PROJECT_ROOT.glob(word.rstrip("/"))) else f"{word}: the glob matches nothing"
    return None if (PROJECT_ROOT / word).exists() else f"{word}: no such path"


def module_problem(word: str) -> str | None:
    """``mendel.index.bundle.check_layers``: the longest module prefix exists, and what follows it is in its source."""
    parts = word.split(".")
    if len(parts) < 2 or parts[0] not in PACKAGES or not all(p.isidentifier() for p in parts):
        return None
    for n in range(len(parts), 1, -1):
        base = PROJECT_ROOT.joinpath(*parts[:n])
        source = base.with_suffix(".py") if base.with_suffix(".py").exists() else base / "__init__.py"
        if source.exists():
            missing = [name for name in parts[n:] if name not in source.read_text(encoding="utf-8")]
            return f"{word}: {', '.join(missing)} not in {source.relative_to(PROJECT_ROOT)}" if missing else None
    return None  # only the package itself resolves: a logger name such as `mendel.alerts`, not a module


def link_problem(doc: Path, target: str) -> str | None:
    if re.match(r"[a-z]+:", target) or target.startswith("#"):
        return None
    return None if (doc.parent / target.split("#", 1)[0]).exists() else f"link {target}: no such file"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(PROJECT_ROOT)))
def test_named_paths_modules_and_links_exist(doc):
    text = doc.read_text(encoding="utf-8")
    problems = [p for word in code_words(text) for p in (path_problem(word), module_problem(word)) if p]
    problems += [p for target in re.findall(r"\]\(([^)\s]+)\)", text) if (p := link_problem(doc, target))]
    assert not problems, "\n".join(sorted(set(problems)))


def test_the_check_sees_what_is_missing():
    assert path_problem("mendel/core/no_such_module.py")
    assert path_problem("benchmarks/no_such_*.py")
    assert module_problem("mendel.index.bundle.no_such_function")
    assert link_problem(PROJECT_ROOT / "README.md", "docs/no-such-page.md")
    assert not path_problem("mendel/core/sources.py") and not module_problem("mendel.index.bundle.check_layers")
