"""Layers: a query about a whole act searches L1 (documents), one about a whole section L2 (sections), anything
else L3 (passages); a bundle without L1/L2 answers every query from L3. The bundles use the layout of
mendel.index.bundle (layers/L1, layers/L2 beside the top-level L3), built from the real test documents."""

from __future__ import annotations

import warnings

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from serving.ranking.layers import identifier_keys
from serving.ranking.search import Searcher
from serving.web.api import create_app
from tests.support.bundle import EMBEDDER, HOUSING_QUERY, base_docs, build_bundle

WHOLE_ACT = "O čem je zákon o podpoře bydlení?"
WHOLE_SECTION = "celý § 5 zákona č. 175/2025 Sb."


@pytest.fixture(scope="module")
def layered(tmp_path_factory, corpus):
    bundles_dir = tmp_path_factory.mktemp("layered")
    build_bundle(bundles_dir, base_docs(corpus), layers=True)
    return bundles_dir


@pytest.fixture(scope="module")
def flat(tmp_path_factory, corpus):
    bundles_dir = tmp_path_factory.mktemp("flat")
    build_bundle(bundles_dir, base_docs(corpus))
    return bundles_dir


def test_whole_act_searches_documents(layered):
    searcher = Searcher.latest(layered, embedder=EMBEDDER)
    details: dict = {}
    hits = searcher.search(WHOLE_ACT, k=3, details=details)
    assert details["scope"] == "act" and details["layer"] == 1
    assert all(h.layer == 1 for h in hits)
    assert hits[0].doc_id == "/eli/cz/sb/2025/175" and hits[0].page == 1
    assert len({h.doc_id for h in hits}) == len(hits)  # one chunk a document
    # the document chunk holds the document's text: every passage of it
    assert all(c["text"] in hits[0].text for c in searcher.chunks if c["doc_id"] == "/eli/cz/sb/2025/175")


def test_whole_section_searches_sections_with_the_provision_first(layered):
    searcher = Searcher.latest(layered, embedder=EMBEDDER)
    details: dict = {}
    hits = searcher.search(WHOLE_SECTION, k=3, details=details)
    assert details == {**details, "scope": "section", "layer": 2}
    assert hits[0].layer == 2 and hits[0].lists[0] == "reference"
    assert hits[0].doc_id == "/eli/cz/sb/2025/175" and hits[0].section.rsplit(" > ", 1)[-1] == "§ 5"
    passages = [c for c in searcher.chunks if c["doc_id"] == "/eli/cz/sb/2025/175" and c["section"] == hits[0].section]
    assert passages and all(c["text"] in hits[0].text for c in passages)


def test_other_queries_search_passages(layered):
    searcher = Searcher.latest(layered, embedder=EMBEDDER)
    details: dict = {}
    hits = searcher.search(HOUSING_QUERY, k=10, details=details)
    assert details["scope"] is None and details["layer"] == 3 and all(h.layer == 3 for h in hits)


def test_bundle_without_layers_answers_from_passages(flat):
    searcher = Searcher.latest(flat, embedder=EMBEDDER)
    for query in (WHOLE_ACT, WHOLE_SECTION):
        details: dict = {}
        hits = searcher.search(query, k=3, details=details)
        assert details["layer"] == 3 and hits and all(h.layer == 3 for h in hits)
        assert hits[0].doc_id == "/eli/cz/sb/2025/175"
    assert searcher.layer(1) is None and searcher.layer(2) is None


def test_filters_apply_to_the_layer_searched(layered):
    searcher = Searcher.latest(layered, embedder=EMBEDDER)
    hits = searcher.search(WHOLE_ACT, k=10, filters={"source": "nsoud"})
    assert hits and all(h.layer == 1 and h.source == "nsoud" for h in hits)
    assert searcher.search(WHOLE_ACT, k=10, filters={"act": "1/1900 Sb."}) == []


def test_api_reports_scope_and_layer(layered):
    client = TestClient(create_app(layered, embedder=EMBEDDER, reload_interval=0))
    body = client.get("/search", params={"q": WHOLE_ACT, "k": 2}).json()
    assert (body["scope"], body["layer"]) == ("act", 1) and all(r["layer"] == 1 for r in body["results"])
    body = client.get("/search", params={"q": HOUSING_QUERY, "k": 2}).json()
    assert (body["scope"], body["layer"]) == (None, 3)


def test_a_broken_layer_keeps_the_live_bundle(tmp_path, corpus):
    bundles_dir = tmp_path / "bundles"
    good = build_bundle(bundles_dir, base_docs(corpus), layers=True)
    client = TestClient(create_app(bundles_dir, embedder=EMBEDDER, reload_interval=0))
    assert client.get("/ready").json()["version"] == good.name
    broken = build_bundle(bundles_dir, base_docs(corpus), layers=True, drop=("layers/L1/bm25",))
    holder = client.app.state.holder
    assert holder.reload() is True  # still serving: the broken bundle failed to load, off the request path
    assert holder.searcher.path.name == good.name and broken.name in holder.failed
    assert client.get("/search", params={"q": WHOLE_ACT}).json()["layer"] == 1


@pytest.mark.parametrize(
    "citation, doc_id, expected",
    [
        (
            "7 Afs 41/2013-8",
            "ECLI:CZ:NSS:2013:7.AFS.41.2013.8",
            ["7 Afs 41/2013-8", "7 Afs 41/2013", "ECLI:CZ:NSS:2013:7.AFS.41.2013.8"],
        ),
        ("29 Cdo 1234/2019", "29 Cdo 1234/2019", ["29 Cdo 1234/2019", "29 CDO 1234/2019"]),
        ("573/2025 Sb.", "/eli/cz/sb/2025/573", ["573/2025 Sb.", "/ELI/CZ/SB/2025/573"]),
        (None, "kadan-notice-1", ["KADAN-NOTICE-1"]),
    ],
)
def test_a_decision_is_found_by_its_file_number_without_the_list_number(citation, doc_id, expected):
    assert identifier_keys(citation, doc_id) == expected
