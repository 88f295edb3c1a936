"""What the tests share: the nightly run, crawl and law fixtures' helpers, index helpers, a Bolt server, data files."""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
