"""Indexes grown by segments (mendel.index.segments, segment_bm25, segment_dense) answer exactly as one index rebuilt
whole over the same passages: the same rows in the same order, BM25 scores equal to the last bit (and to bm25s'),
the same nearest vectors with FAISS's own tie rules; a night writes only what changed, tombstones what it replaces,
merges by size; a publish hard-links what it already has.

The passages are a scale corpus (benchmarks/scale_corpus.py): real sentences of the sample corpus recombined."""

from __future__ import annotations

import json

import bm25s
import faiss
import numpy as np
import pytest

from benchmarks.scale_corpus import ScaleCorpus, real_sentences
from mendel.czech.analyzer import analyze
from mendel.index import bundle, dense, lexical, segment_bm25, segment_dense, segment_updates, segments
from serving.ranking.dense import nearest

DOCUMENTS = 120  # of 25 passages each


@pytest.fixture(scope="module")
def corpus() -> ScaleCorpus:
    return ScaleCorpus(DOCUMENTS * 25, real_sentences("decisions"), seed=3)


@pytest.fixture(scope="module")
def passages(corpus) -> dict:
    """Passage records, their vectors (with runs of equal vectors across documents: ties) and per document the
    digest a night compares."""
    records = list(corpus.records(3))
    vectors = corpus.vectors(3)
    for group in ((5, 6, 7, 2000, 2100, 2999), (30, 1500)):
        vectors[list(group)] = vectors[group[0]]
    return {
        "records": records,
        "vector": {r.chunk_id: vectors[i] for i, r in enumerate(records)},
        "documents": segments.group_by_document(records, lambda r: r.doc_id, lambda rows: rows[0].chunk_id),
    }


def grow(part_dir, kind, documents, passages, max_merge_rows=100_000, dense_kind="flat"):
    """One night of a part (``bm25`` or ``dense``, its segments' FAISS of ``dense_kind``) over ``documents``
    (doc_id -> DocumentRows of records)."""

    def write_new(doc_ids):
        chosen = [documents[d] for d in doc_ids]
        if kind == "bm25":
            rows = [
                segments.DocumentRows(
                    d.doc_id, d.digest, [(r.chunk_id, r.bundle_row(), r.context_text) for r in d.rows]
                )
                for d in chosen
            ]
            return segment_bm25.write_segment(part_dir, 3, rows, "test")
        rows = [segments.DocumentRows(d.doc_id, d.digest, [r.chunk_id for r in d.rows]) for d in chosen]
        matrix = np.stack([passages["vector"][cid] for r in rows for cid in r.rows])
        return segment_dense.write_segment(part_dir, 3, rows, matrix, dense_kind, 384)

    def merge(state, group):
        if kind == "bm25":
            return segment_bm25.merge_segments(part_dir, 3, state, group, "test")
        return segment_dense.merge_segments(part_dir, 3, state, group, dense_kind)

    current = {d: e.digest for d, e in documents.items()}
    return segment_updates.update_part(part_dir, current, write_new, merge, max_merge_rows)


