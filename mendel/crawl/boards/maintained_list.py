"""The maintained list of boards no catalogue names: HTML boards and site APIs (``mendel/data/html_boards.yaml``, or
the file or URL ``MENDEL_HTML_BOARDS`` names).

``html`` boards (``javascript: true`` marks boards whose notices a script inserts, crawled through Chromium) have
the key ``html:{id}``; ``article_api`` sites, whose documents a REST backend lists (article ids → each article's
files: obec Blešno's site), the key ``api:{id}``. Each HTML board gets its rules here (its own, or its CMS's:
:func:`mendel.crawl.boards.cms_rules.apply_cms_rules`). A list behind a URL is fetched by the register crawl
(``python -m crawlers.register_crawl``) and parsed with :func:`listed_boards`.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from mendel.crawl.boards.board import LISTED_KINDS, Board, RegistryError
from mendel.crawl.boards.cms_rules import apply_cms_rules, rule_problems


def is_remote(location: str) -> bool:
    return location.startswith(("http://", "https://"))


def html_boards_from(value, where: str = "HTML board list") -> list[Board]:
    """Parsed list (``{"boards": [...]}``) → boards; a malformed entry is an error naming it."""
    entries = value.get("boards") if isinstance(value, dict) else None
    if not isinstance(entries, list):
        raise RegistryError(f"{where}: expected a mapping with a 'boards' list")
    boards = []
    for number, entry in enumerate(entries):
        label = f"{where}, board #{number} ({entry.get('id') if isinstance(entry, dict) else repr(entry)})"
        if not isinstance(entry, dict) or not entry.get("id") or not entry.get("url"):
            raise RegistryError(f"{label}: needs 'id' and 'url'")
        kind = entry.get("kind") or "html"
        if kind not in LISTED_KINDS:
            raise RegistryError(f"{label}: unknown kind {kind!r} (one of {sorted(LISTED_KINDS)})")
        rules = entry.get("rules") or {}
        if kind == "html" and rules:  # without rules of its own, an HTML board is read with its CMS's
            problems = rule_problems(rules)
            if problems:
                raise RegistryError(f"{label}: {problems}")
        elif rules:
            raise RegistryError(f"{label}: an {kind} site has no extraction rules")
        boards.append(
            Board(
                key=f"{LISTED_KINDS[kind]}{entry['id']}",
                kind=kind,
                url=entry["url"],
                name=entry.get("name"),
                publisher_ico=str(entry["publisher_ico"]) if entry.get("publisher_ico") else None,
                javascript=bool(entry.get("javascript")),
                rules={k: str(v) for k, v in rules.items()},
                obec_kod=str(entry["obec_kod"]) if entry.get("obec_kod") else None,
                site=str(entry["site"]).lower() if entry.get("site") else None,
            )
        )
    return boards


def listed_boards(text: str, where: str) -> list[Board]:
    """The list's text (YAML, or JSON: the mirror serves its list as JSON), each HTML board with its rules."""
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise RegistryError(f"HTML board list {where}: {exc}") from exc
    return apply_cms_rules(html_boards_from(value, where))


def load_html_boards(location: str) -> list[Board]:
    """The maintained list in the file at ``location``, each HTML board with its rules (its own, or its CMS's)."""
    if is_remote(location):
        raise RegistryError(f"HTML board list {location}: a list behind a URL is read by the register crawl")
    try:
        text = Path(location).read_text(encoding="utf-8")
    except OSError as exc:
        raise RegistryError(f"HTML board list {location}: {exc}") from exc
    return listed_boards(text, location)
