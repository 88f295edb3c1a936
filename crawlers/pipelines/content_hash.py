"""A fetched document's SHA-256, which names its bytes in the raw store and its version."""

from __future__ import annotations

import hashlib

from crawlers.items import FetchedDocument


class ContentHashPipeline:
    def process_item(self, item, spider=None):
        if isinstance(item, FetchedDocument):
            item.sha256 = hashlib.sha256(item.body).hexdigest()
        return item
