"""Queries as people type them: without diacritics, misspelt, with words cut short.

BM25 folds diacritics on both sides already (``mendel.czech.analyzer``), but the dense encoder, the recogniser and
the acts table read words as written, and no analyser helps a misspelt or clipped word. The collection's own
words decide what a typed word was meant to be (:class:`Lexicon`, its word forms with their counts):

- a word typed without diacritics gets back the spelling the collection writes it with, when that spelling is far
  more common than the plain one (``zakonik`` -> ``zákoník``; ``byt`` stays, the collection writes both
  ``byt`` and ``být``);
- a word the collection never writes but the language does (``mendel.czech.wordforms``: ``divka``) gets the
  spelling the language writes it with (``dívka``), and is never edited into another word (``dávka``): a law
  collection holds a small part of the language, and any real word may be typed;
- a word typed without diacritics that neither the collection nor the language writes, in any spelling, becomes
  the word it most likely meant (:meth:`Lexicon.corrected`): a word one slip away (a letter missing, extra,
  swapped or wrong: ``vipoved`` -> ``výpověď``, ``straznyky`` -> ``strážníky``) or one it begins, cut short
  (``zamestn`` -> ``zaměstnavatele``), weighed by how often questions would write it (the collection's words
  and the language's) and by how often people make that slip; a word typed with diacritics is left as typed.

Each change is a (start, end, replacement) span of the query, so query understanding keeps pointing back into the
query as typed (``serving.query.analyze.normalize_query``).
"""

from __future__ import annotations

import bisect
import functools
import re
from collections import Counter
from typing import Iterable

import numpy as np

from mendel.czech.folding import fold
from mendel.czech.wordforms import WordForms

WORD_RE = re.compile(r"[^\W\d_]+")
# A token holding a digit is a reference number ("Bles0434/2020", "MUKK/6462/2025"): its letters are not a word.
CODE_TOKEN_RE = re.compile(r"\S*\d\S*")
# A spelling with diacritics replaces the plain one only when the collection writes it this many times as often.
RESTORE_RATIO = 4.0
MIN_FORM_COUNT = 2  # forms written once are mostly OCR noise and hyphenation; they are not kept
MIN_CORRECTION_COUNT = 3  # a correction must be a word the collection writes at least this often
MIN_CORRECTED_LENGTH = 4  # shorter words are abbreviations and names more often than slips
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
# How likely a word is in a question: mostly as the collection writes it (questions are about the law), partly
# as the language does (they are written in everyday words: "jednou", not the collection's commoner "jinou").
COLLECTION_SHARE = 0.8
# How often people make each slip, relative to a letter left out: i and y are one sound, so a Czech writer
# confuses them more than any other pair; a wrong letter is mostly a key's neighbour on the keyboard.
SLIP_WEIGHTS = {"i/y": 3.0, "missing": 1.0, "extra": 1.0, "swapped": 1.0, "neighbour key": 1.0, "wrong": 0.5}
# A word cut short stands for all the words it begins ("pozem": pozemek, pozemku, pozemní ...): their likelihood
# together, this many times, against the likeliest slip ("pozem" is no slip of "pojem").
CLIPPED_WEIGHT = 3.0
# A rare word the collection hardly writes is read otherwise when that reading is this many times as likely
# ("manze", "regis", "zapla": fragments in the language's long list, typed cut short) -- "nápad", "krade" stay.
REREAD_RATIO = 1000.0
MIN_REREAD_LENGTH = 5
_KEYBOARD_ROWS = ("qwertzuiop", "asdfghjkl", "yxcvbnm")  # the Czech layout's letters (QWERTZ)


