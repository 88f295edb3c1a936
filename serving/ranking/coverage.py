"""What a query names that the collection does or does not hold, and how sure the search is of its answer.

Two parts of an honest answer:

- the **coverage block**: every act (by citation, name or abbreviation — ``mendel.law.acts_table``), court decision
  (file number, ECLI) and place a query names, each with its status in this bundle: ``indexed`` (a document of the
  collection), ``cited`` (not a document here, but passages cite it or write its file number whole), ``record``
  (only a citation record, no text), ``missing`` (nothing in the collection). ``missing`` items are listed apart
  with a message ("89/2012 Sb. (občanský zákoník) is not indexed"); so is the act that governs a plain question
  when the collection lacks it ("zákoník práce (262/2006 Sb.) není v kolekci", ``serving.query.governing``);
- the **relevance floor**: two signals of the best hits — the lexical one (BM25 score of the best hit over the
  score every query term could contribute, so words the collection never uses pull it down) and the dense one
  (cosine of query and best hit) — against thresholds calibrated on the dev questions only
  (``retrieval_eval.floor``, written to ``serving/ranking/floor.json``). Below both, the hits are marked weak; with no
  lexical match at all and the dense signal below its floor, nothing is returned. A query whose every named
  reference is missing and uncited is weak whatever the signals say: its hits cannot be about what it asks; so
  is a plain question whose governing act the collection lacks.
"""

from __future__ import annotations

import json
import math
import re
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from mendel.czech.analyzer import analyze
from mendel.law.acts_table import acts_by_citation, find_named_acts
from mendel.law.identifiers import parse_citation
from mendel.ner.rules import split_law_ref_norm
from mendel.records.citation_records import CITATION_RECORD

FLOOR_FILE = Path(__file__).resolve().with_name("floor.json")
TOP_HITS = 3  # the signals are the best of this many hits
TEXTS_READ = 200  # passages read to tell whether the collection's text writes a file number
INDEXED, CITED, RECORD, MENTIONED, MISSING = "indexed", "cited", "record", "mentioned", "missing"
_CITED_ACT_RE = re.compile(r"č\.\s*(\d{1,4})\s*/\s*(\d{4})\s*Sb\.")
_WS = re.compile(r"\s+")


@dataclass(frozen=True)
class Floor:
    """Thresholds below which an answer is weak. ``dense`` holds only for the embedding model it was calibrated
    with (``model``); for any other model the lexical signal decides alone, at ``lexical_alone`` when the
    calibration chose one (a lexical threshold chosen beside a dense one is too high to stand alone)."""

    lexical: float
    dense: float | None = None
    model: str | None = None
    source: dict = field(default_factory=dict)  # how it was calibrated (questions file, bundle, counts)
    lexical_alone: float | None = None

    def dense_for(self, model: str | None) -> float | None:
        return self.dense if self.dense is not None and model is not None and model == self.model else None

    def lexical_for(self, model: str | None) -> float:
        """The lexical threshold for answers of a bundle embedded with ``model``."""
        if self.dense_for(model) is None and self.lexical_alone is not None:
            return self.lexical_alone
        return self.lexical

    @classmethod
    def load(cls, path: Path = FLOOR_FILE) -> "Floor":
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return cls(
            lexical=float(data["lexical"]),
            dense=data.get("dense"),
            model=data.get("model"),
            source=data.get("source", {}),
            lexical_alone=data.get("lexical_alone"),
        )


@dataclass
class Confidence:
    lexical: float
    dense: float | None

    def as_dict(self) -> dict:
        return {"lexical": round(self.lexical, 4), "dense": None if self.dense is None else round(self.dense, 4)}


def _norm_file_number(text: str) -> str:
    return _WS.sub(" ", text).strip().upper()


def file_number_pattern(file_number: str) -> re.Pattern:
    """A file number as passages write it: its parts in order, any spacing between them and around "/", in any
    case, not inside a longer number ("21 Cdo 1234/2020" is not "121 Cdo 1234/2020" nor "… 1234/20201")."""
    parts = [re.escape(part) for part in re.split(r"\s+|(?=/)|(?<=/)", file_number.strip()) if part]
    return re.compile(r"(?<![\w/])" + r"\s*".join(parts) + r"(?![\w/])", re.IGNORECASE)


