"""Query a published bundle: BM25 and dense lists fused by reciprocal rank (k=60), exact references first."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path

import numpy as np

from mendel.index import bundle
from mendel.index.analyzer import analyze

RRF_K = 60
# Dense counts 3/4 of BM25: on the dev set (eval/questions_dev.jsonl) equal weights lost rank-1 hits that BM25
# alone found (R@1 0.780 vs 0.826); 0.75 keeps both (R@1 0.826, R@10 0.992, MRR 0.909).
RRF_WEIGHTS = {"bm25": 1.0, "dense": 0.75}
PROVISION_HEAD_RE = re.compile(r"(?:§\s*\d+[a-z]?|čl\.\s*[IVXLC\d]+[a-z]?)", re.IGNORECASE)
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


def _key(value: str | None) -> str | None:
    """Citation / identifier comparison key: no whitespace, lower case ("175/2025 Sb." == "175/2025sb.")."""
    return re.sub(r"\s+", "", value).lower() if value else None


def _as_tuple(value) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,) if value else ()
    return tuple(v for v in value if v)


def _as_date(value) -> date | None:
    if value is None or value == "":
        return None
    if isinstance(value, date):
        return value
    return date.fromisoformat(str(value)[:10])


@dataclass(frozen=True)
class SearchFilters:
    """Restrictions on the documents a search may return, matched against the bundle's ``documents.json``.

    ``source`` and ``doc_type`` accept any of several values; ``date_from``/``date_to`` bound ``published``
    (inclusive; documents without a date are excluded once either bound is set); ``act`` names an act by
    citation ("175/2025 Sb.", "zákon č. 175/2025 Sb."), ELI ("/eli/cz/sb/2025/175") or file number. Unknown
    values simply match nothing.
    """

    source: tuple[str, ...] = ()
    doc_type: tuple[str, ...] = ()
    date_from: date | None = None
    date_to: date | None = None
    act: str | None = None

    @classmethod
    def of(cls, value: "SearchFilters | dict | None") -> "SearchFilters":
        if value is None:
            return cls()
        if isinstance(value, SearchFilters):
            return value
        unknown = set(value) - {"source", "doc_type", "date_from", "date_to", "act"}
        if unknown:
            raise ValueError(f"unknown filters: {', '.join(sorted(unknown))}")
        return cls(source=_as_tuple(value.get("source")), doc_type=_as_tuple(value.get("doc_type")),
                   date_from=_as_date(value.get("date_from")), date_to=_as_date(value.get("date_to")),
                   act=value.get("act") or None)

    def is_empty(self) -> bool:
        return not (self.source or self.doc_type or self.date_from or self.date_to or self.act)

    def _act_keys(self) -> set[str]:
        from mendel.ner.rules import eli_for
        from serving.analyze import references

        value = (self.act or "").strip()
        acts = [value] + [r["act"] for r in references(value) if r["act"]]
        keys = {_key(a) for a in acts} | {_key(eli_for(a)) for a in acts}
        return {k for k in keys if k}

    def matching_documents(self, documents: dict[str, dict]) -> set[str]:
        from mendel.ner.rules import eli_for

        act_keys = self._act_keys() if self.act else set()
        found = set()
        for doc_id, doc in documents.items():
            if self.source and doc.get("source") not in self.source:
                continue
            if self.doc_type and doc.get("doc_type") not in self.doc_type:
                continue
            if self.date_from or self.date_to:
                try:
                    published = _as_date(doc.get("published"))
                except ValueError:
                    published = None
                if published is None or (self.date_from and published < self.date_from) \
                        or (self.date_to and published > self.date_to):
                    continue
            if act_keys:
                citation = doc.get("citation")
                doc_keys = {_key(citation), _key(doc_id), _key(eli_for(citation) if citation else None)}
                if not act_keys & doc_keys:
                    continue
            found.add(doc_id)
        return found


def rrf_fuse(rankings: dict[str, list[int]], k: int = RRF_K,
             weights: dict[str, float] | None = None) -> list[tuple[int, float, list[str]]]:
    """Reciprocal rank fusion, optionally weighted per list: (item, score, names of its lists), best first."""
    scores: dict[int, float] = {}
    sources: dict[int, list[str]] = {}
    for name, ranking in rankings.items():
        weight = 1.0 if weights is None else weights.get(name, 1.0)
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
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
        self.doc_chunks: dict[str, list[int]] = {}
        for i, c in enumerate(self.chunks):
            self.doc_chunks.setdefault(c["doc_id"], []).append(i)

    @classmethod
    def latest(cls, bundles_dir: Path, embedder=None) -> "Searcher":
        return cls(bundle.current_bundle(bundles_dir), embedder=embedder)

    @property
    def embedder(self):
        if self._embedder is None:
            from mendel.index.embed import get_embedder

            self._embedder = get_embedder()
        return self._embedder

    def allowed_chunks(self, filters: "SearchFilters | dict | None") -> np.ndarray | None:
        """Boolean mask over chunks that pass ``filters``; None when nothing is filtered."""
        filters = SearchFilters.of(filters)
        if filters.is_empty():
            return None
        mask = np.zeros(len(self.chunks), dtype=bool)
        for doc_id in filters.matching_documents(self.documents):
            mask[self.doc_chunks.get(doc_id, [])] = True
        return mask

    def bm25_ranking(self, query: str, n: int = CANDIDATES, allowed: np.ndarray | None = None) -> list[int]:
        vocab = self.bm25.vocab_dict
        tokens = [t for t in analyze(query) if t in vocab]
        if not tokens or not self.chunks:
            return []
        scores = self.bm25.get_scores(tokens)
        if allowed is not None:
            scores = np.where(allowed, scores, 0.0)
        top = np.argsort(-scores, kind="stable")[:n]
        return [int(i) for i in top if scores[i] > 0]

    def dense_ranking(self, query: str, n: int = CANDIDATES, allowed: np.ndarray | None = None) -> list[int]:
        if self.faiss.ntotal == 0:
            return []
        vector = self.embedder.query(query).reshape(1, -1).astype(np.float32)
        vector /= max(float(np.linalg.norm(vector)), 1e-12)
        if allowed is None:
            _, ids = self.faiss.search(vector, min(n, self.faiss.ntotal))
            return [int(i) for i in ids[0] if i >= 0]
        import faiss

        wanted = np.flatnonzero(allowed[: self.faiss.ntotal]).astype(np.int64)
        if wanted.size == 0:
            return []
        selector = faiss.IDSelectorBatch(wanted)
        hnsw = getattr(self.faiss, "hnsw", None)
        if hnsw is not None:
            params = faiss.SearchParametersHNSW(sel=selector, efSearch=max(int(hnsw.efSearch), n))
        else:
            params = faiss.SearchParameters(sel=selector)
        _, ids = self.faiss.search(vector, min(n, int(wanted.size)), params=params)
        return [int(i) for i in ids[0] if i >= 0]

    def reference_tiers(self, query: str, allowed: np.ndarray | None = None) -> tuple[list[int], list[int]]:
        """Fast path for exact references (act + provision, file number, ECLI): first the provision's own section
        or the decision itself, then chunks citing exactly that reference. Acts named without a provision,
        institutions, dates and amounts are not exact references and go through the ranked lists only."""
        from mendel.ner.rules import extract_entities, split_law_ref_norm

        own: list[int] = []
        wanted: set[str] = set()
        for entity in extract_entities(query):
            if not entity.norm or entity.label not in ("LAW_REF", "DECISION_REF"):
                continue
            if entity.label == "LAW_REF":
                act, provision = split_law_ref_norm(entity.norm)
                if not provision:
                    continue
                head = PROVISION_HEAD_RE.match(provision)
                if act and head:
                    label = " ".join(head.group(0).split()).lower()
                    own += [i for i, c in enumerate(self.chunks) if c.get("citation") == act
                            and c["section"].rsplit(" > ", 1)[-1].lower() == label]
            else:
                own += [i for i, c in enumerate(self.chunks)
                        if entity.norm in (c.get("citation"), c["doc_id"].upper())]
            wanted.add(f"{entity.label}:{entity.norm}")
        citing = [i for i, c in enumerate(self.chunks) if wanted & set(self.chunk_entities.get(c["chunk_id"], ()))]
        keep = (lambda i: True) if allowed is None else (lambda i: bool(allowed[i]))
        own = [i for i in dict.fromkeys(own) if keep(i)]
        return own, [i for i in citing if keep(i) and i not in set(own)]

    def reference_ranking(self, query: str, allowed: np.ndarray | None = None) -> list[int]:
        own, citing = self.reference_tiers(query, allowed)
        return own + citing

    def search(self, query: str, k: int = 10, dense: bool = True,
               filters: "SearchFilters | dict | None" = None) -> list[Hit]:
        """Hybrid search; ``filters`` (a :class:`SearchFilters` or a dict of its fields) restricts the
        documents every list draws from, so a filtered search still returns up to ``k`` hits."""
        allowed = self.allowed_chunks(filters)
        if allowed is not None and not allowed.any():
            return []
        rankings = {"bm25": self.bm25_ranking(query, allowed=allowed)}
        if dense:
            rankings["dense"] = self.dense_ranking(query, allowed=allowed)
        fused = rrf_fuse(rankings, weights=RRF_WEIGHTS)
        own, citing = self.reference_tiers(query, allowed=allowed)
        if own or citing:
            # Exact references lead: the provision's own section or the decision, then chunks citing it;
            # within each tier in fused order.
            position = {item: rank for rank, (item, _, _) in enumerate(fused)}
            by_position = lambda i: position.get(i, len(position))  # noqa: E731
            exact_sorted = (sorted(own, key=by_position) + sorted(citing, key=by_position))[:k]
            top_score = fused[0][1] if fused else 0.0
            lead = [(i, top_score + 1.0 / (RRF_K + r), ["reference"] + next((s for j, _, s in fused if j == i), []))
                    for r, i in enumerate(exact_sorted, start=1)]
            fused = lead + [f for f in fused if f[0] not in set(exact_sorted)]
        return [self._hit(item, score, lists) for item, score, lists in fused[:k]]

    def document(self, doc_id: str) -> dict | None:
        """A document's metadata from ``documents.json`` with its chunks in order; None when unknown."""
        doc = self.documents.get(doc_id)
        if doc is None:
            return None
        chunks = [self.chunks[i] for i in self.doc_chunks.get(doc_id, [])]
        return {**doc, "chunks": [{"chunk_id": c["chunk_id"], "page": c["page_start"], "page_end": c["page_end"],
                                   "section": c["section"], "text": c["text"]} for c in chunks]}

    def _hit(self, item: int, score: float, lists: list[str]) -> Hit:
        c = self.chunks[item]
        return Hit(doc_id=c["doc_id"], title=c["title"], source=c["source"], url=c["url"], page=c["page_start"],
                   page_end=c["page_end"], section=c["section"], text=c["text"], score=round(score, 6),
                   chunk_id=c["chunk_id"], citation=c.get("citation"), lists=lists)

