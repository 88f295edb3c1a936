"""Court records that carry no decision text: documents of kind ``citation_record``.

Some court sources list a decision without its text: a record of its file number, date and the decisions it cites
(the local mirror serves Ústavní soud and Nejvyšší správní soud decisions so, from the ConCo citation dataset, and
says so in the record's first lines). Such a record may feed the citator and the graph, but it is never chunked or
indexed as document text: search must not return it as if it were the decision.

A record is recognised by what it says of itself near its start ("… ne text rozhodnutí", "text rozhodnutí není k
dispozici"). The patterns are written so that Python's ``re`` and PostgreSQL's ``~*`` read them alike, so the
extraction stage (one document) and the chunk stage (every stored first page) apply the same rule.
"""

from __future__ import annotations

import re

CITATION_RECORD = "citation_record"
HEAD_CHARS = 2000  # a record says what it is in its first lines
NO_TEXT_MARKERS = (
    r"ne\s+text\s+rozhodnutí",
    r"text\s+rozhodnutí\s+není\s+k\s+dispozici",
    r"neobsahuje\s+texty?\s+rozhodnutí",
    r"bez\s+textu\s+rozhodnutí",
)
_MARKER_RE = re.compile("|".join(f"(?:{p})" for p in NO_TEXT_MARKERS), re.IGNORECASE)


def is_citation_record(text: str) -> bool:
    """True when a document's text opens by saying it is a record without the decision's text."""
    return bool(_MARKER_RE.search((text or "")[:HEAD_CHARS]))


def mark_citation_records(conn) -> int:
    """Set ``doc_type = citation_record`` on every active document whose current first page says it has no
    decision text; returns how many changed. Cheap and idempotent: a crawl that stores such a page again as a
    "decision" is corrected here before chunking."""
    changed = conn.execute(
        "UPDATE documents d SET doc_type = %s FROM pages p"
        " WHERE p.version_id = d.current_version_id AND p.page_no = 1 AND d.status = 'active'"
        " AND d.doc_type IS DISTINCT FROM %s AND left(p.text, %s) ~* ANY(%s)",
        (CITATION_RECORD, CITATION_RECORD, HEAD_CHARS, list(NO_TEXT_MARKERS)),
    )
    return changed.rowcount
