"""Every index stage from chunks to the published bundle on real documents, then again: unchanged documents cost
nothing, a changed one replaces its chunks, vectors, postings and graph contributions (a new segment, its old rows
tombstoned, the other segments' files shared with the previous bundle), a withdrawn one is removed everywhere. Also
the contextual / raw split and FAISS-vs-pgvector agreement per layer."""

from __future__ import annotations

import hashlib
import json
import shutil
import socket

import numpy as np
import psycopg
import pytest

from mendel.index import bundle, change_marks, segment_updates, segments
from mendel.index.corpus import layer_digests
from mendel.index.pgvector import search_pgvector
from mendel.index.segment_dense import SegmentedVectors
from mendel.nightly import index_stage
from serving.ranking.search import Searcher
from tests.support.index import RecordingEmbedder, add_document, law_pages, ns_decisions, run_index

LAW = (
    "/eli/cz/sb/2025/176",
    "176/2025 Sb.",
    "Zákon, kterým se mění zákon č. 99/1963 Sb., občanský soudní řád, ve znění pozdějších předpisů, a zákon "
    "č. 549/1991 Sb., o soudních poplatcích, ve znění pozdějších předpisů",
)
DECISION_CHARS = 3000


@pytest.fixture(scope="module")
def sources() -> dict:
    return {"law": law_pages("176-2025", 3), "decisions": ns_decisions()[:2]}


@pytest.fixture
def indexed(fresh_db, tmp_path, sources):
    """Three real documents indexed once: an act and two Nejvyšší soud decisions."""
    conn = psycopg.connect(fresh_db, autocommit=True)
    add_document(conn, LAW[0], sources["law"], title=LAW[2], source="esbirka", doc_type="law", citation=LAW[1])
    for r in sources["decisions"]:
        add_document(conn, r["ecli"], [r["full_text"][:DECISION_CHARS]], title=r["title"], citation=r["case_number"])
    embedder = RecordingEmbedder()
    first = run_index(conn, tmp_path, embedder)
    yield {"conn": conn, "home": tmp_path, "embedder": embedder, "first": first, "sources": sources}
    conn.close()


def current_bundle(home) -> dict:
    """Every layer's chunk table and index ids, the documents and the graph of the live bundle."""
    path = bundle.current_bundle(home / "bundles", verify=True)
    layers = {}
    for layer in (1, 2, 3):
        root = bundle.layer_path(path, layer)
        layers[layer] = {
            "chunks": list(bundle.layer_rows(path, layer)),
            "bm25": segments.part_chunk_ids(root / "bm25"),
            "dense": segments.part_chunk_ids(root / "dense"),
            "ntotal": SegmentedVectors(segments.LiveRows(root / "dense")).ntotal,
        }
    return {
        "path": path,
        "layers": layers,
        "manifest": bundle.read_manifest(path),
        "documents": bundle.read_documents(path),
        "graph": json.loads((path / "graph" / "graph.json").read_text()),
    }


def graph_entities_of(conn, doc_id: str) -> set[str]:
    return {
        e
        for (e,) in conn.execute(
            "SELECT DISTINCT m.entity_id FROM mentions m JOIN chunks c USING (chunk_id)"
            " JOIN documents d ON d.doc_id = c.doc_id AND d.current_version_id = c.version_id"
            " JOIN entities e ON e.entity_id = m.entity_id"
            " WHERE c.doc_id = %s AND e.label IN ('LAW_REF', 'DECISION_REF', 'INSTITUTION')",
            (doc_id,),
        )
    }


