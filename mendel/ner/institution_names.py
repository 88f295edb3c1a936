"""The institutions' names: the gazetteer (``data/institutions.yaml``) and every case form of each name.

Case forms are generated from a few Czech declension paradigms (adjectives agreeing with the head noun), so the
table only holds nominatives; irregular heads list their ``forms``. The forms are written to the versioned pattern
file (``mendel.ner.patterns``), from which the name finder (``mendel.ner.institutions``) reads them.
"""

from __future__ import annotations

import dataclasses
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import yaml

INSTITUTION = "INSTITUTION"

# nominative, genitive, dative, accusative, locative, instrumental (vocative left out)
N_CASES = 6


def _fem_dative(stem: str) -> str:
    for end, repl in (("ch", "še"), ("k", "ce"), ("h", "ze"), ("g", "ze"), ("r", "ře")):
        if stem.endswith(end):
            return stem[: -len(end)] + repl
    if stem[-1:] in "dtnbpvmf":
        return stem + "ě"
    return stem + "e"


def _noun_forms(word: str) -> tuple[list[list[str]], str]:
    """Case forms of a head noun and its gender ("m", "f", "n")."""
    w = word
    if w.endswith("o"):
        s = w[:-1]
        return [[w], [s + "a"], [s + "u"], [w], [s + "u", s + "ě"], [s + "em"]], "n"
    if w.endswith("í"):
        return [[w], [w], [w], [w], [w], [w + "m"]], "n"
    if w.endswith("a"):
        s = w[:-1]
        dat = _fem_dative(s)
        return [[w], [s + "y"], [dat], [s + "u"], [dat], [s + "ou"]], "f"
    if w.endswith("e"):
        s = w[:-1]
        return [[w], [w], [s + "i"], [s + "i"], [s + "i"], [s + "í"]], "f"
    return [[w], [w + "u"], [w + "u"], [w], [w + "u", w + "ě"], [w + "em"]], "m"


def _adjective_forms(word: str, gender: str) -> list[list[str]]:
    if word.endswith("ý"):
        s = word[:-1]
        return [[s + e] for e in ("ý", "ého", "ému", "ý", "ém", "ým")]
    if word.endswith("á"):
        s = word[:-1]
        return [[s + e] for e in ("á", "é", "é", "ou", "é", "ou")]
    if word.endswith("é"):
        s = word[:-1]
        return [[s + e] for e in ("é", "ého", "ému", "é", "ém", "ým")]
    s = word[:-1]  # soft "-í"
    if gender == "f":
        return [[word]] * N_CASES
    return [[s + e] for e in ("í", "ího", "ímu", "í", "ím", "ím")]


def _is_adjective(word: str, last: bool) -> bool:
    return word.endswith(("ý", "á", "é")) or (word.endswith("í") and not last)


def head_length(words: list[str]) -> int:
    for i, word in enumerate(words):
        if not _is_adjective(word, last=i == len(words) - 1):
            return i + 1
    return len(words)


def decline(name: str, head: int | None = None) -> list[str]:
    """All case forms of ``name`` (declined head + fixed rest), nominative first, no duplicates."""
    words = name.split()
    n = head or head_length(words)
    noun_cases, gender = _noun_forms(words[n - 1])
    per_word = [_adjective_forms(w, gender) for w in words[: n - 1]] + [noun_cases]
    rest = words[n:]
    forms: list[str] = []
    for case in range(N_CASES):
        combos = [[]]
        for cases in per_word:
            combos = [c + [alt] for c in combos for alt in cases[case]]
        for combo in combos:
            form = " ".join(combo + rest)
            if form not in forms:
                forms.append(form)
    return forms


def fold(text: str) -> str:
    """ASCII folding, as in the court-citation CSVs ("Okresniho soudu v Usti nad Labem")."""
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


# --------------------------------------------------------------------------
# Gazetteer
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Institution:
    name: str  # canonical nominative = norm
    forms: tuple[str, ...]  # case forms of the bare name (without complement)
    abbreviations: tuple[str, ...]
    complement: str | None
    generic: bool
    required: bool

    def norm(self, complement: str = "") -> str:
        if complement and self.complement in ("seat", "territory", "region", "place"):
            base = self.name[:1].upper() + self.name[1:]
            return base + " " + " ".join(complement.split())
        if self.generic:
            return self.name.lower()
        return self.name


@dataclass(frozen=True)
class Gazetteer:
    version: int
    institutions: tuple[Institution, ...]
    abbreviations: dict[str, str]  # abbreviation -> norm, including per-entry abbreviations
    municipal_types: dict[str, tuple[str, ...]]  # nominative -> case forms
    municipalities: dict[str, tuple[str, ...]]  # nominative -> case forms, ASCII-folded ones included
    abbreviations_before_file_number: dict[str, str] = dataclasses.field(default_factory=dict)


def _capitalised_variants(form: str, lower: bool) -> list[str]:
    out = [form, form[:1].upper() + form[1:]]
    if lower:
        out.append(form[:1].lower() + form[1:])
    return list(dict.fromkeys(out))


@lru_cache(maxsize=1)
def load_gazetteer() -> Gazetteer:
    source = resources.files("mendel.ner").joinpath("data", "institutions.yaml")
    data = yaml.safe_load(source.read_text(encoding="utf-8"))
    institutions = []
    abbreviations: dict[str, str] = {}
    for entry in data["institutions"]:
        name = entry["name"]
        forms = entry.get("forms") or decline(name, entry.get("head"))
        variants: list[str] = []
        for form in forms:
            for v in _capitalised_variants(form, entry.get("lower", False)):
                variants.append(v)
                if "soud" in name.lower() and fold(v) != v:
                    variants.append(fold(v))
        inst = Institution(
            name=name,
            forms=tuple(dict.fromkeys(variants)),
            abbreviations=tuple(entry.get("abbr", ())),
            complement=entry.get("complement"),
            generic=bool(entry.get("generic")),
            required=bool(entry.get("required")),
        )
        institutions.append(inst)
        for abbr in inst.abbreviations:
            abbreviations[abbr] = inst.norm()
    abbreviations.update(data.get("abbreviations") or {})
    types = {k: tuple(v) for k, v in data["municipal_types"].items()}
    # OCR and ASCII-folded text ("Obec Blesno") spell names without diacritics
    munis = {k: tuple(dict.fromkeys([*v, *(fold(f) for f in v)])) for k, v in data["municipalities"].items()}
    return Gazetteer(
        int(data["version"]),
        tuple(institutions),
        abbreviations,
        types,
        munis,
        dict(data.get("abbreviations_before_file_number") or {}),
    )
