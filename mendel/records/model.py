"""A record document: a crawled record (not a page of any document) written as small Czech text, so that search
can find it. Its ``doc_type`` says which kind of record it is; its text is stored as ``text/plain``, pages split
by form feeds."""

from __future__ import annotations

from dataclasses import dataclass, field

REGISTER_RECORD = "register_record"
ACT_METADATA = "act_metadata"
RECORD_DOCUMENT_TYPES = (REGISTER_RECORD, ACT_METADATA)
CONTENT_TYPE = "text/plain; charset=utf-8"
PAGE_BREAK = "\f"


@dataclass
class RecordDocument:
    doc_id: str
    source: str
    kind: str
    url: str
    title: str
    record: str
    pages: list[str]
    sources: list[dict] = field(default_factory=list)
    published: str | None = None
    citation: str | None = None

    @property
    def body(self) -> bytes:
        return PAGE_BREAK.join(self.pages).encode("utf-8")
