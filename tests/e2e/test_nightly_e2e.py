"""The nightly job end to end against the real embedded PostgreSQL and the local mirror."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest

from mendel.index import bundle
from serving.ranking.search import Searcher
from tests.support.nightly import run_nightly
from tests.support.runs import materialized

pytestmark = pytest.mark.e2e

INDEX_ASSETS = {"chunk_embeddings", "bm25_index", "faiss_index", "entity_graph", "index_bundle"}


def check_outcomes(result) -> dict[str, bool]:
    return {
        e.event_specific_data.check_name: e.event_specific_data.passed
        for e in result.all_events
        if e.event_type_value == "ASSET_CHECK_EVALUATION"
    }


def test_first_run_builds_every_stage(nightly):
    result = nightly["result"]
    assert result.success
    assets = materialized(result)
    assert (
        set(assets)
        >= {
            "esbirka_documents",
            "nsoud_documents",
            "ruian_documents",
            "ruian_records",
            "document_pages",
            "document_chunks",
            "legal_entities",
        }
        | INDEX_ASSETS
    )
    crawl = assets["esbirka_documents"]
    assert crawl["stored"] == 2 and crawl["discovered"] == 2
    for source in ("esbirka", "nsoud", "ruian"):
        counts = assets[f"{source}_documents"]
        outcomes = sum(counts[k] for k in ("stored", "unchanged", "quarantined", "disallowed"))
        assert counts["discovered"] == outcomes, (source, counts)
    assert check_outcomes(result) == {
        "ner_gold_precision_recall": True,
        "extraction_quality_hard": True,
        "extraction_quality_soft": True,
        "data_invariants": True,
        "crawl_failures": True,
        "dev_no_regression": True,
    }

    assert assets["nsoud_documents"]["stored"] >= 1
    assert assets["ruian_documents"]["stored"] == 2
    assert assets["board_registry"]["enabled"] is False and assets["board_documents"]["enabled"] is False

    with psycopg.connect(nightly["database_url"]) as conn:
        docs = dict(
            conn.execute(
                "SELECT doc_id, citation FROM documents WHERE source = 'esbirka' AND doc_type <> 'act_metadata'"
            ).fetchall()
        )
        assert docs == {"/eli/cz/sb/2024/87": "87/2024 Sb.", "/eli/cz/sb/2025/573": "573/2025 Sb."}
        pages = conn.execute(
            "SELECT count(*) FROM pages p JOIN documents d ON d.current_version_id = p.version_id"
            " WHERE d.source = 'esbirka' AND d.doc_type <> 'act_metadata'"
        ).fetchone()[0]
        assert pages == 8  # 4 + 4 real pages
        # the crawled records are searchable documents too (mendel.records.record_documents), each labelled a record
        records = dict(
            conn.execute(
                "SELECT doc_id, doc_type FROM documents WHERE doc_type IN ('register_record', 'act_metadata')"
            ).fetchall()
        )
        assert records == {
            "ruian:obec:564729": "register_record",
            "act-metadata:/eli/cz/sb/2024/87": "act_metadata",
            "act-metadata:/eli/cz/sb/2025/573": "act_metadata",
        }
        decisions = dict(conn.execute("SELECT doc_id, citation FROM documents WHERE source = 'nsoud'").fetchall())
        assert decisions["ECLI:CZ:NS:2024:29.ND.461.2024.1"] == "29 Nd 461/2024"
        kinds = dict(conn.execute("SELECT kind, count(*) FROM registry_records GROUP BY kind").fetchall())
        assert kinds["adresni_misto"] >= 221 and kinds["obec"] >= 1
        assert conn.execute("SELECT name FROM registry_records WHERE kind = 'obec' AND code = '564729'").fetchone() == (
            "Děčany",
        )
        unembedded = conn.execute("SELECT count(*) FROM chunks WHERE embedding IS NULL").fetchone()[0]
        assert unembedded == 0
        # Ústavní zákon 87/2024 amends the Constitution: its text cites 1/1993 Sb.
        assert conn.execute("SELECT count(*) FROM entities WHERE norm LIKE '1/1993 Sb.%'").fetchone()[0] > 0


def test_bundle_is_published_and_grounded(nightly):
    bundles_dir = nightly["home"] / "bundles"
    path = bundle.current_bundle(bundles_dir, verify=True)
    manifest = bundle.read_manifest(path)
    assert manifest["counts"]["documents"] >= 2 and manifest["counts"]["chunks"] > 5
    hits = Searcher.latest(bundles_dir).search("volby do Poslanecké sněmovny volební obvody", k=5)
    assert hits, "the sample query found nothing"
    top = hits[0]
    assert top.doc_id == "/eli/cz/sb/2024/87"
    assert 1 <= top.page <= top.page_end <= 4
    assert "/souborove-dokumenty/" in top.url and top.title
    assert set(top.lists) <= {"bm25", "dense", "reference", "graph", "routed", "governing"} and top.lists


def test_second_run_changes_nothing(nightly, tmp_path):
    second = run_nightly(nightly["home"], nightly["database_url"], nightly["mirror_url"], nightly["instance"])
    assert second.success
    assets = materialized(second)
    crawl = assets["esbirka_documents"]
    assert crawl["stored"] == 0 and crawl["unchanged"] == 2  # conditional requests answered 304
    assert assets["document_pages"]["versions"] == 0
    assert assets["document_pages"]["records_new_versions"] == 0 and assets["document_pages"]["records_documents"] == 3
    assert assets["ruian_records"]["files"] == 0
    assert assets["nsoud_documents"]["stored"] == 0
    assert assets["document_chunks"]["chunks"] == 0
    assert assets["legal_entities"]["chunks"] == 0
    assert assets["chunk_embeddings"]["embedded"] == 0
    assert assets["index_bundle"]["published"] is False  # identical indexes: serving keeps its bundle


def test_failing_gate_blocks_indexes(nightly, tmp_path):
    import ner_eval

    # The real gold file with every span moved three characters right (still well-formed): P and R collapse.
    broken = tmp_path / "broken_gold.jsonl"
    with (
        open(Path(ner_eval.__file__).parent / "gold" / "sample_gold.jsonl", encoding="utf-8") as src,
        broken.open("w", encoding="utf-8") as dst,
    ):
        for line in src:
            record = json.loads(line)
            for entity in record["entities"]:
                entity["start"] = min(entity["start"] + 3, len(record["text"]))
                entity["end"] = min(entity["end"] + 3, len(record["text"]))
                entity["text"] = record["text"][entity["start"] : entity["end"]]
            dst.write(json.dumps(record, ensure_ascii=False) + "\n")
    before = bundle.current_version(nightly["home"] / "bundles")
    result = run_nightly(
        nightly["home"], nightly["database_url"], nightly["mirror_url"], nightly["instance"], ner_gold_path=str(broken)
    )
    assert not result.success
    assert check_outcomes(result) == {
        "ner_gold_precision_recall": False,
        "extraction_quality_hard": True,
        "extraction_quality_soft": True,
        "crawl_failures": True,
    }
    assert not INDEX_ASSETS & set(materialized(result))
    assert bundle.current_version(nightly["home"] / "bundles") == before
