"""The files a piece of code can read of the project's own packages: the modules it imports (at module level or
inside a function, directly or through each other) and the data files they name.

A cached result keyed by a digest of these files is reused until one of them changes; a key over every file of a
package made the recogniser's gate score again (~95 s) after any change anywhere in ``mendel`` (a crawler fix, a
search vocabulary), though none of it can change the score.
"""

from __future__ import annotations

import ast
import gc
import hashlib
from pathlib import Path
from typing import Iterable, Mapping

DATA_SUFFIXES = frozenset({".yaml", ".yml", ".tsv", ".csv", ".json", ".jsonl", ".txt"})


def _module_files(name: str, roots: Mapping[str, Path]) -> list[Path]:
    """The files importing ``name`` runs: each package ``__init__`` on its path and the module itself."""
    top, *rest = name.split(".")
    root = roots.get(top)
    if root is None:
        return []
    files = []
    here = root
    for i, part in enumerate([None, *rest]):
        if part is not None:
            here = here / part
        init = here / "__init__.py"
        if init.is_file():
            files.append(init)
        elif i == len(rest) and here.with_suffix(".py").is_file():
            files.append(here.with_suffix(".py"))
    return files


def _module_name(path: Path, roots: Mapping[str, Path]) -> tuple[str, bool]:
    """(dotted name, is a package) of a file under one of ``roots``."""
    for top, root in roots.items():
        try:
            relative = path.relative_to(root)
        except ValueError:
            continue
        parts = [top, *relative.with_suffix("").parts]
        if parts[-1] == "__init__":
            return ".".join(parts[:-1]), True
        return ".".join(parts), False
    raise ValueError(f"{path} is under none of {sorted(roots)}")


def _parse(path: Path) -> ast.Module:
    """``ast.parse`` that survives CPython 3.11's shared AST recursion counter (gh-106905): a collection during the
    parse can run finalizers, let another thread parse and leave a spurious ``SystemError``; collections are held
    off while parsing and a mismatch is parsed once more."""
    source = path.read_bytes()
    for attempt in (1, 2):
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            return ast.parse(source, filename=str(path))
        except SystemError as error:
            if attempt == 2 or "recursion depth mismatch" not in str(error):
                raise
        finally:
            if was_enabled:
                gc.enable()
    raise AssertionError("unreachable")


def _imported_names(path: Path, roots: Mapping[str, Path]) -> set[str]:
    """Every module name ``path`` imports anywhere in its body; for ``from a import b``, both ``a`` and ``a.b``
    (``b`` may be a submodule)."""
    name, is_package = _module_name(path, roots)
    package = name if is_package else name.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(_parse(path)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return {n for n in names if n.split(".")[0] in roots}


def import_closure(entries: Iterable[Path], roots: Mapping[str, Path]) -> set[Path]:
    """The source files of ``roots``' packages that the ``entries`` files import, transitively."""
    pending = [Path(p).resolve() for p in entries]
    seen: set[Path] = set()
    while pending:
        path = pending.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in _imported_names(path, roots):
            pending.extend(f for f in _module_files(name, roots) if f not in seen)
    return seen


def data_files_named(sources: Iterable[Path], data_dirs: Iterable[Path]) -> set[Path]:
    """Files of ``data_dirs`` (not their subfolders) whose name one of ``sources`` spells out."""
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sources]
    found = set()
    for folder in data_dirs:
        for candidate in folder.iterdir():
            if candidate.is_file() and candidate.suffix in DATA_SUFFIXES:
                if any(candidate.name in text for text in texts):
                    found.add(candidate.resolve())
    return found


def package_data(sources: Iterable[Path], shared_data_dirs: Iterable[Path]) -> set[Path]:
    """The data a set of modules can read: every non-Python file under a ``data`` folder of their own packages
    (``mendel/ner/data/**``), and the files of the shared data folders they name (``mendel/data``)."""
    sources = set(sources)
    shared = {Path(d).resolve() for d in shared_data_dirs}
    found = set()
    for folder in {p.parent / "data" for p in sources}:
        if folder.resolve() in shared or not folder.is_dir():
            continue
        found.update(
            p.resolve() for p in folder.rglob("*") if p.is_file() and p.suffix != ".py" and "__pycache__" not in p.parts
        )
    return found | data_files_named(sources, shared)


def files_digest(files: Iterable[Path], relative_to: Iterable[Path]) -> hashlib._Hash:
    """A sha256 over the files' contents and their paths relative to the first of ``relative_to`` holding them."""
    bases = [Path(b).resolve() for b in relative_to]
    digest = hashlib.sha256()
    for path in sorted(Path(f).resolve() for f in files):
        label = next((str(path.relative_to(b.parent)) for b in bases if path.is_relative_to(b)), str(path))
        digest.update(f"\0{label}\0".encode() + path.read_bytes())
    return digest
