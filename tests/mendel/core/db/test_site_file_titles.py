"""Migration 0041: a site API's PDF stored under a title built from its file name takes the file name itself (what
the crawl now stores), the board's name kept; other documents and a second run change nothing."""

from __future__ import annotations

import psycopg
import pytest

from mendel.core.db import migrations


@pytest.mark.parametrize(
    "doc_id, doc_type, title, expected",
    [
        (
            "blesno:kanalizace/kanalizacni-rad.pdf",
            "municipal_document",
            "Kanalizacni rad (Obec Blešno)",
            "kanalizacni-rad.pdf (Obec Blešno)",
        ),
        ("blesno:volby/oznameni.pdf", "municipal_document", "Oznameni", "oznameni.pdf"),  # no board named
        ("https://data.mesto-hranice.cz/zdroj/uredni-deska/4", "notice", "Veřejná vyhláška", "Veřejná vyhláška"),
    ],
)
def test_a_site_file_is_titled_by_its_file_name(fresh_db, doc_id, doc_type, title, expected):
    [sql] = [sql for version, name, sql in migrations() if version == 41]
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO documents (doc_id, source, url, doc_type, title) VALUES (%s, 'boards', %s, %s, %s)",
            (doc_id, f"https://x/{doc_id}", doc_type, title),
        )
        for _ in range(2):  # the migration as it ran, then again
            conn.execute(sql)
            assert conn.execute("SELECT title FROM documents WHERE doc_id = %s", (doc_id,)).fetchone()[0] == expected