class CollectionIndex:
    """What one bundle holds, for the coverage block: acts by citation (and the acts amending each act it lacks),
    decisions by file number and ECLI, citation records, and the references its passages cite."""

    def __init__(self, documents: dict[str, dict], graph=None, vocabulary=(), passage_texts=None):
        self.acts: dict[str, dict] = {}
        self.amending: dict[str, list[dict]] = {}
        self.decisions: dict[str, dict] = {}
        self.records: dict[str, dict] = {}
        for doc in documents.values():
            citation = (doc.get("citation") or "").strip()
            kind = doc.get("doc_type") or ""
            act = parse_citation(citation) if citation else None
            if kind == CITATION_RECORD:
                for key in (doc["doc_id"], citation):
                    if key:
                        self.records[_norm_file_number(key)] = doc
                continue
            if act is not None and act.citation == citation:
                self.acts[citation] = doc
                for number, year in _CITED_ACT_RE.findall(doc.get("title") or ""):
                    amended = f"{int(number)}/{year} Sb."
                    if amended != citation:
                        self.amending.setdefault(amended, []).append(doc)
            elif kind == "decision" or doc["doc_id"].upper().startswith("ECLI:"):
                for key in (doc["doc_id"], citation):
                    if key:
                        self.decisions[_norm_file_number(key)] = doc
        self.graph = graph
        self._terms = frozenset(vocabulary)  # the passages' BM25 terms: which place names the text uses
        self._passage_texts = passage_texts  # term -> the texts of (at most some) passages holding it
        self._by_act: dict[str, int] | None = None

    def passage_texts(self, term: str) -> list[str]:
        """The texts of the passages holding an analysed ``term`` (at most ``TEXTS_READ``)."""
        return list(self._passage_texts(term))[:TEXTS_READ] if self._passage_texts is not None else []

    def names_in_text(self, file_number: str, term: str) -> bool:
        """Whether some passage holding ``term`` (the file number's "number/year") writes the whole file number:
        "1234/2020" alone is often another numbering ("D/1234/2020/STR")."""
        pattern = file_number_pattern(file_number)
        return any(pattern.search(text) for text in self.passage_texts(term))

    def cited_chunks(self, entity_id: str) -> int:
        """How many passages cite exactly this reference or the same provision (its ``§ N`` / ``čl. N``)."""
        graph = self.graph
        if graph is None or not len(graph):
            return 0
        found = graph.chunks_of(entity_id).size
        label, _, norm = entity_id.partition(":")
        if label == "LAW_REF":
            from serving.ranking.graph_retrieval import provision_head

            act, provision = split_law_ref_norm(norm)
            head = provision_head(provision) if provision else None
            if act and head:
                found += sum(graph.chunks_of(graph.ids[j]).size for j in graph.by_head.get((act, head), []))
            elif act and not provision:
                found += self._act_citations().get(act, 0)
        return int(found)

    def _act_citations(self) -> dict[str, int]:
        """Passages citing some provision of each act (summed once per bundle)."""
        if self._by_act is None:
            counts: dict[str, int] = {}
            for (act, _), nodes in self.graph.by_head.items():
                counts[act] = counts.get(act, 0) + sum(self.graph.chunks_of(self.graph.ids[j]).size for j in nodes)
            self._by_act = counts
        return self._by_act

    def act_status(self, citation: str, entity_id: str) -> tuple[str, dict]:
        if citation in self.acts:
            doc = self.acts[citation]
            return INDEXED, {"doc_id": doc["doc_id"], "title": doc.get("title")}
        extra: dict = {}
        amending = self.amending.get(citation, [])
        if amending:
            extra["amended_by"] = [{"doc_id": d["doc_id"], "citation": d.get("citation")} for d in amending]
        cited = self.cited_chunks(entity_id)
        if cited:
            extra["cited_in"] = cited
        return (CITED if cited or amending else MISSING), extra

    def decision_status(self, norm: str) -> tuple[str, dict]:
        key = _norm_file_number(norm)
        if key in self.decisions:
            doc = self.decisions[key]
            return INDEXED, {"doc_id": doc["doc_id"], "title": doc.get("title")}
        if key in self.records:
            return RECORD, {"doc_id": self.records[key]["doc_id"]}
        cited = self.cited_chunks(f"DECISION_REF:{norm}")
        if cited:
            return CITED, {"cited_in": cited}
        # a file number the recogniser did not link still counts where a passage writes it whole
        number = re.search(r"\d+/\d{2,4}", norm)
        if number and not norm.upper().startswith("ECLI:") and number.group(0) in self._terms:
            if self.names_in_text(norm, number.group(0)):
                return CITED, {"mentioned": True}
        return MISSING, {}

    def place_status(self, mention) -> tuple[str, dict]:
        """A municipality named in a query: ``mentioned`` when passages use its name, else ``missing``."""
        from mendel.registers.places import mentioned_in

        extra = {
            "municipalities": [{"name": m.name, "okres": m.okres, "code": m.code} for m in mention.municipalities[:5]]
        }
        return (MENTIONED if mentioned_in(mention.name, self._terms) else MISSING), extra


