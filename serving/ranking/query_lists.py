"""One query's ranked lists, whatever the backend: BM25 (with the legal wording of the query's lay words), dense,
the entity graph (query entities -> weighted neighbourhood -> linked chunks) and the acts a plain question is
routed to or governed by (the part of the governing act the question is about:
``serving.ranking.governing_part``), fused by weighted reciprocal rank (k=60) with exact references first.

:class:`QueryLists` is this logic once; a backend gives it the primitive lists over one layer's rows
(``bm25_scored``, ``dense_pending``, ``graph`` with ``activate`` and ``ranking``, ``reference_tiers``), its layers
(``passages``, ``layer``: rows ``chunks``, ``doc_chunks``, ``section_chunks``) and what the bridge and the word forms
are read from (``definition_chunks``, ``lexicon_texts``), and the bundle beside it (``path``, ``manifest``: the lay
list's part): ``serving.ranking.bundle_lists.BundleLists`` over a bundle, ``serving.ranking.pg_lists.PostgresLists``
over PostgreSQL.
"""

from __future__ import annotations

import itertools
import re
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np

from serving.query.typed import WORD_RE
from serving.ranking.fusion import GRAPH_MIN_SHARE, RRF_WEIGHTS, Signals, entity_coverage, rrf_fuse_head
from serving.ranking.governing_part import GoverningPart, content_terms, small_part_in_order
from serving.ranking.layers import LayerIndex
from serving.ranking.references import lead_exact
from serving.ranking.wordings_list import WordingsList

CANDIDATES = 50


# The governing act's own list (BM25 among its passages) counts as much as BM25 itself: its passages lead.
GOVERNING_WEIGHT = 1.0
# A number written as a document's identifier: a file number or citation ("461/2024", "ECLI:CZ:NS:2026:…"), a date
# ("7.3.2025"), a registration plate ("7J1"). A count, an age or an amount ("14letou", "20 tisíc", "40 %") is
# everyday wording and leaves a question plain.
IDENTIFIER_NUMBER_RE = re.compile(r"\d[/:]|[/:]\d|\d\.\d|\d[^\W\d_]*[A-ZÁ-Ž]|[A-ZÁ-Ž]\d")


SENTENCE_END_RE = re.compile(r"[.?!]\s*$")
NOT_NAMES = frozenset(
    {"Kč", "Kc"}
)  # capitalised by custom, naming nothing particular (the currency, typed plainly too)
# The state's own name, capitalised by custom: "občanem České republiky" asks about the law every citizen lives
# under, not about something particular.
STATE_NAME_RE = re.compile(
    r"\b[ČčCc]esk(?:á|a|é|e|ou|ý|y)\s+[Rr]epublik(?:a|y|u|ou|e|ách|ami)?\b|\b[ČC]esk(?:o|u|em)\b"
)


def names_something(query: str) -> bool:
    """A capitalised word that does not open a sentence (``Kadaň``, ``Mírovém``; not an abbreviation such as
    ``DPH``, not the first word of a second sentence, not ``Kč``, not the state's name): the question names
    something particular."""
    state_name = [m.span() for m in STATE_NAME_RE.finditer(query)]
    for m in WORD_RE.finditer(query):
        word = m.group(0)
        opens_sentence = not query[: m.start()].strip() or SENTENCE_END_RE.search(query[: m.start()])
        in_state_name = any(start <= m.start() < end for start, end in state_name)
        if (
            word[0].isupper()
            and word[1:].islower()
            and not opens_sentence
            and word not in NOT_NAMES
            and not in_state_name
        ):
            return True
    return False


