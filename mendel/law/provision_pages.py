"""Where a provision's wording stands in the act's stored document (the promulgated PDF, or the DOCX when there is
none): the page a citation of it points a reader to."""

from __future__ import annotations

import re

import psycopg

from mendel.law.provision_tree import normalise_wording, provision_wording


class PageLocator:
    """Where a provision's wording starts in an act's stored document (the promulgated PDF, or the DOCX when
    there is none): its pages joined without whitespace, searched for the wording's first 60 characters."""

    def __init__(self, conn: psycopg.Connection, doc_id: str):
        rows = conn.execute(
            "SELECT d.doc_type, d.url, p.page_no, p.text FROM documents d"
            " JOIN pages p ON p.version_id = d.current_version_id"
            " WHERE d.doc_id = %s ORDER BY p.page_no",
            (doc_id,),
        ).fetchall()
        self.doc_id = doc_id
        self._starts: list[tuple[int, int, str, str]] = []
        parts = []
        length = 0
        for doc_type, url, page_no, text in rows:
            self._starts.append((length, page_no, doc_type, url))
            squeezed = re.sub(r"\s+", "", text)
            parts.append(squeezed)
            length += len(squeezed)
        self._joined = "".join(parts)

    def locate(self, subtree: list[dict]) -> dict | None:
        """The page the subtree's first wording starts on (tried with its heading, then without: a heading may
        stand elsewhere in the PDF); None when it is too short or not found."""
        wordings = [provision_wording(item) for item in subtree if provision_wording(item)][:1]
        wordings += [normalise_wording(item["text"]) for item in subtree if item.get("text")][:1]
        for wording in wordings:
            probe = re.sub(r"\s+", "", wording)[:60]
            at = self._joined.find(probe) if len(probe) >= 8 else -1
            if at >= 0:
                break
        else:
            return None
        _, page_no, doc_type, url = max((s for s in self._starts if s[0] <= at), key=lambda s: s[0])
        return {"doc_id": self.doc_id, "doc_type": doc_type, "url": url, "page": page_no}
