"""The versioned tables the library reads, kept as data beside the code: acts by name, the legal vocabulary,
municipalities, public bodies, notice-board lists and CMS rules, website CMS, quality thresholds, the domain graph."""

from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent
