"""Every component of every crawl is declared in crawlers/settings.py, and spiders yield items and requests only.

- No module under ``crawlers/spiders/`` imports a database driver or the project's storage modules (read from their
  imports with ``ast``): storage and bookkeeping are the item pipelines', what the crawl knew is the extensions'.
- Every pipeline, middleware, extension and download handler class the crawlers define is named in the settings,
  and a spider's own components are dicts the settings declare (no spider replaces its settings while it runs).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import crawlers
from crawlers import settings as project

CRAWLERS = Path(crawlers.__file__).parent
FORBIDDEN = ("psycopg", "psycopg2", "psycopg_pool", "sqlite3", "asyncpg", "sqlalchemy", "mendel.core.db")
STORAGE = ("mendel.crawl.crawlstate", "mendel.crawl.known", "mendel.crawl.outage", "mendel.core.rawstore")
COMPONENT_SETTINGS = (
    "ITEM_PIPELINES",
    "SPIDER_MIDDLEWARES",
    "DOWNLOADER_MIDDLEWARES",
    "EXTENSIONS",
    "DOWNLOAD_HANDLERS",
)


def imported_modules(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize("path", sorted((CRAWLERS / "spiders").rglob("*.py")), ids=lambda p: p.name)
def test_no_spider_module_touches_storage(path):
    names = imported_modules(path)
    found = sorted(n for n in names if n.split(".")[0] in FORBIDDEN or n.startswith(FORBIDDEN + STORAGE))
    assert not found, f"{path.relative_to(CRAWLERS.parent)} imports {found}"


def test_the_check_sees_a_driver_import(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("import psycopg\nfrom mendel.core import db\nfrom mendel.core.db import connect\n")
    assert {"psycopg", "mendel.core.db", "mendel.core.db.connect"} <= imported_modules(probe)


def declared() -> set[str]:
    """Every dotted path the settings name as a component."""
    paths = set()
    for name in dir(project):
        value = getattr(project, name)
        if name.isupper() and isinstance(value, dict):
            paths.update(k for k in value if isinstance(k, str) and "." in k)
            paths.update(v for v in value.values() if isinstance(v, str) and "." in v)
        elif name.isupper() and isinstance(value, str) and value.startswith("crawlers."):
            paths.add(value)
    return paths


def component_classes() -> list[str]:
    found = []
    for package in ("pipelines", "middlewares", "extensions", "handlers"):
        for info in pkgutil.iter_modules([str(CRAWLERS / package)]):
            module = importlib.import_module(f"crawlers.{package}.{info.name}")
            for name, cls in inspect.getmembers(module, inspect.isclass):
                if cls.__module__ == module.__name__ and name.endswith(
                    ("Pipeline", "Middleware", "Extension", "Handler")
                ):
                    found.append(f"{module.__name__}.{name}")
    return found


def test_every_component_is_declared_in_the_settings():
    classes = component_classes()
    assert len(classes) >= 15
    missing = sorted(set(classes) - declared())
    assert not missing, f"components the settings do not name: {missing}"


def test_spiders_take_their_components_from_the_settings():
    from scrapy.settings import Settings
    from scrapy.spiderloader import SpiderLoader

    loader = SpiderLoader.from_settings(Settings({"SPIDER_MODULES": project.SPIDER_MODULES}))
    settings_dicts = [v for k, v in vars(project).items() if k.isupper() and isinstance(v, dict)]
    for name in loader.list():
        spider = loader.load(name)
        assert "update_settings" not in vars(spider), f"{name} changes its settings at run time"
        for key in COMPONENT_SETTINGS:
            value = (spider.custom_settings or {}).get(key)
            if value is not None:
                assert any(value is d for d in settings_dicts), f"{name}: {key} is not declared in crawlers/settings.py"
