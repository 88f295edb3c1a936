"""The files a piece of code can read of the project's packages (mendel.core.code_closure): imports at module level,
inside functions, relative and ``from package import submodule``; the data its modules name or keep beside them.
And the NER gate's key built from them: it follows the recogniser, not the crawlers or the search vocabulary."""

from __future__ import annotations

import ast
import gc
import shutil
from pathlib import Path

import pytest

import mendel.core.code_closure as code_closure
from mendel.core.code_closure import import_closure, package_data

PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/entry.py": "from pkg import helper\n\ndef late():\n    from .sub import inner\n    return inner\n",
    "pkg/helper.py": "import pkg.tables\n",
    "pkg/tables.py": "FILE = DATA / 'named.v1.yaml'\n",
    "pkg/sub/__init__.py": "",
    "pkg/sub/inner.py": "",
    "pkg/sub/data/patterns.jsonl": "{}\n",
    "pkg/unrelated.py": "import os\n",
    "pkg/data/__init__.py": "",
    "pkg/data/named.v1.yaml": "a: 1\n",
    "pkg/data/other.yaml": "b: 2\n",
}


@pytest.fixture()
def package(tmp_path) -> Path:
    for name, text in PACKAGE.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path / "pkg"


def _names(files, root: Path) -> set[str]:
    return {str(f.relative_to(root.parent)) for f in files}


def test_the_closure_follows_module_function_and_relative_imports(package):
    closure = import_closure([package / "entry.py"], {"pkg": package})
    assert _names(closure, package) == {
        "pkg/__init__.py",
        "pkg/entry.py",
        "pkg/helper.py",
        "pkg/tables.py",
        "pkg/sub/__init__.py",
        "pkg/sub/inner.py",
    }


def test_data_named_by_a_module_or_kept_beside_its_package_counts(package):
    closure = import_closure([package / "entry.py"], {"pkg": package})
    data = package_data(closure, [package / "data"])
    assert _names(data, package) == {"pkg/data/named.v1.yaml", "pkg/sub/data/patterns.jsonl"}


def _gate_key_after(tmp_path, monkeypatch, change: str | None) -> str:
    """The gate's key over a copy of the mendel package, with one of its files changed."""
    import mendel
    import mendel.data
    from assets.processing import recognition

    copy = tmp_path / "copy" / "mendel"
    if not copy.exists():
        shutil.copytree(Path(mendel.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    if change:
        with (copy / change).open("a", encoding="utf-8") as out:
            out.write("\n# changed\n")
    monkeypatch.setattr(mendel, "__file__", str(copy / "__init__.py"))
    monkeypatch.setattr(mendel.data, "DATA_DIR", copy / "data")
    return recognition.gate_inputs(None, None)


def test_the_gate_key_follows_the_recogniser_not_the_rest(tmp_path, monkeypatch):
    base = _gate_key_after(tmp_path, monkeypatch, None)
    for unrelated in (
        "crawl/crawlstate.py",
        "data/legal_vocabulary.v1.yaml",
        "data/domain_graph.yaml",
        "czech/analyzer.py",
    ):
        assert _gate_key_after(tmp_path, monkeypatch, unrelated) == base, unrelated
    for recogniser in ("ner/provisions.py", "data/acts_by_name.v1.yaml", "czech/folding.py"):
        changed = _gate_key_after(tmp_path, monkeypatch, recogniser)
        assert changed != base, recogniser
        base = changed


def test_a_spurious_ast_recursion_mismatch_is_parsed_again(package, monkeypatch):
    """CPython 3.11 shares the AST recursion counter between threads (gh-106905): CI failed once on it."""
    real_parse = ast.parse
    calls = []

    def flaky(source, *args, **kwargs):
        calls.append(gc.isenabled())
        if len(calls) == 1:
            raise SystemError("AST constructor recursion depth mismatch (before=150, after=238)")
        return real_parse(source, *args, **kwargs)

    monkeypatch.setattr(code_closure.ast, "parse", flaky)
    closure = import_closure([package / "entry.py"], {"pkg": package})
    assert "pkg/sub/inner.py" in _names(closure, package)
    assert calls[:2] == [False, False] and gc.isenabled()  # collections held off while parsing, then back on

    def always_broken(source, *args, **kwargs):
        raise SystemError("AST constructor recursion depth mismatch (before=1, after=2)")

    monkeypatch.setattr(code_closure.ast, "parse", always_broken)
    with pytest.raises(SystemError, match="mismatch"):
        import_closure([package / "unrelated.py"], {"pkg": package})
    assert gc.isenabled()