class Lexicon:
    """The word forms of a collection: for each folded lower-case form, how often it is written in all and the
    spelling it is written with most often; with ``language`` (the language's word forms), the words a question may
    use that the collection does not write."""

    def __init__(self, counts: Counter, language: WordForms | None = None):
        self.language = language
        totals: Counter = Counter()
        best: dict[str, tuple[int, str]] = {}
        for form, count in counts.items():
            if count < MIN_FORM_COUNT:
                continue
            key = fold(form)
            totals[key] += count
            if count > best.get(key, (0, ""))[0]:
                best[key] = (count, form)
        self.totals = dict(totals)
        self.best = {key: form for key, (_, form) in best.items()}
        self.best_count = {key: count for key, (count, _) in best.items()}
        self.plain = {key: counts.get(key, 0) for key in self.totals}  # written exactly as folded
        self._total = sum(self.totals.values()) or 1
        table = _language_table(language) if language is not None else None
        self._language_total = table.total if table is not None else 1.0
        # every form either writes, in order, with the running sum of their likelihoods: the words a prefix begins
        # are a slice, their likelihood together a difference (a clipped word is weighed in microseconds)
        self._forms, self._form_likelihood = self._forms_in_order(table)
        self._running = np.concatenate([[0.0], np.cumsum(self._form_likelihood)])

    def _forms_in_order(self, table: _LanguageTable | None) -> tuple[list[str], np.ndarray]:
        """Every folded form the collection or the language writes, sorted, with each one's :meth:`likelihood`: the
        collection's forms inserted among the language's, sorted and weighed once a process (weighing the language's
        ~200,000 forms one by one took most of the 0.8 s a small bundle took to load)."""
        own = np.array(sorted(self.totals), dtype=str)
        counts = np.array([self.totals[form] for form in own.tolist()], dtype=np.int64)
        collection = np.where(counts >= MIN_CORRECTION_COUNT, COLLECTION_SHARE * counts / self._total, 0.0)
        if table is None or not len(table.forms):
            return own.tolist(), collection
        forms = table.forms.astype(np.result_type(table.forms, own))  # as wide as the longest form of either
        where = np.searchsorted(forms, own)
        new = forms[np.minimum(where, len(forms) - 1)] != own  # past the last, a form is new too
        forms = np.insert(forms, where[new], own[new])
        shares = np.insert(table.shares, where[new], 0.0)
        shares[np.searchsorted(forms, own)] += collection  # the collection's share first, as likelihood() adds
        return forms.tolist(), shares

    @classmethod
    def from_texts(
        cls,
        texts: Iterable[str],
        extra: Iterable[str] = (),
        extra_weight: int = MIN_FORM_COUNT,
        language: WordForms | None = None,
    ):
        """The forms of ``texts``, plus those of ``extra`` (maintained word lists: each counted ``extra_weight``
        times, so a term of the acts table or the domain graph is known even where no passage writes it), and the
        ``language``'s for words the collection does not write."""
        counts: Counter = Counter()
        for text in texts:
            counts.update(WORD_RE.findall(text.lower()))
        for form in WORD_RE.findall("\n".join(extra).lower()):  # a line break is no letter: words stay apart
            counts[form] += extra_weight
        return cls(counts, language)

    def __len__(self) -> int:
        return len(self.totals)

    def knows(self, word: str) -> bool:
        return fold(word.lower()) in self.totals or (self.language is not None and word in self.language)

    def restored(self, word: str) -> str | None:
        """The spelling with diacritics of a word typed without them, when the collection clearly prefers it, or,
        for a word the collection does not write, when the language does."""
        key = word.lower()
        if not key.isascii():
            return None
        if key not in self.best:
            spelling = self.language.restored(key) if self.language is not None else None
            return None if spelling is None else _cased_like(word, spelling)
        spelling, plain = self.best[key], self.plain[key]
        if spelling == key or (plain and self.best_count[key] < RESTORE_RATIO * plain):
            return None
        return _cased_like(word, spelling)

    def corrected(self, word: str) -> str | None:
        """The word an unknown word most likely meant (:meth:`_likeliest`), spelt as the collection writes it, else
        as the language does. None for a word the collection or the language knows ("divka" is "dívka", not a slip
        of "dávka"), a short one, one typed with diacritics or when nothing is close. A word typed with its
        diacritics was spelt on a Czech keyboard with care: that the collection's sample lacks it ("dívka", "vdát",
        "psát") says more about the sample than about the word, and the nearest common word ("dávka", "vydat",
        "psa") is another word."""
        key = fold(word.lower())
        if len(key) < MIN_CORRECTED_LENGTH or key in self.totals or not key.isalpha() or not key.isascii():
            return None
        if not word.isascii() or (self.language is not None and key in self.language.known):
            return None
        best, _, _ = self._likeliest(key)
        return None if best is None else _cased_like(word, self._spelling(best))

    def reread(self, word: str) -> str | None:
        """The word a rare known word was cut from: typed without diacritics, at least :data:`MIN_REREAD_LENGTH`
        letters, written by the collection fewer than :data:`MIN_CORRECTION_COUNT` times, its likeliest reading
        (:meth:`_likeliest`) as cut short and :data:`REREAD_RATIO` times as likely as the word itself ("zapla",
        "manze": forms the language's long list holds, but typed for "zaplacení", "manželka"). None otherwise: a word
        in use ("trest", "nápad", "občan") is read as typed, and a rare word is not taken for a slip of a common
        one ("tátovy" is no "takový")."""
        key = fold(word.lower())
        if len(key) < MIN_REREAD_LENGTH or not word.isascii() or not key.isalpha():
            return None
        if self.totals.get(key, 0) >= MIN_CORRECTION_COUNT or not self.knows(key):
            return None
        own = self.likelihood(key)
        completion, together = self._completions(key)
        if completion is None or CLIPPED_WEIGHT * together < REREAD_RATIO * own:
            return None  # most rare words: their completions are nowhere near likely enough (no slips weighed)
        best, _, clipped = self._likeliest(key)
        return _cased_like(word, self._spelling(best)) if clipped else None

    def _likeliest(self, key: str) -> tuple[str | None, float, bool]:
        """(the folded word ``key`` most likely meant, its score, whether as cut short), a noisy channel: each word
        of the collection or the language one slip away, weighed by how likely a question writes it
        (:meth:`likelihood`) and how often people make that slip (:data:`SLIP_WEIGHTS`), against the words ``key``
        begins, cut short, together (:data:`CLIPPED_WEIGHT`), whose likeliest one stands for them."""
        best, best_score = None, 0.0
        for candidate in _one_edit(key):  # ~55 strings a letter
            score = self.likelihood(candidate)
            if score:
                score *= SLIP_WEIGHTS[slip_kind(key, candidate)]
                if score > best_score:
                    best, best_score = candidate, score
        completion, together = self._completions(key)
        if completion is not None and CLIPPED_WEIGHT * together > best_score:
            return completion, CLIPPED_WEIGHT * together, True
        return best, best_score, False

    def _spelling(self, form: str) -> str:
        """The folded ``form`` as the collection writes it, else as the language does."""
        language = self.language
        return self.best.get(form) or (language.restored(form) if language is not None else None) or form

    def likelihood(self, form: str) -> float:
        """How likely a question writes the folded ``form``: its share of the collection's words (when written at
        least :data:`MIN_CORRECTION_COUNT` times) and of the language's, mixed by :data:`COLLECTION_SHARE`."""
        count = self.totals.get(form, 0)
        share = COLLECTION_SHARE * count / self._total if count >= MIN_CORRECTION_COUNT else 0.0
        if self.language is not None:
            share += (1 - COLLECTION_SHARE) * self.language.frequency.get(form, 0.0) / self._language_total
        return share

    def _completions(self, prefix: str) -> tuple[str | None, float]:
        """(the likeliest of the collection's and the language's folded forms longer than ``prefix`` that begin with
        it, their likelihood together); (None, 0.0) when none is likely at all."""
        start = bisect.bisect_left(self._forms, prefix)
        end = bisect.bisect_left(self._forms, prefix + "\uffff", start)
        if start < end and self._forms[start] == prefix:
            start += 1
        together = float(self._running[end] - self._running[start])
        if together <= 0.0:
            return None, 0.0
        return self._forms[start + int(np.argmax(self._form_likelihood[start:end]))], together

    def changes(self, text: str, skip: Iterable[tuple[int, int]] = ()) -> list[tuple[int, int, str]]:
        """(start, end, replacement) for each word of ``text`` typed otherwise than the collection writes it,
        words overlapping a ``skip`` span or a token holding a digit left alone."""
        taken = [*skip, *(m.span() for m in CODE_TOKEN_RE.finditer(text))]
        out = []
        for m in WORD_RE.finditer(text):
            if any(s < m.end() and m.start() < e for s, e in taken):
                continue
            word = m.group(0)
            replacement = self.reread(word) or self.restored(word) or self.corrected(word)
            if replacement and replacement != word:
                out.append((m.start(), m.end(), replacement))
        return out


