"""The Definitions load, validate, and keep the shape later work depends on."""

from __future__ import annotations

from dagster import AssetKey, Definitions

from orchestration.definitions import defs

EXPECTED_GROUPS = {
    "esbirka_documents": "crawl",
    "nsoud_documents": "crawl",
    "board_discovery": "crawl",
    "board_registry": "crawl",
    "ruian_documents": "crawl",
    "nalus_documents": "crawl",
    "nssoud_documents": "crawl",
    "justice_documents": "crawl",
    "cnb_documents": "crawl",
    "board_documents": "crawl",
    "query_entity_edges": "index",
    "ruian_records": "extract",
    "document_pages": "extract",
    "document_chunks": "extract",
    "legal_entities": "ner",
    "law_versions": "law",
    "citations": "law",
    "chunk_embeddings": "index",
    "bm25_index": "index",
    "faiss_index": "index",
    "entity_graph": "index",
    "index_bundle": "serve",
    "neo4j_graph": "serve",
    "retrieval_evaluation": "serve",
}


def test_definitions_validate():
    Definitions.validate_loadable(defs)


def test_assets_grouped_by_stage():
    graph = defs.resolve_asset_graph()
    groups = {key.to_user_string(): graph.get(key).group_name for key in graph.get_all_asset_keys()}
    assert groups == EXPECTED_GROUPS


def test_lineage_runs_through_the_gate():
    graph = defs.resolve_asset_graph()
    upstream = {
        key.to_user_string(): {p.to_user_string() for p in graph.get(key).parent_keys}
        for key in graph.get_all_asset_keys()
    }
    # the record documents (mendel.records.record_documents) are rendered from the loaded register: it comes first
    assert upstream["document_pages"] == {
        "esbirka_documents",
        "nsoud_documents",
        "nalus_documents",
        "nssoud_documents",
        "justice_documents",
        "cnb_documents",
        "board_documents",
        "ruian_records",
    }
    # The nightly job reads the board register, then crawls every board it registered.
    assert upstream["board_documents"] == {"board_registry"}
    nightly = defs.resolve_job_def("nightly").asset_layer.selected_asset_keys
    assert {AssetKey("board_registry"), AssetKey("board_documents")} <= nightly
    assert upstream["ruian_records"] == {"ruian_documents"}
    for gated in ("chunk_embeddings", "bm25_index"):
        assert upstream[gated] == {"legal_entities"}
    assert upstream["entity_graph"] == {"legal_entities", "query_entity_edges"}
    assert upstream["index_bundle"] == {"bm25_index", "faiss_index", "entity_graph"}


def test_ner_gate_is_blocking():
    checks = {spec.name: spec for spec in defs.resolve_assets_def(AssetKey("legal_entities")).check_specs}
    assert checks["ner_gold_precision_recall"].blocking


def test_nightly_schedule():
    schedule = defs.resolve_schedule_def("nightly_at_two")
    assert schedule.cron_schedule == "0 2 * * *"
    assert schedule.execution_timezone == "Europe/Prague"
    assert schedule.job_name == "nightly"
