"""A fetched document's bytes into the raw store (once per content), with where they came from."""

from __future__ import annotations

from pathlib import Path

from crawlers.items import FetchedDocument
from mendel.core.rawstore import RawStore, StoredBlob


def store_body(store: RawStore, item: FetchedDocument) -> StoredBlob:
    """The item's body in ``store``, with its provenance."""
    return store.put(
        item.body,
        meta={
            "url": item.url,
            "content_type": item.content_type,
            "etag": item.etag,
            "last_modified": item.last_modified,
            "source": item.source,
        },
    )


class RawStorePipeline:
    def __init__(self, root: str):
        self.store = RawStore(Path(root))

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler.settings.get("MENDEL_RAW_STORE"))

    def process_item(self, item, spider=None):
        if isinstance(item, FetchedDocument):
            item.raw_path = str(store_body(self.store, item).path)
        return item