def _one_edit(word: str) -> set[str]:
    """Every string one deletion, transposition, replacement or insertion away from ``word`` (letters a-z)."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    out = {left + right[1:] for left, right in splits if right}
    out |= {left + right[1] + right[0] + right[2:] for left, right in splits if len(right) > 1}
    out |= {left + c + right[1:] for left, right in splits if right for c in _LETTERS}
    out |= {left + c + right for left, right in splits for c in _LETTERS}
    out.discard(word)
    return out


def slip_kind(typed: str, meant: str) -> str:
    """Which :data:`SLIP_WEIGHTS` slip makes ``typed`` of ``meant``, one edit apart."""
    if len(meant) > len(typed):
        return "missing"
    if len(meant) < len(typed):
        return "extra"
    differ = [i for i, (a, b) in enumerate(zip(typed, meant)) if a != b]
    if len(differ) > 1:
        return "swapped"
    pair = frozenset((typed[differ[0]], meant[differ[0]]))
    if pair == {"i", "y"}:
        return "i/y"
    return "neighbour key" if pair in _NEIGHBOUR_KEYS else "wrong"


def _neighbour_keys() -> frozenset[frozenset[str]]:
    """Pairs of letters whose keys touch: along a row, or across to the row above or below (rows are set off by
    half a key)."""
    place = {c: (row, col + row / 2) for row, keys in enumerate(_KEYBOARD_ROWS) for col, c in enumerate(keys)}
    return frozenset(
        frozenset((a, b))
        for a in place
        for b in place
        if a < b and abs(place[a][0] - place[b][0]) <= 1 and abs(place[a][1] - place[b][1]) <= 1
    )


_NEIGHBOUR_KEYS = _neighbour_keys()


class _LanguageTable:
    """A language's folded forms sorted, each one's share of its words as :meth:`Lexicon.likelihood` weighs it,
    and the words' total."""

    def __init__(self, language: WordForms):
        self.total = sum(language.frequency.values()) or 1.0
        self.forms = np.array(sorted(language.known), dtype=str)
        frequency = np.array([language.frequency[form] for form in self.forms.tolist()], dtype=np.float64)
        self.shares = (1 - COLLECTION_SHARE) * frequency / self.total


