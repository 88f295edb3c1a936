"""What a spider hands to the pipelines: one fetched document body with its provenance."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class FetchedDocument:
    source: str
    doc_id: str  # ELI, ECLI or a source-specific key
    url: str
    body: bytes
    content_type: str
    title: str | None = None
    doc_type: str | None = None
    citation: str | None = None
    published: str | None = None  # ISO date
    http_status: int = 200
    etag: str | None = None
    last_modified: str | None = None
    extra: dict = field(default_factory=dict)
    # The complete listing (feed, article index) that names this document; see crawlstate.sync_listing.
    listing: str | None = None
    # Filled by the pipelines.
    sha256: str | None = None
    raw_path: str | None = None
    outcome: str | None = None  # stored | unchanged
