"""The PostgreSQL backend answers as the bundle backend, hit by hit: one small bundle of real documents with its
document and section layers and a database holding the same chunks (``benchmarks.pg_bundle.load_bundle``), the
default search of both with every stage on (bridge, routed and governing acts and the governing act's part found by
its sections' headings, whole-act and whole-section questions in their layers, learned second stage, dedupe,
coverage block, relevance floor). A stage one backend drops shows here as a different hit, order or coverage
block."""

from __future__ import annotations

import re
import uuid

import psycopg
import pytest

from benchmarks.pg_bundle import load_bundle
from mendel.core import db
from serving.ranking.pg_lists import COMMON_PASSAGES
from serving.ranking.pg_search import PostgresSearcher
from serving.ranking.query_lists import COMMON_WORD_SHARE
from serving.ranking.search import Searcher
from tests.support.bundle import EMBEDDER, SMALL_BUNDLE_QUERIES, base_docs, build_bundle, load_corpus

pytestmark = pytest.mark.slow

# Real-text questions over the small bundle's documents (the dev questions are about the whole sample corpus):
# plain questions (routed and governed), exact references, decisions, words the collection lacks.
QUERIES = [
    *SMALL_BUNDLE_QUERIES,
    "podpora bydlení vyhovující bydlení",
    "jaké povinnosti má obec",
    "kdo má nárok na podporu bydlení",
    "§ 5 zákona č. 175/2025 Sb.",
    "§ 157 odst. 4 zákona č. 262/2006 Sb.",
    "sp. zn. 15 EXE 746/2026",
    "Nejvyšší soud zákon č. 175/2025 Sb.",
    "qxwz blorft vrmpl",
    "exekuce a náhrada nákladů řízení",
    "ústavní zákon a volby do Senátu",
    "prezdent republiky",  # typed without diacritics, a letter left out: retyped
    "uzavírka silnice 2025",  # a search for a kind of notice, naming a year
]
# Questions about a whole act (the document layer) or a whole section (the section layer), in real text.
LAYER_QUERIES = [
    "o čem je zákon o podpoře bydlení",
    "co upravuje zákon č. 175/2025 Sb.",
    "shrnutí vyhlášky o sazbě stravného",
    "celý § 5 zákona č. 175/2025 Sb.",
    "hlava II zákona o podpoře bydlení",
    "celé znění § 2 vyhlášky č. 573/2025 Sb.",
]


@pytest.fixture(scope="module")
def both(tmp_path_factory, pg_server_url):
    """The bundle and the database of the same passages, the documents in the order the database sorts them (the
    bundle's row order is the order a nightly's publish reads them in: doc_id, seq)."""
    url = db.create_database(pg_server_url, f"pgp_{uuid.uuid4().hex[:10]}")
    db.migrate(url)
    docs = base_docs(load_corpus())
    with psycopg.connect(url) as conn:
        order = [
            r[0] for r in conn.execute("SELECT unnest(%s::text[]) AS d ORDER BY d", ([d["doc_id"] for d in docs],))
        ]
    docs = sorted(docs, key=lambda d: order.index(d["doc_id"]))
    path = build_bundle(tmp_path_factory.mktemp("pgp") / "bundles", docs, layers=True)
    with psycopg.connect(url) as conn:
        load_bundle(conn, path)
    bundle_searcher = Searcher(path, embedder=EMBEDDER)
    postgres = PostgresSearcher(path, embedder=EMBEDDER, database_url=url)
    yield {"bundle": bundle_searcher, "postgres": postgres}
    postgres.close()
    bundle_searcher.close()


# The hashed bag-of-words test embedder gives many passages of this 26-passage bundle the same similarity (0: no
# shared word), and the flat FAISS index returns such exact ties in its heap's order, HNSW in its graph's: the tail
# of a ten-hit answer can hinge on them. A real embedding model has no such ties; the best six hits here never do.
HITS = 6


def answer(searcher, query: str, **options) -> dict:
    result = searcher.search_with_coverage(query, k=HITS, **options)
    return {
        "hits": [(h.doc_id, h.chunk_id, h.lists, h.entities) for h in result.hits],
        "weak": result.weak,
        "coverage": {
            key: result.coverage.get(key)
            for key in ("named", "missing", "all_missing", "empty", "notice_kind", "places_first", "years_first")
        },
        "lexical": result.coverage["confidence"]["lexical"],
    }


def test_rows_are_the_bundles(both):
    assert [both["postgres"].chunks[i]["chunk_id"] for i in range(len(both["bundle"].chunks))] == [
        c["chunk_id"] for c in both["bundle"].chunks
    ]