@functools.lru_cache(maxsize=4)
def _language_table(language: WordForms) -> _LanguageTable:
    """The language's table, made once a process (the language's forms are read once a process too)."""
    return _LanguageTable(language)


def _cased_like(typed: str, spelling: str) -> str:
    if typed.isupper() and len(typed) > 1:
        return spelling.upper()
    if typed[:1].isupper():
        return spelling[:1].upper() + spelling[1:]
    return spelling


@functools.cache
def maintained_words() -> tuple[str, ...]:
    """The words of the maintained tables a question may use: the domain graph's names and vocabulary, the acts
    table's names, the legal vocabulary's lay and legal wordings (read once a process, as the tables are)."""
    from mendel.data import read_table
    from mendel.law.acts_table import load_acts_table
    from mendel.law.domain_graph import default_graph
    from mendel.law.vocabulary import VOCABULARY_FILE

    words = []
    for node in default_graph().nodes.values():
        words += [node.name, *node.aliases, *node.vocabulary]
    for act in load_acts_table():
        words += list(act.forms)
    stack = [read_table(VOCABULARY_FILE)]
    while stack:  # every key and value of the vocabulary file: abbreviations, lay and legal wordings
        value = stack.pop()
        if isinstance(value, dict):
            stack += list(value.keys()) + list(value.values())
        elif isinstance(value, list):
            stack += value
        elif isinstance(value, str):
            words.append(value)
    return tuple(words)
