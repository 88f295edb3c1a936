"""Versioned stages: every derived stage has a version computed from the files that define it (:data:`STAGES`),
every derived row records the version that made it, and a changed version re-processes exactly the rows another
version made (a row that records no version counts as made by another).

A version is ``<stage>-<12 hex digits>``, the sha256 of each input file's path and bytes; table ``stage_versions``
keeps every version a run used with its inputs' digests, so the next version can tell what changed. ``mendel
status`` shows the versions of the code, the live data and the live bundle.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

PACKAGE = Path(__file__).resolve().parents[1]  # the mendel package
NER_PATTERNS = "ner/data/patterns/*.jsonl"


@dataclass(frozen=True)
class Stage:
    name: str
    inputs: tuple[str, ...]  # globs relative to the mendel package
    exclude: tuple[str, ...] = ()
    recorded_on: str = ""
    reprocesses: str = ""

    def files(self) -> list[Path]:
        found = {p for pattern in self.inputs for p in PACKAGE.glob(pattern) if p.is_file()}
        skipped = {p for pattern in self.exclude for p in PACKAGE.glob(pattern)}
        return sorted(found - skipped)

    def input_digests(self) -> dict[str, str]:
        return {str(p.relative_to(PACKAGE)): hashlib.sha256(p.read_bytes()).hexdigest() for p in self.files()}

    def version(self) -> str:
        return version_of(self.name, self.input_digests())


def version_of(stage: str, digests: dict[str, str]) -> str:
    digest = hashlib.sha256()
    for path, file_digest in sorted(digests.items()):
        digest.update(f"{path}\0{file_digest}\n".encode())
    return f"{stage}-{digest.hexdigest()[:12]}"


# What the recogniser reads: its modules, the modules they import and the tables they name (a test holds this to the
# recogniser's import closure: tests/mendel/core/test_stage_versions.py).
RECOGNISER = (
    "ner/*.py",
    "ner/data/*",
    NER_PATTERNS,
    "registers/municipalities.py",
    "registers/gazetteer.py",
    "czech/declension.py",
    "czech/folding.py",
    "czech/dates.py",
    "data/__init__.py",
    "data/municipalities.tsv",
    "data/acts_by_name.v*.yaml",
    "data/successor_codes.v*.yaml",
    "law/acts_table.py",
    "law/identifiers.py",
)

STAGES: dict[str, Stage] = {
    stage.name: stage
    for stage in (
        Stage(
            "extract",
            ("extract/*.py", "czech/dates.py"),  # a notice's dates are written in its text
            recorded_on="document_versions.extract_version",
            reprocesses="current versions extracted by another version: extracted and chunked again",
        ),
        Stage(
            "chunk",
            (
                "passages/chunking.py",
                "passages/summaries.py",
                "extract/sections.py",
                "extract/model.py",
                "czech/analyzer.py",
            ),
            recorded_on="document_versions.chunk_version",
            reprocesses="current versions chunked by another version: chunked and summarised again; chunks whose "
            "text is unchanged keep their mentions and vectors",
        ),
        Stage(
            "ner",
            RECOGNISER,
            exclude=("ner/relations.py",),
            recorded_on="chunks.ner_version",
            reprocesses="pattern files alone changed: the passages holding a form added or removed; otherwise "
            "every passage",
        ),
        Stage(
            "relations",
            RECOGNISER,  # ner/relations.py reads each version's references through the whole recogniser
            recorded_on="document_versions.relations_version",
            reprocesses="the relations of current versions made by another version",
        ),
        Stage(
            "analyser",
            ("czech/analyzer.py", "index/lexical.py", "index/fulltext.py"),
            recorded_on="chunks.lexemes_version; BM25 build fingerprint",
            reprocesses="the passages' lexemes another version made; every layer's BM25 index",
        ),
        Stage(
            "records",
            (
                "records/model.py",
                "records/record_documents.py",
                "records/municipality_records.py",
                "records/act_metadata.py",
                "law/commencement.py",
                "registers/municipalities.py",
                "czech/declension.py",
                "data/__init__.py",
                "data/municipalities.tsv",
                "czech/dates.py",
                "czech/wording.py",
            ),
            recorded_on="document_versions.record_version",
            reprocesses="record documents rendered again; those whose text changed get a new version (extracted, "
            "chunked, embedded again), the others keep theirs",
        ),
    )
}
EMBED = "embed"  # its version is the embedder's name (runtime and weights digest)


def version(stage: str) -> str:
    return STAGES[stage].version()


def current_versions(embedder_name: Optional[str] = None) -> dict[str, str]:
    versions = {name: stage.version() for name, stage in STAGES.items()}
    if embedder_name:
        versions[EMBED] = embedder_name
    return versions


def register(conn: psycopg.Connection, stage: str) -> str:
    """Record the stage's current version with its inputs (and, for ner, its pattern lines); returns it."""
    digests = STAGES[stage].input_digests()
    current = version_of(stage, digests)
    patterns = pattern_lines() if stage == "ner" else None
    conn.execute(
        "INSERT INTO stage_versions (stage, version, inputs, patterns) VALUES (%s, %s, %s, %s)"
        " ON CONFLICT (stage, version) DO NOTHING",
        (stage, current, Jsonb(digests), patterns),
    )
    return current


