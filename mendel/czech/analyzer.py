"""Czech analyser for BM25: lower case, no diacritics, stop-words, light stemming, legal tokens kept whole."""

from __future__ import annotations

import functools
import re
import unicodedata

# Legal identifiers first so they survive as single tokens: § 7 → "§7", 89/2012, file numbers, ECLI.
TOKEN_RE = re.compile(
    r"ecli:[a-z]{2}:[a-z0-9]+:\d{4}:[a-z0-9.]+"
    r"|§\s*\d+[a-z]?"
    r"|čl\.\s*[ivxlc\d]+[a-z]?\b"
    r"|\d+/\d{2,4}"
    r"|\w+",
    re.UNICODE,
)

STOPWORDS = frozenset(
    """a aby ale ani ano asi az bez bude budou by byl byla byli bylo byt co do jak jako je jeho jej jeji jejich jen
    jeste jestli ji jiz jsem jsi jsme jsou jste k kam kde kdo kdy kdyz ke kteri ktera ktere kteri kterou ktery
    kterym ma mate me mezi mi mit mu muze my na nad nam nas ne nebo neni nez o od on ona oni ono pak po pod podle
    pokud pro proto proti pri s se si sve svych ta tak take takze tam te tedy tento teto tim to tohoto tom tomto
    tomu toto tu tuto ty tyto u uz v ve vsak z za ze zda""".split()
)

# Longest first; only stripped when a stem of at least 4 characters remains.
SUFFIXES = sorted(
    """ami emi ove ovi ich ych ymi imi eho emu ymu ima ama ach ech ich ovy ova ove ou em om um ho mi
    a e i o u y""".split(),
    key=len,
    reverse=True,
)


def strip_diacritics(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


def stem(token: str) -> str:
    if not token.isalpha():
        return token
    for suffix in SUFFIXES:
        if token.endswith(suffix) and len(token) - len(suffix) >= 4:
            return token[: -len(suffix)]
    return token


@functools.lru_cache(maxsize=1 << 18)
def _term(raw: str) -> str | None:
    """The index term of one lower-cased raw token, or None for a stop-word. Cached: the vocabulary is small
    next to the token stream, so a corpus costs one normalisation per distinct token."""
    token = strip_diacritics(re.sub(r"\s+", "", raw))
    if token in STOPWORDS or (len(token) == 1 and token.isalpha()):
        return None
    return stem(token)


def analyze(text: str) -> list[str]:
    return [term for term in map(_term, TOKEN_RE.findall(text.lower())) if term is not None]
