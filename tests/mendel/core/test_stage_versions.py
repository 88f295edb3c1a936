"""Versioned stages (mendel.core.stage_versions): every derived row records the version that made it; a changed NER pattern
file re-recognises only the passages it can touch (the others keep their mentions untouched), a changed chunker
re-chunks the versions it made, and the next bundle carries the new versions; `mendel status` shows them.

The stage files are read from a copy of the mendel package (stage_versions.PACKAGE and the recogniser's pattern file
point at it), so editing them here touches nothing in the working tree."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import psycopg
import pytest

from mendel.checks import stage_status
from mendel.core import stage_versions
from mendel.index import bundle
from mendel.ner import institutions, patterns
from tests.support.index import RecordingEmbedder, add_document, ns_decisions, run_index

NEW_FORM = "Úřadu pro zkoušky vzorů"  # a made-up name form, given to an institution of the gazetteer
NEW_FORM_ID = "Ministerstvo kultury"
MARKED_SENTENCE = f"Podle sdělení {NEW_FORM} ze dne 3. 3. 2025 je věc vyřízena."


@pytest.fixture
def package_copy(tmp_path, monkeypatch):
    copy = tmp_path / "mendel"
    shutil.copytree(stage_versions.PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    pattern_file = copy / "ner" / "data" / "patterns" / patterns.patterns_filename()
    monkeypatch.setattr(stage_versions, "PACKAGE", copy)
    monkeypatch.setattr(patterns, "bundled_patterns_path", lambda: pattern_file)
    reload_recogniser()
    yield copy, pattern_file
    reload_recogniser()  # the next test reads the real file again


def reload_recogniser():
    institutions._compiled.cache_clear()
    institutions._by_norm.cache_clear()


def mentions_by_chunk(conn) -> dict[str, list[tuple]]:
    found: dict[str, list[tuple]] = {}
    for chunk_id, *mention in conn.execute(
        "SELECT chunk_id, entity_id, start_char, end_char, surface FROM mentions ORDER BY 1, 2, 3, 4"
    ):
        found.setdefault(chunk_id, []).append(tuple(mention))
    return found


def test_every_stage_declares_inputs_that_exist():
    for stage in stage_versions.STAGES.values():
        assert stage.files(), stage.name
        assert stage.version().startswith(f"{stage.name}-")
    assert "ner/relations.py" not in stage_versions.STAGES["ner"].input_digests()


def test_a_changed_pattern_file_re_recognises_only_the_passages_it_touches(fresh_db, tmp_path, package_copy):
    _, pattern_file = package_copy
    decisions = ns_decisions()[:3]
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        for n, d in enumerate(decisions):
            pages = [d["full_text"]] + ([MARKED_SENTENCE] if n == 0 else [])
            add_document(conn, d["ecli"], pages, title=d["ecli"], citation=d.get("case_number"))
        embedder = RecordingEmbedder()
        first = run_index(conn, tmp_path, embedder)
        old_version = stage_versions.version("ner")
        passages = conn.execute("SELECT count(*) FROM chunks WHERE layer = 3").fetchone()[0]
        assert first["ner"]["chunks"] == passages > 3
        assert conn.execute("SELECT DISTINCT ner_version FROM chunks WHERE layer = 3").fetchall() == [(old_version,)]
        manifest = bundle.read_manifest(Path(first["bundle"]["path"]))
        assert manifest["stages"]["ner"] == old_version
        assert manifest["stages"]["chunk"] == stage_versions.version("chunk")
        assert manifest["stages"]["embed"] == embedder.name
        before = mentions_by_chunk(conn)
        done_before = dict(conn.execute("SELECT chunk_id, ner_done_at FROM chunks WHERE layer = 3"))
        assert not any(m[3] == NEW_FORM for rows in before.values() for m in rows)

        # A reviewer adds one name form to the pattern file.
        with pattern_file.open("a", encoding="utf-8") as out:
            out.write(
                json.dumps({"label": "INSTITUTION", "pattern": NEW_FORM, "id": NEW_FORM_ID}, ensure_ascii=False) + "\n"
            )
        reload_recogniser()
        new_version = stage_versions.version("ner")
        assert new_version != old_version
        touched = [
            c
            for (c,) in conn.execute("SELECT chunk_id FROM chunks WHERE layer = 3 AND text LIKE %s", (f"%{NEW_FORM}%",))
        ]
        assert len(touched) == 1

        second = run_index(conn, tmp_path, embedder)
        assert second["ner"]["ner_reprocessed"] == 1 and second["ner"]["chunks"] == 1
        assert second["ner"]["ner_carried_over"] == passages - 1
        assert second["chunks"]["versions"] == 0 and second["chunks"]["reprocessed_by_version"] == 0
        after = mentions_by_chunk(conn)
        assert (touched[0], f"INSTITUTION:{NEW_FORM_ID}") in {(c, m[0]) for c, rows in after.items() for m in rows}
        # every other passage: the same mentions, not even recognised again
        assert {c: m for c, m in after.items() if c != touched[0]} == {
            c: m for c, m in before.items() if c != touched[0]
        }
        done_after = dict(conn.execute("SELECT chunk_id, ner_done_at FROM chunks WHERE layer = 3"))
        assert [c for c in done_after if done_after[c] != done_before[c]] == touched
        assert conn.execute("SELECT DISTINCT ner_version FROM chunks WHERE layer = 3").fetchall() == [(new_version,)]
        # the next bundle carries the new version
        assert second["bundle"]["published"]
        assert bundle.read_manifest(Path(second["bundle"]["path"]))["stages"]["ner"] == new_version

        # Status: the code, the data and the live bundle agree on the new version.
        report = stage_status.status(conn, tmp_path / "bundles")
        assert report["code"]["ner"] == new_version
        assert report["data"]["ner"] == {new_version: passages}
        assert report["bundle"]["stages"]["ner"] == new_version
        printed = stage_status.format_status(report).splitlines()
        assert [line for line in printed if line.startswith("ner ")] == [f"{'ner':10s} code {new_version}"]
        # the documents were put in extracted (no extract version recorded): status says so
        assert report["data"]["extract"] == {"unrecorded": 3}


def test_a_changed_chunker_re_chunks_its_versions_and_keeps_unchanged_passages(fresh_db, tmp_path, package_copy):
    copy, _ = package_copy
    d = ns_decisions()[0]
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        add_document(conn, d["ecli"], [d["full_text"]], title=d["ecli"], citation=d.get("case_number"))
        embedder = RecordingEmbedder()
        run_index(conn, tmp_path, embedder)
        before = mentions_by_chunk(conn)
        old_version = stage_versions.version("chunk")
        (copy / "passages" / "chunking.py").write_text(
            (copy / "passages" / "chunking.py").read_text() + "\n# a changed chunker\n"
        )
        new_version = stage_versions.version("chunk")
        assert new_version != old_version
        report = stage_status.status(conn, tmp_path / "bundles")
        assert report["data"]["chunk"] == {old_version: 1}
        assert f"{'chunk':10s} code {new_version} STALE" in stage_status.format_status(report).splitlines()
        embedded = len(embedder.embedded)
        second = run_index(conn, tmp_path, embedder)
        assert second["chunks"]["reprocessed_by_version"] == 1 and second["chunks"]["versions"] == 1
        # the chunker's output is the same (only its file changed): nothing to recognise or embed again
        assert second["ner"]["chunks"] == 0 and len(embedder.embedded) == embedded
        assert mentions_by_chunk(conn) == before
        assert conn.execute("SELECT chunk_version FROM document_versions").fetchall() == [(new_version,)]
        assert bundle.read_manifest(Path(second["bundle"]["path"]))["stages"]["chunk"] == new_version


def test_mendel_status_prints_the_versions(fresh_db, tmp_path, monkeypatch, capsys):
    from cli.main import main

    monkeypatch.setenv("MENDEL_HOME", str(tmp_path))
    monkeypatch.setenv("MENDEL_DATABASE_URL", fresh_db)
    assert main(["status", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["code"] == stage_versions.current_versions()
    assert report["bundle"]["version"] is None


def test_rows_without_a_version_are_re_processed_by_every_stage(fresh_db, tmp_path):
    """Rows made before versions were recorded (migrations 0019, 0021) lack them: each stage takes them again."""
    from mendel.index.fulltext import fill_lexemes

    decisions = ns_decisions()[:3]
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        for d in decisions:
            add_document(conn, d["ecli"], [d["full_text"]], title=d["ecli"], citation=d.get("case_number"))
        embedder = RecordingEmbedder()
        run_index(conn, tmp_path, embedder)
        fill_lexemes(conn)
        passages = conn.execute("SELECT count(*) FROM chunks WHERE layer = 3").fetchone()[0]
        before = mentions_by_chunk(conn)
        embedded = len(embedder.embedded)
        conn.execute("UPDATE document_versions SET chunk_version = NULL, relations_version = NULL")
        conn.execute("UPDATE chunks SET ner_version = NULL, embed_version = NULL, lexemes_version = NULL")
        unrecorded = stage_versions.data_versions(conn)
        assert {s: unrecorded[s] for s in ("chunk", "ner", "embed", "analyser")} == {
            "chunk": {"unrecorded": 3},
            "ner": {"unrecorded": passages},
            "embed": {"unrecorded": passages},
            "analyser": {"unrecorded": passages},
        }

        second = run_index(conn, tmp_path, embedder)
        lexemes = fill_lexemes(conn)
        assert second["chunks"]["reprocessed_by_version"] == 3
        assert second["ner"]["ner_reprocessed"] == passages and second["ner"]["chunks"] == passages
        assert second["embed"]["reprocessed_by_version"] == passages == second["embed"]["chunks"]
        assert len(embedder.embedded) == embedded  # the same texts by the same model: vectors from the cache
        assert lexemes["lexemes_reprocessed_by_version"] == passages == lexemes["lexemes_written"]
        assert mentions_by_chunk(conn) == before  # same code, same mentions: only the versions are new
        current = stage_versions.current_versions(embedder.name)
        recorded = stage_versions.data_versions(conn)
        assert {s: recorded[s] for s in ("chunk", "relations", "ner", "embed", "analyser")} == {
            "chunk": {current["chunk"]: 3},
            "relations": {current["relations"]: 3},
            "ner": {current["ner"]: passages},
            "embed": {current["embed"]: passages},
            "analyser": {current["analyser"]: passages},
        }

        # A third run finds nothing to re-process.
        third = run_index(conn, tmp_path, embedder)
        assert (
            third["chunks"]["reprocessed_by_version"],
            third["ner"]["chunks"],
            third["embed"]["reprocessed_by_version"],
            fill_lexemes(conn)["lexemes_written"],
        ) == (0, 0, 0, 0)

        # Extraction: add_document stores extracted versions without an extract version — they go back.
        assert stage_versions.data_versions(conn)["extract"] == {"unrecorded": 3}
        assert stage_versions.reprocess_extract(conn) == 3
        assert (
            conn.execute(
                "SELECT count(*) FROM document_versions WHERE extracted_at IS NULL AND chunked_at IS NULL"
            ).fetchone()[0]
            == 3
        )
        conn.execute(
            "UPDATE document_versions SET extracted_at = now(), extract_version = %s",
            (stage_versions.version("extract"),),
        )
        assert stage_versions.reprocess_extract(conn) == 0  # the current version's rows stay


def test_a_changed_analyser_re_analyses_the_lexemes_it_made(fresh_db, tmp_path, package_copy):
    from mendel.index.fulltext import fill_lexemes

    copy, _ = package_copy
    d = ns_decisions()[0]
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        add_document(conn, d["ecli"], [d["full_text"]], title=d["ecli"], citation=d.get("case_number"))
        run_index(conn, tmp_path, RecordingEmbedder())
        passages = conn.execute("SELECT count(*) FROM chunks WHERE layer = 3").fetchone()[0]
        old_version = stage_versions.version("analyser")
        first = fill_lexemes(conn)
        assert first["lexemes_written"] == passages > 1 and first["lexemes_stage_version"] == old_version
        assert stage_versions.data_versions(conn)["analyser"] == {old_version: passages}
        assert fill_lexemes(conn)["lexemes_written"] == 0

        (copy / "czech" / "analyzer.py").write_text((copy / "czech" / "analyzer.py").read_text() + "\n# changed\n")
        new_version = stage_versions.version("analyser")
        assert new_version != old_version and stage_versions.version("chunk") != new_version
        report = stage_status.status(conn, tmp_path / "bundles")
        assert f"{'analyser':10s} code {new_version} STALE" in stage_status.format_status(report).splitlines()
        second = fill_lexemes(conn)
        assert second["lexemes_reprocessed_by_version"] == passages == second["lexemes_written"]
        assert stage_versions.data_versions(conn)["analyser"] == {new_version: passages}

        # one passage's lexemes from before the version was recorded: exactly that one is analysed again
        some = conn.execute("SELECT chunk_id FROM chunks WHERE layer = 3 LIMIT 1").fetchone()[0]
        conn.execute("UPDATE chunks SET lexemes_version = NULL WHERE chunk_id = %s", (some,))
        third = fill_lexemes(conn)
        assert (third["lexemes_reprocessed_by_version"], third["lexemes_written"]) == (1, 1)
        assert (
            conn.execute("SELECT lexemes_version FROM chunks WHERE chunk_id = %s", (some,)).fetchone()[0] == new_version
        )


# Files a reader's static closure reaches that never shape what it makes, each with why.
NOT_SHAPING = {
    # registers.municipalities.main, the municipalities table's builder, reads the configuration (and through it
    # the sources and the boards' table); the recogniser and the records only read the table it wrote
    "core/config.py": "the table builder's",
    "core/sources.py": "the table builder's",
    "data/html_boards.yaml": "the table builder's",
    "core/process_death.py": "an extraction child dies with its parent: supervision, not text",
    "core/rawstore.py": "where the stored originals lie: the bytes read are the document's version",
    "core/stage_versions.py": "records the version it is part of",
}


def versioned_readers() -> dict[str, tuple[list[str], set[str]]]:
    """Every reader whose version says when its rows are made again: (its entry modules, the files its version
    covers), relative to the mendel package."""
    from mendel.citator import build as citator
    from mendel.records import court_decisions

    stages = {name: set(stage.input_digests()) for name, stage in stage_versions.STAGES.items()}
    return {
        "ner": (["ner/__init__.py"], stages["ner"]),
        "relations": (["ner/relations.py"], stages["relations"]),
        "extract": ([name for name in stages["extract"] if name.startswith("extract/")], stages["extract"]),
        "chunk": (["passages/chunking.py", "passages/summaries.py"], stages["chunk"]),
        "records": (["records/record_documents.py"], stages["records"]),
        "court_decisions": (["records/court_decisions.py"], set(court_decisions.READER_FILES)),
        "citations": (
            ["citator/build.py"],
            set(citator.BUILD_CODE).union(*(stages[name] for name in citator.BUILD_STAGES)),
        ),
    }


def docstring_only(path: Path) -> bool:
    """A package ``__init__`` holding nothing but its docstring runs nothing."""
    import ast

    body = ast.parse(path.read_text(encoding="utf-8")).body
    return all(isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) for node in body)


@pytest.mark.parametrize("reader", sorted(versioned_readers()))
def test_a_readers_version_covers_every_file_its_code_reads(reader):
    """What a versioned reader imports and the tables its modules name are inputs of its version: a change to any
    of them makes its rows again. (The analyser's lexemes are left out: each passage's are made again when its
    text's digest changes, whatever code wrote the text.)"""
    from mendel.core.code_closure import import_closure, package_data
    from mendel.data import DATA_DIR

    package = stage_versions.PACKAGE
    entries, inputs = versioned_readers()[reader]
    closure = import_closure([package / entry for entry in entries], {"mendel": package})
    read = {str(f.relative_to(package)) for f in closure | package_data(closure, [DATA_DIR])}
    idle = {name for name in read if name.endswith("__init__.py") and docstring_only(package / name)}
    assert read - idle - set(NOT_SHAPING) - inputs == set()
