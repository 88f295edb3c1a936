"""Legal named-entity recognition for Czech text.

``recognise(texts, default_act=...)`` is the one entry point: it runs the spaCy pipeline of
``mendel.ner.component`` (built once per process) over the texts in batches and returns each text's
``Entity`` objects; ``recognise_text(text)`` does the same for one text. The pipeline module, and
spaCy with it, is imported on first use, so that modules which only need the norm helpers of
``mendel.ner.rules`` (``eli_for``, ``split_law_ref_norm``) stay light.
"""

from __future__ import annotations

__all__ = ["recognise", "recognise_text"]


def __getattr__(name: str):
    if name in __all__:
        from mendel.ner import component

        return getattr(component, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
