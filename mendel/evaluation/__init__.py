"""Offline evaluation of the serving layer (retrieval quality over a published bundle)."""
