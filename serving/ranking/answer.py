"""The search both serving backends run (``serving.ranking.search.Searcher`` over a bundle,
``serving.ranking.pg_search.PostgresSearcher`` over PostgreSQL): everything after one query's candidate lists is
this one code, so the backends differ only in where the lists come from.

After the lists (a backend's ``rank``: BM25 with the lay-to-legal bridge, dense, graph, routed and governing acts,
exact references first), in order:

1. the learned second stage orders each query's own list, the whole query's and each sub-query's
   (:meth:`SearchFlow.learned_order`, ``serving/ranking/learned_fusion.json``);
2. the sub-queries' lists are interleaved with the whole query's (``SubqueryFusion``);
3. optionally the best ``RERANK_MAX`` are reranked by the cross-encoder;
4. never the same passage twice (``first_of_each``) nor the same provision (``serving.ranking.provisions``: an act's
   § cut into several passages is one hit), then the best ``k`` become hits with their version in force;
5. the coverage block and the relevance floor (``serving.ranking.coverage``, ``serving/ranking/floor.json``):
   :meth:`SearchFlow.search_with_coverage` returns no hits when nothing matches.

A backend provides the hooks: ``passages`` and ``layer_for`` (layers whose ``chunks[i]`` are the bundle's chunk
rows), ``lexicon``, ``governing``, ``filter_counts``, ``_allowed`` (a mask over a layer's rows), ``dense_pending``,
``rank`` (a ``serving.ranking.bundle_lists.Ranked`` over row positions), ``linked_entities``, ``reranker``,
``_dense`` (``serving.ranking.dense.DenseLists``: the query vectors) and ``_assessor`` (the coverage block).
"""

from __future__ import annotations

import functools
from datetime import date

import numpy as np

from serving.query.notice_kinds import is_question
from serving.query.places import board_places_named, name_terms
from serving.ranking import in_force
from serving.ranking.boards import BoardDocuments
from serving.ranking.decision_rules import (
    AGREED_DENSE_DEPTH,
    DECISIONS_AGREED_DEPTH,
    decisions_agreed,
    is_story,
    slot_ranking,
    with_agreed_decision_first,
    with_agreed_decision_slot,
    with_decision_slot,
    with_decisions_first,
    with_decisions_leading,
)
from serving.ranking.filters import SearchFilters
from serving.ranking.fusion import LEARNED_CANDIDATES, LearnedFusion, SubqueryFusion, first_of_each, rerank_order
from serving.ranking.governing_part import with_part_kept, with_part_slot
from serving.ranking.hits import Hit, SearchResult
from serving.ranking.lay_stage import LayFusion
from serving.ranking.layers import LayerIndex, layer_of
from serving.ranking.place_rules import title_terms, with_boards_ordered, with_place_notices_leading, years_named
from serving.ranking.provisions import joined_passages, one_per_provision
from serving.ranking.query_lists import CANDIDATES, QueryLists, Ranked

RERANK_MAX = 30
# A plain question: it runs every list, the act router, the bridge and the coverage block (Searcher.warm)
WARM_QUERY = "jaké povinnosti má obec"


def searched_subqueries(query: str, found) -> list[str]:
    """The sub-queries a search runs besides ``query`` (``found``: its understanding): the decomposer's parts, but
    none for a question in plain words (:meth:`QueryLists.lay_question`) told in parts unless each part asks
    something of its own -- "Je to trestný čin, když rodič neplatí výživné?" is one question, "Jaká je sazba … a co
    je vyhovující bydlení?" two. Searched apart, a story's sentences routed to different areas lowered the answer
    (dev sets: 37 of 39 such questions whole now, 6 ranked higher, none lower)."""
    from serving.query.decompose import asks, decompose

    parts = decompose(query, found)
    if parts and not all(asks(part) for part in parts) and QueryLists.lay_question(found):
        return []
    return parts


