"""BM25 over the stored postings ranks and scores as the bundle's bm25s index, bit for bit: the best n of a query
(a term as often as it is typed, the expansion's terms weighted), among a mask or not, and the floor's lexical
signal -- also when every term is taken for a common one, so that the MaxScore cut (common terms read only until
the unread ones cannot reach the n-th best, then looked up for the candidates left) decides what is read. The same
for the document and section layers (``layer_postings``) against the bundle's ``layers/L1`` and ``layers/L2``."""

from __future__ import annotations

import uuid

import numpy as np
import psycopg
import pytest

from benchmarks.pg_bundle import load_bundle
from mendel.core import db
from serving.ranking.pg_lexical import BM25Postings, PostingsTable
from serving.ranking.pg_search import PostgresSearcher
from serving.ranking.pg_sql import BM25_B, BM25_K1
from serving.ranking.search import Searcher
from tests.support.bundle import EMBEDDER, SMALL_BUNDLE_QUERIES, build_bundle, load_corpus

pytestmark = pytest.mark.slow

QUERIES = [
    *SMALL_BUNDLE_QUERIES,
    "podpora bydlení bydlení bydlení",  # a term typed three times counts three times
    "zákon o podpoře bydlení a obec",
    "soud dovolání rozsudek odvolací soud",
    "§ 5 odst. 1 zákona č. 175/2025 Sb.",
    "zbraně a střelivo",
    "qxwz bydlení",  # a term no passage holds counts nothing
]
EXPANSIONS = ["", "bytová nouze podpora zákon", "dovolání soud"]
SIZES = [1, 3, 10, 50]
UPPER = [1, 2]  # the document and section layers


class CountedPostings(BM25Postings):
    """Postings that count how often candidates' postings were looked up (the cut at work)."""

    lookups = 0

    def over(self, conn, terms, rows, frequency):
        CountedPostings.lookups += 1
        return super().over(conn, terms, rows, frequency)


@pytest.fixture(scope="module")
def both(tmp_path_factory, pg_server_url):
    """The bundle and a database of the same passages (every document of the small real corpus); a second
    postgres searcher whose postings take every term for a common one and keep none."""
    url = db.create_database(pg_server_url, f"pgl_{uuid.uuid4().hex[:10]}")
    db.migrate(url)
    docs = load_corpus()
    with psycopg.connect(url) as conn:
        order = [
            r[0] for r in conn.execute("SELECT unnest(%s::text[]) AS d ORDER BY d", ([d["doc_id"] for d in docs],))
        ]
    path = build_bundle(
        tmp_path_factory.mktemp("pgl") / "bundles", sorted(docs, key=lambda d: order.index(d["doc_id"])), layers=True
    )
    with psycopg.connect(url) as conn:
        load_bundle(conn, path)
    bundle_searcher = Searcher(path, embedder=EMBEDDER)
    postgres = PostgresSearcher(path, embedder=EMBEDDER, database_url=url)
    cut = PostgresSearcher(path, embedder=EMBEDDER, database_url=url)
    with cut.connection() as conn:
        every_term = dict(conn.execute("SELECT term, count(*) FROM chunk_postings GROUP BY term").fetchall())
    cut.bm25 = CountedPostings(cut.passages, every_term, BM25_K1, BM25_B, kept=0)  # every query read afresh
    for number in UPPER:
        with cut.connection() as conn:
            every_term = dict(
                conn.execute("SELECT term, count(*) FROM layer_postings WHERE layer = %s GROUP BY term", (number,))
            )
        layer = cut.layer(number)
        layer.postings = CountedPostings(
            layer, every_term, BM25_K1, BM25_B, kept=0, table=PostingsTable.of_layer(number)
        )
    yield {"bundle": bundle_searcher, "postgres": postgres, "cut": cut}
    for searcher in (postgres, cut, bundle_searcher):
        searcher.close()


def masks(size: int) -> dict[str, np.ndarray | None]:
    rows = np.arange(size)
    return {"all": None, "every other row": rows % 2 == 0, "the last third": rows >= 2 * size // 3}


@pytest.mark.parametrize("backend", ["postgres", "cut"])
@pytest.mark.parametrize("query", QUERIES)
def test_the_best_n_are_the_bundles_with_its_scores(both, backend, query):
    bundle_searcher, postgres = both["bundle"], both[backend]
    for expansion in EXPANSIONS:
        for name, allowed in masks(len(bundle_searcher.chunks)).items():
            for n in SIZES:
                expected = bundle_searcher.bm25_scored(query, n, allowed, None, expansion)
                found = postgres.bm25_scored(query, n, allowed, None, expansion)
                assert found == expected, (expansion, name, n)


@pytest.mark.parametrize("query", QUERIES)
def test_the_floors_lexical_signal_is_the_bundles(both, query):
    bundle_searcher = both["bundle"]
    for name, allowed in masks(len(bundle_searcher.chunks)).items():
        expected = bundle_searcher._assessor.lexical_signal(bundle_searcher.passages, query, allowed)
        for backend in ("postgres", "cut"):
            assert both[backend]._assessor.lexical_signal(None, query, allowed) == expected, (backend, name)


def test_the_cut_looked_up_candidates(both):
    """The comparisons above went through the cut: some answers were found with the common terms looked up for the
    candidates left rather than read whole."""
    CountedPostings.lookups = 0
    for query in QUERIES:
        both["cut"].bm25_scored(query, 3)
    assert CountedPostings.lookups > 0


@pytest.mark.parametrize("backend", ["postgres", "cut"])
@pytest.mark.parametrize("number", UPPER)
def test_an_upper_layers_best_n_are_the_bundles(both, backend, number):
    bundle_layer, postgres = both["bundle"].layer(number), both[backend]
    layer = postgres.layer(number)
    CountedPostings.lookups = 0
    for query in QUERIES:
        for expansion in EXPANSIONS:
            for name, allowed in masks(len(bundle_layer.chunks)).items():
                for n in SIZES:
                    expected = both["bundle"].bm25_scored(query, n, allowed, bundle_layer, expansion)
                    found = postgres.bm25_scored(query, n, allowed, layer, expansion)
                    assert found == expected, (query, expansion, name, n)
    assert (CountedPostings.lookups > 0) == (backend == "cut")  # the cut was at work in the layer


@pytest.mark.parametrize("number", UPPER)
def test_an_upper_layers_lexical_signal_is_the_bundles(both, number):
    bundle_searcher, bundle_layer = both["bundle"], both["bundle"].layer(number)
    for query in QUERIES:
        for name, allowed in masks(len(bundle_layer.chunks)).items():
            expected = bundle_searcher._assessor.lexical_signal(bundle_layer, query, allowed)
            for backend in ("postgres", "cut"):
                found = both[backend]._assessor.lexical_signal(both[backend].layer(number), query, allowed)
                assert found == expected, (query, backend, name)
