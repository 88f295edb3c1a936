"""A night whose built parts are the live bundle's own files (the same inodes, no file more or less) publishes
nothing and stages nothing (mendel.index.bundle.holds_parts): any other change to a part is a new bundle."""

from __future__ import annotations

import os

import pytest

from mendel.index import bundle, segments


def _write_again(build):
    """A file's same bytes under a new inode, as a build's os.replace writes them."""
    path = build / "bm25" / "segments" / "s1" / "ids.json"
    tmp = path.with_name(path.name + ".new")
    tmp.write_bytes(path.read_bytes())
    os.replace(tmp, path)


def _add_unfinished(build):
    (build / "bm25" / "segments" / ".tmp-s2-123").mkdir()
    (build / "bm25" / "segments" / ".tmp-s2-123" / "ids.json").write_text("[]")
    (build / "bm25" / "live.json.99.tmp").write_text("{}")


def _add_file(build):
    (build / "bm25" / "deleted").mkdir()
    (build / "bm25" / "deleted" / "s1-0123.npy").write_text("x")


def _remove_file(build):
    (build / "graph" / "build_info.json").unlink()


CHANGES = {
    "nothing": lambda build: None,
    "unfinished files only": _add_unfinished,
    "a file written again": _write_again,
    "a file more": _add_file,
    "a file less": _remove_file,
}


@pytest.mark.parametrize(
    "change, held",
    [
        ("nothing", True),
        ("unfinished files only", True),  # never linked into a bundle
        ("a file written again", False),
        ("a file more", False),
        ("a file less", False),
    ],
)
def test_the_live_bundle_holds_the_built_parts_only_while_they_are_its_files(tmp_path, change, held):
    build, bundles = tmp_path / "build", tmp_path / "bundles"
    files = {
        "bm25/live.json": "{}",
        "bm25/build_info.json": "{}",
        "bm25/segments/s1/ids.json": '["a", "b"]',
        "graph/graph.json": '{"nodes": []}',
        "graph/build_info.json": "{}",
    }
    for name, text in files.items():
        (build / name).parent.mkdir(parents=True, exist_ok=True)
        (build / name).write_text(text)
    parts = {"bm25": build / "bm25", "graph": build / "graph"}
    staging = bundle.staging_dir(bundles)
    for inside, source in parts.items():
        segments.link_tree(source, staging / inside)
    live = bundle.publish(staging, bundles, {"layers": {}})
    assert bundle.holds_parts(live, parts)
    assert not bundle.holds_parts(live, {"bm25": build / "bm25"})  # the bundle lists the graph too

    CHANGES[change](build)
    assert bundle.holds_parts(live, parts) is held
