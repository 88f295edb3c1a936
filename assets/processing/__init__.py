"""Processing the stored documents: page text, chunks, register records, and the gated legal-entity recognition."""

import dagster as dg

from assets.processing.extraction import document_chunks, document_pages, ruian_records
from assets.processing.recognition import legal_entities

defs = dg.Definitions(assets=[document_pages, document_chunks, ruian_records, legal_entities])
