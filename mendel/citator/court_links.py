"""The court's own witness: the provisions a decision's metadata lists (the lower courts' ``ZminenaUstanoveni``, a
Nejvyšší soud header's Dotčené předpisy; ``court_decisions.provisions``) as citator links of origin
``court_metadata``, beside the recogniser's mentions of the same decision.

Each listed provision is parsed by the law-reference recogniser (mendel.ner); the court system's own abbreviations
("z. č. 99/1963 Sb.", "předpisu č. 328/1991Sb.", and "obč. zák." and "tr. zák." for the codes of 1964 and 1961) are
spelled out first, and a provision the recogniser finds apart
from its act in the one listed item is joined to it. A link's sentence is the sentence of the decision where the
recogniser found the same provision (the two witnesses then agree on one passage), else the metadata item itself.

Where the witnesses disagree — a provision the court lists that the recogniser did not find in the decision, or
one the recogniser found that the court does not list — both are kept, and counted per build (compared at the
level of the paragraph or article: ``§ 142`` of 99/1963 Sb.).
"""

from __future__ import annotations

import re
from collections import defaultdict

import psycopg

from mendel.citator.citing_passages import clip, sentence_around
from mendel.citator.targets import Target, law_target

COURT_METADATA = "court_metadata"
METADATA_LINE = "Ustanovení uvedené v metadatech soudu: {}"
_SPELLED_OUT = (
    (re.compile(r"\bz\.\s*č\.\s*"), "zákona č. "),
    (re.compile(r"\bvyhl\.\s*č\.\s*"), "vyhlášky č. "),
    (re.compile(r"\bnař\.\s*vl\.\s*č\.\s*"), "nařízení vlády č. "),
    (re.compile(r"\bpředpisu\s+č\.\s*"), "zákona č. "),  # the act is told by its number; its kind is not needed
    # the codes that newer ones replaced, by the names the Nejvyšší soud's lists give them (the newer ones are "o. z."
    # and "tr. zákoníku" there), where the recogniser reads the newer code in running text
    (re.compile(r"\bobč\.\s*zák\.(?!\w)"), "zákona č. 40/1964 Sb."),
    (re.compile(r"\btr\.\s*zák\.(?!\w)"), "zákona č. 140/1961 Sb."),
    (re.compile(r"(\d+/\d{4})\s*Sb\.?"), r"\1 Sb."),
)


def spelled_out(item: str) -> str:
    """A metadata item as the recogniser reads citations in running text."""
    for pattern, replacement in _SPELLED_OUT:
        item = pattern.sub(replacement, item)
    return " ".join(item.split())


def item_targets(entities) -> list[Target]:
    """The provisions one metadata item names: whole references as they are, and a provision found apart from its
    act (``§ 142`` and ``99/1963 Sb.``) joined to the item's one act."""
    from mendel.citator.wording import provision_key
    from mendel.ner.rules import split_law_ref_norm

    whole, acts, loose = [], [], []
    for entity in entities:
        if entity.label != "LAW_REF":
            continue
        act, provision = split_law_ref_norm(entity.norm)
        target = law_target(entity.norm) if act else None
        if target is not None and target.provision:
            whole.append(target)
        elif target is not None:
            acts.append(target)
        elif provision:
            loose.append(provision_key(provision))
    if not whole and len(acts) == 1:
        whole = [Target("act", acts[0].key, provision, keys=(acts[0].key,)) for provision in loose if provision]
    return whole


def head(provision: str) -> str:
    """The paragraph or article a provision path is in: ``§ 142 odst. 1`` -> ``§ 142``."""
    return " ".join(provision.split()[:2])


def court_metadata_links(conn: psycopg.Connection) -> tuple[list[tuple], dict]:
    """citation_links rows of origin court_metadata, and the build's counts: decisions with listed provisions,
    links, items the recogniser could not read, and the witnesses' agreement and disagreement."""
    from mendel.ner import recognise

    listed = conn.execute(
        "SELECT c.doc_id, unnest(c.provisions) FROM court_decisions c"
        " JOIN documents d ON d.doc_id = c.doc_id AND d.status = 'active' AND d.current_version_id = c.version_id"
        " WHERE cardinality(c.provisions) > 0 ORDER BY c.doc_id"
    ).fetchall()
    counts = {"court_decisions_listing": len({doc_id for doc_id, _ in listed}), "court_metadata_unread": 0}
    by_decision: dict[str, dict[tuple, str]] = defaultdict(dict)  # doc → (act, provision) → the item as listed
    for (doc_id, item), entities in zip(listed, recognise([spelled_out(item) for _, item in listed])):
        targets = item_targets(entities)
        if not targets:
            counts["court_metadata_unread"] += 1
        for target in targets:
            by_decision[doc_id].setdefault((target.key, target.provision), item)
    found = _recognised(conn, list(by_decision))
    rows, agree, court_only, recogniser_only = [], 0, 0, 0
    for doc_id, provisions in by_decision.items():
        mentions = found.get(doc_id, {})
        listed_heads = {(act, head(provision)) for act, provision in provisions}
        for (act, provision), item in provisions.items():
            sentence = mentions.get((act, head(provision)))
            if sentence:
                agree += 1
            else:
                court_only += 1
            page, text = sentence or (None, METADATA_LINE.format(item))
            rows.append((COURT_METADATA, "act", act, provision, doc_id, None, None, page, clip(text), item))
        recogniser_only += len({key for key in mentions if key not in listed_heads})
    counts.update(
        court_metadata=len(rows),
        court_metadata_agreed=agree,
        court_metadata_only=court_only,
        recogniser_only=recogniser_only,
    )
    return rows, counts


def _recognised(conn: psycopg.Connection, doc_ids: list[str]) -> dict[str, dict[tuple, tuple]]:
    """doc → (act, paragraph) → (page, sentence) of the first place the recogniser found it in the decision."""
    found: dict[str, dict[tuple, tuple]] = defaultdict(dict)
    for doc_id, act, provision, page, text, start, end in conn.execute(
        # the decisions as a joined list, not "doc_id = ANY(%s)": the planner filtered every passage through the
        # whole array (2,462 decisions: minutes) where the join reads each decision's passages by index (~3 s)
        "SELECT c.doc_id, t.target_key, t.target_provision, c.page_start, c.text, m.start_char, m.end_char"
        " FROM unnest(%s::text[]) AS wanted(doc_id) JOIN chunks c ON c.doc_id = wanted.doc_id"
        " JOIN documents d ON d.doc_id = c.doc_id AND d.current_version_id = c.version_id"
        " JOIN mentions m ON m.chunk_id = c.chunk_id JOIN citation_targets t ON t.entity_id = m.entity_id"
        " WHERE c.layer = 3 AND t.target_kind = 'act' AND t.target_provision <> ''"
        " ORDER BY c.doc_id, c.seq, m.start_char",
        (doc_ids,),
    ):
        found[doc_id].setdefault((act, head(provision)), (page, sentence_around(text, start, end)))
    return found