def nights(root, kind, passages, monkeypatch) -> list[dict]:
    """A part grown over eight nights (an eighth of the documents each), then a night where some documents change
    and some go: small floor and merge factor, so merges happen."""
    monkeypatch.setattr(segment_updates, "FLOOR_ROWS", 200)
    every = passages["documents"]
    ids = sorted(every)
    reports = [grow(root, kind, {d: every[d] for d in ids[: len(ids) * k // 8]}, passages) for k in range(1, 9)]
    changed = dict(every)
    for d in ids[1:40:3]:
        changed[d] = segments.DocumentRows(d, "new", every[d].rows)
    for d in ids[50:53]:
        del changed[d]
    reports.append(grow(root, kind, changed, passages))
    return reports


def whole(root, kind, passages, drop=range(50, 53)) -> None:
    ids = sorted(passages["documents"])
    gone = {ids[i] for i in drop}
    grow(root, kind, {d: e for d, e in passages["documents"].items() if d not in gone}, passages)


def test_a_night_writes_what_changed_and_tombstones_what_it_replaces(tmp_path, passages, monkeypatch):
    reports = nights(tmp_path / "bm25", "bm25", passages, monkeypatch)
    per_night = len(passages["records"]) // 8
    assert [r["written_rows"] for r in reports[:8]] == [per_night] * 8
    assert reports[3]["merges"] >= 1  # four segments of one tier became one
    last = reports[-1]
    assert last["written_rows"] == 13 * 25 and last["deleted_rows"] == 16 * 25  # 13 changed; 3 more gone
    assert last["rows"] == len(passages["records"]) - 3 * 25
    again = grow(tmp_path / "bm25", "bm25", {}, passages)  # everything gone: every row deleted, no segment kept
    assert again["rows"] == 0 and again["segments"] == 0
    unchanged = grow(tmp_path / "bm25", "bm25", {}, passages)
    assert not unchanged["changed"] and unchanged["bytes_written"] == 0


def test_segmented_bm25_scores_every_row_as_a_whole_rebuild_and_as_bm25s(tmp_path, passages, monkeypatch):
    nights(tmp_path / "grown", "bm25", passages, monkeypatch)
    whole(tmp_path / "whole", "bm25", passages)
    grown, rebuilt = segments.LiveRows(tmp_path / "grown"), segments.LiveRows(tmp_path / "whole")
    assert len(grown.segments) > 1 and len(rebuilt.segments) == 1
    assert grown.chunk_ids() == rebuilt.chunk_ids()
    assert list(segment_bm25.layer_rows(tmp_path / "grown")) == list(segment_bm25.layer_rows(tmp_path / "whole"))
    texts = {r.chunk_id: r.context_text for r in passages["records"]}
    order = rebuilt.chunk_ids()
    lexical.write_bm25(tmp_path / "bm25s", order, [texts[c] for c in order])
    reference = bm25s.BM25.load(str(tmp_path / "bm25s" / "bm25"))
    scored = segment_bm25.SegmentedBM25(grown), segment_bm25.SegmentedBM25(rebuilt)
    monkeypatch.setattr(segment_bm25, "SCORE_BLOCK", 97)  # the postings read in many blocks, terms across two
    scored = (*scored, segment_bm25.SegmentedBM25(grown))
    assert set(scored[0].vocab_dict) == set(scored[1].vocab_dict) == set(reference.vocab_dict) - {""}
    assert scored[2].vocab_dict == scored[0].vocab_dict
    for query in ("soud rozhodl o dovolání", "náhrada škody žalobce", "odvolací soud", "§ 237 o. s. ř. dovolání"):
        tokens = [t for t in analyze(query) if t in reference.vocab_dict]
        want = reference.get_scores(tokens)
        assert want.max() > 0
        for index in scored:
            assert np.array_equal(index.get_scores(tokens), want), query
    terms = analyze("soud dovolání")  # document frequencies over live rows, as coverage reads them
    frequencies = [np.diff(index.scores["indptr"])[[index.vocab_dict[t] for t in terms]].tolist() for index in scored]
    assert frequencies[0] == frequencies[1] == frequencies[2] and min(frequencies[0]) > 0


@pytest.mark.parametrize(
    "query, n, allowed_share",
    [
        (5, 5, None),  # a vector six passages share: ties across segments
        (30, 50, None),
        (5, 50, 0.999),  # a few rows filtered out: the best n + excluded, less those
        (100, 50, 0.3),  # most filtered out: selecting ids
        ("random", 10, None),
        ("random", 50, 0.5),
    ],
)
def test_segmented_vectors_find_what_one_flat_index_finds(
    tmp_path_factory, passages, monkeypatch, query, n, allowed_share
):
    root = tmp_path_factory.mktemp("dense")
    nights(root / "grown", "dense", passages, monkeypatch)
    whole(root / "whole", "dense", passages)
    grown = segment_dense.SegmentedVectors(segments.LiveRows(root / "grown"))
    rebuilt = segment_dense.SegmentedVectors(segments.LiveRows(root / "whole"))
    order = segments.part_chunk_ids(root / "whole")
    flat = faiss.IndexFlatIP(384)
    flat.add(dense.normalized(np.stack([passages["vector"][c] for c in order])))
    rng = np.random.default_rng(n)
    if query == "random":
        vector = dense.normalized(rng.standard_normal((1, 384)).astype(np.float32))
    else:
        vector = dense.normalized(passages["vector"][passages["records"][query].chunk_id].reshape(1, -1))
    allowed = None if allowed_share is None else rng.random(len(order)) < allowed_share
    found = grown.nearest(vector, n, allowed)
    assert found == rebuilt.nearest(vector, n, allowed)  # rows and similarities
    assert found[0] == nearest(flat, vector, n, allowed)[0]  # FAISS's rows, in FAISS's order
    exact = dense.normalized(np.stack([passages["vector"][order[i]] for i in found[0]])).astype(np.float64)
    assert found[1] == (exact @ vector[0].astype(np.float64)).astype(np.float32).tolist()


# 1,500 passages; the 13 documents changed leave a fifth of the first night's rows tombstoned (over
# segment_updates.DELETED_SHARE the segment would be rewritten without them)
IVFPQ_DOCUMENTS = 60


@pytest.fixture(scope="module")
def ivfpq_grown(tmp_path_factory, passages):
    """An IVF-PQ layer over the first 60 documents grown over two nights, the second changing every third of the
    first 40 (built once: the training takes most of the time, the filters below only read it). The property does not
    depend on the layer's size; a smaller layer has a larger share of tombstoned rows among any query's nearest,
    so one that reached FAISS's answer would show. One OpenMP thread: on a busy 2-core machine two spin while
    they wait and train several times slower."""
    part = tmp_path_factory.mktemp("ivfpq")
    every = passages["documents"]
    kept = {d: every[d] for d in sorted(every)[:IVFPQ_DOCUMENTS]}
    threads = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    try:
        grow(part, "dense", kept, passages, dense_kind="ivfpq")
        changed = dict(kept)
        for d in sorted(kept)[1:40:3]:
            changed[d] = segments.DocumentRows(d, "new", kept[d].rows)
        grow(part, "dense", changed, passages, dense_kind="ivfpq")
    finally:
        faiss.omp_set_num_threads(threads)
    return {"part": part, "documents": kept}


@pytest.mark.parametrize("allowed_share", [None, 0.999, 0.5])
def test_ivfpq_segments_with_tombstones_answer_from_live_rows(ivfpq_grown, passages, allowed_share):
    """A layer from MENDEL_FAISS_IVFPQ_MIN up is IVF-PQ: its tombstones reach FAISS as IVF search parameters."""
    layer, kept = ivfpq_grown["part"], ivfpq_grown["documents"]
    vectors = segment_dense.SegmentedVectors(segments.LiveRows(layer))
    assert vectors.kinds == ["ivfpq"] and any(has_deleted for _, _, has_deleted in vectors.indexes)
    order = segments.part_chunk_ids(layer)
    changed = set(sorted(kept)[1:40:3])
    query = next(r for r in passages["records"] if r.doc_id in kept and r.doc_id not in changed)
    allowed = None if allowed_share is None else np.random.default_rng(7).random(len(order)) < allowed_share
    if allowed is not None:
        allowed[order.index(query.chunk_id)] = True
    rows, sims = vectors.nearest(dense.normalized(passages["vector"][query.chunk_id].reshape(1, -1)), 10, allowed)
    assert len(rows) == 10 and len(set(rows)) == 10 and sims == sorted(sims, reverse=True)
    assert min(rows) >= 0  # a tombstoned row has no serving row
    assert order.index(query.chunk_id) in rows  # a passage's own vector finds it
    assert allowed is None or all(allowed[r] for r in rows)


@pytest.mark.parametrize("kind", ["hnsw", "hnsw_fp16"])
@pytest.mark.parametrize("allowed_share", [0.05, 0.3])
def test_hnsw_segments_through_a_narrow_filter_answer_as_an_exact_search(tmp_path, passages, allowed_share, kind):
    """A filter letting few rows through is answered from those rows' stored vectors (float16 ones widened back),
    not the graph's walk."""
    grow(tmp_path, "dense", passages["documents"], passages, dense_kind=kind)
    vectors = segment_dense.SegmentedVectors(segments.LiveRows(tmp_path))
    assert vectors.kinds == [kind]
    for number in range(len(vectors.indexes)):
        vectors.indexes[number][0].hnsw.efSearch = 1  # a walk this narrow would miss the exact answer
    order = segments.part_chunk_ids(tmp_path)
    matrix = dense.normalized(np.stack([passages["vector"][c] for c in order]))
    matrix = (matrix.astype(np.float16) if kind == "hnsw_fp16" else matrix).astype(np.float64)
    rng = np.random.default_rng(3)
    allowed = rng.random(len(order)) < allowed_share
    for _ in range(10):
        vector = dense.normalized(rng.standard_normal((1, 384)).astype(np.float32))
        rows, sims = vectors.nearest(vector, 10, allowed)
        among = np.flatnonzero(allowed)
        scores = matrix[among] @ vector[0].astype(np.float64)
        # the same rows (lower ones kept among equal similarities; listed as FAISS lists equals, higher first)
        assert set(rows) == {int(among[i]) for i in np.lexsort((among, -scores))[:10]}
        assert sims == sorted(sims, reverse=True)


def test_a_float16_segment_keeps_its_float32_vectors_for_merges(tmp_path, passages):
    """A merge rewrites the vectors a segment was given, not their float16 copies: no rounding piles up."""
    grow(tmp_path, "dense", passages["documents"], passages, dense_kind="hnsw_fp16")
    for seg in segments.LiveRows(tmp_path).segments:
        given = dense.normalized(np.stack([passages["vector"][c] for c in seg.chunk_ids()]))
        assert np.array_equal(segment_dense.segment_vectors(seg), given)
        widened = segment_dense.SegmentedVectors(segments.LiveRows(tmp_path)).indexes[0][0].reconstruct(0)
        assert not np.array_equal(widened, given[0]) and np.abs(widened - given[0]).max() < 5e-4


@pytest.mark.parametrize(
    "live_rows, deleted, limit, merged",
    [
        ([100, 100, 100], [0, 0, 0], 10**6, []),  # fewer than MERGE_FACTOR in a tier
        ([100, 100, 100, 100], [0, 0, 0, 0], 10**6, [[0, 1, 2, 3]]),
        ([100, 100, 100, 100, 100], [0, 0, 0, 0, 0], 10**6, [[0, 1, 2, 3]]),
        ([100, 100, 100, 100], [0, 0, 0, 0], 399, []),  # the merge would write more than the limit
        ([10_000, 100], [5_000, 0], 10**6, [[0]]),  # half deleted: rewritten without them
        ([10_000, 100], [5_000, 0], 4_000, []),
        ([10_000, 900, 800, 700, 600], [0, 0, 0, 0, 0], 10**6, [[4, 3, 2, 1]]),
    ],
)
def test_merges_are_planned_by_size(monkeypatch, live_rows, deleted, limit, merged):
    monkeypatch.setattr(segment_updates, "FLOOR_ROWS", 1_000)
    plan = [
        segments.Segment(path=None, meta={"id": f"s{i}", "rows": rows + gone}, documents=[])
        for i, (rows, gone) in enumerate(zip(live_rows, deleted))
    ]
    state = segments.PartState(None, plan, {f"s{i}": np.arange(g) for i, g in enumerate(deleted) if g})
    got = [[int(s.id[1:]) for s in group] for group in segment_updates.plan_merges(state, limit)]
    assert got == merged


@pytest.mark.parametrize(
    "live_rows, stale, limit, merged, by_size",
    [
        ([10_000, 100], [True, False], 10**6, [[0]], []),  # built by old settings: rebuilt alone
        ([10_000, 100], [True, False], 4_000, [], []),  # ... unless that writes more than the limit (left to the day)
        ([100, 100, 100, 100], [False, True, False, False], 10**6, [[0, 1, 2, 3]], [[0, 1, 2, 3]]),  # with its tier
        ([10_000, 100], [False, False], 10**6, [], []),
    ],
)
def test_segments_built_by_old_settings_are_planned_for_a_rebuild(
    monkeypatch, live_rows, stale, limit, merged, by_size
):
    monkeypatch.setattr(segment_updates, "FLOOR_ROWS", 1_000)
    plan = [
        segments.Segment(path=None, meta={"id": f"s{i}", "rows": rows}, documents=[])
        for i, rows in enumerate(live_rows)
    ]
    state = segments.PartState(None, plan, {})
    old = {f"s{i}" for i, flag in enumerate(stale) if flag}

    def planned(outdated=None):
        return [[int(s.id[1:]) for s in group] for group in segment_updates.plan_merges(state, limit, outdated)]

    assert planned(lambda seg: seg.id in old) == merged
    assert planned() == by_size


def test_a_graph_built_narrower_is_rebuilt_by_the_day_merges_beside_the_published_one(tmp_path, passages, monkeypatch):
    """A graph segment built 40 wide (before the breadth was raised) is rebuilt from its own vectors by the
    merges outside the night, as another segment: the bundle published over the old one keeps its files."""
    from mendel.nightly import index_stage

    monkeypatch.setattr(dense, "HNSW_THRESHOLD", 1_000)  # the test's 3,000 rows are a graph's layer
    monkeypatch.setattr(segment_dense, "EXACT_MAX_ROWS", 100)
    build, bundles = tmp_path / "build", tmp_path / "bundles"
    monkeypatch.setattr(dense, "HNSW_EF_CONSTRUCTION", 40)
    grow(build / "dense", "dense", passages["documents"], passages, dense_kind="hnsw")
    monkeypatch.undo()
    monkeypatch.setattr(dense, "HNSW_THRESHOLD", 1_000)
    monkeypatch.setattr(segment_dense, "EXACT_MAX_ROWS", 100)
    (old,) = segments.PartState.read(build / "dense").segments
    assert segment_dense.outdated(old) and old.meta["recipe"].endswith("efConstruction=40")
    staging = bundle.staging_dir(bundles)
    segments.link_tree(build / "dense", staging / "dense")
    published = bundle.publish(staging, bundles, {})
    rows, vectors = old.chunk_ids(), segment_dense.segment_vectors(old)
    # a night merging at most fewer rows than the segment holds leaves it; the day's merges rebuild it
    grow(build / "dense", "dense", passages["documents"], passages, max_merge_rows=10, dense_kind="hnsw")
    assert [s.id for s in segments.PartState.read(build / "dense").segments] == [old.id]
    done = index_stage.merge_large(build)
    assert done["L3.dense"]["merges"] == 1
    (new,) = segments.PartState.read(build / "dense").segments
    assert new.id != old.id and not segment_dense.outdated(new)
    assert new.chunk_ids() == rows and np.array_equal(segment_dense.segment_vectors(new), vectors)
    assert faiss.read_index(str(new.path / segment_dense.FAISS_FILE)).hnsw.efConstruction == 200
    assert index_stage.merge_large(build)["L3.dense"]["merges"] == 0  # rebuilt once
    assert bundle.current_bundle(bundles, verify=True) == published  # its checksums hold: nothing rewritten in place
    linked = segments.PartState.read(published / "dense").segments[0]
    assert linked.id == old.id and faiss.read_index(str(linked.path / "dense.faiss")).hnsw.efConstruction == 40


def test_a_publish_links_the_built_segments_and_writes_only_its_own_files(tmp_path, passages):
    build, bundles = tmp_path / "build", tmp_path / "bundles"
    ids = sorted(passages["documents"])
    first = {d: passages["documents"][d] for d in ids[:100]}
    published = []
    for documents in (first, {**first, ids[100]: passages["documents"][ids[100]]}):
        grow(build / "bm25", "bm25", documents, passages)
        grow(build / "dense", "dense", documents, passages)
        staging = bundle.staging_dir(bundles)
        for part in ("bm25", "dense"):
            segments.link_tree(build / part, staging / part)
        (staging / "graph").mkdir()
        (staging / "graph" / "graph.json").write_text(json.dumps({"nodes": []}))
        report: dict = {}
        path = bundle.publish(staging, bundles, {"layers": bundle.check_layers(staging)}, report=report)
        own = sum((path / name).stat().st_size for name in ("graph/graph.json", bundle.MANIFEST))
        assert report["bytes_written"] == own and report["files_linked"] > 0
        published.append(path)
    kept = segments.PartState.read(published[0] / "bm25").segments[0]
    for name in kept.meta["files"]:  # the second bundle holds the first one's segment, not a copy of it
        again = published[1] / "bm25" / segments.SEGMENTS_DIR / kept.id / name
        assert again.stat().st_ino == (kept.path / name).stat().st_ino
    assert len(segments.PartState.read(published[1] / "bm25").segments) == 2
    assert bundle.current_bundle(bundles, verify=True) == published[1]  # every checksum, reused or not, holds
    assert [r["chunk_id"] for r in bundle.layer_rows(published[1], 3)] == segments.part_chunk_ids(
        published[1] / "dense"
    )


def test_the_merges_a_night_leaves_run_apart_and_change_no_answer(tmp_path, passages, monkeypatch):
    from mendel.nightly import index_stage

    monkeypatch.setattr(segment_updates, "FLOOR_ROWS", 200)
    every, build = passages["documents"], tmp_path / "build"
    ids = sorted(every)
    for k in range(1, 5):  # four nights that may not merge anything
        for part in ("bm25", "dense"):
            grow(build / part, part, {d: every[d] for d in ids[: len(ids) * k // 4]}, passages, max_merge_rows=10)
    before = segments.LiveRows(build / "bm25")
    scores = segment_bm25.SegmentedBM25(before).get_scores(analyze("soud dovolání"))
    rows = before.chunk_ids()
    assert len(before.segments) == 4
    done = index_stage.merge_large(build)
    assert done["L3.bm25"]["merges"] == done["L3.dense"]["merges"] == 1
    for part in ("bm25", "dense"):
        assert len(segments.PartState.read(build / part).segments) == 1
        assert segments.part_chunk_ids(build / part) == rows
    after = segment_bm25.SegmentedBM25(segments.LiveRows(build / "bm25")).get_scores(analyze("soud dovolání"))
    assert np.array_equal(after, scores)
    assert index_stage.merge_large(build)["L3.bm25"]["merges"] == 0


def _document_segment(part_dir, doc_ids: list[str]) -> segments.Segment:
    """A segment of one row per document (as the documents' metadata are stored), written in ``part_dir``."""
    seg_id = segments.segment_id("documents", 0, [(d, "x") for d in doc_ids])
    tmp = segments.begin_segment(part_dir, seg_id)
    return segments.finish_segment(tmp, {"id": seg_id}, [(d, "x", 1) for d in doc_ids], doc_ids)


def test_a_segment_is_read_once_per_process_until_another_is_written_in_its_place(tmp_path, monkeypatch):
    path = _document_segment(tmp_path, ["a", "b"])
    first = segments.Segment.open(path)
    parsed = []
    original = segments.json.loads
    monkeypatch.setattr(segments.json, "loads", lambda text, **kw: parsed.append(text) or original(text, **kw))
    assert segments.Segment.open(path) is first and parsed == []  # immutable: not read again
    # the same path, another segment (removed by a garbage collection and written anew with other documents)
    segments.shutil.rmtree(path)
    (tmp_path / "other").mkdir()
    other = _document_segment(tmp_path / "other", ["c"])
    segments.os.replace(other, path)
    again = segments.Segment.open(path)
    assert again is not first and [d for d, _, _ in again.documents] == ["c"] and parsed


@pytest.mark.parametrize(
    "change, live",
    [
        (lambda state: None, ["a", "b", "c"]),
        (lambda state: segments.tombstone(state, ["b"]), ["a", "c"]),  # the deleted rows are part of what is kept
        (lambda state: segments.tombstone(state, ["a", "c"]), ["b"]),
    ],
)
def test_the_live_documents_of_the_same_state_are_worked_out_once(tmp_path, monkeypatch, change, live):
    part = tmp_path / "part"
    state = segments.PartState(part, [segments.Segment.open(_document_segment(part, ["a", "b", "c"]))], {})
    state.write()
    assert sorted(segments.PartState.read(part).live_documents()) == ["a", "b", "c"]
    state = segments.PartState.read(part)
    change(state)
    found = state.live_documents()
    assert sorted(found) == live
    found.clear()  # the caller's copy
    monkeypatch.setattr(segments.Segment, "document_starts", lambda seg: pytest.fail("worked out again"))
    assert sorted(state.live_documents()) == live
    state.write()
    assert sorted(segments.PartState.read(part).live_documents()) == live  # its tombstones read back: the same
