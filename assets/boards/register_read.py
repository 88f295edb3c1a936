"""The register of notice boards as it reads now: the catalogue (and a maintained list behind a URL) fetched by the
register crawl (``python -m crawlers.register_crawl``: the crawl's own HTTP stack and politeness), merged with the
maintained list (:func:`mendel.crawl.boards.register.load_registry`). Used by the ``board_registry`` asset and the
new-boards sensor; a plain function a test calls without Dagster."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from mendel.core.config import PROJECT_ROOT
from mendel.crawl.boards.board import Board, RegistryError
from mendel.crawl.boards.catalogue import read_catalogue, sparql_url
from mendel.crawl.boards.maintained_list import is_remote, listed_boards
from mendel.crawl.boards.register import load_registry

CRAWL_TIMEOUT_S = 900


def crawl_register(settings, out: Path, page_size: int | None = None) -> None:
    """Run the register crawl for ``settings`` (a :class:`mendel.core.config.Settings`) into ``out``; a crawl that
    could not read the register in full raises :class:`RegistryError` with its reason."""
    command = [sys.executable, "-m", "crawlers.register_crawl", str(out), "--sparql", sparql_url(settings)]
    if is_remote(settings.html_boards):
        command += ["--list", settings.html_boards]
    if page_size:
        command += ["--page-size", str(page_size)]
    run_crawl(settings, command, "the register crawl", "mendel register:", CRAWL_TIMEOUT_S)


def run_crawl(settings, command: list[str], what: str, says: str, timeout_s: int) -> None:
    """Run a crawl subprocess (``command``) on ``settings``'s profile, home and mirror; one that fails or runs past
    ``timeout_s`` raises :class:`RegistryError` with the last line it ``says`` (starting so), else its last line."""
    env = {**os.environ, "MENDEL_PROFILE": settings.profile, "MENDEL_HOME": str(settings.home)}
    if settings.mirror_url:
        env["MENDEL_MIRROR_URL"] = settings.mirror_url
    try:
        done = subprocess.run(command, env=env, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired as exc:
        raise RegistryError(f"{what} took more than {timeout_s} s") from exc
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        said = [line for line in lines if line.startswith(says)]
        raise RegistryError((said or lines or [f"{what} exited {done.returncode}"])[-1])


def read_register(settings, page_size: int | None = None, found: list[Board] = ()) -> list[Board]:
    """Every board of the register for ``settings``: the catalogue's, then the maintained list's, then ``found``
    (the confirmed boards of the board finder: :func:`mendel.crawl.boards.candidates.confirmed_boards`)."""
    with tempfile.TemporaryDirectory(prefix="register-") as work:
        out = Path(work)
        crawl_register(settings, out, page_size)
        catalogue = read_catalogue(out / "catalogue.jsonl")
        listed = None
        if is_remote(settings.html_boards):
            lines = [json.loads(line) for line in (out / "list.jsonl").read_text(encoding="utf-8").splitlines() if line]
            if not lines:
                raise RegistryError(f"HTML board list {settings.html_boards}: not read")
            listed = listed_boards(lines[-1]["text"], settings.html_boards)
    return load_registry(settings, catalogue, listed, found)
