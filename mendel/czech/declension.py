"""Czech declension of place names: every case form of a municipality's name (Kadaň → Kadaně, Kadani; Ústí nad
Labem → Ústím nad Labem) and of a region's (Zlínský kraj → Zlínského kraje), by rules for the noun and the
adjectives agreeing with it. A name alone does not always tell its paradigm, so some forms are alternatives."""

from __future__ import annotations

PREPOSITIONS = frozenset({"nad", "pod", "u", "v", "ve", "na", "při", "za", "mezi", "pri"})
_SOFT = "ňžščřťďjcľ"
_LOC_E_AFTER = tuple("dtnbpvmf")
N_CASES = 6  # nominative, genitive, dative, accusative, locative, instrumental


def _mutated_e(stem: str) -> str:
    """The ending -ě/-e as Czech writes it after ``stem`` (Praha → Praze, Lhota → Lhotě, Tábor → Táboře)."""
    for end, repl in (("ch", "še"), ("k", "ce"), ("h", "ze"), ("g", "ze"), ("r", "ře")):
        if stem.endswith(end):
            return stem[: -len(end)] + repl
    return stem + ("ě" if stem.endswith(_LOC_E_AFTER) else "e")


def _attach(stem: str, ending: str) -> str:
    """``stem`` + ``ending``, spelled: ň, ť, ď before e / i become n, t, d + ě / i (Kadaň → Kadaně, Kadani)."""
    hard = {"ň": "n", "ť": "t", "ď": "d"}
    if stem[-1:] in hard and ending[:1] in ("e", "i", "í"):
        return stem[:-1] + hard[stem[-1]] + ("ě" + ending[1:] if ending[0] == "e" else ending)
    return stem + ending


def _soft_cases(stems: list[str], word: str, feminine: bool = True, masculine: bool = True) -> list[list[str]]:
    """Consonant-final nouns of the soft (Kadaň, Kroměříž) and i-stem (Boleslav) feminine and soft masculine
    declensions (Liberec → Liberce), every stem (Plzeň loses its e: Plzně)."""
    forms: list[list[str]] = [[word], [], [], [word], [], []]
    for s in stems:
        forms[1].append(_attach(s, "e"))
        forms[2].append(_attach(s, "i"))
        forms[4].append(_attach(s, "i"))
        forms[5] += ([_attach(s, "í")] if feminine else []) + ([_attach(s, "em")] if masculine else [])
    return [list(dict.fromkeys(f)) for f in forms]