LEXICON_CHUNKS = 20_000  # passages read for the collection's word forms (a bundle's first search waits for them)
# A word more than this share of the passages hold does not count towards a lay wording said in part ("chci
# peníze" said "chce peníze jinak", extortion): measured in docs/retrieval.md.
COMMON_WORD_SHARE = 0.1
# What a term of the lay-to-legal expansion counts in BM25 next to a term the user typed.
EXPANSION_WEIGHT = 0.5
# A plain question is answered by an act in force far more often than by a decision telling a story in the same
# words: BM25 and dense among the acts' own passages (amending acts left out) join the fusion at these weights.
ACTS_WEIGHTS = {"acts_bm25": 0.5, "acts_dense": 0.5}
# ... and the acts' provisions nearest the question by their own lay wordings (serving.ranking.wordings_list)
WORDINGS_WEIGHT = 1.0
# ... and those whose wordings (their own and their headings') hold the question's words: BM25 over the wordings
# alone. Dev codes sets (237 questions, bundle 20261206T014039154534Z): in the first ten 198 -> 206, at rank 1 125 ->
# 132, MRR 0.639 -> 0.661 (codes 3 recall@10 0.820 -> 0.880, keywords 0.825 -> 0.875, codes 2 MRR 0.821 -> 0.858);
# the other dev sets' MRR 0.763 -> 0.761. Weight 0.75 gained less (203 in the first ten), 1.5 lost on the other
# sets (MRR 0.748); the provisions' own wordings without their headings' gained less (205, MRR 0.649).
WORDINGS_BM25_WEIGHT = 1.0
# ... unless the best passage elsewhere is this much nearer the question than the best passage of an act (cosine):
# then the question asks for a notice or a decision ("Kdo byl jmenován do hodnotící komise pro vodácké přístaviště?")
ACTS_DENSE_GAP = 0.03
ACT_CITATION_RE = re.compile(r"^\d{1,4}/\d{4} Sb\.$")
AMENDING_TITLE_RE = re.compile(r"\bkter(?:ým|ou)\s+se\s+(?:mění|zrušuje|doplňuje)", re.IGNORECASE)


def nearest_of(first: tuple[list[int], list[float]], second: tuple[list[int], list[float]], n: int):
    """Two dense lists of one query in one layer (rows, similarities) as one: the ``n`` most similar rows, each
    once, by similarity (the earlier list first among equals)."""
    best: dict[int, float] = {}
    for rows, sims in (first, second):
        for row, sim in zip(rows, sims):
            best.setdefault(row, sim)
    ranked = sorted(best.items(), key=lambda item: -item[1])[:n]
    return [row for row, _ in ranked], [sim for _, sim in ranked]


@dataclass
class Ranked:
    """One query's candidates, best first: (chunk index, score, names of the lists it came from), and the
    activation of graph entities behind the graph list."""

    fused: list[tuple[int, float, list[str]]]
    activation: dict[str, float]
    signals: Signals = field(default_factory=Signals)
    own: list[int] = field(default_factory=list)  # the exact reference's own chunks (they lead, whatever else)


