"""The word forms of the Czech language, as people write them: what a typed word may be besides the collection's.

A law collection's words are a small part of the language: "dívka", "urazím" or "vyhrožuju" are real words a
question may use that no passage writes. The forms come from ``wordfreq``'s Czech list (the large one: subtitles,
web text, Wikipedia and news, forms down to about one in a hundred million words), shipped inside the package, so
nothing is downloaded at run time. Each form is folded (``mendel.czech.folding.fold``): a word typed without
diacritics is known when some form of the language folds to it, and is written as the commonest of them.
"""

from __future__ import annotations

import functools
from collections import Counter

from mendel.czech.folding import fold

LANGUAGE = "cs"
WORDLIST = "large"
# A spelling with diacritics replaces the plain one only when the language writes it this many times as often
# ("divka" -> "dívka"; "byt" stays, both "byt" and "být" are common).
RESTORE_RATIO = 4.0
# Forms rarer than this (Zipf: log10 of occurrences per billion words) are left out: 207,665 of the list's 606,360
# forms stay, a third of the memory, and the dev sets' typed forms come back right as often (1,015 of 1,055 words
# without diacritics against 1,018 with every form; 889 against 888 with slips).
MIN_ZIPF = 2.0


class WordForms:
    """The folded forms of a language: each known, some with the spelling (with diacritics) that people write
    far more often than the plain one."""

    def __init__(self, frequencies: dict[str, float]):
        totals: Counter = Counter()
        best: dict[str, tuple[float, str]] = {}
        for form, frequency in frequencies.items():
            if not form.isalpha():
                continue
            key = fold(form.lower())
            totals[key] += frequency
            if frequency > best.get(key, (0.0, ""))[0]:
                best[key] = (frequency, form)
        self.frequency = dict(totals)  # folded form -> how often the language writes it (any spelling)
        self.known = self.frequency.keys()
        self.spelling = {
            key: form
            for key, (frequency, form) in best.items()
            if form != key and frequency >= RESTORE_RATIO * frequencies.get(key, 0.0)
        }

    def __contains__(self, word: str) -> bool:
        return fold(word.lower()) in self.known

    def __len__(self) -> int:
        return len(self.known)

    def restored(self, word: str) -> str | None:
        """The spelling (lower case) of a word typed without diacritics, when the language clearly prefers one."""
        return self.spelling.get(word.lower())


@functools.cache
def czech_word_forms() -> WordForms:
    """Czech's word forms from the list ``wordfreq`` ships, down to :data:`MIN_ZIPF` (read once per process)."""
    import wordfreq

    least = 10 ** (MIN_ZIPF - 9)
    frequencies = wordfreq.get_frequency_dict(LANGUAGE, WORDLIST)
    forms = WordForms({form: frequency for form, frequency in frequencies.items() if frequency >= least})
    # wordfreq keeps every list it read (~60 MB for this one); only these forms are used
    wordfreq.get_frequency_dict.cache_clear()
    wordfreq.get_frequency_list.cache_clear()
    return forms
