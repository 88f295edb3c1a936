"""Query a published bundle: BM25 and dense lists fused by reciprocal rank (k=60), exact references first."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from mendel.index import bundle
from mendel.index.analyzer import analyze

RRF_K = 60
CANDIDATES = 50


@dataclass
class Hit:
    doc_id: str
    title: str
    source: str
    url: str
    page: int
    page_end: int
    section: str
    text: str
    score: float
    chunk_id: str
    citation: str | None = None
    lists: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


def rrf_fuse(rankings: dict[str, list[int]], k: int = RRF_K) -> list[tuple[int, float, list[str]]]:
    """Reciprocal rank fusion: (item, score, names of the lists it came from), best first."""
    scores: dict[int, float] = {}
    sources: dict[int, list[str]] = {}
    for name, ranking in rankings.items():
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
            sources.setdefault(item, []).append(name)
    ordered = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    return [(item, score, sources[item]) for item, score in ordered]


class Searcher:
    def __init__(self, path: Path, embedder=None):
        import bm25s
        import faiss

        self.path = Path(path)
        self.manifest = bundle.read_manifest(self.path)
        self.chunks = [json.loads(line) for line in (self.path / "chunks.jsonl").open(encoding="utf-8")]
        self.documents = {d["doc_id"]: d for d in json.loads((self.path / "documents.json").read_text())}
        self.bm25 = bm25s.BM25.load(str(self.path / "bm25" / "bm25"))
        self.faiss = faiss.read_index(str(self.path / "dense" / "dense.faiss"))
        graph = json.loads((self.path / "graph" / "graph.json").read_text())
        self.chunk_entities: dict[str, list[str]] = graph["chunk_entities"]
        self._embedder = embedder

    @classmethod
    def latest(cls, bundles_dir: Path, embedder=None) -> "Searcher":
        return cls(bundle.current_bundle(bundles_dir), embedder=embedder)

    @property
    def embedder(self):
        if self._embedder is None:
            from mendel.index.embed import get_embedder

            self._embedder = get_embedder()
        return self._embedder

    def bm25_ranking(self, query: str, n: int = CANDIDATES) -> list[int]:
        vocab = self.bm25.vocab_dict
        tokens = [t for t in analyze(query) if t in vocab]
        if not tokens or not self.chunks:
            return []
        scores = self.bm25.get_scores(tokens)
        top = np.argsort(-scores, kind="stable")[:n]
        return [int(i) for i in top if scores[i] > 0]

    def dense_ranking(self, query: str, n: int = CANDIDATES) -> list[int]:
        if self.faiss.ntotal == 0:
            return []
        vector = self.embedder.query(query).reshape(1, -1).astype(np.float32)
        vector /= max(float(np.linalg.norm(vector)), 1e-12)
        _, ids = self.faiss.search(vector, min(n, self.faiss.ntotal))
        return [int(i) for i in ids[0] if i >= 0]

    def reference_ranking(self, query: str) -> list[int]:
        """Fast path: chunks mentioning exactly the act + provision (or file number) the query names."""
        from mendel.ner.rules import extract_entities

        wanted = {f"{e.label}:{e.norm}" for e in extract_entities(query) if e.norm}
        if not wanted:
            return []
        return [i for i, c in enumerate(self.chunks) if wanted & set(self.chunk_entities.get(c["chunk_id"], ()))]

    def search(self, query: str, k: int = 10, dense: bool = True) -> list[Hit]:
        rankings = {"bm25": self.bm25_ranking(query)}
        if dense:
            rankings["dense"] = self.dense_ranking(query)
        fused = rrf_fuse(rankings)
        exact = self.reference_ranking(query)
        if exact:
            # Exact references lead, in fused order where both agree.
            position = {item: rank for rank, (item, _, _) in enumerate(fused)}
            exact_sorted = sorted(exact, key=lambda i: position.get(i, len(position)))[:k]
            top_score = fused[0][1] if fused else 0.0
            lead = [(i, top_score + 1.0 / (RRF_K + r), ["reference"] + next((s for j, _, s in fused if j == i), []))
                    for r, i in enumerate(exact_sorted, start=1)]
            fused = lead + [f for f in fused if f[0] not in set(exact_sorted)]
        return [self._hit(item, score, lists) for item, score, lists in fused[:k]]

    def _hit(self, item: int, score: float, lists: list[str]) -> Hit:
        c = self.chunks[item]
        return Hit(doc_id=c["doc_id"], title=c["title"], source=c["source"], url=c["url"], page=c["page_start"],
                   page_end=c["page_end"], section=c["section"], text=c["text"], score=round(score, 6),
                   chunk_id=c["chunk_id"], citation=c.get("citation"), lists=lists)

