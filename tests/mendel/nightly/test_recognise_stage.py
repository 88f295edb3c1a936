"""The recognition stage: what a document defines for itself holds in its later passages; a night with nothing to
recognise loads no recogniser."""

from __future__ import annotations

import sys

import psycopg
import pytest

from mendel.nightly import chunk_stage, recognise_stage
from tests.support.index import add_act

FILLER = "Soud se věcí zabýval a dospěl k závěru, že návrh je důvodný v celém rozsahu. " * 30


# An abbreviation defined in the document's first passage and used in its last.
DEFINED_THEN_USED = (
    "Podle zákona č. 1/2000 Sb., o pokusech, ve znění pozdějších předpisů (dále jen „PokZ“), platí. "
    + FILLER
    + "Proto podle § 5 PokZ soud rozhodl."
)


def chunked(conn, text: str) -> None:
    add_act(conn, "decision-like", [text], None)
    conn.commit()
    chunk_stage.chunk_pending(conn)


def test_an_abbreviation_defined_in_one_passage_resolves_in_a_later_one(fresh_db):
    with psycopg.connect(fresh_db) as conn:
        chunked(conn, DEFINED_THEN_USED)
        passages = conn.execute("SELECT count(*) FROM chunks WHERE layer = 3").fetchone()[0]
        assert passages >= 3
        recognise_stage.recognise_pending(conn)
        found = conn.execute(
            "SELECT c.seq, m.entity_id FROM mentions m JOIN chunks c USING (chunk_id)"
            " WHERE c.layer = 3 AND m.surface LIKE '§ 5%'"
        ).fetchall()
    assert found and all(entity == "LAW_REF:1/2000 Sb. § 5" for _, entity in found)
    assert max(seq for seq, _ in found) > 0  # in a passage after the one that defines it


def mentions_by_passage(conn) -> dict[int, list[tuple]]:
    found: dict[int, list[tuple]] = {}
    for seq, entity, start in conn.execute(
        "SELECT c.seq, m.entity_id, m.start_char FROM mentions m JOIN chunks c USING (chunk_id)"
        " WHERE c.layer = 3 ORDER BY c.seq, m.start_char"
    ):
        found.setdefault(seq, []).append((entity, start))
    return found


@pytest.mark.parametrize("pending", ["last", "all but the first", "first and last"])
def test_passages_recognised_again_get_what_one_pass_gives(fresh_db, pending):
    """A night that recognises some passages again (a pattern file changed, a passage's text changed) reads the
    document's earlier passages ahead: the abbreviation defined in the first still resolves in the last."""
    with psycopg.connect(fresh_db) as conn:
        chunked(conn, DEFINED_THEN_USED)
        recognise_stage.recognise_pending(conn)
        one_pass = mentions_by_passage(conn)
        seqs = [seq for (seq,) in conn.execute("SELECT seq FROM chunks WHERE layer = 3 ORDER BY seq")]
        again = {"last": seqs[-1:], "all but the first": seqs[1:], "first and last": [seqs[0], seqs[-1]]}[pending]
        conn.execute(
            "DELETE FROM mentions WHERE chunk_id IN (SELECT chunk_id FROM chunks WHERE layer = 3 AND seq = ANY(%s))",
            (again,),
        )
        conn.execute("UPDATE chunks SET ner_done_at = NULL WHERE layer = 3 AND seq = ANY(%s)", (again,))
        stats = recognise_stage.recognise_pending(conn)
        assert stats["chunks"] == len(again)
        assert stats["read_ahead"] == len(seqs) - len(again)
        assert mentions_by_passage(conn) == one_pass
    assert any(entity == "LAW_REF:1/2000 Sb. § 5" for entity, _ in one_pass[seqs[-1]])


@pytest.mark.parametrize(
    "doc_type, published, act",
    [
        ("decision", "2005-03-01", "40/1964 Sb."),  # decided before the code of 2012 took effect
        ("decision", "2016-03-01", "89/2012 Sb."),
        ("act", "2005-03-01", "89/2012 Sb."),  # an act's text is read in its wording of today, not its date's
    ],
)
def test_a_decision_is_recognised_with_the_codes_in_force_when_decided(fresh_db, doc_type, published, act):
    from tests.support.index import add_document

    with psycopg.connect(fresh_db) as conn:
        add_document(
            conn, "dated", ["Podle § 134 obč. zák. je smlouva neplatná. " + FILLER], title="x", doc_type=doc_type
        )
        conn.execute("UPDATE documents SET published = %s WHERE doc_id = 'dated'", (published,))
        conn.commit()
        chunk_stage.chunk_pending(conn)
        recognise_stage.recognise_pending(conn)
        found = {e for (e,) in conn.execute("SELECT entity_id FROM mentions WHERE entity_id LIKE 'LAW_REF:%%§ 134'")}
    assert found == {f"LAW_REF:{act} § 134"}


# The recogniser's modules: a night with nothing to recognise and no relations to make imports none of them (~1 s).
RECOGNISER_MODULES = ("mendel.ner.component", "mendel.ner.relations", "mendel.ner.document_acts")


@pytest.mark.parametrize(
    "stale_relations, relations_made",
    [
        (False, 0),  # nothing pending: nothing imported, nothing read
        (True, 1),  # no passage pending, but a version's relations another version made: made again
    ],
)
def test_a_night_with_nothing_to_recognise_loads_no_recogniser(fresh_db, monkeypatch, stale_relations, relations_made):
    from tests.support.index import pages_text

    with psycopg.connect(fresh_db) as conn:
        version = add_act(conn, "/eli/cz/sb/2025/285", [pages_text("285-2025", (17,))], "285/2025 Sb.")
        conn.commit()
        chunk_stage.chunk_pending(conn)
        first = recognise_stage.recognise_pending(conn)
        assert first["chunks"] > 0 and first["relations"] > 0
        made = conn.execute("SELECT count(*) FROM relations").fetchone()[0]
        if stale_relations:
            conn.execute("UPDATE document_versions SET relations_version = NULL WHERE version_id = %s", (version,))
        else:
            for module in RECOGNISER_MODULES:
                monkeypatch.setitem(sys.modules, module, None)  # importing it raises ImportError
        again = recognise_stage.recognise_pending(conn)
        assert (again["chunks"], again["relations_reprocessed_versions"]) == (0, relations_made)
        assert again["relations"] == (made if stale_relations else 0)
        assert conn.execute("SELECT count(*) FROM relations").fetchone()[0] == made
        assert conn.execute(
            "SELECT relations_version IS NOT NULL FROM document_versions WHERE version_id = %s", (version,)
        ).fetchone()[0]