def _act_label(citation: str) -> str:
    named = acts_by_citation().get(citation)
    return f"{citation} ({named.short_name})" if named is not None else citation


def governing_report(governing, collection: CollectionIndex, named: list[dict]) -> tuple[list[dict], bool]:
    """The acts governing a plain question (``serving.query.governing``) with their status in the collection, and
    whether the most likely one is missing (an act the query names itself is reported with what it names)."""
    items = []
    for act in governing:
        if any(item["kind"] == "act" and item["id"] == act.citation for item in named):
            continue
        status, extra = collection.act_status(act.citation, f"LAW_REF:{act.citation}")
        if status not in (INDEXED, MENTIONED) and not act.sure_enough_to_say_missing:
            continue  # routed by too little of the question to tell anyone its act is absent
        items.append(
            {
                "kind": "act",
                "id": act.citation,
                "text": act.name,
                "status": status,
                "governing": True,
                "area": act.area_name,
                **extra,
            }
        )
    principal_missing = bool(governing) and any(
        item["id"] == governing[0].citation and item["status"] not in (INDEXED, MENTIONED) for item in items
    )
    return items, principal_missing


def coverage_report(query: str, understanding, collection: CollectionIndex, governing=()) -> dict:
    """The coverage block of one query: ``named`` (everything it names, with status, and the acts governing a
    plain question, ``governing``), ``missing`` (the ones the collection does not hold, each with a message),
    ``all_missing`` (it names something and none of it is indexed, cited or recorded) and ``governing_missing``
    (the act most likely to govern the question is not in the collection)."""
    named: list[dict] = []
    seen: set[tuple[str, str]] = set()
    acts_named: dict[str, dict] = {}
    for entity in understanding.entities:
        if entity.label == "LAW_REF":
            act, provision = split_law_ref_norm(entity.norm)
            if act and (act, provision or "") not in seen:
                seen.add((act, provision or ""))
                acts_named.setdefault(act, {"text": entity.text, "provision": provision, "entity": entity.id})
        elif entity.label == "DECISION_REF" and ("decision", entity.norm) not in seen:
            seen.add(("decision", entity.norm))
            status, extra = collection.decision_status(entity.norm)
            named.append({"kind": "decision", "id": entity.norm, "text": entity.text, "status": status, **extra})
    for mention in find_named_acts(query):
        acts_named.setdefault(
            mention.citation, {"text": mention.text, "provision": None, "entity": f"LAW_REF:{mention.citation}"}
        )
    for citation, info in acts_named.items():
        status, extra = collection.act_status(citation, info["entity"])
        item = {"kind": "act", "id": citation, "text": info["text"], "status": status, **extra}
        if info["provision"]:
            item["provision"] = info["provision"]
        named.append(item)
    from mendel.registers.places import find_places

    for place in find_places(understanding.normalized):
        status, extra = collection.place_status(place)
        named.append({"kind": "place", "id": place.name, "text": place.text, "status": status, **extra})
    asked = bool(named)
    governing_items, governing_missing = governing_report(governing, collection, named)
    named += governing_items
    missing = []
    for item in named:
        if item["status"] in (INDEXED, MENTIONED):
            continue
        label = _act_label(item["id"]) if item["kind"] == "act" else item["id"]
        if item.get("governing"):
            message = f"{item['text']} ({item['id']}) není v kolekci"
        elif item["status"] == MISSING:
            message = (
                f"{label} is not indexed"
                if item["kind"] != "place"
                else f"{label}: no document of the collection mentions this place"
            )
        elif item["status"] == RECORD:
            message = f"{label}: only a citation record, the decision's text is not in the collection"
        else:
            cited = item.get("cited_in")
            amended = ", ".join(a["citation"] or a["doc_id"] for a in item.get("amended_by", []))
            message = (
                f"{label} is not indexed"
                + (f"; cited in {cited} passages" if cited else "")
                + ("; named in the collection's text" if item.get("mentioned") else "")
                + (f"; the collection holds acts amending it: {amended}" if amended else "")
            )
        missing.append({**item, "message": message})
    return {
        "named": named,
        "missing": missing,
        "all_missing": asked and all(item["status"] == MISSING for item in named if not item.get("governing")),
        "governing_missing": governing_missing,
    }


