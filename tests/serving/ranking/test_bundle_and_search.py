"""Bundles publish atomically; fusion and the Czech analyser behave."""

from __future__ import annotations

import threading

import pytest

from mendel.czech.analyzer import analyze
from mendel.index import bundle
from serving.ranking.fusion import rrf_fuse


def _publish(bundles_dir, tmp_text: str):
    staging = bundle.staging_dir(bundles_dir)
    (staging / "data.txt").write_text(tmp_text)
    return bundle.publish(staging, bundles_dir, {"counts": {}}, keep=2)


def test_publish_keeps_last_versions_and_checksums(tmp_path):
    paths = [_publish(tmp_path, f"v{i}") for i in range(4)]
    assert bundle.list_versions(tmp_path) == [p.name for p in paths[-2:]]
    current = bundle.current_bundle(tmp_path, verify=True)
    assert current == paths[-1] and (current / "data.txt").read_text() == "v3"
    (current / "data.txt").write_text("tampered")
    with pytest.raises(bundle.BundleError, match="checksum"):
        bundle.current_bundle(tmp_path, verify=True)


def test_identical_bundle_is_not_republished(tmp_path):
    first = _publish(tmp_path, "same")
    staging = bundle.staging_dir(tmp_path)
    (staging / "data.txt").write_text("same")
    assert bundle.publish(staging, tmp_path, {"counts": {}}, skip_unchanged=True) == first
    assert not staging.exists() and bundle.list_versions(tmp_path) == [first.name]
    staging = bundle.staging_dir(tmp_path)
    (staging / "data.txt").write_text("changed")
    assert bundle.publish(staging, tmp_path, {"counts": {}}, skip_unchanged=True) != first


def test_no_bundle_is_a_clear_error(tmp_path):
    with pytest.raises(bundle.BundleError, match="no published bundle"):
        bundle.current_bundle(tmp_path)


def test_readers_never_see_a_partial_bundle(tmp_path):
    _publish(tmp_path, "start")
    stop = threading.Event()
    seen_errors = []

    def reader():
        while not stop.is_set():
            path = None
            try:
                path = bundle.current_bundle(tmp_path)
                bundle.read_manifest(path)
                (path / "data.txt").read_text()
            except (FileNotFoundError, bundle.BundleError) as exc:
                # Pruned after it was opened (the directory is gone) is fine; a directory without its files is not.
                if path is None or path.exists():
                    seen_errors.append(exc)

    threads = [threading.Thread(target=reader) for _ in range(3)]
    for t in threads:
        t.start()
    for i in range(30):
        _publish(tmp_path, f"v{i}")
    stop.set()
    for t in threads:
        t.join()
    assert not seen_errors


def test_rrf_fusion_order():
    fused = rrf_fuse({"bm25": [1, 2, 3], "dense": [3, 1, 4]}, k=60)
    order = [item for item, _, _ in fused]
    assert order[:2] == [1, 3]  # in both lists, ranked high
    assert set(order) == {1, 2, 3, 4}
    sources = {item: lists for item, _, lists in fused}
    assert sources[4] == ["dense"] and sources[1] == ["bm25", "dense"]
    assert fused[0][1] == pytest.approx(1 / 61 + 1 / 62)
    weighted = rrf_fuse({"bm25": [1, 2], "dense": [2, 1]}, k=60, weights={"bm25": 1.0, "dense": 0.5})
    assert [item for item, _, _ in weighted] == [1, 2]  # a tie broken by the heavier list
    assert weighted[0][1] == pytest.approx(1 / 61 + 0.5 / 62)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("§ 2079 odst. 1", ["§2079", "odst", "1"]),
        ("zákona č. 89/2012 Sb.", ["zakon", "89/2012", "sb"]),
        ("Občanský ZÁKONÍK", ["obcansk", "zakonik"]),
        ("ECLI:CZ:NS:2024:29.ND.461.2024.1", ["ecli:cz:ns:2024:29.nd.461.2024.1"]),
        ("a v na se", []),
    ],
)
def test_czech_analyser(text, expected):
    assert analyze(text) == expected


def test_analyser_is_diacritics_insensitive():
    assert analyze("smlouva o dílo") == analyze("SMLOUVA O DILO")
