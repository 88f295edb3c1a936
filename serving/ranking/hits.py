"""The hit schema: one ranked passage as every searcher returns it, declared once. The API's response model is
derived from these fields and their descriptions (``serving.web.models``), so a field added here reaches
clients and the API documentation alike."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from serving.ranking.layers import PASSAGE_LAYER


def described(description: str, **options):
    """A dataclass field carrying its description (the API documentation shows it)."""
    return field(metadata={"description": description}, **options)


@dataclass
class Hit:
    doc_id: str = described("the document: an ELI, an ECLI or the source's own id")
    title: str = described("the document's title")
    source: str = described("the crawl source the document comes from (esbirka, nsoud, boards, …)")
    url: str = described("the document's address as crawled")
    page: int = described("first page of the passage (1-based)")
    page_end: int = described("last page of the passage")
    section: str = described("the passage's section path in the document")
    text: str = described("the passage")
    score: float = described("the fused score (higher is better)")
    chunk_id: str = described("the passage's id")
    citation: str | None = described(
        "the document's citation (an act's number, a decision's file number)", default=None
    )
    lists: list[str] = described(
        "the ranked lists the hit came from: reference (exact reference), bm25, dense, graph (entity graph), "
        "routed (the acts a question is about), governing (the act governing a plain question), acts_bm25 and "
        "acts_dense (BM25 and dense among the acts' own passages, for a question in lay words), wordings (the acts' "
        "provisions nearest a question in lay words by their own everyday wordings, derived text), wordings_bm25 (those "
        "whose everyday wordings hold the question's words), part (the governing act's first passage in the part "
        "of it the question is about, kept at rank 2), decision_slot "
        "(the decision BM25 ranks first, kept at rank 3 among the acts' passages, or leading them when their first "
        "was found by words alone), decision_lead (BM25's first "
        "passages, leading when BM25 and dense agree that court decisions answer), agreed (a court decision's passage "
        "BM25 of the query's own words ranks first and dense among its first three, leading), rerank (cross-encoder)",
        default_factory=list,
    )
    entities: list[str] = described(
        "entities of the query (or its graph neighbourhood) this passage mentions, strongest first",
        default_factory=list,
    )
    subqueries: list[int] = described("1-based numbers of the sub-queries that found it", default_factory=list)
    layer: int = described("1 document, 2 section, 3 passage", default=PASSAGE_LAYER)
    rerank_score: float | None = described("cross-encoder score, when reranked", default=None)
    # an act's passage: its version on the search's date (serving.ranking.in_force.version_of)
    version_eli: str | None = described("an act's passage: the ELI of its version", default=None)
    version_kind: str | None = described("an act's passage: promulgated or consolidated", default=None)
    valid_from: str | None = described("an act's passage: its version is in force from (ISO date)", default=None)
    valid_to: str | None = described("an act's passage: its version is in force until (ISO date)", default=None)
    status: str | None = described(
        "an act's passage on the search's date: in_force, not_yet_in_force, superseded, validity_unknown or "
        "before_stored_versions (an act stored in later wordings only: none covers the date)",
        default=None,
    )
    provision: str | None = described("an act's passage: the provision it belongs to", default=None)
    page_of: str | None = described(
        "a consolidated passage: the kind of the stored document its page numbers are in (promulgated: where the "
        "provision stands in the promulgated PDF)",
        default=None,
    )
    passages: list[str] | None = described(
        "an act's provision found in several passages: their ids in the act's order, the hit's text joining them "
        "and its pages spanning them (one hit per provision)",
        default=None,
    )

    def to_dict(self) -> dict:
        record = asdict(self)
        if self.version_kind is None:  # not an act's passage: no version fields
            for name in VERSION_FIELDS:
                record.pop(name)
        return record


VERSION_FIELDS = (
    "version_eli",
    "version_kind",
    "valid_from",
    "valid_to",
    "status",
    "provision",
    "page_of",
    "passages",
)


@dataclass
class SearchResult:
    """An answer that says how good it is: the hits, the coverage block (what the query names and whether the
    collection holds it, ``serving.ranking.coverage``), ``weak`` (below the calibrated relevance floor, or about
    nothing the collection holds) and ``confidence`` (the floor's signals)."""

    hits: list[Hit]
    coverage: dict
    weak: bool
    confidence: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {
            "hits": [h.to_dict() for h in self.hits],
            "coverage": self.coverage,
            "weak": self.weak,
            "confidence": self.confidence,
        }