def test_bundle_layers_and_the_context_raw_split(indexed):
    conn, embedder = indexed["conn"], indexed["embedder"]
    live = current_bundle(indexed["home"])
    for layer, part in live["layers"].items():
        ids = [c["chunk_id"] for c in part["chunks"]]
        assert ids and part["bm25"] == ids and part["dense"] == ids and part["ntotal"] == len(ids)
        assert all(c["layer"] == layer for c in part["chunks"])
        assert live["manifest"]["layers"][str(layer)]["chunks"] == len(ids)
    l1, l2, l3 = (live["layers"][n]["chunks"] for n in (1, 2, 3))
    assert len(l1) == 3 and len(l2) < len(l3)
    by_id = {c["chunk_id"]: c for c in l1 + l2}
    for passage in l3:  # parents one layer up, enclosing offsets
        section = by_id[passage["parent_id"]]
        document = by_id[section["parent_id"]]
        assert section["char_start"] <= passage["char_start"] < passage["char_end"] <= section["char_end"]
        assert document["char_start"] <= section["char_start"] and section["char_end"] <= document["char_end"]
        assert passage["doc_id"] == section["doc_id"] == document["doc_id"]
    summaries = {d["doc_id"]: d["summary"] for d in live["documents"]}
    assert all(0 < len(s) <= 150 for s in summaries.values())

    # Stored and returned: the raw chunk, exactly as in the database and the page text.
    raw = dict(conn.execute("SELECT chunk_id, text FROM chunks WHERE layer = 3").fetchall())
    assert all(c["text"] == raw[c["chunk_id"]] for c in l3)
    summary = summaries[LAW[0]]

    def holds_summary(passage: dict) -> bool:
        return " ".join(summary.rstrip("…").split()) in " ".join(passage["text"].split())

    law_passages = [c for c in l3 if c["doc_id"] == LAW[0] and c["section"]]
    law_passage = next(c for c in law_passages if not holds_summary(c))
    # Embedded: citation, title, section path and document summary, then the chunk.
    expected = f"{LAW[1]} — {LAW[2]} — {law_passage['section']}\n{summary}\n{law_passage['text']}"
    assert expected in embedder.embedded and law_passage["text"] not in embedder.embedded
    # ... less the summary where the passage already holds it (the act's opening)
    for holder in filter(holds_summary, law_passages):
        assert f"{LAW[1]} — {LAW[2]} — {holder['section']}\n{holder['text']}" in embedder.embedded
    # Indexed: a word found only in the title and summary of the act finds its passages through BM25.
    searcher = Searcher.latest(indexed["home"] / "bundles", embedder=embedder)
    only_in_context = "poplatcích"
    hits = searcher.bm25_ranking(only_in_context)
    assert hits and {searcher.chunks[i]["doc_id"] for i in hits} == {LAW[0]}
    assert any(only_in_context not in searcher.chunks[i]["text"] for i in hits)
    top = searcher.search("adresa pro doručování nájemce při vyklizení bytu", k=3)
    assert top and top[0].doc_id == LAW[0] and top[0].text == raw[top[0].chunk_id]