# --- the relevance floor ---------------------------------------------------------------------------------------


def _idf_table(bm25) -> tuple[dict, np.ndarray, float]:
    """(vocabulary, idf per term id, idf of a term no chunk has) of a bm25s index, as bm25s' Lucene variant
    computes idf: log(1 + (N - df + 0.5) / (df + 0.5))."""
    scores = bm25.scores
    n_docs = float(scores["num_docs"])
    indptr = np.asarray(scores["indptr"])
    df = np.diff(indptr).astype(np.float64)
    idf = np.log1p((n_docs - df + 0.5) / (df + 0.5))
    return bm25.vocab_dict, idf, math.log1p((n_docs + 0.5) / 0.5)


class SignalTables:
    """Per-layer idf tables, built once per layer on first use."""

    def __init__(self):
        self._tables: dict[int, tuple] = {}
        self._lock = threading.Lock()

    def idf(self, layer) -> tuple[dict, np.ndarray, float]:
        key = id(layer)
        if key not in self._tables:
            with self._lock:
                if key not in self._tables:
                    self._tables[key] = _idf_table(layer.bm25)
        return self._tables[key]


def lexical_signal(layer, tables: SignalTables, text: str, allowed: np.ndarray | None = None) -> float:
    """The best BM25 score of the layer (among ``allowed`` chunks) over the sum of idf of every query term (a term
    the collection never uses counts with the idf it would have in one chunk): 0 when no term matches anywhere,
    higher the more of the query's weight one passage carries."""
    if not layer.chunks:
        return 0.0
    vocab, idf, unseen = tables.idf(layer)
    terms = analyze(text)
    if not terms:
        return 0.0
    weight = sum(float(idf[vocab[t]]) if t in vocab else unseen for t in terms)
    known = [t for t in terms if t in vocab]
    if not known or weight <= 0:
        return 0.0
    scores = np.asarray(layer.bm25.get_scores(known))
    if allowed is not None:
        scores = np.where(allowed, scores, 0.0)
    best = float(scores.max()) if scores.size else 0.0
    return max(0.0, best) / weight


def dense_signal(layer, query_vector: np.ndarray | None, items: list[int]) -> float | None:
    """Best cosine between the (unit) query vector and the stored vectors of ``items``; None when unknown."""
    if query_vector is None or not items:
        return None
    index = layer.faiss
    best = None
    for item in items:
        try:
            vector = index.reconstruct(int(item))
        except Exception:  # an index kind that cannot give a vector back
            return None
        norm = float(np.linalg.norm(vector)) or 1.0
        value = float(np.dot(query_vector.ravel(), vector) / norm)
        best = value if best is None else max(best, value)
    return best


