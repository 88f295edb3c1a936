"""The recognition stage: what a document defines for itself holds in its later passages."""

from __future__ import annotations

import psycopg

from mendel.nightly import chunk_stage, recognise_stage
from tests.support.index import add_act

FILLER = "Soud se věcí zabýval a dospěl k závěru, že návrh je důvodný v celém rozsahu. " * 30


def test_an_abbreviation_defined_in_one_passage_resolves_in_a_later_one(fresh_db):
    text = (
        "Podle zákona č. 1/2000 Sb., o pokusech, ve znění pozdějších předpisů (dále jen „PokZ“), platí. "
        + FILLER
        + "Proto podle § 5 PokZ soud rozhodl."
    )
    with psycopg.connect(fresh_db) as conn:
        add_act(conn, "decision-like", [text], None)
        conn.commit()
        chunk_stage.chunk_pending(conn)
        passages = conn.execute("SELECT count(*) FROM chunks WHERE layer = 3").fetchone()[0]
        assert passages >= 3
        recognise_stage.recognise_pending(conn)
        found = conn.execute(
            "SELECT c.seq, m.entity_id FROM mentions m JOIN chunks c USING (chunk_id)"
            " WHERE c.layer = 3 AND m.surface LIKE '§ 5%'"
        ).fetchall()
    assert found and all(entity == "LAW_REF:1/2000 Sb. § 5" for _, entity in found)
    assert max(seq for seq, _ in found) > 0  # in a passage after the one that defines it
