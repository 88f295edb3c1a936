"""Czech text without diacritics, character for character: what people type without a Czech keyboard.

Kept apart from the analyser (``mendel.czech.analyzer``, whose file is an input of the chunk and analyser stages)
so that matching typed text changes nothing an index was built with; the recogniser reads act names through it,
so this file is an input of the ner and relations stages.
"""

from __future__ import annotations

import functools
import unicodedata


@functools.lru_cache(maxsize=1024)
def _folded_char(c: str) -> str:
    base = "".join(part for part in unicodedata.normalize("NFD", c) if not unicodedata.combining(part))
    return base if len(base) == 1 else c


def fold(text: str) -> str:
    """``text`` without diacritics, character for character (``Zákoník práce`` -> ``Zakonik prace``): the same
    length, so a span found in the folded text is the same span of ``text``."""
    return text if text.isascii() else "".join(map(_folded_char, text))
