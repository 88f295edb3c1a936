"""The doctor's remembered hashes (mendel.checks.doctor.HashCache): a blob that has not changed since it was hashed is not
read again, and one changed in place afterwards, even to the same size, is read again and found corrupted; a file
hashed right after it changed is not remembered; rehash=True reads everything."""

from __future__ import annotations

import time

import psycopg
import pytest

from mendel.checks import doctor
from mendel.core.rawstore import RawStore
from mendel.crawl import crawlstate


@pytest.fixture
def home(fresh_db, tmp_path):
    store = RawStore(tmp_path / "raw")
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        for n in range(3):
            body = f"document {n} ".encode() * 50
            blob = store.put(body)
            crawlstate.record_document(
                conn,
                run_id=None,
                source="test",
                doc_id=f"doc-{n}",
                url=f"https://example.invalid/{n}",
                sha256=blob.sha256,
                byte_size=len(body),
                content_type="text/plain",
            )
    time.sleep(0.05)  # the blobs' last change is behind the (shortened) racy window below
    return fresh_db, store, tmp_path / "bundles"


def _examine(url, store, bundles, **kwargs) -> doctor.DoctorReport:
    with psycopg.connect(url, autocommit=True) as conn:
        return doctor.examine(conn, store, bundles, **kwargs)


def _reads(monkeypatch) -> list:
    read = []
    original = doctor._file_sha256
    monkeypatch.setattr(doctor, "_file_sha256", lambda path: read.append(path) or original(path))
    return read


def test_an_unchanged_blob_is_not_read_again_and_a_changed_one_is(home, monkeypatch):
    url, store, bundles = home
    monkeypatch.setattr(doctor, "RACY_NS", 10_000_000)
    read = _reads(monkeypatch)
    assert _examine(url, store, bundles).ok and len(read) == 3
    read.clear()
    assert _examine(url, store, bundles).ok and read == []

    with psycopg.connect(url) as conn:
        sha = conn.execute("SELECT sha256 FROM document_versions ORDER BY version_id LIMIT 1").fetchone()[0]
    path = store.path_for(sha)
    data = bytearray(path.read_bytes())
    data[7] ^= 1  # one bit, the size unchanged
    path.write_bytes(bytes(data))
    report = _examine(url, store, bundles)
    assert [str(p) for p in read] == [str(path)]
    assert any(f"blob {sha} does not hash to its name (corrupted)" in p for p in report.problems)

    read.clear()
    assert not _examine(url, store, bundles, rehash=True).ok and len(read) == 3


def test_a_blob_hashed_right_after_it_changed_is_not_remembered(home, monkeypatch):
    url, store, bundles = home  # the real racy window (seconds): the blobs were written just now
    read = _reads(monkeypatch)
    assert _examine(url, store, bundles).ok and _examine(url, store, bundles).ok
    assert len(read) == 6
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT count(*) FROM verified_files").fetchone()[0] == 0