def bundle_stats(path) -> dict:
    """The bundle's directory and every file in it with its stat as the doctor remembers them (size, mtime, ctime,
    inode: mendel.checks.doctor.check_bundle)."""
    return {
        str(p.relative_to(path)): (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
        for p in [path, *sorted(path.rglob("*"))]
        if (p == path or p.is_file()) and (st := p.stat())
    }


def test_unchanged_documents_cost_nothing(indexed, monkeypatch):
    conn, home, embedder = indexed["conn"], indexed["home"], indexed["embedder"]
    before = bundle.current_version(home / "bundles")
    files = bundle_stats(home / "bundles" / before)
    calls = len(embedder.embedded)
    # the live bundle is the built parts' files: it was checked when published and is not staged again
    monkeypatch.setattr(bundle, "check_layers", lambda staging: pytest.fail(f"{staging} checked again"))
    abandoned = home / "bundles" / f".staging-{socket.gethostname()}.999999999-x"  # a killed publisher's
    abandoned.mkdir()
    again = run_index(conn, home, embedder)
    assert not abandoned.exists()  # swept all the same
    assert again["chunks"]["versions"] == 0 and again["ner"]["chunks"] == 0
    assert again["embed"]["chunks"] == again["embed"]["sections"] == again["embed"]["documents"] == 0
    assert len(embedder.embedded) == calls
    assert again["bm25"]["rebuilt"] == again["faiss"]["rebuilt"] == "none" and not again["graph"]["rebuilt"]
    assert again["bundle"]["published"] is False and bundle.current_version(home / "bundles") == before
    assert (again["bundle"]["chunks"], again["bundle"]["files_linked"]) == (indexed["first"]["bundle"]["chunks"], 0)
    # nothing linked and unlinked: every file keeps its ctime, so the doctor's remembered verdict on the bundle holds
    assert bundle_stats(home / "bundles" / before) == files


def test_a_changed_document_replaces_its_chunks_vectors_postings_and_graph(indexed):
    conn, home, embedder = indexed["conn"], indexed["home"], indexed["embedder"]
    changed = indexed["sources"]["decisions"][1]
    doc_id = changed["ecli"]
    old = current_bundle(home)
    old_ids = {n: {c["chunk_id"] for c in old["layers"][n]["chunks"] if c["doc_id"] == doc_id} for n in (1, 2, 3)}
    kept_ids = {c["chunk_id"] for c in old["layers"][3]["chunks"] if c["doc_id"] != doc_id}
    old_entities = graph_entities_of(conn, doc_id)
    elsewhere = set().union(*(graph_entities_of(conn, d["doc_id"]) for d in old["documents"] if d["doc_id"] != doc_id))
    calls = len(embedder.embedded)

    # A new version: the real decision text, now cut shorter (its tail and the entities there are gone).
    add_document(conn, doc_id, [changed["full_text"][:1200]], title=changed["title"], citation=changed["case_number"])
    stats = run_index(conn, home, embedder)
    new = current_bundle(home)
    new_ids = {n: {c["chunk_id"] for c in new["layers"][n]["chunks"] if c["doc_id"] == doc_id} for n in (1, 2, 3)}
    assert stats["chunks"]["versions"] == 1 and stats["chunks"]["superseded_chunks_removed"] > 0
    for layer in (1, 2, 3):
        assert new_ids[layer] and not new_ids[layer] & old_ids[layer]
        part = new["layers"][layer]
        assert part["bm25"] == part["dense"] == [c["chunk_id"] for c in part["chunks"]]
    # Only the changed document's passages needed vectors (a passage whose contextual text is unchanged comes
    # from the cache); the other documents kept their chunks and vectors.
    assert stats["embed"]["chunks"] == len(new_ids[3])
    assert (
        len(embedder.embedded) - calls == stats["embed"]["embedded"] == len(new_ids[3]) - stats["embed"]["cache_hits"]
    )
    assert kept_ids == {c["chunk_id"] for c in new["layers"][3]["chunks"] if c["doc_id"] != doc_id}
    assert stats["faiss"]["rebuilt"] == "L3,L2,L1" and stats["graph"]["documents_updated"] == 1
    # Segments: the night wrote the changed document alone and tombstoned its old rows; the first segment's
    # files are the previous bundle's, hard-linked, not written again.
    for part, stage in (("bm25", "bm25"), ("dense", "faiss")):
        assert stats[stage]["written_rows"] == len(new_ids[3]) and stats[stage]["deleted_rows"] == len(old_ids[3])
        assert stats[stage]["segments"] == 2
        first = segments.PartState.read(old["path"] / part).segments[0]
        kept = new["path"] / part / segments.SEGMENTS_DIR / first.id
        assert all((kept / f).stat().st_ino == (first.path / f).stat().st_ino for f in first.meta["files"])
    assert (
        0 < stats["bundle"]["bytes_written"] < sum(p.stat().st_size for p in new["path"].rglob("*") if p.is_file())
    )  # Graph: the entities only the dropped tail supported are gone; the rest stay.
    dropped = old_entities - graph_entities_of(conn, doc_id) - elsewhere
    assert dropped, "the shortened text should lose at least one entity of its own"
    nodes = {n["id"] for n in new["graph"]["nodes"]}
    assert not dropped & nodes and (old_entities - dropped) <= nodes
    assert not set(new["graph"]["chunk_entities"]) & old_ids[3]
    assert (
        conn.execute(
            "SELECT count(*) FROM chunks WHERE chunk_id = ANY(%s)", (list(old_ids[1] | old_ids[2] | old_ids[3]),)
        ).fetchone()[0]
        == 0
    )


def test_a_withdrawn_document_is_removed_everywhere(indexed):
    conn, home, embedder = indexed["conn"], indexed["home"], indexed["embedder"]
    gone = indexed["sources"]["decisions"][0]["ecli"]
    own = graph_entities_of(conn, gone)
    others = graph_entities_of(conn, indexed["sources"]["decisions"][1]["ecli"]) | graph_entities_of(conn, LAW[0])
    shared, alone = own & others, own - others
    assert shared and alone
    before = {n["id"]: n["chunks"] for n in current_bundle(home)["graph"]["nodes"]}

    conn.execute("UPDATE documents SET status = 'withdrawn' WHERE doc_id = %s", (gone,))
    stats = run_index(conn, home, embedder)
    live = current_bundle(home)
    assert stats["embed"]["embedded"] == 0 and stats["graph"]["documents_removed"] == 1
    assert gone not in {d["doc_id"] for d in live["documents"]}
    for part in live["layers"].values():
        assert gone not in {c["doc_id"] for c in part["chunks"]}
        assert part["bm25"] == part["dense"] == [c["chunk_id"] for c in part["chunks"]]
        assert part["ntotal"] == len(part["chunks"])
    nodes = {n["id"]: n["chunks"] for n in live["graph"]["nodes"]}
    assert not alone & set(nodes)  # supported by nothing else: gone
    assert shared <= set(nodes)  # still supported by another document: stays, weaker
    assert any(nodes[e] < before[e] for e in shared)
    assert conn.execute("SELECT count(*) FROM chunks WHERE doc_id = %s", (gone,)).fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM graph_contributions WHERE doc_id = %s", (gone,)).fetchone()[0] == 0


def test_faiss_and_pgvector_agree_on_every_layer(indexed):
    conn, embedder = indexed["conn"], indexed["embedder"]
    path = bundle.current_bundle(indexed["home"] / "bundles")
    query = embedder.query("exekuce místní příslušnost soud povinný").reshape(1, -1)
    for layer in (1, 2, 3):
        root = bundle.layer_path(path, layer)
        index = SegmentedVectors(segments.LiveRows(root / "dense"))
        ids = segments.part_chunk_ids(root / "dense")
        k = min(3, len(ids))
        scores, rows = index.search(query.astype(np.float32), k)
        hits = search_pgvector(conn, query[0], k, layer=layer, current_only=True, ef_search=100)
        assert [cid for cid, _ in hits] == [ids[i] for i in rows[0]]
        assert [s for _, s in hits] == pytest.approx(scores[0].tolist(), abs=1e-5)


def test_a_part_left_half_built_is_never_published(indexed):
    from mendel.nightly import index_stage, publish_stage

    conn, home = indexed["conn"], indexed["home"]
    before = bundle.current_version(home / "bundles")
    (home / "build" / "graph" / "graph.json").unlink()  # a graph build killed before it wrote the file
    with pytest.raises(bundle.BundleError, match="graph"):
        publish_stage.publish_bundle(conn, home / "build", home / "bundles", model=indexed["embedder"].name)
    index_stage.build_graph(conn, home / "build" / "graph")
    # an index over other chunks: the L2 vectors lose a document the L2 chunk table still holds
    state = segments.PartState.read(home / "build" / "layers" / "L2" / "dense")
    segments.tombstone(state, [LAW[0]])
    state.write()
    with pytest.raises(bundle.BundleError, match="layer 2"):
        publish_stage.publish_bundle(conn, home / "build", home / "bundles", model=indexed["embedder"].name)
    assert bundle.current_version(home / "bundles") == before
    assert not [p for p in (home / "bundles").iterdir() if p.name.startswith(".staging-")]


def test_the_layer_check_reads_each_part_once(indexed, monkeypatch):
    live = bundle.current_bundle(indexed["home"] / "bundles")
    read = []
    original = segments.part_chunk_ids
    monkeypatch.setattr(segments, "part_chunk_ids", lambda part: read.append(part) or original(part))
    layers = bundle.check_layers(live)
    parts = [bundle.part_path(live, part, layer) for layer in (1, 2, 3) for part in bundle.LAYER_PARTS]
    assert sorted(read) == sorted(parts)  # BM25's segments hold the chunk table: read once for both
    assert {n: layers[str(n)]["chunks"] for n in (1, 2, 3)} == {
        n: len(original(bundle.part_path(live, bundle.DENSE_PART, n))) for n in (1, 2, 3)
    }


def test_lexemes_are_written_again_only_where_the_contextual_text_changed(indexed):
    from mendel.index import fulltext

    conn = indexed["conn"]
    passages = conn.execute("SELECT count(*) FROM chunks WHERE layer = 3").fetchone()[0]
    first = fulltext.fill_lexemes(conn)
    assert first["lexemes_written"] == passages
    # the database's lexemes_hash of each contextual text is Python's: nothing is pending any more but the
    # documents whose section paths load_layer widens with headings, or whose heading paths may change (acts with
    # a provision tree), which are always looked at again
    from mendel.index.corpus import load_layer

    stored = dict(conn.execute("SELECT chunk_id, section_path FROM chunks WHERE layer = 3"))
    widened = {r.doc_id for r in load_layer(conn, 3) if r.section != stored[r.chunk_id]}
    always = widened | {d for (d,) in conn.execute("SELECT DISTINCT doc_id FROM provisions")}
    assert widened, "the fixture has an act whose section paths carry headings"
    assert {d for (d,) in conn.execute(fulltext._PENDING_DOCUMENTS)} == always
    quiet = fulltext.fill_lexemes(conn)
    assert quiet["lexemes_written"] == 0
    # the fill reads the documents marked changed since it last ran (an act's tree changing marks it: 0040), not
    # the widened ones or the acts again
    assert quiet["lexemes_documents_read"] == 0
    decision = indexed["sources"]["decisions"][0]["ecli"]
    conn.execute("UPDATE documents SET title = title || ' (opraveno)' WHERE doc_id = %s", (decision,))
    assert {d for (d,) in conn.execute(fulltext._PENDING_DOCUMENTS)} == always | {decision}
    own = conn.execute("SELECT count(*) FROM chunks WHERE layer = 3 AND doc_id = %s", (decision,)).fetchone()[0]
    again = fulltext.fill_lexemes(conn)
    assert again["lexemes_written"] == own and again["lexemes_kept"] == passages - own


# What the search asks of the layers: plain questions, a reference, a whole act (L1), a source filter.
SAME_ANSWER_QUERIES = [
    ("adresa pro doručování nájemce při vyklizení bytu", {}),
    ("exekuce místní příslušnost soud povinný", {}),
    ("dovolání přípustnost", {"source": "nsoud"}),
    ("soudní poplatky", {}),
    ("§ 2 zákona č. 176/2025 Sb.", {}),
    ("celý zákon č. 176/2025 Sb.", {}),
    ("celý § 1 zákona č. 176/2025 Sb.", {}),
    ("náhrada nákladů řízení", {"source": "esbirka"}),
]


def test_a_bundle_grown_by_segments_answers_as_one_rebuilt_whole(indexed):
    from mendel.nightly import index_stage, publish_stage

    conn, home, embedder = indexed["conn"], indexed["home"], indexed["embedder"]
    changed = indexed["sources"]["decisions"][1]
    add_document(
        conn, changed["ecli"], [changed["full_text"][:1500]], title=changed["title"], citation=changed["case_number"]
    )
    run_index(conn, home, embedder)  # a second segment; the first one's rows of that decision tombstoned
    rebuilt = home / "whole"
    index_stage.build_bm25(conn, rebuilt / "build" / "bm25")
    index_stage.build_faiss(conn, rebuilt / "build" / "dense")
    index_stage.build_graph(conn, rebuilt / "build" / "graph")
    publish_stage.publish_bundle(conn, rebuilt / "build", rebuilt / "bundles", model=embedder.name)
    grown = Searcher.latest(home / "bundles", embedder=embedder)
    whole = Searcher.latest(rebuilt / "bundles", embedder=embedder)
    for layer in (1, 2, 3):
        parts = [bundle.layer_path(s.path, layer) / "bm25" for s in (grown, whole)]
        assert [len(segments.PartState.read(p).segments) for p in parts] == [2, 1]
    for query, filters in SAME_ANSWER_QUERIES:
        answers = [s.search_with_coverage(query, k=10, filters=filters).to_dict() for s in (grown, whole)]
        assert answers[0]["hits"], query
        assert answers[0] == answers[1], query  # hit by hit: ids, scores, lists, highlights, coverage


def _document_files(path) -> dict[str, int]:
    """Every file of a bundle's documents part by its path in the part, with its inode."""
    part = bundle.documents_part_path(path)
    return {str(p.relative_to(part)): p.stat().st_ino for p in part.rglob("*") if p.is_file()}


def test_a_second_publish_shares_the_unchanged_documents_and_search_sees_the_change(indexed, monkeypatch):
    conn, home, embedder = indexed["conn"], indexed["home"], indexed["embedder"]
    # three documents: two of them changed would be past the share of deleted rows that has a segment rewritten
    monkeypatch.setattr(segment_updates, "DELETED_SHARE", 0.9)
    renamed, withdrawn = (d["ecli"] for d in indexed["sources"]["decisions"][:2][::-1])
    old = current_bundle(home)
    (first,) = segments.PartState.read(bundle.documents_part_path(old["path"])).segments
    assert not (old["path"] / bundle.DOCUMENTS).exists() and len(old["documents"]) == 3

    conn.execute("UPDATE documents SET title = 'Usnesení o nové věci' WHERE doc_id = %s", (renamed,))
    conn.execute("UPDATE documents SET status = 'withdrawn' WHERE doc_id = %s", (withdrawn,))
    stats = run_index(conn, home, embedder)
    new = current_bundle(home)
    assert stats["bundle"]["documents_written"] == 1 and stats["bundle"]["documents_deleted"] == 2
    # the first night's segment is the new bundle's too, hard-linked; the second holds the renamed document alone
    state = segments.PartState.read(bundle.documents_part_path(new["path"]))
    assert [s.id for s in state.segments][0] == first.id and [d for d, _, _ in state.segments[1].documents] == [renamed]
    assert stats["bundle"]["bytes_written"] > segments.tree_bytes(state.segments[1].path)  # counted as written
    old_files, new_files = _document_files(old["path"]), _document_files(new["path"])
    shared = [f"{segments.SEGMENTS_DIR}/{first.id}/{name}" for name in first.meta["files"]]
    assert shared and all(new_files[name] == old_files[name] for name in shared)
    searcher = Searcher(new["path"])
    assert searcher.documents[renamed]["title"] == "Usnesení o nové věci" and withdrawn not in searcher.documents
    assert sorted(searcher.documents) == [d["doc_id"] for d in new["documents"]] == sorted({LAW[0], renamed})
    hits = searcher.search("usnesení soud dovolání", k=10)
    assert hits and withdrawn not in {h.doc_id for h in hits}


def test_a_bundle_with_a_whole_documents_file_still_loads(indexed, tmp_path):
    live = current_bundle(indexed["home"])
    documents = bundle.read_documents(live["path"])
    # a bundle as published before the documents' segments: one documents.json, no documents/ part
    old = tmp_path / "old" / live["path"].name
    shutil.copytree(live["path"], old)
    shutil.rmtree(bundle.documents_part_path(old))
    (old / bundle.DOCUMENTS).write_text(json.dumps(documents, ensure_ascii=False, indent=1))
    assert bundle.read_documents(old) == documents
    assert Searcher(old).documents == Searcher(live["path"]).documents == {d["doc_id"]: d for d in documents}


MARK_SETTLE_NIGHTS = 20


def settled_mark(conn, home, embedder, passages) -> int:
    """The passages' mark once it lies past every change to this database's documents. A mark is the oldest
    transaction running anywhere on the server when the step looked: another test's transaction (pytest runs in
    two workers on one server) can hold it behind the documents' own changes, and the next night reads them again,
    as it should. Nights are run until one looks when nothing older runs."""
    newest = conn.execute("SELECT max(changed_txid) FROM documents").fetchone()[0]
    for _ in range(MARK_SETTLE_NIGHTS):
        mark = json.loads(change_marks.mark_path(passages).read_text())["mark"]
        if mark > newest:
            return mark
        run_index(conn, home, embedder)
    raise AssertionError(f"the mark stayed at or below the documents' last change ({newest}) for every night")


def test_the_change_mark_picks_exactly_the_changed_documents(indexed):
    conn, home, embedder = indexed["conn"], indexed["home"], indexed["embedder"]
    acts = {d for (d,) in conn.execute("SELECT doc_id FROM documents WHERE doc_type = 'law'")}
    passages = home / "build" / "bm25"
    since = settled_mark(conn, home, embedder, passages)
    quiet = run_index(conn, home, embedder)
    assert change_marks.marked_since(conn, since) == set()
    # an unchanged night digests no document, not even the act (its act tables' writes mark it: 0040), no vectors
    assert acts and quiet["bm25"]["documents_digested"] == 0 and quiet["faiss"]["documents_digested"] == 0
    assert quiet["bm25"]["rebuilt"] == quiet["faiss"]["rebuilt"] == "none"

    changed = indexed["sources"]["decisions"][1]
    add_document(conn, changed["ecli"], [changed["full_text"][:1200]], title=changed["title"])
    conn.execute("UPDATE chunks SET ner_done_at = now()")  # a column no index digests marks nothing
    stats = run_index(conn, home, embedder)
    assert change_marks.marked_since(conn, since) == {changed["ecli"]}
    assert stats["faiss"]["documents_digested"] == 1 and stats["bm25"]["documents_digested"] == 1
    assert stats["bm25"]["rebuilt"] == stats["faiss"]["rebuilt"] == "L3,L2,L1"
    # what the marks let the night skip is what digesting every document finds unchanged
    for layer in (1, 2, 3):
        held = segments.PartState.read(bundle.part_path(home / "build", "bm25", layer)).live_documents()
        analyzer = index_stage.analyzer_version()
        every = {
            d: hashlib.sha256(f"{analyzer}:{h}".encode()).hexdigest() for d, h in layer_digests(conn, layer).items()
        }
        assert {d: digest for d, (_, digest, _, _) in held.items()} == every


def test_a_change_behind_a_transaction_still_running_is_read_again_next_night(indexed):
    conn, home, embedder = indexed["conn"], indexed["home"], indexed["embedder"]
    passages = home / "build" / "bm25"
    settled_mark(conn, home, embedder, passages)
    with psycopg.connect(conn.info.dsn) as other:  # a transaction elsewhere on the server, begun before the change
        other.execute("SELECT txid_current()")
        changed = indexed["sources"]["decisions"][0]
        add_document(conn, changed["ecli"], [changed["full_text"][:900]], title=changed["title"])
        assert run_index(conn, home, embedder)["bm25"]["documents_digested"] == 1
        held = json.loads(change_marks.mark_path(passages).read_text())["mark"]
        assert changed["ecli"] in change_marks.marked_since(conn, held)  # the mark stayed behind the change ...
        assert run_index(conn, home, embedder)["bm25"]["documents_digested"] == 1  # ... so the next night reads it
        other.rollback()
    since = settled_mark(conn, home, embedder, passages)  # once nothing older runs, the mark passes it
    assert change_marks.marked_since(conn, since) == set()
    assert run_index(conn, home, embedder)["bm25"]["documents_digested"] == 0


def test_an_unchanged_night_embeds_reading_nothing_and_a_listing_change_reads_all(indexed):
    conn, home, embedder = indexed["conn"], indexed["home"], indexed["embedder"]
    assert indexed["first"]["embed"]["read"] == "all"
    # the first night's own vector writes are marks: the next night still reads every passage
    assert run_index(conn, home, embedder)["embed"]["read"] == "all"
    calls = len(embedder.embedded)
    quiet = run_index(conn, home, embedder)["embed"]
    # no passage is read: an act's heading paths mark it when they change (0040)
    assert quiet["read"] == "none" and quiet["documents_read"] == 0
    assert quiet["chunks"] == quiet["sections"] == quiet["documents"] == 0 and len(embedder.embedded) == calls
    # a document's listing is not marked, yet its listing's boilerplate is part of its dense text
    decision = indexed["sources"]["decisions"][0]["ecli"]
    conn.execute("UPDATE documents SET listing = 'https://example.test/board' WHERE doc_id = %s", (decision,))
    assert change_marks.marked_since(conn, change_marks.newest_mark(conn) - 1) == set()
    assert run_index(conn, home, embedder)["embed"]["read"] == "all"
    # and a changed passage is read with every other one, as before marks
    assert run_index(conn, home, embedder)["embed"]["read"] == "none"
    changed = indexed["sources"]["decisions"][1]
    add_document(conn, changed["ecli"], [changed["full_text"][:1200]], title=changed["title"])
    again = run_index(conn, home, embedder)["embed"]
    assert again["read"] == "all" and again["chunks"] > 0 and len(embedder.embedded) > calls


def test_the_sections_and_documents_passages_are_read_as_by_one_join(indexed):
    from mendel.nightly import embed_stage

    conn = indexed["conn"]
    one_join = (  # the stage's query before it became two joins (each section's passages, each document's)
        "SELECT p.chunk_id, p.layer, p.version_id, p.embedded_hash,"
        " string_agg(coalesce(c.embedded_hash, '?'), ',' ORDER BY c.seq), bool_and(c.embedding IS NOT NULL)"
        " FROM chunks p JOIN documents d ON d.doc_id = p.doc_id AND"
        " coalesce(d.served_version_id, d.current_version_id) = p.version_id"
        " JOIN chunks c ON c.version_id = p.version_id AND c.layer = 3 AND (p.layer = 1 OR c.parent_id = p.chunk_id)"
        " WHERE p.layer IN (1, 2) AND d.status = 'active'"
        " GROUP BY p.chunk_id, p.layer, p.version_id, p.embedded_hash"
    )
    expected = sorted(conn.execute(one_join).fetchall())
    assert {row[1] for row in expected} == {1, 2}
    assert sorted(conn.execute(embed_stage._UPPER_LAYERS.format(documents="")).fetchall()) == expected