def _noun_cases(word: str, feminine: bool = False) -> tuple[list[list[str]], str]:
    """Case forms of a place name's head noun — every paradigm its ending allows, since a name alone does not tell
    Bystřice (one town) from Pardubice (plural) — and its gender for agreeing adjectives (``feminine``: an
    adjective before it already says so: Mladá Boleslav)."""
    w = word
    if w.endswith("ice") or w.endswith("ce"):
        s = w[:-1]  # Pardubic- (plural) or Bystřic- (one town)
        return [[w], [s, w], [s + "ím", s + "i"], [w, s + "i"], [s + "ích", s + "i"], [s + "emi", s + "í"]], "pf"
    if w.endswith(("ě", "e")):  # Hradiště (neuter), soft feminines
        s = w[:-1]
        return [[w], [w], [s + "i"], [w], [s + "i"], [w + "m", s + "í"]], "n"
    if w.endswith("í"):  # Meziříčí, Ústí
        return [[w], [w], [w + "mu", w], [w], [w], [w + "m"]], "n"
    if w.endswith("y"):  # Kladruby, Děčany, Vary
        s = w[:-1]
        return [[w], [s, s + "ů"], [s + "ům"], [w], [s + "ech", s + "ích"], [w]], "p"
    if w.endswith("a"):  # Praha, Lhota
        s = w[:-1]
        return [
            [w],
            [s + ("e" if s.endswith(tuple(_SOFT)) else "y")],
            [_mutated_e(s)],
            [s + "u"],
            [_mutated_e(s)],
            [s + "ou"],
        ], "f"
    if w.endswith("o"):  # Blešno, Brno, Hradisko
        s = w[:-1]
        loc = [s + "u"] if s.endswith(("k", "h", "ch", "g")) else [_mutated_e(s), s + "u"]
        return [[w], [s + "a"], [s + "u"], [w], loc, [s + "em"]], "n"
    if w.endswith("ec") and len(w) > 3:  # Hradec, Liberec: e falls out, then soft masculine
        return _soft_cases([w[:-2] + "c"], w, feminine=False), "m"
    if w.endswith(tuple(_SOFT)):  # Kadaň, Plzeň (e falls out), Kroměříž, Třebíč: mostly feminine, some masculine
        stems = [w] + ([w[:-2] + w[-1]] if len(w) > 3 and w[-2] == "e" else [])
        return _soft_cases(stems, w), "f"
    if feminine:  # Mladá Boleslav, Nová Ves: i-stem feminine (genitive -i first)
        forms = _soft_cases([w], w, masculine=False)
        forms[1].reverse()
        forms[1] = [w + "i"] + [f for f in forms[1] if f != w + "i"]
        return forms, "f"
    # hard masculine: Zlín, Tábor, Prostějov, Most; -ek drops its e and takes -u (Frýdek → Frýdku)
    if w.endswith("ek") and len(w) > 3:
        s = w[:-2] + "k"
        return [[w], [s + "u", s + "a"], [s + "u"], [w], [s + "u"], [s + "em"]], "m"
    loc = [w + "u"] if w.endswith(("k", "h", "ch", "g")) else [_mutated_e(w), w + "u"]
    return [[w], [w + "a", w + "u"], [w + "u"], [w], loc, [w + "em"]], "m"


_POSSESSIVE = {  # possessive adjectives: Havlíčkův Brod, Karlovy Vary, Jindřichův Hradec
    "ův": ("ův", "ova", "ovu", "ův", "ově", "ovým"),
    "ova": ("ova", "ovy", "ově", "ovu", "ově", "ovou"),
    "ovo": ("ovo", "ova", "ovu", "ovo", "ově", "ovým"),
    "ovy": ("ovy", "ových", "ovým", "ovy", "ových", "ovými"),
    "in": ("in", "ina", "inu", "in", "ině", "iným"),
    "ina": ("ina", "iny", "ině", "inu", "ině", "inou"),
    "ino": ("ino", "ina", "inu", "ino", "ině", "iným"),
    "iny": ("iny", "iných", "iným", "iny", "iných", "inými"),
}


def _adjective_cases(word: str, gender: str) -> list[list[str]]:
    """An adjective agreeing with its noun (Nová Ves, Velké Meziříčí, Dolní Lhota), or a place name that is an
    adjective itself (Karviná); ``gender`` "pf": either (České Budějovice, plural; Dolní Bystřice, one town)."""
    if len(gender) > 1:
        both = [_adjective_cases(word, g) for g in gender]
        return [list(dict.fromkeys(f for forms in both for f in forms[c])) for c in range(N_CASES)]
    for end, endings in _POSSESSIVE.items():
        if word.endswith(end) and len(word) > len(end) + 2:
            return [[word[: -len(end)] + e] for e in endings]
    s = word[:-1]
    if word.endswith("ý"):
        endings = ("ý", "ého", "ému", "ý", "ém", "ým") if gender != "p" else ("é", "ých", "ým", "é", "ých", "ými")
    elif word.endswith("á"):
        endings = ("á", "é", "é", "ou", "é", "ou")
    elif word.endswith("é"):
        endings = ("é", "ého", "ému", "é", "ém", "ým") if gender != "p" else ("é", "ých", "ým", "é", "ých", "ými")
    elif word.endswith("í"):
        endings = ("í", "í", "í", "í", "í", "í") if gender == "f" else ("í", "ího", "ímu", "í", "ím", "ím")
    else:
        return [[word]] * N_CASES
    return [[s + e] for e in endings]


