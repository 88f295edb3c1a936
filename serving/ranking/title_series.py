"""A board's own series of titles ("Hasiči radí – hasicí přístroj v autě", "Dotace obcím – …"): a keyword search
opening with the words that open many of the boards' titles, words no act's or decision's passage writes, looks for
that series' notices, as a search naming a kind of notice does (``serving.query.notice_kinds``). The series are read
from the collection's own titles, not kept by hand: a board's new series is found when its notices are."""

from __future__ import annotations

import re
import threading
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Callable, Iterable

from mendel.czech.analyzer import analyze
from mendel.czech.folding import fold
from serving.query.notice_kinds import NoticeKind, is_folded_question

SERIES_MIN_TITLES = 10  # titles opening with the same words: fewer is a coincidence, not a board's series
SERIES_WORDS = (3, 2)  # an opening of three words, else of two (the longer one named when both are series)
SHORTEST_WORD = 3  # "smlouva o", "dodatek č." open titles of every kind: no series
# the passages BM25 ranks first for an opening's words, read for the opening written as a phrase (in any of its
# words' forms); an opening an act's or a decision's passage writes is the law's wording ("smlouva o dílo",
# "výběrové řízení", "veřejnou vyhláškou"), no series
PHRASE_READ = 200
_WORD_RE = re.compile(r"\w+")


def folded_words(text: str) -> list[str]:
    return _WORD_RE.findall(fold(text).lower())


def opening(text: str, words: int, folded: list[str] | None = None) -> str | None:
    """The first ``words`` words of ``text`` (``folded``: its :func:`folded_words`, when at hand), folded to
    lower-case ASCII and single-spaced; None when it has fewer, or when one is shorter than ``SHORTEST_WORD`` letters
    or holds a digit."""
    found = (folded_words(text) if folded is None else folded)[:words]
    if len(found) < words or any(len(word) < SHORTEST_WORD or not word.isalpha() for word in found):
        return None
    return " ".join(found)


@dataclass(frozen=True)
class Series:
    label: str  # the opening as the titles most often write it ("Hasiči radí")
    words: frozenset[str]  # every word of the series' titles, folded


def title_openings(titles: Iterable[str], least: int = SERIES_MIN_TITLES) -> dict[str, Series]:
    """Openings (:func:`opening`) of at least ``least`` of ``titles`` -> their :class:`Series`."""
    counts: Counter[str] = Counter()
    written: dict[str, Counter[str]] = defaultdict(Counter)
    words_of: dict[str, set[str]] = defaultdict(set)
    for title in titles:
        words, folded = _WORD_RE.findall(title), folded_words(title)
        for size in SERIES_WORDS:
            key = opening(title, size, folded)
            if key is not None:
                counts[key] += 1
                written[key][" ".join(words[:size])] += 1
                words_of[key].update(folded)
    return {
        key: Series(written[key].most_common(1)[0][0], frozenset(words_of[key]))
        for key, n in counts.items()
        if n >= least
    }


def written_in(phrase: str, texts: Iterable[str]) -> bool:
    """Whether one of ``texts`` writes ``phrase``'s words in a row, in any of their forms: their analysed terms (as
    BM25 reads them: "veřejnou vyhláškou" writes "veřejná vyhláška")."""
    terms = tuple(analyze(phrase))
    if not terms:
        return False
    size = len(terms)
    for text in texts:
        analysed = analyze(text)
        if any(tuple(analysed[i : i + size]) == terms for i in range(len(analysed) - size + 1)):
            return True
    return False


class TitleSeries:
    """The series of a collection's board titles: :meth:`searched` names the one a keyword search looks for. The
    openings are counted at once (a pass over the titles); whether the law writes one is asked of ``law_texts`` the
    first time a search opens with it, and kept: a searcher never runs BM25 for openings nobody types."""

    def __init__(self, openings: dict[str, Series], law_texts: Callable[[str], Iterable[str]] = lambda _: ()):
        self.openings = openings  # folded opening -> its series, the law's wordings among them until asked
        self._law_texts = law_texts
        self._written: dict[str, bool] = {}  # opening -> whether an act's or a decision's passage writes it
        self._lock = threading.Lock()

    @classmethod
    def of_collection(
        cls, board_titles: Iterable[str], law_texts: Callable[[str], Iterable[str]], least: int = SERIES_MIN_TITLES
    ) -> "TitleSeries":
        """The openings of at least ``least`` board titles, each a series unless a text ``law_texts(opening)``
        gives back (the acts' and decisions' passages BM25 ranks first for the opening's words) writes it."""
        return cls(title_openings(board_titles, least), law_texts)

    def is_series(self, key: str) -> bool:
        """Whether the opening ``key`` (folded) is a series: enough titles open with it and the law never writes it."""
        if key not in self.openings:
            return False
        with self._lock:
            written = self._written.get(key)
        if written is None:  # asked outside the lock: BM25 runs at most a few times for one opening
            written = written_in(key, self._law_texts(key))
            with self._lock:
                self._written[key] = written
        return not written

    @property
    def series(self) -> dict[str, Series]:
        """Every series (asks the law about every opening: for reports and tests, not for a search)."""
        return {key: series for key, series in self.openings.items() if self.is_series(key)}

    def searched(self, text: str) -> NoticeKind | None:
        """The series a keyword search ``text`` opens with (its first three words, else two), as a kind of notice,
        when its other words are the series' titles' words too ("hasiči radí sirény"; not "jmenování člena vlády"
        for the series "Jmenování člena dozorčí rady …"); None for a question or for a search opening no series."""
        folded = fold(text).lower()
        if not self.openings or is_folded_question(folded):
            return None
        words = _WORD_RE.findall(folded)
        for size in SERIES_WORDS:
            key = opening(text, size, words) or ""
            series = self.openings.get(key)
            if series is None or not all(word in series.words for word in words[size:] if word.isalpha()):
                continue
            if self.is_series(key):
                return NoticeKind("title_series", f"řada písemností „{series.label}“", ())
        return None
