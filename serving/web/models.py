"""The API's response models (validation and /docs). A search hit's model is derived from the one hit schema
(``serving.ranking.hits.Hit``) plus what every client's hit carries besides (``serving.web.results``)."""

from __future__ import annotations

import dataclasses
import typing

from pydantic import BaseModel, ConfigDict, Field, create_model

from serving.ranking.hits import Hit
from serving.web.results import HIT_ADDITIONS


def model_of_dataclass(cls, name: str, extra: dict[str, tuple]) -> type[BaseModel]:
    """A pydantic model with a field per dataclass field (its type, default and ``metadata["description"]``),
    plus ``extra`` (name -> (type, Field)); fields not declared pass through (``extra="allow"``)."""
    hints = typing.get_type_hints(cls)
    fields: dict[str, tuple] = {}
    for item in dataclasses.fields(cls):
        description = item.metadata.get("description")
        if item.default is not dataclasses.MISSING:
            declared = Field(default=item.default, description=description)
        elif item.default_factory is not dataclasses.MISSING:
            declared = Field(default_factory=item.default_factory, description=description)
        else:
            declared = Field(description=description)
        fields[item.name] = (hints[item.name], declared)
    return create_model(name, __config__=ConfigDict(extra="allow"), **fields, **extra)


SearchResult = model_of_dataclass(
    Hit,
    "SearchResult",
    {
        name: (kind, Field(default=default, description=description))
        for name, (kind, default, description) in HIT_ADDITIONS.items()
    },
)


class FilterCounts(BaseModel):
    documents: int = Field(description="documents with passages the filters leave")
    passages: int = Field(description="their passages")
    empty: bool = Field(description="the filters leave nothing to search: no query can find anything")


class DocumentGroup(BaseModel):
    """One document of a grouped page: its fields and its best passages."""

    model_config = ConfigDict(extra="allow")

    doc_id: str
    title: str
    source: str
    url: str
    source_url: str | None = Field(default=None, description=SearchResult.model_fields["source_url"].description)
    citation: str | None = None
    kind: str | None = None
    kind_label: str | None = None
    score: float = Field(description="its best passage's score")
    passages: list[SearchResult] = Field(description="its best ranked passages, best first")
    more: int = Field(description="its other ranked passages, not shown")


class SearchResponse(BaseModel):
    model_config = ConfigDict(extra="allow")  # e.g. coverage, when the searcher reports it

    query: str
    bundle: str = Field(description="version of the bundle that answered")
    scope: str | None = Field(default=None, description="act or section when the query asks about a whole one")
    layer: int = Field(default=3, description="the layer searched")
    subqueries: list[str] = Field(default=[], description="the sub-queries searched besides the query")
    at: str | None = Field(default=None, description="the date acts are searched as in force on")
    version: str | None = Field(default=None, description="promulgated: acts in their promulgated text")
    not_applied: list[str] = Field(
        default=[],
        description="filters accepted but not restricting the results "
        "('at', 'version' where a backend cannot apply them)",
    )
    results: list[SearchResult] = Field(description="this page's passages, best first (grouped: each document's)")
    total: int = Field(description="passages ranked (grouped: documents among them) for every page of this search")
    page: int = Field(description="the page (1-based)")
    pages: int = Field(description="pages of per_page results")
    per_page: int = Field(description="passages (grouped: documents) a page")
    grouped: bool = Field(description="results grouped by document")
    documents: list[DocumentGroup] | None = Field(
        default=None, description="grouped: this page's documents, each with its best passages"
    )
    filters: FilterCounts | None = Field(default=None, description="when filtered: what the filters leave to search")


class FacetsResponse(BaseModel):
    """The filter values of the documents with passages: nothing is offered that could never be found."""

    bundle: str
    sources: list[dict] = Field(description="value, Czech label, family, documents")
    doc_types: list[dict] = Field(description="value, Czech label, documents")
    acts: list[dict] = Field(
        description="citation, doc_id, title of every act with passages (the act filter also takes ELIs and file "
        "numbers)"
    )
    published: dict = Field(description="from / to: the publication dates of the bundle's documents")
    places: dict[str, list[str]] = Field(
        default={}, description="kraj / okres / obec values, when documents carry them"
    )
    courts: dict[str, list] = Field(
        default={},
        description="court_level: [{value, Czech label, documents}] highest first; court: the courts' names — of "
        "the decisions with passages",
    )