def pattern_lines() -> list[str]:
    """Every line of the NER pattern files, normalised (key order and spacing do not count)."""
    lines = []
    for path in sorted(PACKAGE.glob(NER_PATTERNS)):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                lines.append(json.dumps(json.loads(line), ensure_ascii=False, sort_keys=True))
    return sorted(set(lines))


def fold(text: str) -> str:
    """Lower case, no diacritics, single spaces: a superset match of how the recogniser reads a form."""
    decomposed = unicodedata.normalize("NFD", text.lower())
    return " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).split())


# ---------------------------------------------------------------- re-processing


# A processed row without a version (made before versions were recorded) is re-processed by every stage like another
# version's row: its maker is unknown, so nothing says it equals what the current code makes. On a corpus from before
# migration 0019 the first run after it re-extracts (OCR included) and re-chunks once; chunks whose text is unchanged
# keep their mentions and vectors, and vectors of unchanged texts come from the vector cache.


def reprocess_extract(conn: psycopg.Connection) -> int:
    """Current versions extracted by another extract version go back to the extract (and chunk) stage."""
    current = register(conn, "extract")
    return conn.execute(
        "UPDATE document_versions v SET extracted_at = NULL, chunked_at = NULL FROM documents d"
        " WHERE d.current_version_id = v.version_id AND v.extracted_at IS NOT NULL"
        " AND v.extract_version IS DISTINCT FROM %s",
        (current,),
    ).rowcount


def reprocess_chunks(conn: psycopg.Connection) -> int:
    """Current versions chunked by another chunk version go back to the chunk stage."""
    current = register(conn, "chunk")
    return conn.execute(
        "UPDATE document_versions v SET chunked_at = NULL FROM documents d"
        " WHERE d.current_version_id = v.version_id AND v.chunked_at IS NOT NULL"
        " AND v.chunk_version IS DISTINCT FROM %s",
        (current,),
    ).rowcount


def _changed_forms(old_lines: Iterable[str], new_lines: Iterable[str]) -> set[str]:
    changed = set(old_lines) ^ set(new_lines)
    return {fold(json.loads(line)["pattern"]) for line in changed if json.loads(line).get("pattern")}


