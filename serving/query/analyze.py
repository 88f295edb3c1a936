"""Query understanding: references named in the query, the entities it is about, the acts and areas of law it is
most likely about, and whether it asks about a whole act or section.

Queries are colloquial where documents are not: ``paragraf 204 OSŘ`` or ``odstavec 2`` are rewritten to the
written forms (``§ 204 OSŘ``, ``odst. 2``) before the same NER rules that index the documents read them; every
span reported points back into the query as typed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mendel.czech.folding import fold
from mendel.index.entity_graph import GRAPH_LABELS
from mendel.ner import recognise_text
from mendel.ner.rules import eli_for, split_law_ref_norm
from serving.query.notice_kinds import NoticeKind, notice_kind_searched

# Spoken or spelled-out forms of provision markers -> the form legal texts use.
_SPOKEN_FORMS = [
    (re.compile(r"\b(?:paragraf(?:u|em|y|ů|ech|ům)?|par\.)(?=\s*\d)", re.IGNORECASE), "§"),
    (re.compile(r"\b(?:článek|článku|článkem|články|článků|clanek|clanku)(?=\s*[IVXLC\d])", re.IGNORECASE), "čl."),
    (re.compile(r"\b(?:odstavec|odstavce|odstavci|odstavcem|odstavců)(?=\s*\d)", re.IGNORECASE), "odst."),
    (re.compile(r"\b(?:písmeno|písmene|písmenem|pismeno|pismene)(?=\s*[a-z]\b)", re.IGNORECASE), "písm."),
]
_PROVISION_HEAD_RE = re.compile(r"(?:§+|čl\.)\s*(\d+[a-z]?|[IVXLC]+)(?:\s*odst\.\s*(\d+))?", re.IGNORECASE)

# A question about a whole act (-> L1, documents) or a whole section (-> L2, sections) rather than a passage.
_WHOLE_ACT_RE = re.compile(
    r"\b(?:cel(?:ý|é|á|ého|ém|ou|ým)\s+(?:zákon\w*|vyhlášk\w*|předpis\w*|nařízení|dokument\w*|znění\s+zákon\w*)"
    r"|o\s+čem\s+(?:je|pojednává|jsou)|co\s+(?:upravuje|obsahuje|řeší)\s+(?:zákon|vyhláška|předpis|nařízení)"
    r"|shrnutí|přehled\s+(?:zákon|vyhlášk|předpis)\w*|předmět\s+úpravy|obsah\s+(?:zákon|vyhlášk|předpis)\w*)",
    re.IGNORECASE,
)
_WHOLE_SECTION_RE = re.compile(
    r"\b(?:cel(?:ý|é|á|ého|ém|ou|ým)\s+(?:§|paragraf\w*|článe?k\w*|čl\.|hlav\w*|díl\w*|část\w*|oddíl\w*|ustanovení)"
    r"|(?:celé\s+)?znění\s+(?:§|čl\.)|(?:hlav[ayu]|díl|oddíl)\s+(?:[IVXLC]+|\d+)\b)",
    re.IGNORECASE,
)

# The apex courts are one court each, whatever the case a person types them in: "nejvyšší soud" is read as the
# collection writes it, "Nejvyšší soud" (a kind of office, "finanční úřad", stays plain words: there are many).
_APEX_COURT_RE = re.compile(r"\b(?:nejvyšš\w*\s+(?:správn\w*\s+)?|ústavn\w*\s+)soud(?:u|em|e)?\b")
# A municipality typed in lower case where a question can only mean a place: after "úřední deska", "obec", "město"
# (and a preposition): "uredni deska kadan", "obec blešno v", "města hradec králové". Elsewhere a lower-case word is
# a word: "v práci" is at work, though the register holds places named alike.
_PLACE_CUE_RE = re.compile(
    r"\b(?:uredni\s+desk\w*|obec|obce|obci|mesto|mesta|meste|mestys\w*)(?:\s+(?:v|ve|na|z|ze|u|mesta|obce))?\s+"
    r"(?=[a-z])",
    re.IGNORECASE,
)
_AFTER_A_NAME = " \t?!.,;:)"  # what may follow a place's name in a question
# Words of a place name written in lower case within it ("Ústí nad Labem", "Lázně Bělohrad u …").
_NAME_PARTICLES = frozenset({"nad", "pod", "u", "v", "ve", "na", "při", "pri", "za", "a"})
# A question asking for case law by that word ("judikatura", "judikát", typed with or without diacritics), or for an
# apex court's decisions by their kind ("rozsudky Nejvyššího soudu o …", "nález ÚS"); not a decision a question is
# about ("odvolání proti rozhodnutí Nejvyššího soudu") nor a court's decision in general ("rozhodnutí soudu").
_CASE_LAW_RE = re.compile(
    r"\bjudikat"
    r"|(?<!proti )\b(?:rozhodnut|rozsud|usneseni|nalez)\w*\s+"
    r"(?:(?:nejvyssiho|ustavniho)\s+(?:spravniho\s+)?soud\w*|(?:ns|nss|us)\b)",
    re.IGNORECASE,
)  # over the folded query

# "§ 111 zákona o zbraních a střelivu": an act named by a title the NER gazetteer lacks, resolved through the
# domain graph when the words right after the provision route clearly to one act.
_ACT_WORDS_AFTER_RE = re.compile(
    r"\s*(?:zákon\w*|zákoník\w*|vyhlášk\w*|nařízení|řád\w*|ústavní\w*)\b[^,;?!.()]{0,80}", re.IGNORECASE
)
ACT_TITLE_MIN_SCORE = 3.0
ACT_TITLE_MARGIN = 1.4  # the best act must beat the second by this factor
ROUTED_ACT_SEEDS = 3  # routed (not named) acts that enter the entity graph
ROUTED_ACT_SEED_WEIGHT = 0.5  # a routed act counts this much of a named entity


@dataclass
class QueryEntity:
    """An entity of the query as the entity graph knows it: ``id`` is ``LABEL:norm`` (the graph's node id)."""

    id: str
    label: str
    norm: str
    text: str
    start: int
    end: int
    weight: float = 1.0
    via: str = "ner"  # ner | reference | routed


@dataclass
class Understanding:
    query: str
    normalized: str
    entities: list[QueryEntity] = field(default_factory=list)
    references: list[dict] = field(default_factory=list)
    scope: str | None = None  # "act", "section" or None (a passage)
    # the references a form two codes go by names in the older code too ("§ 36 tr. zák.": 140/1961 Sb. § 36 in the
    # decisions of before 2010); passages citing them cite what the query names (:func:`older_code_references`)
    older_codes: list[str] = field(default_factory=list)
    case_law: bool = False  # the query asks for case law ("judikatura"): the courts' decisions lead
    # the kind of notice a keyword search names ("záměr prodeje pozemku"): it looks for a notice, not for the law
    notice_kind: NoticeKind | None = None

    def graph_entities(self) -> list[QueryEntity]:
        return [e for e in self.entities if e.label in GRAPH_LABELS]


# A query is understood (NER, references, routing) from its first MAX_ANALYZED_TOKENS words: a pasted page costs
# what a long question does.
MAX_ANALYZED_TOKENS = 64
_TOKEN_RE = re.compile(r"\S+")


def analysed_part(query: str, max_tokens: int = MAX_ANALYZED_TOKENS) -> str:
    """``query`` up to the end of its ``max_tokens``-th whitespace-separated word (all of it when shorter)."""
    for count, match in enumerate(_TOKEN_RE.finditer(query), start=1):
        if count == max_tokens:
            return query[: match.end()]
    return query


def normalize_query(query: str, lexicon=None) -> tuple[str, list[int]]:
    """The query with spoken provision markers written out and, given the collection's ``lexicon``
    (``serving.query.typed.Lexicon``), its words as the collection writes them (diacritics restored, slips and
    clipped words made whole); and for each character of it the offset in ``query`` it came from (one past the
    end maps to ``len(query)``)."""
    replacements: list[tuple[int, int, str]] = []
    for pattern, written in _SPOKEN_FORMS:
        for m in pattern.finditer(query):
            if not any(s < m.end() and m.start() < e for s, e, _ in replacements):
                replacements.append((m.start(), m.end(), written))
    if lexicon is not None:
        replacements += lexicon.changes(query, skip=[(s, e) for s, e, _ in replacements])
    out: list[str] = []
    origin: list[int] = []
    position = 0
    for start, end, written in sorted(replacements):
        out.append(query[position:start])
        origin.extend(range(position, start))
        out.append(written)
        origin.extend([start] * len(written))
        position = end
    out.append(query[position:])
    origin.extend(range(position, len(query)))
    origin.append(len(query))
    return "".join(out), origin


def _places_capitalised(text: str) -> str:
    """``text`` with a municipality's name typed in lower case after a place cue (:data:`_PLACE_CUE_RE`) written
    as the register writes it, capitals only (the same length): the longest name the register knows, if any."""
    from mendel.registers.gazetteer import place_names

    names = place_names()
    for cue in _PLACE_CUE_RE.finditer(fold(text)):
        start = cue.end()
        words = list(re.finditer(r"\S+", text[start:]))[: names.max_words]
        for count in range(len(words), 0, -1):
            end = start + words[count - 1].end()
            written = re.sub(
                r"\S+",
                lambda w: w.group(0) if w.start() and w.group(0) in _NAME_PARTICLES else w.group(0).capitalize(),
                text[start:end],
            )
            matched = names.match(written, 0)
            if matched is not None and not written[matched[0] :].strip(_AFTER_A_NAME):  # "kadan?": the name, then ?
                text = text[:start] + written[: matched[0]] + text[start + matched[0] :]
                break
    return text


def _provision_heads(text: str) -> list[str]:
    """``§ 2079 a § 2099`` -> [``§ 2079``, ``§ 2099``]; ``čl. 10 odst. 1`` -> [``čl. 10 odst. 1``]."""
    heads = []
    for m in _PROVISION_HEAD_RE.finditer(text):
        marker = "čl." if m.group(0).lower().startswith("čl") else "§"
        heads.append(f"{marker} {m.group(1)}" + (f" odst. {m.group(2)}" if m.group(2) else ""))
    return heads


def _with_titled_act(text: str, entity):
    """An act-less provision followed by an act's title the domain graph knows: the provision of that act."""
    from mendel.law.domain_graph import default_graph
    from mendel.ner.rules import Entity

    m = _ACT_WORDS_AFTER_RE.match(text, entity.end)
    if not m:
        return entity
    routed = default_graph().route(m.group(0), k=2, types=("act",))
    if (
        not routed
        or routed[0][1] < ACT_TITLE_MIN_SCORE
        or (len(routed) > 1 and routed[0][1] < ACT_TITLE_MARGIN * routed[1][1])
    ):
        return entity
    act = default_graph().nodes[routed[0][0]].citation
    end = m.end() - (len(m.group(0)) - len(m.group(0).rstrip()))
    return Entity(entity.start, end, entity.label, text[entity.start : end], f"{act} {entity.norm}")


def understand(query: str, lexicon=None) -> Understanding:
    """Entities and references of ``query`` (spans into the query as typed) and the scope it asks about; with the
    collection's ``lexicon``, read as the collection writes its words (:func:`normalize_query`)."""
    normalized, origin = normalize_query(analysed_part(query), lexicon)
    normalized = _APEX_COURT_RE.sub(lambda m: m.group(0)[0].upper() + m.group(0)[1:], normalized)  # same length
    normalized = _places_capitalised(normalized)
    found = Understanding(
        query=query,
        normalized=normalized,
        case_law=bool(_CASE_LAW_RE.search(fold(normalized))),
        notice_kind=notice_kind_searched(normalized),
    )
    recognised = recognise_text(normalized)
    found.older_codes = older_code_references(normalized, recognised)
    for entity in recognised:
        if not entity.norm:
            continue
        if entity.label == "LAW_REF" and split_law_ref_norm(entity.norm)[0] is None:
            entity = _with_titled_act(normalized, entity)
        start, end = origin[entity.start], origin[entity.end]
        text = query[start:end]
        found.entities.append(QueryEntity(f"{entity.label}:{entity.norm}", entity.label, entity.norm, text, start, end))
        if entity.label != "LAW_REF":
            continue
        act, provision = split_law_ref_norm(entity.norm)
        provisions = [provision]
        heads = _provision_heads(entity.text)
        if act and len(heads) > 1:
            # "§ 2079 a § 2099 občanského zákoníku": NER keeps the first; each provision is its own reference.
            provisions = [provision] + heads[1:]
            for head in heads[1:]:
                norm = f"{act} {head}"
                found.entities.append(
                    QueryEntity(f"LAW_REF:{norm}", "LAW_REF", norm, text, start, end, via="reference")
                )
        for item in provisions:
            found.references.append(
                {
                    "act": act,
                    "provision": item,
                    "eli": eli_for(act) if act else None,
                    "text": text,
                    "start": start,
                    "end": end,
                }
            )
    if _WHOLE_SECTION_RE.search(query) or _WHOLE_SECTION_RE.search(normalized):
        found.scope = "section"
    elif _WHOLE_ACT_RE.search(query) or _WHOLE_ACT_RE.search(normalized):
        found.scope = "act"
    return found


def older_code_references(text: str, entities) -> list[str]:
    """The entity ids of the provisions ``text`` names by an abbreviation two codes go by, read in the older code
    (``mendel.citator.targets.older_readings``: "§ 36 tr. zák." is 40/2009 Sb. § 36 by the acts table and 140/1961
    Sb. § 36 in a decision of 2005). A query has no date: written so, it names both, and the decisions that cite
    either cite it. A code's name ("§ 52 zákoníku práce", "občanského zákoníku") names the code in force, as the acts
    table reads it: the courts abbreviate the older codes (``obč. zák.``, ``tr. zák.``), people name the codes they
    live under."""
    from mendel.citator.targets import older_readings
    from mendel.ner.dated_wording import form_key, successions

    found = []
    for newer, older in older_readings(text, entities):
        act, provision = split_law_ref_norm(older.norm)
        abbreviated = successions()[split_law_ref_norm(newer.norm)[0]].abbreviated
        if not provision or not any(form_key(older.text).endswith(key) for key in abbreviated):
            continue
        found.append(f"LAW_REF:{older.norm}")
        found += [f"LAW_REF:{act} {head}" for head in _provision_heads(older.text)[1:]]
    return list(dict.fromkeys(found))


def legal_wordings(text: str, vocabulary=None) -> list[str]:
    """The legal wording of each lay word, abbreviation or act abbreviation of ``text`` (the lay-to-legal bridge,
    ``mendel.law.vocabulary``; ``vocabulary`` defaults to the maintained file)."""
    from mendel.law.vocabulary import default_vocabulary

    return [e.legal for e in (vocabulary or default_vocabulary()).expand(text)]


def dense_query_text(understanding: Understanding) -> str:
    """What the dense list encodes: the normalised query, the legal wordings of its abbreviations and multi-word lay
    wordings appended in brackets (``mendel.law.vocabulary.dense_wordings``). Only the maintained vocabulary is
    used (not a bundle's harvested definitions), so the text is known without a bundle (benchmarks precompute it)."""
    from mendel.law.vocabulary import default_vocabulary, dense_wordings

    known = getattr(understanding, "_dense_text", None)  # a search asks twice: for the dense list and the floor
    if known is not None and known[0] == understanding.normalized:
        return known[1]
    wordings = dense_wordings(default_vocabulary().expand(understanding.normalized))
    text = f"{understanding.normalized} ({' '.join(wordings)})" if wordings else understanding.normalized
    understanding._dense_text = (understanding.normalized, text)
    return text


def references(query: str) -> list[dict]:
    """Act + provision references named in ``query``: act citation, provision, ELI, the text and its span."""
    return understand(query).references


def _routing_text(query: str, understanding: Understanding) -> str:
    """The query without its references: "Listiny" in "čl. 10 Listiny" names an act, not a topic."""
    spans = sorted((e.start, e.end) for e in understanding.entities if e.label == "LAW_REF")
    out, position = [], 0
    for start, end in spans:
        if start >= position:
            out.append(query[position:start])
            position = end
    out.append(query[position:])
    return " ".join(out)


def routing_text(understanding: Understanding) -> str:
    """What the domain graph routes of a query: its words as understood (spelling made whole), or, when it
    names references, the query as typed without them."""
    if any(e.label == "LAW_REF" for e in understanding.entities):
        return _routing_text(analysed_part(understanding.query), understanding)
    return understanding.normalized


def analyze_query(query: str, searcher=None, k: int = 5, understanding: Understanding | None = None) -> dict:
    """References, graph entities, ranked acts (named ones first, then the domain graph's, then those whose text
    matches best), ranked domains (those of named acts first) and the scope (whole act / section / passage)."""
    from mendel.law.domain_graph import default_graph

    graph = default_graph()
    found = understanding or understand(query)
    refs = found.references
    scores: dict[str, float] = {}
    titles: dict[str, str] = {}
    named_acts: list[str] = []
    for rank, ref in enumerate(refs):
        if ref["act"]:
            scores[ref["act"]] = scores.get(ref["act"], 0.0) + 2.0 + 1.0 / (rank + 1)
            named_acts.append(ref["act"])
    for entity in found.entities:  # a bare act ("zákon č. 175/2025 Sb.") is named too
        act, provision = split_law_ref_norm(entity.norm) if entity.label == "LAW_REF" else (None, None)
        if act and not provision and act not in scores:
            scores[act] = 2.0
            named_acts.append(act)
    analysed = analysed_part(query)
    routed = graph.route(_routing_text(analysed, found) if named_acts else found.normalized, k=2 * k)
    top_route = max((score for _, score in routed), default=0.0) or 1.0
    domains: dict[str, dict] = {}
    # Areas a named act governs lead: "čl. 10 Listiny" is about human rights whatever else the words match.
    for act in dict.fromkeys(named_acts):
        node = graph.act_for_citation(act)
        for domain_id in graph.targets(node.id, "governs") if node is not None else ():
            domains.setdefault(
                domain_id,
                {"id": domain_id, "name": graph.nodes[domain_id].name, "score": round(top_route + 1.0, 4), "via": act},
            )
    routed_acts: list[tuple[str, float]] = []
    for node_id, score in routed:
        node = graph.nodes[node_id]
        if node.type == "act" and node.citation:
            # Routed acts rank after named ones; their route score, scaled to at most 1, orders them.
            if node.citation not in named_acts:
                routed_acts.append((node.citation, score / top_route))
            scores[node.citation] = scores.get(node.citation, 0.0) + score / top_route
            titles.setdefault(node.citation, node.title or node.name)
        elif node.type == "domain" and node_id not in domains:
            domains[node_id] = {"id": node_id, "name": node.name, "score": round(score, 4)}
    if searcher is not None:
        for doc in searcher.documents.values():
            if doc.get("citation"):
                titles[doc["citation"]] = doc.get("title") or ""
        for rank, item in enumerate(searcher.bm25_ranking(analysed, n=20), start=1):
            citation = searcher.chunks[item].get("citation")
            if citation:
                scores[citation] = scores.get(citation, 0.0) + 1.0 / (60 + rank)
    for citation in scores:
        if citation not in titles and (node := graph.act_for_citation(citation)) is not None:
            titles[citation] = node.title or node.name
    acts = [
        {"citation": c, "title": titles.get(c, ""), "score": round(s, 6), "eli": eli_for(c)}
        for c, s in sorted(scores.items(), key=lambda kv: -kv[1])[:k]
    ]
    entities = [
        {"id": e.id, "label": e.label, "norm": e.norm, "text": e.text, "weight": e.weight, "via": e.via}
        for e in found.graph_entities()
    ]
    known = {e["id"] for e in entities}
    for citation, share in routed_acts[:ROUTED_ACT_SEEDS]:
        entity_id = f"LAW_REF:{citation}"
        if entity_id not in known:
            entities.append(
                {
                    "id": entity_id,
                    "label": "LAW_REF",
                    "norm": citation,
                    "text": "",
                    "weight": round(ROUTED_ACT_SEED_WEIGHT * share, 4),
                    "via": "routed",
                }
            )
            known.add(entity_id)
    return {
        "query": query,
        "normalized": found.normalized,
        "references": refs,
        "entities": entities,
        "acts": acts,
        "domains": list(domains.values())[:k],
        "scope": found.scope,
        # a keyword search for a kind of notice, which the search reads as no question about the law
        "notice_kind": None if found.notice_kind is None else found.notice_kind.as_dict(),
    }