class DocumentChunk(BaseModel):
    chunk_id: str
    page: int
    page_end: int
    section: str
    text: str


class DocumentResponse(BaseModel):
    model_config = ConfigDict(extra="allow")

    doc_id: str
    title: str | None = None
    source: str | None = None
    url: str | None = Field(default=None, description="where the crawl fetched it (the demo mirror's address there)")
    source_url: str | None = Field(default=None, description=SearchResult.model_fields["source_url"].description)
    citation: str | None = None
    doc_type: str | None = None
    published: str | None = None
    bundle: str
    chunks: list[DocumentChunk]


class AnalyzeResponse(BaseModel):
    """``serving.query.analyze.analyze_query`` output, passed through as is."""

    model_config = ConfigDict(extra="allow")

    query: str
    references: list[dict] = Field(description="act + provision references named in the query, with ELIs")
    acts: list[dict] = Field(description="acts the query is most likely about, best first")
    domains: list = []


class Health(BaseModel):
    status: str


class Ready(BaseModel):
    model_config = ConfigDict(extra="allow")

    status: str
    version: str
    created: str | None = None
    model: str | None = None
    documents: int
    chunks: int
    loaded_at: str | None = None


class ProvisionAnswer(BaseModel):
    """``mendel.citator.wording.provision_at``: the wording of a provision on a date, or why there is none."""

    model_config = ConfigDict(extra="allow")

    ref: str
    at: str = Field(description="the date asked about (ISO)")
    status: str = Field(
        description="in_force, not_yet_announced, not_yet_in_force, before_stored_versions, no_longer_in_force, "
        "validity_unknown, no_text "
        "or no_such_provision (not_a_reference and unknown_act are problems)"
    )
    message: str | None = None
    act: dict | None = Field(default=None, description="citation, eli, title")
    provision_ref: str | None = None
    version: dict | None = Field(
        default=None, description="the version in force: eli, effective_from, effective_to, amended_by"
    )
    versions: list[dict] | None = Field(default=None, description="every stored version of the act")
    provision: dict | None = Field(default=None, description="the provision's wording: items (id, text)")
    previous_version: dict | None = None
    diff: dict | None = Field(default=None, description="changed, added, removed against the version before")
    promulgated: dict | None = Field(default=None, description="the provision in the promulgated PDF: doc_id, page")
    known_as_of: str | None = Field(
        default=None,
        description="for a day after the act was last checked at e-Sbírka (ISO): the wording is as the source gave "
        "it then, and acts announced since may change it",
    )


class CitationsAnswer(BaseModel):
    """``mendel.citator.build.cites``: the documents and passages citing a reference, by source family."""

    model_config = ConfigDict(extra="allow")

    ref: str
    status: str = Field(description="found or none (not_a_reference is a problem)")
    target: dict = Field(
        description="kind, key, provision, label, matched_as, and stored: the collection's own documents of the "
        "act or decision (doc_id, title, kind, citation, text: false for a citation record without the decision's text)"
    )
    total_documents: int
    total_citations: int
    families: dict = Field(
        description="acts, decisions, notices, other: documents, citations and the newest items, each with its "
        "citing passages (sentence, page, origins: who found it — mention = the recogniser, court_metadata = the "
        "decision's own metadata, odkaz, record, amends, repeals); decisions also by_court_level (highest first, "
        "each item with its court, newest first)"
    )
    message: str | None = None
    older_code: dict | None = Field(
        None,
        description='where the reference is written in a form the code the cited one replaced went by too ("§ 36 '
        "tr. zák.\"): that code's same provision (key, provision, label), the date before which decisions mean it "
        "(before) and how many documents cite it (documents, citations)",
    )