def judge(confidence: Confidence, floor: Floor | None, model: str | None, coverage: dict) -> dict:
    """``weak`` (below the floor, or about nothing the collection holds) and ``empty`` (nothing matches: return
    no hits) for one answer."""
    dense_floor = floor.dense_for(model) if floor is not None else None
    dense_ok = dense_floor is not None and confidence.dense is not None and confidence.dense >= dense_floor
    lexical_floor = floor.lexical_for(model) if floor is not None else None
    lexical_ok = floor is not None and confidence.lexical >= lexical_floor
    below = floor is not None and not (lexical_ok or dense_ok)
    empty = confidence.lexical <= 0.0 and not dense_ok
    return {
        "weak": bool(below or coverage.get("all_missing") or coverage.get("governing_missing") or empty),
        "empty": bool(empty),
        "floor": None if floor is None else {"lexical": lexical_floor, "dense": dense_floor},
    }


def as_dict(value) -> dict:
    return asdict(value)


class Assessor:
    """The coverage block of one bundle's answers: what the bundle holds (``CollectionIndex``, built on first use),
    the idf tables of its layers and the relevance floor (``floor.json``, read on first use)."""

    def __init__(self, documents: dict[str, dict], graph, passages, model: str | None):
        self._documents = documents
        self._graph = graph
        self._passages = passages  # L3: its BM25 vocabulary says which words the collection's text uses
        self.model = model
        self._collection: CollectionIndex | None = None
        self._signals = SignalTables()
        self._floor: Floor | None = None
        self._floor_loaded = False
        self._lock = threading.Lock()

    @property
    def floor(self) -> Floor | None:
        """The relevance floor (``serving/ranking/floor.json``, calibrated on the dev questions); None when absent."""
        if not self._floor_loaded:
            self._floor = Floor.load() if FLOOR_FILE.exists() else None
            self._floor_loaded = True
        return self._floor

    @floor.setter
    def floor(self, value: Floor | None) -> None:
        self._floor, self._floor_loaded = value, True

    def collection(self) -> CollectionIndex:
        if self._collection is None:
            with self._lock:
                if self._collection is None:
                    self._collection = CollectionIndex(
                        self._documents, self._graph, self._passages.bm25.vocab_dict, self._texts_with_term
                    )
        return self._collection

    def _texts_with_term(self, term: str):
        rows = np.flatnonzero(self._passages.bm25.get_scores([term]))
        return (self._passages.chunks[int(row)]["text"] for row in rows[:TEXTS_READ])

    def lexical_signal(self, layer, text: str, allowed: np.ndarray | None) -> float:
        """:func:`lexical_signal` over ``layer`` (a backend without a bm25s index computes it its own way)."""
        return lexical_signal(layer, self._signals, text, allowed)

    def assess(
        self,
        query: str,
        understanding,
        items: list[int],
        layer,
        vector: np.ndarray | None,
        references: bool = False,
        allowed: np.ndarray | None = None,
        governing=(),
    ) -> dict:
        """The coverage block of one answer: what the query names and whether the collection holds it (with the
        acts ``governing`` a plain question), the floor's signals over the best hits (``vector``: the query's, None
        without a dense list), and whether the answer is ``weak`` or ``empty`` (nothing matches: no hits should
        be shown)."""
        report = coverage_report(query, understanding, self.collection(), governing)
        confidence = Confidence(
            lexical=self.lexical_signal(layer, understanding.normalized, allowed),
            dense=dense_signal(layer, vector, items[:TOP_HITS]),
        )
        verdict = judge(confidence, self.floor, self.model, report)
        if references and not report["all_missing"]:  # an exact reference was found: the answer is that text
            verdict.update(weak=False, empty=False)
        return {**report, "confidence": confidence.as_dict(), **verdict}
