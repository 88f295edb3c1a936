"""The passages' lexemes fill (mendel.index.fulltext.fill_lexemes) reads the documents marked changed since it last
ran and no others: an act with a provision tree is read again when its tree changes (a write to ``provisions`` marks
its document, migration 0040), not every night. On the real act 573/2025 Sb. with its three versions."""

from __future__ import annotations

import psycopg
import pytest

from mendel.index import fulltext
from tests.support.law import ACT, IN_FORCE_CRAWL, crawled_database

# A § of the act's newest version with a heading: the heading ends its passages' section paths (corpus.heading_paths)
_HEADED = (
    "SELECT provision_id FROM provisions WHERE doc_id = %s AND version = (SELECT max(version) FROM provisions"
    " WHERE doc_id = %s) AND parent_id IS NULL AND coalesce(heading, '') <> '' ORDER BY seq LIMIT 1"
)


@pytest.fixture
def filled(pg_server_url, tmp_path):
    url = crawled_database(pg_server_url, tmp_path, [IN_FORCE_CRAWL], process=True)
    with psycopg.connect(url, autocommit=True) as conn:
        first = fulltext.fill_lexemes(conn)
        assert first["lexemes_written"] > 0 and first["lexemes_documents_read"] > 0
        yield conn


def _rename_a_provision(conn) -> None:
    (provision,) = conn.execute(_HEADED, (ACT, ACT)).fetchone()
    conn.execute(
        "UPDATE provisions SET heading = heading || ' trpaslík' WHERE doc_id = %s AND provision_id = %s"
        " AND version = (SELECT max(version) FROM provisions WHERE doc_id = %s)",
        (ACT, provision, ACT),
    )


@pytest.mark.parametrize(
    "change, documents_read, rewritten",
    [
        (lambda conn: None, 0, False),  # nothing changed: no act is read again
        (_rename_a_provision, 1, True),  # its tree changed: the act is read, that §'s passages rewritten
    ],
)
def test_an_act_is_read_again_only_when_marked(filled, change, documents_read, rewritten):
    conn = filled
    change(conn)
    again = fulltext.fill_lexemes(conn)
    assert again["lexemes_documents_read"] == documents_read
    assert (again["lexemes_written"] > 0) is rewritten
    found = conn.execute("SELECT count(*) FROM chunks WHERE layer = 3 AND lexemes @@ 'trpaslik'::tsquery").fetchone()
    assert (found[0] > 0) is rewritten