def reprocess_ner(conn: psycopg.Connection) -> dict:
    """Passages recognised by another ner version: those the change can touch lose their mentions and are
    recognised again; the others take the new version as they are. Returns the counts."""
    current = register(conn, "ner")
    stats = {"ner_reprocessed": 0, "ner_carried_over": 0}
    stale = [
        v
        for (v,) in conn.execute(
            "SELECT DISTINCT ner_version FROM chunks WHERE layer = 3 AND ner_done_at IS NOT NULL"
            " AND ner_version IS DISTINCT FROM %s",
            (current,),
        )
    ]
    if not stale:
        return stats
    new_inputs = STAGES["ner"].input_digests()
    new_lines = pattern_lines()
    for old in stale:
        row = (
            None
            if old is None
            else conn.execute(
                "SELECT inputs, patterns FROM stage_versions WHERE stage = 'ner' AND version = %s", (old,)
            ).fetchone()
        )
        where = sql.SQL("layer = 3 AND ner_done_at IS NOT NULL AND ner_version IS NOT DISTINCT FROM %s")
        affected: Optional[list[str]] = None  # None: every passage of that version
        if row is not None and row[1] is not None:
            old_inputs, old_lines = row
            changed_files = {p for p in set(old_inputs) | set(new_inputs) if old_inputs.get(p) != new_inputs.get(p)}
            if all(p.startswith("ner/data/patterns/") for p in changed_files):
                forms = _changed_forms(old_lines, new_lines)
                finder = (
                    re.compile("|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True))) if forms else None
                )
                affected = [
                    chunk_id
                    for chunk_id, text in conn.execute(
                        sql.SQL("SELECT chunk_id, text FROM chunks WHERE {}").format(where), (old,)
                    )
                    if finder is not None and finder.search(fold(text))
                ]
        with conn.transaction():
            if affected is None:
                affected = [
                    c for (c,) in conn.execute(sql.SQL("SELECT chunk_id FROM chunks WHERE {}").format(where), (old,))
                ]
            conn.execute("DELETE FROM mentions WHERE chunk_id = ANY(%s)", (affected,))
            conn.execute("UPDATE chunks SET ner_done_at = NULL WHERE chunk_id = ANY(%s)", (affected,))
            carried = conn.execute(
                sql.SQL("UPDATE chunks SET ner_version = %s WHERE {}").format(where), (current, old)
            ).rowcount
        stats["ner_reprocessed"] += len(affected)
        stats["ner_carried_over"] += carried
    return stats


def reprocess_relations(conn: psycopg.Connection) -> list[tuple[int, str, str]]:
    """(version_id, source, citation) of the current versions whose relations another version made."""
    current = register(conn, "relations")
    return conn.execute(
        "SELECT v.version_id, d.source, d.citation FROM document_versions v"
        " JOIN documents d ON d.current_version_id = v.version_id"
        " WHERE d.citation IS NOT NULL AND v.relations_version IS DISTINCT FROM %s",
        (current,),
    ).fetchall()


def reprocess_lexemes(conn: psycopg.Connection) -> int:
    """Passages whose lexemes another analyser version made lose them; the full-text fill analyses them again."""
    current = register(conn, "analyser")
    return conn.execute(
        "UPDATE chunks SET lexemes = NULL, lexemes_hash = NULL WHERE layer = 3 AND lexemes IS NOT NULL"
        " AND lexemes_version IS DISTINCT FROM %s",
        (current,),
    ).rowcount


def reprocess_embed(conn: psycopg.Connection, embedder_name: str) -> int:
    """Passages embedded by another model, or with no model recorded, lose their vector's hash, so the embed
    stage takes them again (a vector of an unchanged text by the same model comes from the vector cache)."""
    return conn.execute(
        "UPDATE chunks SET embedded_hash = NULL WHERE layer = 3 AND embedding IS NOT NULL"
        " AND embed_version IS DISTINCT FROM %s",
        (embedder_name,),
    ).rowcount


# ---------------------------------------------------------------- what the data was made by


DATA_VERSIONS = {
    "extract": "SELECT extract_version, count(*) FROM document_versions v JOIN documents d"
    " ON d.current_version_id = v.version_id WHERE v.extracted_at IS NOT NULL GROUP BY 1",
    "chunk": "SELECT chunk_version, count(*) FROM document_versions v JOIN documents d"
    " ON d.current_version_id = v.version_id WHERE v.chunked_at IS NOT NULL GROUP BY 1",
    "ner": "SELECT ner_version, count(*) FROM chunks WHERE layer = 3 AND ner_done_at IS NOT NULL GROUP BY 1",
    "relations": "SELECT relations_version, count(*) FROM document_versions v JOIN documents d"
    " ON d.current_version_id = v.version_id WHERE v.relations_version IS NOT NULL GROUP BY 1",
    "analyser": "SELECT lexemes_version, count(*) FROM chunks WHERE layer = 3 AND lexemes IS NOT NULL GROUP BY 1",
    "embed": "SELECT embed_version, count(*) FROM chunks WHERE layer = 3 AND embedding IS NOT NULL GROUP BY 1",
    "records": "SELECT record_version, count(*) FROM document_versions v JOIN documents d"
    " ON d.current_version_id = v.version_id WHERE v.record_version IS NOT NULL GROUP BY 1",
}


def data_versions(conn: psycopg.Connection) -> dict[str, dict[str, int]]:
    """{stage: {version (or "unrecorded"): rows}} of the live data."""
    return {stage: {(v or "unrecorded"): n for v, n in conn.execute(sql)} for stage, sql in DATA_VERSIONS.items()}


def bundle_versions(conn: psycopg.Connection, embedder_name: str) -> dict[str, str]:
    """What a bundle built now is made by: each stage's version in the data (one when the data is consistent;
    several joined with '+' while a stage is part re-processed), the analyser's and the embedder's."""
    versions = {stage: "+".join(sorted(made)) for stage, made in data_versions(conn).items() if made}
    versions["analyser"] = version("analyser")
    versions[EMBED] = versions.get(EMBED) or embedder_name
    return versions


def kept_build(conn: psycopg.Connection, name: str, fingerprint: str) -> dict | None:
    """The figures of the last build of ``name`` (``build_fingerprints``) when it was made from ``fingerprint``:
    nothing it depends on changed since, so it is kept; else None."""
    stored = conn.execute("SELECT fingerprint, stats FROM build_fingerprints WHERE name = %s", (name,)).fetchone()
    return stored[1] if stored and stored[0] == fingerprint else None


def record_build(conn: psycopg.Connection, name: str, fingerprint: str, stats: dict) -> None:
    """What the build of ``name`` was just made from and its figures, for :func:`kept_build` to compare."""
    conn.execute(
        "INSERT INTO build_fingerprints (name, fingerprint, stats) VALUES (%s, %s, %s) ON CONFLICT (name)"
        " DO UPDATE SET fingerprint = EXCLUDED.fingerprint, stats = EXCLUDED.stats, built_at = now()",
        (name, fingerprint, json.dumps(stats)),
    )


__all__ = [
    "EMBED",
    "STAGES",
    "Stage",
    "bundle_versions",
    "current_versions",
    "data_versions",
    "fold",
    "pattern_lines",
    "register",
    "reprocess_chunks",
    "reprocess_embed",
    "reprocess_extract",
    "reprocess_lexemes",
    "reprocess_ner",
    "reprocess_relations",
    "version",
    "version_of",
]
