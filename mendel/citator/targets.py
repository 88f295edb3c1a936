"""What a citation points at, in canonical form: an act by its citation (``573/2025 Sb.``) and a provision as a
path below it (``§ 2 odst. 1``), a court decision by its file number as the court writes it (the Ústavní soud with
a two-digit year: ``IV. ÚS 393/00``; no list number), compared case-folded; an ECLI stands for its file number.
:func:`update_targets` keeps the target of every LAW_REF / DECISION_REF entity in ``citation_targets``."""

from __future__ import annotations

from dataclasses import dataclass, field

import psycopg

from mendel.law.identifiers import canonical_file_number, parse_citation, parse_ecli, parse_file_number
from mendel.ner.decisions import file_number_of_ecli


@dataclass(frozen=True)
class Target:
    """What a citation points at: ``kind`` act (``key`` its citation, ``provision`` a path or '') or decision
    (``key`` its canonical file number); ``keys`` every form it is matched under."""

    kind: str
    key: str
    provision: str = ""
    keys: tuple[str, ...] = field(default=())

    @property
    def label(self) -> str:
        return f"{self.provision} {self.key}".strip() if self.kind == "act" else self.key


def decision_target(text: str) -> Target | None:
    """A court decision named by its file number (any spacing, ``US`` for ``ÚS``, a list number) or its ECLI."""
    text = (text or "").strip()
    if text.upper().startswith("ECLI:"):
        found = file_number_of_ecli(text)
        number = canonical_file_number(found) if found else None
        ecli = parse_ecli(text)
        if ecli is None:
            return None
        keys = tuple(k for k in (number, ecli.text) if k)
        return Target("decision", number or ecli.text, keys=keys)
    parsed = parse_file_number(text)
    if parsed is None:
        return None
    key = canonical_file_number(parsed)
    return Target("decision", key, keys=(key,))


def law_target(norm: str) -> Target | None:
    """A LAW_REF norm (``89/2012 Sb. § 2079 odst. 1``) as an act and a provision path."""
    from mendel.citator.wording import provision_key
    from mendel.ner.rules import split_law_ref_norm

    act_text, provision = split_law_ref_norm(norm)
    act = parse_citation(act_text)
    key = act.citation if act else (act_text or "").strip()
    if not key:
        return None
    return Target("act", key, provision_key(provision), keys=(key,))


def parse_target(ref: str) -> Target | None:
    """What a query names: an ECLI, a file number, or an act with or without a provision."""
    decision = decision_target(ref)
    if decision is not None:
        return decision
    from mendel.citator.wording import parse_reference

    reference = parse_reference(ref)
    if reference is None:
        return None
    return Target("act", reference.act.citation, reference.provision, keys=(reference.act.citation,))


def older_readings(text: str, entities=None) -> list[tuple]:
    """(the reading of today, the reading in a decision of before the newer code took effect) of each LAW_REF of
    ``text`` whose act the two read differently: a reference written in a form two codes go by ("§ 36 tr. zák." is
    40/2009 Sb. § 36 by the acts table and 140/1961 Sb. § 36 in a decision of 2005: ``mendel.ner.dated_wording``).
    ``entities``: today's reading where the caller has it. The second reading runs only for a text that names a
    code with such forms."""
    import datetime as dt

    from mendel.ner import recognise
    from mendel.ner.dated_wording import successions
    from mendel.ner.document_acts import DocumentActs
    from mendel.ner.rules import split_law_ref_norm

    def shared_form(entity) -> bool:
        succession = successions().get(split_law_ref_norm(entity.norm)[0] or "") if entity.norm else None
        return entity.label == "LAW_REF" and succession is not None and bool(succession.shared)

    today = recognise([text])[0] if entities is None else entities
    now = {(e.start, e.end): e for e in today if shared_form(e)}
    if not now:
        return []
    found = []
    for entity in recognise([text], documents=[DocumentActs(decided=dt.date.min)])[0]:
        newer = now.get((entity.start, entity.end))
        if newer is not None and entity.label == "LAW_REF" and entity.norm and entity.norm != newer.norm:
            found.append((newer, entity))
    return found


def older_code_target(ref: str, target: Target) -> Target | None:
    """``target`` in the older code when ``ref`` names it by a form two codes go by (:func:`older_readings`); None
    when it does not (a number, a form of the newer code alone, an act with no predecessor)."""
    from mendel.ner.dated_wording import successions
    from mendel.ner.rules import split_law_ref_norm

    succession = successions().get(target.key) if target.kind == "act" else None
    if succession is None or not any(
        split_law_ref_norm(newer.norm)[0] == target.key for newer, _ in older_readings(ref)
    ):
        return None
    return Target("act", succession.predecessor, target.provision, keys=(succession.predecessor,))


def update_targets(conn: psycopg.Connection) -> int:
    """The canonical target of every LAW_REF / DECISION_REF entity that has none yet (entities never change)."""
    rows = conn.execute(
        "SELECT e.entity_id, e.label, e.norm FROM entities e LEFT JOIN citation_targets t USING (entity_id)"
        " WHERE t.entity_id IS NULL AND e.label IN ('LAW_REF', 'DECISION_REF')"
    ).fetchall()
    values = []
    for entity_id, label, norm in rows:
        target = law_target(norm) if label == "LAW_REF" else decision_target(norm)
        if target is not None:
            values.append((entity_id, target.kind, target.key, target.provision))
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO citation_targets (entity_id, target_kind, target_key, target_provision)"
            " VALUES (%s, %s, %s, %s) ON CONFLICT (entity_id) DO NOTHING",
            values,
        )
    return len(values)
