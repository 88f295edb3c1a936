"""The municipal register as the NER gazetteer sees it: every case form of every municipality's name, found by
looking words up, and the offices and regional bodies named after places (Obecní úřad X, Magistrát města Y,
Krajský úřad Z, Hasičský záchranný sbor …)."""

from __future__ import annotations

import re
from functools import lru_cache

from mendel.czech.declension import case_forms, genitive, kraj_forms
from mendel.registers.municipalities import Municipality, fold, register


def gazetteer_forms() -> dict[str, tuple[str, ...]]:
    """Every municipality's name (nominative) → its case forms, for the NER's municipality gazetteer: the name
    after "obec", "města", "Obecní úřad", "Městského úřadu", "Magistrát města"… is recognised in any case."""
    return {m.name: case_forms(m.name) for m in register().municipalities}


# A word of a place name (Frýdek-Místek is one); the words of a name are apart by whitespace, line breaks too.
_NAME_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
_SPACE = re.compile(r"\s+")


class PlaceNames:
    """Every case form of every municipality's name (and its ASCII-folded spelling: OCR, folded court texts),
    found by looking words up — a regular expression over tens of thousands of forms takes seconds to compile."""

    def __init__(self, forms: dict[str, tuple[str, ...]]):
        self.by_form: dict[str, str] = {}
        for nominatives in (True, False):  # a nominative wins over another name's case form spelled alike
            for nominative, name_forms in forms.items():
                for form in name_forms[:1] if nominatives else name_forms[1:]:
                    for spelling in (form, fold(form)):
                        self.by_form.setdefault(spelling, nominative)
        self.max_words = max((len(f.split()) for f in self.by_form), default=0)

    def match(self, text: str, pos: int) -> tuple[int, str] | None:
        """(end, nominative) of the longest name form starting at ``pos`` and ending at a word's end."""
        words, ends, at = [], [], pos
        while len(words) < self.max_words:
            if words:
                space = _SPACE.match(text, at)
                if space is None:
                    break
                at = space.end()
            word = _NAME_WORD.match(text, at)
            if word is None:
                break
            words.append(word.group())
            at = word.end()
            ends.append(at)
        for count in range(len(words), 0, -1):
            nominative = self.by_form.get(" ".join(words[:count]))
            if nominative is not None:
                return ends[count - 1], nominative
        return None


@lru_cache(maxsize=1)
def place_names() -> PlaceNames:
    return PlaceNames(gazetteer_forms())


def offices(municipality: Municipality) -> list[str]:
    """The offices of a municipality by its kind, in the nominative: Obecní úřad X, Úřad městyse X, Městský úřad X
    (and Magistrát města X: the registers do not tell statutory cities, so every town has both names; the
    recogniser only meets the real one)."""
    name = municipality.name
    if municipality.kind == "hlavní město":
        return ["Magistrát hlavního města Prahy"]
    if municipality.kind == "městys":
        return [f"Úřad městyse {name}"]
    if municipality.kind == "obec":
        return [f"Obecní úřad {name}"]
    towns = [f"Městský úřad {name}", f"Magistrát města {genitive(name)}"]
    return towns if municipality.kind == "město" else [f"Obecní úřad {name}", *towns]


def regional_offices() -> dict[str, str]:
    """kraj → its regional office (Krajský úřad Ústeckého kraje; Prague's is its Magistrát)."""
    out = {}
    for kraj in sorted({m.kraj for m in register().municipalities}):
        if kraj.startswith("Hlavní město"):
            out[kraj] = "Magistrát hlavního města Prahy"
        elif kraj == "Kraj Vysočina":
            out[kraj] = "Krajský úřad Kraje Vysočina"
        else:
            adjective = kraj.removesuffix(" kraj")
            out[kraj] = f"Krajský úřad {adjective[:-1]}ého kraje"
    return out


@lru_cache(maxsize=1)
def kraj_genitives() -> dict[str, str]:
    """Every region's name in the genitive as a regional body's name writes it ("… Jihomoravského kraje", "… kraje
    Vysočina", "… hl. m. Prahy") → the way its full name writes it ("Kraje Vysočina", "hlavního města Prahy")."""
    out = {}
    for kraj in sorted(register().kraje.values()):
        forms = kraj_forms(kraj)
        canonical = forms[1][:1].upper() + forms[1][1:] if kraj.startswith("Kraj ") else forms[1]
        for form in [forms[1], forms[7]] if kraj.startswith("Hlavní město") else [forms[1]]:
            for spelling in (form, form[:1].upper() + form[1:]):
                out[spelling] = canonical
    return out


def fire_rescue_services() -> dict[str, str]:
    """kraj → its fire-and-rescue service (Hasičský záchranný sbor Ústeckého kraje), a state authority per region."""
    canonical = kraj_genitives()
    return {
        kraj: f"Hasičský záchranný sbor {canonical[kraj_forms(kraj)[1]]}" for kraj in sorted(register().kraje.values())
    }
