"""What the tests share, one module per thing and named for it (bundle, crawl, law, nightly, web, ...); test modules
import from here, never from each other. Fixtures several packages read live in the nearest conftest.py."""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