class QueryLists(GoverningPart):
    """One query's fused candidates over a backend's primitive lists (see the module's docstring)."""

    _vocabulary = None
    _lexicon = None
    _act_router = None
    _common_words = None

    def passage_count(self) -> int:
        """How many passages the lists search."""
        raise NotImplementedError

    def passage_frequencies(self, terms: Iterable[str], least: int = 0) -> dict[str, int]:
        """How many passages hold each analysed term (BM25's document frequency): exact for a term at least ``least``
        passages hold, at most that for the others (a backend may skip reading what could not reach it)."""
        raise NotImplementedError

    def definition_chunks(self) -> Iterable[dict]:
        """The passages statutory definitions are harvested from (the bridge's vocabulary)."""
        return self.passages.chunks

    def lexicon_texts(self, most: int) -> Iterator[str]:
        """The texts of at most about ``most`` passages, evenly spread: an even sample of a large collection, the
        common words are what count."""
        chunks = self.passages.chunks
        step = max(1, len(chunks) // most)
        return (chunks[i]["text"] for i in range(0, len(chunks), step))

    def bm25_ranking(
        self,
        query: str,
        n: int = CANDIDATES,
        allowed: np.ndarray | None = None,
        layer: LayerIndex | None = None,
        expansion: str = "",
    ) -> list[int]:
        """Chunks by BM25 score of ``query``; ``expansion`` (the legal wording of the query's lay words) adds its
        own terms' scores at ``EXPANSION_WEIGHT``."""
        return self.bm25_scored(query, n, allowed, layer, expansion)[0]

    def graph_activation(self, query: str, understanding=None):
        """Entity-graph activation (:class:`serving.ranking.graph_retrieval.Activation`) for the query: its entities and routed
        acts, spread one hop."""
        from serving.query.analyze import analyze_query

        seeds = [(e["id"], e["weight"]) for e in analyze_query(query, understanding=understanding)["entities"]]
        return self.graph.activate(seeds)

    def graph_ranking(
        self, query: str, n: int = CANDIDATES, allowed: np.ndarray | None = None, understanding=None
    ) -> list[int]:
        """L3 chunks linked to the query's entity-graph neighbourhood, best first."""
        return self.graph.ranking(self.graph_activation(query, understanding), n, allowed)

    def reference_ranking(self, query: str, allowed: np.ndarray | None = None) -> list[int]:
        own, citing = self.reference_tiers(query, allowed)
        return own + citing

    @property
    def act_router(self):
        """Routing plain questions to acts over L3 (``serving.ranking.graph_retrieval.ActRouter``), built on first use."""
        if self._act_router is None:
            from serving.ranking.graph_retrieval import ActRouter

            with self._upper_lock:
                if self._act_router is None:
                    self._act_router = ActRouter(self.documents, self.passages.doc_chunks, len(self.passages.chunks))
        return self._act_router

    def governing(self, understanding) -> list:
        """The acts that govern a plain question (``serving.query.governing``), whether or not this bundle holds
        them; none when the query names an act or a provision itself (what it names is what it asks about), nor
        when it is about something particular -- an institution, a decision, a place, a name ("stipendium od města
        Kadaň"): a notice or a decision answers that, not the act governing its area."""
        from serving.query.analyze import routing_text
        from serving.query.governing import governing_acts

        if not self.plain_question(understanding, offices=True):
            return []
        return governing_acts(routing_text(understanding))

    @classmethod
    def lay_question(cls, understanding) -> bool:
        """A plain question (:meth:`plain_question`) in words alone: no identifier, no number written as one, no name
        in capitals ("MUKK/6462/2025", "ELTODO-CITELUM") -- what a person asks about the law, not a search for a
        document; a count, an age or an amount ("sex s 14letou") is plain words. A question asking for case law
        ("judikatura") asks for the courts' decisions, not the acts' passages."""
        query = understanding.query
        if (
            getattr(understanding, "case_law", False)
            or IDENTIFIER_NUMBER_RE.search(query)
            or any(len(w) >= 3 and w.isupper() for w in WORD_RE.findall(query))
        ):
            return False
        return cls.plain_question(understanding)

    @staticmethod
    def plain_question(understanding, offices: bool = False) -> bool:
        """A question in plain words: it names no act, provision, institution, decision, place or name, nor is it a
        keyword search for a kind of notice ("záměr prodeje pozemku", ``Understanding.notice_kind``) -- what an act
        in force answers, not a notice or a decision about something particular. With ``offices``, a kind of office
        written in lower case ("když mi finanční úřad doměří daň") is plain words too: it names no one office."""
        from mendel.law.acts_table import find_named_acts
        from mendel.registers.places import find_places

        if getattr(understanding, "notice_kind", None) is not None:
            return False
        query = understanding.query
        named = [
            e
            for e in understanding.graph_entities()
            if not (offices and e.label == "INSTITUTION" and e.text == e.text.lower())
        ]
        return not (
            any(e.label == "LAW_REF" for e in understanding.entities)
            or named
            or names_something(query)
            or find_named_acts(query)
            or find_places(understanding.normalized)  # a place typed in lower case is written as a name there
        )

    def graph_searched(self, layer: LayerIndex) -> bool:
        """Whether ``layer``'s dense list is walked through an approximate graph (the bundle's HNSW), which then
        gets the acts' passages read exactly beside it; the database's lists say False (their parity)."""
        return False

    def wordings_list(self, layer: LayerIndex) -> WordingsList | None:
        """The lay list of the passage layer (:class:`~serving.ranking.wordings_list.WordingsList`), read from the
        bundle once; None for another layer or a bundle without it."""
        if layer is not self.passages:
            return None
        if "_wordings_list" not in self.__dict__:
            self._wordings_list = WordingsList.load(
                Path(self.path), layer.chunks, self.act_rows(layer), self.manifest.get("model")
            )
        return self._wordings_list

    def act_rows(self, layer: LayerIndex) -> np.ndarray | None:
        """Mask over ``layer`` of the passages of acts (a Sbírka citation), amending acts left out: their clauses
        ("v § 205 se slova ... nahrazují") repeat a code's words without saying what it says. Built once; None
        when the layer holds no act."""
        cache = self.__dict__.setdefault("_act_rows", {})
        if layer.layer not in cache:
            acts = {
                doc_id
                for doc_id, doc in self.documents.items()
                if ACT_CITATION_RE.match(doc.get("citation") or "")
                and not AMENDING_TITLE_RE.search(doc.get("title") or "")
            }
            mask = layer.mask(acts) if acts else None
            cache[layer.layer] = mask if mask is not None and mask.any() else None
        return cache[layer.layer]

    # --- the lay-to-legal bridge ----------------------------------------------------------------------

    @property
    def vocabulary(self):
        """The legal vocabulary (``mendel.law.vocabulary``) plus the statutory definitions and aliases of this
        bundle's acts, harvested from its passages on first use."""
        if self._vocabulary is None:
            from mendel.law.vocabulary import default_vocabulary, harvest_definitions

            with self._upper_lock:
                if self._vocabulary is None:
                    self._vocabulary = default_vocabulary().with_definitions(
                        harvest_definitions(self.definition_chunks())
                    )
        return self._vocabulary

    @property
    def lexicon(self):
        """The collection's word forms (``serving.query.typed.Lexicon``): the words of its passages (at most
        ``LEXICON_CHUNKS`` of them, evenly spread) and document titles and those of the maintained tables, with
        Czech's word forms for the words they lack (``mendel.czech.wordforms``), read on first use; a query is read
        as they are written."""
        if self._lexicon is None:
            from mendel.czech.wordforms import czech_word_forms
            from serving.query.typed import Lexicon, maintained_words

            with self._upper_lock:
                if self._lexicon is None:
                    texts = self.lexicon_texts(LEXICON_CHUNKS)
                    titles = (d.get("title") or "" for d in self.documents.values())
                    self._lexicon = Lexicon.from_texts(
                        itertools.chain(texts, titles), extra=maintained_words(), language=czech_word_forms()
                    )
        return self._lexicon

    @property
    def common_words(self) -> frozenset[str]:
        """The keys of the vocabulary's wordings said in part that more than ``COMMON_WORD_SHARE`` of the passages
        hold, read on first use."""
        if self._common_words is None:  # no lock: the vocabulary takes it, and two threads would find the same
            keys = sorted(self.vocabulary.part_keys())
            least = int(COMMON_WORD_SHARE * self.passage_count()) + 1  # more than the share, in whole passages
            frequency = self.passage_frequencies(keys, least)
            self._common_words = frozenset(key for key in keys if frequency.get(key, 0) >= least)
        return self._common_words

    def legal_expansion(self, understanding) -> str:
        """The legal wordings of the query's lay words, abbreviations and the bundle's defined terms, then those of
        the lay wordings it says in part (``LegalVocabulary.legal_in_part``, the collection's common words not
        counted), space-separated ("" when none): what BM25 adds at ``EXPANSION_WEIGHT``."""
        from serving.query.analyze import legal_wordings

        exact = legal_wordings(understanding.normalized, self.vocabulary)
        in_part = self.vocabulary.legal_in_part(understanding.normalized, known=exact, common=self.common_words)
        return " ".join(exact + in_part)

    @staticmethod
    def dense_text(understanding, bridge: bool = True) -> str:
        """What the dense list encodes: the normalised query, with the bridge its legal wordings appended
        (``serving.query.analyze.dense_query_text``)."""
        from serving.query.analyze import dense_query_text

        return dense_query_text(understanding) if bridge else understanding.normalized

    def rank(
        self,
        query: str,
        allowed: np.ndarray | None = None,
        dense: bool = True,
        graph: bool = True,
        understanding=None,
        n: int = CANDIDATES,
        layer: LayerIndex | None = None,
        dense_pending: Future | None = None,
        bridge: bool = True,
        governing=(),
        acts: bool = True,
        lay: bool | None = None,
    ) -> Ranked:
        """One query's fused candidates in one layer (no decomposition, no rerank): weighted RRF of the BM25,
        dense and (on L3) graph lists, the routed acts' and the ``governing`` acts' own lists and, for a lay
        question (``lay``, else :meth:`lay_question`) when ``acts``, BM25 and dense among the acts' own passages,
        with exact references leading. ``dense_pending``: this query's dense list already started
        (:meth:`dense_pending`); otherwise it starts here, before the other lists."""
        from serving.query.analyze import understand

        index = layer or self.passages
        found = understanding or understand(query)
        text = found.normalized  # "paragraf 204" is indexed as "§ 204"
        dense_query = self.dense_text(found, bridge)  # one text for every dense list of this query
        if dense and dense_pending is None:
            dense_pending = self.dense_pending(dense_query, n=n, allowed=allowed, layer=index)
        acts_within = acts_pending = None
        lay_acts = acts and index is self.passages and (self.lay_question(found) if lay is None else lay)
        if index is self.passages and (lay_acts or (dense and self.graph_searched(index))):
            acts_within = self.act_rows(index)
            if acts_within is not None and allowed is not None:
                acts_within = acts_within & allowed
            if acts_within is not None and not acts_within.any():
                acts_within = None
            if acts_within is not None and dense:  # the same query text: encoded once for both dense lists
                acts_pending = self.dense_pending(dense_query, n=n, allowed=acts_within, layer=index)
        # the acts' passages, read exactly, join a dense list walked through a graph (below)
        acts_beside = acts_pending if dense and self.graph_searched(index) else None
        if not lay_acts:
            acts_within = acts_pending = None
        expansion = self.legal_expansion(found) if bridge else ""
        signals = Signals(query_terms=content_terms(text))
        signals.bm25, signals.bm25_scores = self.bm25_scored(
            text, n=n, allowed=allowed, layer=index, expansion=expansion
        )
        rankings = {"bm25": signals.bm25}
        if dense:
            rankings["dense"] = []  # filled below: the lists keep this order in the fusion
        activation: dict[str, float] = {}
        weights = dict(RRF_WEIGHTS)
        if graph and len(self.graph):
            entered = self.graph_activation(query, found)
            activation = entered.scores
            share = max(entity_coverage(found), GRAPH_MIN_SHARE)
            if index is self.passages and share > 0:  # a list with no weight would claim hits it did not move
                rankings["graph"] = signals.graph = self.graph.ranking(entered, n, allowed)
                weights["graph"] = RRF_WEIGHTS["graph"] * share
                signals.graph_share = share
        plain = 1.0 - entity_coverage(found)  # routing carries what the recognised entities do not
        routed = self.act_router.route(found) if graph and plain > 0 and index is self.passages else {}
        if routed:
            within = self.act_router.mask(routed)
            rankings["routed"] = self.bm25_ranking(
                text, n=n, allowed=within if allowed is None else within & allowed, expansion=expansion
            )
            weights["routed"] = RRF_WEIGHTS["routed"] * plain
            signals.routed = {citation: share * plain for citation, share in routed.items()}
        acts, part = self.governing_rows(governing, index, text) if governing else (None, None)
        if acts is not None:
            # the governing act's passages lead, those in the part dealing with the question's area first
            within = part if part is not None else acts
            within = within if allowed is None else within & allowed
            governing_list = self.bm25_ranking(text, n=n, allowed=within, expansion=expansion)
            if not governing_list and part is not None:
                # the words match nothing there: the graph's part still leads, a small one in the code's order, a
                # larger one by its passages' nearness to the question ("nad námi dupou děti": the nuisances' §§)
                governing_list = small_part_in_order(part, allowed) or (
                    self.dense_pending(dense_query, n=n, allowed=within, layer=index).result()[0] if dense else []
                )
            rankings["governing"] = governing_list
            weights["governing"] = GOVERNING_WEIGHT
            signals.governing = {act.citation for act in governing}
            signals.part = set(np.flatnonzero(part).tolist()) if part is not None else set()
        if dense:
            signals.dense, signals.dense_sims = dense_pending.result()
            if acts_beside is not None:
                signals.dense, signals.dense_sims = nearest_of(
                    (signals.dense, signals.dense_sims), acts_beside.result(), n
                )
            rankings["dense"] = signals.dense
        if acts_pending is not None:
            acts_dense, acts_sims = acts_pending.result()
            if acts_sims and signals.dense_sims and acts_sims[0] < signals.dense_sims[0] - ACTS_DENSE_GAP:
                acts_within = None  # a passage elsewhere answers far better: a notice or a decision is asked for
            else:
                rankings["acts_dense"] = acts_dense
                weights["acts_dense"] = ACTS_WEIGHTS["acts_dense"]
        if acts_within is not None:
            signals.lay = True
            rankings["acts_bm25"] = self.bm25_ranking(text, n=n, allowed=acts_within, layer=index, expansion=expansion)
            weights["acts_bm25"] = ACTS_WEIGHTS["acts_bm25"]
            wordings = self.wordings_list(index) if dense else None
            if wordings is not None:  # the query's vector, as the dense list above had it encoded (never twice)
                vector = self._dense.encoded(dense_query)[0]
                rankings["wordings"] = wordings.ranking(vector, n, allowed=acts_within)
                weights["wordings"] = WORDINGS_WEIGHT
                lexical = wordings.lexical_ranking(text, n, allowed=acts_within)
                if lexical:  # a list that holds nothing claims nothing
                    rankings["wordings_bm25"] = lexical
                    weights["wordings_bm25"] = WORDINGS_BM25_WEIGHT
        # the order of the first hits does not depend on how many are asked for: the lists' first CANDIDATES
        # decide it, and the learned stage reads the lists that far (a search for 100 hits starts as one for 10)
        fused = rrf_fuse_head(rankings, CANDIDATES, weights=weights)
        signals.rankings, signals.weights = rankings, weights
        signals.head(CANDIDATES)
        own, citing = self.reference_tiers(query, allowed=allowed, understanding=found, layer=index)
        signals.citing = set(citing)
        fused = lead_exact(fused, own, citing, n)  # the provision's own section or the decision, then citing chunks
        return Ranked(fused, activation, signals, own)
