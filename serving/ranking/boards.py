"""The notice boards' documents among a searcher's: the municipalities whose boards the collection holds, each
layer's board passages, and the boards' own title series (``serving.ranking.title_series``) -- what the place and
series rules of ``serving.ranking.answer`` read, worked out once and again when the searcher's documents are."""

from __future__ import annotations

import numpy as np

from serving.ranking.layers import LayerIndex
from serving.ranking.title_series import PHRASE_READ, TitleSeries

# The documents of the notice boards (a board's place is a document's obec, where it has one).
BOARD_DOC_TYPES = frozenset({"notice", "municipal_document"})


def is_board_document(doc: dict) -> bool:
    """A notice board's document: a municipality's, or of a board's kind (a region's, a ministry's)."""
    return bool(doc.get("obec")) or doc.get("doc_type") in BOARD_DOC_TYPES


class BoardDocuments:
    """For a searcher with ``documents``, ``passages``, ``bm25_ranking`` and ``passage_text`` (both backends)."""

    _board_places: tuple[dict, frozenset[str]] | None = None

    @property
    def board_places(self) -> frozenset[str]:
        """The municipalities whose boards' documents the collection holds (a document's ``obec``); read again
        when the searcher's documents are (a database searcher reloads them)."""
        documents = self.documents
        if self._board_places is None or self._board_places[0] is not documents:
            self._board_places = (documents, frozenset(doc["obec"] for doc in documents.values() if doc.get("obec")))
        return self._board_places[1]

    @property
    def title_series(self) -> TitleSeries:
        """The series of the boards' own titles (``serving.ranking.title_series``): openings of many board titles
        that none of the passages of acts and decisions BM25 ranks first for them writes; the openings counted once
        (and again when the searcher's documents are), each asked of BM25 when first searched."""
        documents = self.documents
        cached = self.__dict__.get("_title_series")
        if cached is None or cached[0] is not documents:
            index = self.passages
            allowed = np.ones(len(index.chunks), dtype=bool)
            allowed[list(self.board_rows(index))] = False  # the acts' and decisions' passages

            def law_texts(phrase: str) -> list[str]:
                rows = self.bm25_ranking(phrase, n=PHRASE_READ, allowed=allowed, layer=index)
                return [self.passage_text(row, index) for row in rows]

            titles = (doc.get("title") or "" for doc in documents.values() if is_board_document(doc))
            cached = self.__dict__["_title_series"] = (documents, TitleSeries.of_collection(titles, law_texts))
        return cached[1]

    def board_of_item(self, index: LayerIndex):
        """item -> (the municipality of its document's board, "" for a board of no one municipality -- a region's,
        a ministry's -- and the document's title), None for a document of no board; read from the documents once
        a layer (and again when the searcher's documents are), so a search reads no passage row for it."""
        return self.board_rows(index).get

    def board_rows(self, index: LayerIndex) -> dict[int, tuple[str, str]]:
        """The boards' passages of a layer: row -> (its board's municipality or "", its document's title)."""
        documents = self.documents
        by_layer = self.__dict__.setdefault("_boards_by_layer", {})  # layer number -> (documents, layer, rows)
        cached = by_layer.get(index.layer)
        if cached is None or cached[0] is not documents or cached[1] is not index:
            rows: dict[int, tuple[str, str]] = {}
            for doc_id, doc in documents.items():
                if is_board_document(doc):
                    board = (doc.get("obec") or "", doc.get("title") or "")
                    rows.update(dict.fromkeys(index.doc_chunks.get(doc_id, ()), board))
            cached = by_layer[index.layer] = (documents, index, rows)
        return cached[2]