def test_the_passages_frequencies_and_common_words_are_the_bundles(both):
    keys = sorted(both["bundle"].vocabulary.part_keys())
    frequency, total = both["bundle"].passage_frequencies(keys), both["bundle"].passage_count()
    assert both["postgres"].passage_frequencies(keys) == frequency
    assert both["postgres"].passage_count() == total == len(both["bundle"].chunks) and any(frequency.values())
    # from the load's threshold up the database reads no postings: its load-time counts are the bundle's there
    counted = both["postgres"].passage_frequencies(keys, least=COMMON_PASSAGES)
    assert {k: n for k, n in counted.items() if n} == {k: n for k, n in frequency.items() if n >= COMMON_PASSAGES}
    assert both["postgres"].common_words == both["bundle"].common_words
    assert all(frequency[key] > COMMON_WORD_SHARE * total for key in both["bundle"].common_words)


@pytest.mark.parametrize("query", QUERIES + LAYER_QUERIES)
def test_same_answer_hit_by_hit(both, query):
    assert answer(both["postgres"], query) == answer(both["bundle"], query)


def test_both_read_a_search_for_a_kind_of_notice_alike(both):
    """A keyword search naming a kind of notice gets no acts' lists on either backend, and both say so."""
    for searcher in both.values():
        result = searcher.search_with_coverage("uzavírka silnice 2025", k=HITS)
        assert result.coverage["notice_kind"]["id"] == "traffic"
        assert not any({"acts_bm25", "acts_dense", "wordings"} & set(hit.lists) for hit in result.hits)


def test_both_read_a_file_number_in_the_passages_text_alike(both):
    """The coverage block's test of a file number the recogniser did not link reads passages' text on both."""
    written = next(
        m.group(0) for c in both["bundle"].chunks for m in re.finditer(r"\b\d+ [A-Z][A-Za-z]* \d+/\d{4}\b", c["text"])
    )
    term = written.rsplit(" ", 1)[1]
    for searcher in both.values():
        collection = searcher._assessor.collection()
        assert collection.names_in_text(written, term), written
        assert not collection.names_in_text(f"99 XYZ {term}", term)  # its number inside no such file number


@pytest.mark.parametrize("number", [1, 2])
def test_upper_layers_are_the_bundles(both, number):
    postgres, bundle_layer = both["postgres"].layer(number), both["bundle"].layer(number)
    assert len(postgres.chunks) == len(bundle_layer.chunks) > 0
    assert [postgres.chunks[i]["chunk_id"] for i in range(len(postgres.chunks))] == [
        c["chunk_id"] for c in bundle_layer.chunks
    ]


@pytest.mark.parametrize("query", LAYER_QUERIES)
def test_layer_questions_search_their_layer(both, query):
    """Each whole-act or whole-section question is answered from the layer its scope asks for, on both."""
    layers = {}
    for name, searcher in both.items():
        details: dict = {}
        hits = searcher.search(query, k=HITS, details=details)
        layers[name] = (details["layer"], {h.layer for h in hits})
    assert layers["postgres"] == layers["bundle"]
    assert layers["bundle"][0] in (1, 2) and layers["bundle"][1] == {layers["bundle"][0]}


def test_each_stage_changes_some_answer(both):
    """The comparison above can fail for a stage: with it off on one backend alone, some answer differs."""
    bundle_searcher = both["bundle"]
    for stage in ({"learned": False}, {"bridge": False}, {"decompose": False}, {"retype": False}):
        changed = [q for q in QUERIES if answer(bundle_searcher, q, **stage) != answer(both["postgres"], q)]
        assert changed, stage


# Plain questions governed by an act of the bundle whose part is found by its sections' headings (layer 2).
# questions whose governing act's part the section headings find in this corpus (the travel-allowance decree's
# headings hold only words of its own title, which count for nothing)
PART_QUERIES = ["zranitelnost osoby při podpoře bydlení", "podpora bydlení vyhovující bydlení"]


@pytest.mark.parametrize("query", PART_QUERIES)
def test_governing_part_by_headings(both, query):
    """The governing act's part (``QueryLists.heading_part`` over the section layer) is the same passages on both."""
    from serving.query.analyze import understand

    parts = []
    for searcher in (both["bundle"], both["postgres"]):
        found = understand(query, searcher.lexicon)
        ranked = searcher.rank(query, understanding=found, governing=searcher.governing(found))
        parts.append([searcher.chunks[i]["chunk_id"] for i in sorted(ranked.signals.part)])
    assert parts[0] == parts[1] != []


def test_dropping_the_layers_changes_answers(both):
    """With its document and section layers dropped (what the database backend did before it searched them), the
    postgres backend answers every layer question and the questions whose governing part the section headings find
    otherwise than the bundle."""
    postgres = both["postgres"]
    kept = dict(postgres._upper)
    try:
        postgres._upper.update({1: None, 2: None})
        changed = [q for q in LAYER_QUERIES + PART_QUERIES if answer(postgres, q) != answer(both["bundle"], q)]
    finally:
        postgres._upper.update(kept)
    assert changed == LAYER_QUERIES + PART_QUERIES