class SearchFlow(BoardDocuments):
    """The search over one query's candidate lists, shared by both backends (see the module's docstring)."""

    _learned: LearnedFusion | None = None
    _learned_loaded = False
    _lay: LayFusion | None = None
    _lay_loaded = False

    # --- the search -----------------------------------------------------------------------------------

    def search(
        self,
        query: str,
        k: int = 10,
        dense: bool = True,
        filters: "SearchFilters | dict | None" = None,
        graph: bool = True,
        decompose: bool = True,
        rerank: bool = False,
        details: dict | None = None,
        bridge: bool = True,
        learned: bool = True,
        trace: list | None = None,
        at: date | None = None,
        version: str | None = None,
        retype: bool = True,
        acts: bool = True,
    ) -> list[Hit]:
        """Hybrid search; ``filters`` (a :class:`SearchFilters` or a dict of its fields) restricts the
        documents every list draws from, so a filtered search still returns up to ``k`` hits. ``graph`` adds the
        graph-entered list, ``decompose`` searches sub-queries too, ``rerank`` reorders the best
        ``RERANK_MAX`` candidates with the configured cross-encoder (an error when none is configured), ``bridge``
        adds the legal wording of the query's lay words and abbreviations to BM25 and dense (``legal_expansion``),
        ``learned`` reorders the best candidates by the learned fusion (:meth:`learned_order`) when one is stored.
        ``details``, when given, receives the query's scope, the layer searched, the sub-queries, the coverage
        block and, when filtered, how much of the collection the filters leave (``filters``); ``trace``,
        when given, receives (the whole query's fused list before the learned stage, its :class:`Ranked`, the
        layer): what ``retrieval_eval.learn_fusion`` trains on. ``at`` (default today): an act's passages are those
        of its version in force on that date (``serving.ranking.in_force``); ``version="promulgated"``: its promulgated
        text instead. ``retype``: read the query's words as the collection writes them (``serving.query.typed``:
        diacritics restored, slips and clipped words made whole). ``acts``: a lay question also searches the acts'
        own passages and keeps its fused order (``serving.ranking.query_lists``)."""
        from serving.query.analyze import understand

        if rerank and self.reranker is None:
            raise ValueError("rerank requested but no cross-encoder is configured")
        at = at or date.today()
        in_force.check_version(version)
        lexicon = self.lexicon if retype else None
        found = understand(query, lexicon)
        if found.notice_kind is None:  # ... or for a series of the boards' own titles ("hasiči radí")
            found.notice_kind = self.title_series.searched(found.normalized)
        if found.notice_kind is not None:  # a search for a kind of notice: the boards write the words typed
            bridge = False
        dense_query = self.dense_text(found, bridge) if dense else None
        if dense_query is not None:  # its encoding starts now, on a worker, while this thread reads the query further
            self._dense.prefetch(dense_query)
        governing = self.governing(found) if graph else []
        index = self.layer_for(found.scope)
        if details is not None:
            details.update(
                {
                    "scope": found.scope,
                    "layer": index.layer,
                    "subqueries": [],
                    "entities": [e.id for e in found.entities],
                    "governing": [act.as_dict() for act in governing],
                }
            )
        filtered = self.filter_counts(filters)
        if details is not None and filtered is not None:
            details["filters"] = filtered
        allowed = self._allowed(filters, index, at, version)
        if allowed is not None and not allowed.any() and index is not self.passages:
            index = self.passages  # the asked-for layer has nothing that passes the filters
            allowed = self._allowed(filters, index, at, version)
        if allowed is not None and not allowed.any():
            if details is not None:
                details["coverage"] = self.assess(
                    query, found, [], index, dense=False, allowed=allowed, governing=governing
                )
                if filtered is not None:
                    details["coverage"]["filters"] = filtered
            return []
        depth = max(k, CANDIDATES)
        subqueries = searched_subqueries(query, found) if decompose else []
        if details is not None:
            details.update({"layer": index.layer, "subqueries": subqueries})
        # every dense search of this query starts now, so the workers run them while this thread ranks the rest
        understood = [(sub, understand(sub, lexicon)) for sub in subqueries]
        texts = [dense_query] + [self.dense_text(f, bridge) if dense else None for _, f in understood]
        if dense and len(texts) > 2:  # the sub-queries' texts encoded together, beside the whole query's
            self._dense.prefetch(*texts[1:])
        pending = [
            None if text is None else self.dense_pending(text, n=depth, allowed=allowed, layer=index) for text in texts
        ]
        if dense_query is not None:  # on a machine whose cores a query's encoding fills: the other lists after it
            self._dense.settle(dense_query)
        main = self.rank(
            query,
            allowed,
            dense=dense,
            graph=graph,
            understanding=found,
            n=depth,
            layer=index,
            dense_pending=pending[0],
            bridge=bridge,
            governing=governing,
            acts=acts,
        )
        if trace is not None:
            trace.append((list(main.fused), main, index))
        # the learned stage orders each query's own list (the whole query's, each sub-query's) before they are
        # interleaved, so a question in two parts still gets the best of each part
        second_stage = learned and self.learned_fusion is not None
        fused = self.second_order(main, index) if second_stage else main.fused
        if any(act.sections for act in governing):  # the graph's own § span (not one read off the headings)
            fused = with_part_slot(fused, main.signals.rankings.get("governing") or [], main.signals.part)
        merged = SubqueryFusion(fused, main.activation, k)
        for number, (sub, sub_found) in enumerate(understood, start=1):
            if texts[number] is not None:
                self._dense.settle(texts[number])
            ranked = self.rank(
                sub,
                allowed,
                dense=dense,
                graph=graph,
                understanding=sub_found,
                n=depth,
                layer=index,
                dense_pending=pending[number],
                bridge=bridge,
                acts=acts,
            )
            merged.add(number, self.second_order(ranked, index) if second_stage else ranked.fused, ranked.activation)
        if subqueries:
            fused = merged.fused()

        def doc_of(item: int) -> str:
            return index.chunks[item]["doc_id"]

        def is_decision(item: int) -> bool:
            return (self.documents.get(doc_of(item)) or {}).get("doc_type") == "decision"

        # BM25 and dense agreeing that court decisions answer: BM25's first passages lead; else BM25's first, when a
        # decision's, keeps a slot among the acts' passages a lay question weighs (serving.ranking.decision_rules).
        # Not in a filtered search: a filter that leaves only decisions would make the lists agree by itself.
        bm25_list, dense_list = main.signals.bm25, main.signals.dense

        @functools.cache
        def plain_bm25() -> list[int]:
            """BM25 of the query's own words (the bridge's legal wordings reach for the acts), searched once."""
            if not bridge:
                return bm25_list
            return self.bm25_ranking(found.normalized, n=DECISIONS_AGREED_DEPTH, allowed=allowed, layer=index)

        if filtered is None and decisions_agreed(bm25_list, main.signals.bm25_scores, dense_list, is_decision):
            fused = with_decisions_leading(fused, plain_bm25() or bm25_list, main.own)  # in the words' own order
        else:
            fused = with_decision_slot(fused, slot_ranking(bm25_list, plain_bm25, is_decision), doc_of, is_decision)
        if filtered is None and any(is_decision(item) for item in dense_list[:AGREED_DENSE_DEPTH]):
            first = plain_bm25()[:1]  # ... and dense agreeing on a decision's passage
            story_doc = doc_of if is_story(found.normalized) else None  # a story: the same decision will do
            fused = with_agreed_decision_first(
                fused, first[0] if first else None, dense_list, is_decision, main.own, story_doc
            )
        if filtered is None:  # ... or on one decision among both lists' first passages
            fused = with_agreed_decision_slot(fused, bm25_list, dense_list, doc_of, is_decision, main.own)
        if any(act.sections for act in governing):  # ... unless they took the part's place among the first
            fused = with_part_kept(fused, main.signals.rankings.get("governing") or [], main.signals.part)
        case_law = False
        if found.case_law:  # asked for case law by name: the decisions' passages first, nothing left out
            fused, case_law = with_decisions_first(fused, is_decision, main.own)
        # a municipality or a year named: among the boards' documents, that place's and that year's first
        places, years = set(board_places_named(found.normalized, self.board_places)), years_named(found.normalized)
        ordered_by: set[str] = set()
        if places or years:
            # the words a dated title must share: not the year, nor the place, which a place's every title names
            words = title_terms(found.normalized) - set(years) - {t for place in places for t in name_terms(place)}
            fused, ordered_by = with_boards_ordered(fused, self.board_of_item(index), places, years, words)
        led = False
        if places and (found.notice_kind is not None or not is_question(found.normalized)):
            # a keyword search naming a place (a kind of notice, or any words): that board's documents lead
            fused, led = with_place_notices_leading(fused, self.board_of_item(index), places, main.own)
        rerank_scores: dict[int, float] = {}
        if rerank:
            top = fused[:RERANK_MAX]
            scores = self.reranker.score(query, [self.passage_text(item, index) for item, _, _ in top])
            fused, rerank_scores = rerank_order(fused, scores)
        fused = first_of_each(fused)  # never the same passage twice, whatever stage put it back
        folded: dict[int, list[int]] = {}
        if index is self.passages:  # a section or document hit is a whole provision already
            fused, folded = one_per_provision(fused, index.chunks, k)
        hits = []
        linked = self.linked_entities([item for item, _, _ in fused[:k]], index)
        for item, score, lists in fused[:k]:
            hit = self._hit(
                item, score, lists + (["rerank"] if item in rerank_scores else []), linked, merged.activation, index
            )
            hit.subqueries = merged.found_by.get(item, [])
            hit.rerank_score = rerank_scores.get(item)
            original = in_force.from_original(self.documents.get(doc_of(item)))
            for name, value in in_force.version_of(index.chunks[item], at, original).items():
                setattr(hit, name, value)
            if item in folded:
                for name, value in joined_passages(index.chunks, [item, *folded[item]]).items():
                    setattr(hit, name, value)
            hits.append(hit)
        if details is not None:
            details["coverage"] = self.assess(
                query,
                found,
                [item for item, _, _ in fused[:k]],
                index,
                dense=dense,
                references=any("reference" in h.lists for h in hits),
                allowed=allowed,
                governing=governing,
            )
            if filtered is not None:
                details["coverage"]["filters"] = filtered
            if case_law:
                details["coverage"]["case_law"] = True
            if led:  # ahead of every other text, not only of other places' notices
                details["coverage"]["place_notices_first"] = sorted(places)
            elif "place" in ordered_by:
                details["coverage"]["places_first"] = sorted(places)
            if "year" in ordered_by:
                details["coverage"]["years_first"] = years
            if found.notice_kind is not None:
                details["coverage"]["notice_kind"] = found.notice_kind.as_dict()
        return hits

    @property
    def learned_fusion(self) -> LearnedFusion | None:
        """The learned second stage (``serving/ranking/learned_fusion.json``); None when none is stored."""
        if not self._learned_loaded:
            self._learned, self._learned_loaded = LearnedFusion.load(), True
        return self._learned

    @learned_fusion.setter
    def learned_fusion(self, value: LearnedFusion | None) -> None:
        self._learned, self._learned_loaded = value, True

    @property
    def lay_fusion(self) -> LayFusion | None:
        """The lay questions' second stage (``serving/ranking/lay_fusion.json``); None when none is stored."""
        if not self._lay_loaded:
            self._lay, self._lay_loaded = LayFusion.load(), True
        return self._lay

    @lay_fusion.setter
    def lay_fusion(self, value: LayFusion | None) -> None:
        self._lay, self._lay_loaded = value, True

    def second_order(self, ranked: Ranked, layer: LayerIndex) -> list[tuple[int, float, list[str]]]:
        """The order after the second stage: a lay question's by the lay stage (trained on lay questions: the
        learned stage, trained on windows of the passages' own sentences, ranks by BM25 what a person asks in other
        words and buried the answering § of a code), its fused order when none is stored; any other query's by
        :meth:`learned_order`."""
        if ranked.signals.lay:
            model = self.lay_fusion
            return ranked.fused if model is None else self.learned_order(ranked, layer, model)
        return self.learned_order(ranked, layer)

    def learned_order(
        self, ranked: Ranked, layer: LayerIndex, model: LearnedFusion | None = None
    ) -> list[tuple[int, float, list[str]]]:
        """The second stage (``model``, by default the learned fusion): an exact reference's own chunks keep the
        lead (among themselves in the learned order: of a provision's passages, the one the question's words match
        best first); the best other candidates (the model's ``candidates``: the fused list's and the lists' own
        best) are reordered by the model over the lists' signals, the best passage of the act governing a plain
        question first when the layer holds it (the lay stage places it by its own features); the rest follow in
        fused order. Scores keep their values, in the new order."""
        model = model or self.learned_fusion
        fused, signals = ranked.fused, ranked.signals
        items = [item for item, _, _ in fused]
        own = set(ranked.own)
        lead = [item for item in items if item in own]
        rest = [item for item in items if item not in own]
        candidates = [item for item in model.candidates(rest, signals) if item not in own]  # own ones lead already
        ordered = model.order(candidates, items, signals, layer.chunks)
        # the governing act's passages lead: its best one, as the learned order ranks them. Not a lay question's:
        # the lay stage reads the governing act as features and places it itself (retrieval_eval.learn_lay's folds,
        # MRR summed over 380 dev questions: 277.55 with the rule, 281.97 without)
        if signals.governing and not signals.lay:
            first = next((i for i in ordered if layer.chunks[i].get("citation") in signals.governing), None)
            ordered = ordered if first is None else [first] + [i for i in ordered if i != first]
        lead = model.order(lead[:LEARNED_CANDIDATES], items, signals, layer.chunks) + lead[LEARNED_CANDIDATES:]
        chosen = set(candidates)
        new_order = lead + ordered + [item for item in rest if item not in chosen]
        lists_of = {item: lists for item, _, lists in fused}
        for item in signals.bm25:
            lists_of.setdefault(item, ["bm25"])
        for item in signals.dense:
            lists_of.setdefault(item, ["dense"] if item not in set(signals.bm25) else ["bm25", "dense"])
        scores = sorted((score for _, score, _ in fused), reverse=True)
        scores += [scores[-1] if scores else 0.0] * (len(new_order) - len(scores))
        return [(item, score, lists_of[item]) for item, score in zip(new_order, scores)]

    # --- honest answers ------------------------------------------------------------------------------

    @property
    def floor(self):
        """The relevance floor (``serving/ranking/floor.json``, calibrated on the dev questions); None when absent."""
        return self._assessor.floor

    @floor.setter
    def floor(self, value) -> None:
        self._assessor.floor = value

    def collection(self):
        """What this bundle holds, for the coverage block (built on first use)."""
        return self._assessor.collection()

    def assess(
        self,
        query: str,
        understanding,
        items: list[int],
        layer: LayerIndex | None = None,
        dense: bool = True,
        references: bool = False,
        allowed: np.ndarray | None = None,
        governing=(),
    ) -> dict:
        """The coverage block of one answer (``serving.ranking.coverage.Assessor``): what the query names and whether
        the collection holds it (and the acts ``governing`` a plain question), the floor's signals over the best
        hits, and whether the answer is ``weak`` or ``empty`` (nothing matches: no hits should be shown)."""
        vector = None
        if dense:  # the query as the dense list searched it (with its legal wordings), else as typed
            vector = self._dense.vector(self.dense_text(understanding))
            if vector is None:
                vector = self._dense.vector(understanding.normalized)
        return self._assessor.assess(
            query,
            understanding,
            items,
            layer or self.passages,
            vector,
            references=references,
            allowed=allowed,
            governing=governing,
        )

    def search_with_coverage(self, query: str, k: int = 10, **options) -> SearchResult:
        """:meth:`search` with an honest answer: the coverage block, ``weak`` below the relevance floor, and no
        hits at all when nothing in the collection matches the query."""
        details: dict = dict(options.pop("details", None) or {})
        hits = self.search(query, k=k, details=details, **options)
        coverage = details["coverage"]
        if coverage.get("empty"):
            hits = []
        return SearchResult(
            hits=hits, coverage=coverage, weak=bool(coverage.get("weak")), confidence=coverage.get("confidence", {})
        )

    def passage_text(self, item: int, layer: LayerIndex | None = None) -> str:
        """What a cross-encoder reads for a chunk: its citation, title and section, then the raw text."""
        c = (layer or self.passages).chunks[item]
        head = " — ".join(x for x in (c.get("citation"), c.get("title"), c.get("section")) if x)
        return f"{head}\n{c['text']}" if head else c["text"]

    def _hit(
        self,
        item: int,
        score: float,
        lists: list[str],
        linked: dict[int, list[str]],
        activation: dict[str, float] | None = None,
        layer: LayerIndex | None = None,
    ) -> Hit:
        index = layer or self.passages
        c = index.chunks[item]
        activation = activation or {}
        found = linked.get(item, ())
        matched = sorted((e for e in found if e in activation), key=lambda e: (-activation[e], e))
        return Hit(
            doc_id=c["doc_id"],
            title=c["title"],
            source=c["source"],
            url=c["url"],
            page=c["page_start"],
            page_end=c["page_end"],
            section=c.get("section") or "",
            text=c["text"],
            score=round(score, 6),
            chunk_id=c["chunk_id"],
            citation=c.get("citation"),
            lists=lists,
            entities=matched,
            layer=layer_of(c, index.layer),
        )
