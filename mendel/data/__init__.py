"""The versioned tables the library reads, kept as data beside the code: acts by name, the legal vocabulary,
municipalities, public bodies, notice-board lists and CMS rules, website CMS, quality thresholds, the domain graph."""

from pathlib import Path

import yaml

DATA_DIR = Path(__file__).resolve().parent


def read_table(path: Path | str):
    """A YAML table's contents, read by libyaml's safe loader where PyYAML was built with it (a table of thousands
    of entries in about a sixth of the pure-Python loader's time), else by the pure-Python one."""
    return yaml.load(Path(path).read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
