"""`mendel doctor` (mendel.checks.doctor): every invariant holds on a home the nightly just built, and a deliberately
broken copy (a deleted blob, a stray blob, a truncated bundle file, a chunk of a superseded version) fails,
each problem named."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time

import psycopg
import pytest

from mendel.checks import doctor
from mendel.core.rawstore import RawStore
from mendel.index import bundle

pytestmark = pytest.mark.e2e


def test_doctor_passes_on_a_fresh_nightly_home(nightly, cli_env):
    with psycopg.connect(nightly["database_url"]) as conn:
        report = doctor.examine(conn, RawStore(nightly["home"] / "raw"), nightly["home"] / "bundles")
    assert report.ok, report.format()
    checked = {c.name: c.checked for c in report.checks}
    assert checked["version_blobs"] > 0 and checked["orphan_blobs"] == checked["version_blobs"]
    assert checked["chunks_current"] > 0 and checked["bundle"] > 5 and checked["crawl_log"] >= 3
    # the nightly ran the same checks as its last asset check
    evaluations = {
        e.event_specific_data.check_name: e.event_specific_data.passed
        for e in nightly["result"].all_events
        if e.event_type_value == "ASSET_CHECK_EVALUATION"
    }
    assert evaluations["data_invariants"] is True
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "doctor"], env=cli_env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "doctor: all invariants hold" in done.stdout


def _copy(nightly, tmp_path):
    home = tmp_path / "home"
    shutil.copytree(nightly["home"] / "raw", home / "raw")
    shutil.copytree(nightly["home"] / "bundles", home / "bundles")
    return home


def _broken_copy(nightly, tmp_path, home=None):
    """The home's raw store and bundles copied (unless ``home`` is that copy), then broken: one version's blob
    deleted, one stray blob added, the live bundle's chunk table truncated. Returns the copy's home and what was
    broken."""
    home = home or _copy(nightly, tmp_path)
    store = RawStore(home / "raw")
    with psycopg.connect(nightly["database_url"]) as conn:
        doc_id, version_id, sha = conn.execute(
            "SELECT doc_id, version_id, sha256 FROM document_versions ORDER BY version_id LIMIT 1"
        ).fetchone()
    store.path_for(sha).unlink()
    stray = store.put(b"a body no version has").sha256
    live = home / "bundles" / bundle.current_version(home / "bundles")
    chunks = next(iter(sorted((live / bundle.BM25_PART).glob(f"segments/*/{bundle.CHUNKS}"))))  # a passage segment's
    chunks.write_bytes(chunks.read_bytes()[: chunks.stat().st_size // 3])
    return home, {
        "doc_id": doc_id,
        "version_id": version_id,
        "sha": sha,
        "stray": stray,
        "bundle": live.name,
        "chunks": str(chunks.relative_to(live)),
    }


def test_doctor_names_every_problem_on_a_broken_copy(nightly, tmp_path, monkeypatch):
    # examined whole first, so that its hashes and the bundle's verdict are remembered (doctor.HashCache): what
    # breaks afterwards is found all the same
    home = _copy(nightly, tmp_path)
    monkeypatch.setattr(doctor, "RACY_NS", 10_000_000)
    time.sleep(0.05)
    with psycopg.connect(nightly["database_url"]) as conn:  # the remembered hashes live only in this transaction
        assert doctor.examine(conn, RawStore(home / "raw"), home / "bundles").ok
        live = home / "bundles" / bundle.current_version(home / "bundles")
        assert (
            conn.execute("SELECT digest FROM verified_files WHERE path = %s", (str(live),))
            .fetchone()[0]
            .startswith(doctor.BUNDLE_OK)
        )
        home, broken = _broken_copy(nightly, tmp_path, home)
        _check_broken(conn, home, broken)
        conn.rollback()


def _check_broken(conn, home, broken):
    """The doctor names every problem of the broken copy (the orphan chunk: only in the caller's transaction)."""
    doc_id, current = conn.execute(
        "SELECT d.doc_id, d.current_version_id FROM documents d JOIN chunks c ON c.version_id ="
        " d.current_version_id WHERE c.layer = 3 LIMIT 1"
    ).fetchone()
    old = conn.execute(
        "INSERT INTO document_versions (doc_id, sha256, byte_size) VALUES (%s, %s, 1) RETURNING version_id",
        (doc_id, "0" * 64),
    ).fetchone()[0]
    conn.execute(
        "INSERT INTO chunks (chunk_id, version_id, doc_id, seq, page_start, page_end, char_start,"
        " char_end, text, content_hash) VALUES ('orphan-chunk', %s, %s, 0, 1, 1, 0, 5, 'stale', 'x')",
        (old, doc_id),
    )
    report = doctor.examine(conn, RawStore(home / "raw"), home / "bundles")
    assert not report.ok
    by_check = {c.name: c.problems for c in report.checks}
    assert any(
        f"version {broken['version_id']}: blob {broken['sha']} is missing" in p for p in by_check["version_blobs"]
    )
    assert any(f"blob {'0' * 64} is missing" in p for p in by_check["version_blobs"])  # the stale version's
    assert by_check["orphan_blobs"] == [p for p in by_check["orphan_blobs"] if broken["stray"] in p] != []
    assert by_check["chunks_current"] == [f"1 chunk(s) of {doc_id} version {old}: the current version is {current}"]
    assert f"bundle {broken['bundle']}: {broken['chunks']} does not match its checksum" in by_check["bundle"]
    assert by_check["current_versions"] == [] and by_check["crawl_log"] == []


def test_doctor_command_fails_naming_the_problems(nightly, tmp_path, cli_env):
    home, broken = _broken_copy(nightly, tmp_path)
    env = {**cli_env, "MENDEL_HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "doctor", "--no-hashes"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"blob {broken['sha']} is missing" in done.stdout
    assert f"blob {broken['stray']} belongs to no version" in done.stdout
    assert "does not match its checksum" in done.stdout and "FAIL bundle" in done.stdout
    assert "hashes not verified" in done.stdout