def _is_adjective(word: str, last: bool) -> bool:
    if not word[:1].isupper() or len(word) <= 3:
        return False
    if any(word.endswith(end) and len(word) > len(end) + 2 for end in _POSSESSIVE):
        return not last
    # A name's last word ending in -í is a noun (Ústí, Meziříčí); -á, -ý, -é is an adjective even alone (Karviná).
    return word.endswith(("ý", "á", "é")) or (word.endswith("í") and not last)


def _compound_cases(words: list[str]) -> list[list[str]]:
    """Case forms of adjectives + the noun they agree with; words after the noun stay (Hradec Králové)."""
    noun = next((i for i, w in enumerate(words) if not _is_adjective(w, i == len(words) - 1)), None)
    if noun is None:  # the name is an adjective (Karviná, Bílý Kostel's first half aside)
        gender = {"á": "f", "ý": "m"}.get(words[-1][-1], "n")
        per_word = [_adjective_cases(w, gender) for w in words]
        return [[" ".join(combo) for combo in _product([cases[c] for cases in per_word])] for c in range(N_CASES)]
    feminine = any(w.endswith("á") for w in words[:noun])
    parts = [_noun_cases(word, feminine) for word in words[noun].split("-")]  # Frýdek-Místek: both halves
    gender = parts[-1][1]
    noun_forms = [
        list(dict.fromkeys("-".join(combo) for combo in _product([p[0][c] for p in parts]))) for c in range(N_CASES)
    ]
    per_word = [_adjective_cases(w, gender) for w in words[:noun]] + [noun_forms]
    rest = words[noun + 1 :]
    return [[" ".join(combo + rest) for combo in _product([cases[c] for cases in per_word])] for c in range(N_CASES)]


def _product(lists: list[list[str]]) -> list[list[str]]:
    combos: list[list[str]] = [[]]
    for options in lists:
        combos = [c + [o] for c in combos for o in options]
    return combos


def case_forms(name: str) -> tuple[str, ...]:
    """Every case form of a municipality's name the declension rules give (nominative first; a name's paradigm is
    not always told by its ending, so some forms are alternatives only one of which is right; a prepositional tail
    stays: Ústí nad Labem → Ústí nad Labem, Ústím nad Labem)."""
    head, tail = _head_and_tail(name)
    if any(ch.isdigit() for ch in name) or not head:
        return (name,)
    forms = []
    for alternatives in _compound_cases(head):
        for form in alternatives:
            form = f"{form} {tail}" if tail else form
            if form not in forms:
                forms.append(form)
    return tuple(forms)


def _head_and_tail(name: str) -> tuple[list[str], str]:
    """A name's declining words and its prepositional tail (Ústí | nad Labem)."""
    words = name.split()
    cut = next((i for i, w in enumerate(words) if i and w.lower() in PREPOSITIONS), len(words))
    return words[:cut], " ".join(words[cut:])


def genitive(name: str) -> str:
    """The first genitive form the rules give (Magistrát města Karviné: for the offices' names)."""
    head, tail = _head_and_tail(name)
    first = _compound_cases(head)[1][0]
    return f"{first} {tail}" if tail else first


def kraj_forms(kraj: str) -> list[str]:
    """A region's name in the six cases, as bodies' names and page addresses write it: "Zlínský kraj" →
    "Zlínského kraje", "Zlínském kraji"…; "Kraj Vysočina" → "Kraje Vysočina"…; Prague also "hl. m. Prahy"."""
    kraj_cases = ("kraj", "kraje", "kraji", "kraj", "kraji", "krajem")
    if kraj.startswith("Hlavní město"):
        city = ("Praha", "Prahy", "Praze", "Prahu", "Praze", "Prahou")
        town = ("hlavní město", "hlavního města", "hlavnímu městu", "hlavní město", "hlavním městě", "hlavním městem")
        return [f"{t} {c}" for t, c in zip(town, city)] + [f"hl. m. {c}" for c in city]
    if kraj.startswith("Kraj "):
        return [f"{k} {kraj.removeprefix('Kraj ')}" for k in kraj_cases]
    adjective = kraj.removesuffix(" kraj")
    return [f"{a[0]} {k}" for a, k in zip(_adjective_cases(adjective, "m"), kraj_cases)]
