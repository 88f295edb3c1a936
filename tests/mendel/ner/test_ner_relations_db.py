"""The NER stage stores AMENDS/REPEALS relations of amending acts in the relations table (migration 0005)."""

import psycopg

from mendel.nightly import chunk_stage, recognise_stage
from tests.support.index import add_act, pages_text


def test_recognise_stores_relations_with_page_offsets(fresh_db):
    # pages 12 and 17 of 285/2025 Sb.: a single-point repeal and the closing "Zrušují se:" list
    pages = [pages_text("285-2025", (12,)), pages_text("285-2025", (17,))]
    with psycopg.connect(fresh_db) as conn:
        version = add_act(conn, "/eli/cz/sb/2025/285", pages, "285/2025 Sb.")
        unknown = add_act(conn, "act-without-citation", pages, None)  # no subject: no relations
        conn.commit()
        chunk_stage.chunk_pending(conn)
        stats = recognise_stage.recognise_pending(conn)
        rows = conn.execute(
            "SELECT version_id, kind, subject_norm, object_norm, page_no, char_start, char_end,"
            " evidence FROM relations ORDER BY relation_id"
        ).fetchall()
        assert stats["relations"] == len(rows) > 0
        assert {r[0] for r in rows} == {version}
        found = {(kind, obj) for _, kind, _, obj, *_ in rows}
        assert {
            ("REPEALS", "265/2001 Sb. čl. II bod 7"),
            ("REPEALS", "23/2002 Sb."),
            ("REPEALS", "508/2020 Sb."),
        } <= found
        for _, _kind, subject, obj, page_no, start, end, evidence in rows:
            assert subject == "285/2025 Sb."
            page = pages[page_no - 1]
            span = page[start:end]
            number = obj.split("/")[0]
            provision = obj.split(" Sb. ", 1)[1].split()[1] if " Sb. " in obj else number
            assert 0 <= start < end and (number in span or provision in span)  # offsets into that page's text
            assert evidence and evidence.split()[0] in span

        assert recognise_stage.recognise_pending(conn)["relations"] == 0  # nothing pending: nothing read again
        assert conn.execute("SELECT count(*) FROM relations").fetchone()[0] == len(rows)
        assert not conn.execute("SELECT 1 FROM relations WHERE version_id = %s", (unknown,)).fetchall()
        # the relations go with their version (ON DELETE CASCADE)
        conn.execute("DELETE FROM document_versions WHERE version_id = %s", (version,))
        assert conn.execute("SELECT count(*) FROM relations").fetchone()[0] == 0


def test_recognise_quarantines_only_the_chunk_the_recogniser_fails_on(fresh_db, monkeypatch):
    """Chunks are recognised in batches; a recogniser error costs its chunk, not the batch or the run."""
    from mendel.ner import rules

    broken = "NEROZPOZNATELNÉ"
    real = rules.decision_candidates

    def failing(text):
        if broken in text:
            raise RuntimeError("recogniser bug")
        return real(text)

    monkeypatch.setattr(rules, "decision_candidates", failing)
    paragraphs = [
        f"§ {n}\nUstanovení {n}\n(1) Podle § {n + 10} odst. 2 zákona č. 89/2012 Sb. rozhodl Nejvyšší soud "
        f"pod sp. zn. 22 Cdo {n}/2020 dne 1. 3. 2021. " + "Text odstavce pokračuje dále. " * 12
        for n in range(1, 7)
    ]
    paragraphs[3] += broken
    with psycopg.connect(fresh_db) as conn:
        add_act(conn, "act-in-batches", ["\n".join(paragraphs[:3]), "\n".join(paragraphs[3:])], None)
        conn.commit()
        chunk_stage.chunk_pending(conn)
        chunks = conn.execute("SELECT chunk_id, text FROM chunks WHERE layer = 3 ORDER BY seq").fetchall()
        failing_chunks = [chunk_id for chunk_id, text in chunks if broken in text]
        assert len(chunks) >= 4 and len(failing_chunks) == 1
        stats = recognise_stage.recognise_pending(conn, batch_size=2)
        assert stats["quarantined"] == 1
        assert conn.execute("SELECT reason, detail FROM quarantine WHERE stage = 'ner'").fetchall() == [
            ("recogniser failed: RuntimeError: recogniser bug", f"chunk {failing_chunks[0]}")
        ]
        assert conn.execute("SELECT count(*) FROM chunks WHERE ner_done_at IS NULL").fetchone()[0] == 0
        recognised = {chunk_id for (chunk_id,) in conn.execute("SELECT DISTINCT chunk_id FROM mentions")}
        assert recognised == {chunk_id for chunk_id, _ in chunks} - set(failing_chunks)
        assert stats["by_label"]["DECISION_REF"] >= 5 and stats["by_label"]["LAW_REF"] >= 5
