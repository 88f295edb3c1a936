"""Provision chains (``§ 5 odst. 1 a 2``, ``§ 137 odst. 3, § 151 odst. 2 o. s. ř.``, ``čl. 36 Listiny``) and the act
they belong to.

A chain is one LAW_REF whose span is the whole chain with its act; each of its elements (every provision the chain
names: list items, the ends of a range, ``§ 2395 an.``) has its own span and norm, and the act named once, at the
end, belongs to every one of them (``distribute``). The act is the one written right after the chain (a citation, a
name or abbreviation, one the document defined, ``citovaného zákona`` for the last act of that kind the document
named); a chain with none takes the act of the chain it is joined to (``§ 7 ve spojení s § 9 vyhlášky č. 177/1996
Sb.``), else the caller's ``default_act``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mendel.ner.citations import ActMention, act_at

D = "[0-9]"
ORDINAL = r"(?:prv|druh|třet|čtvrt|pát|šest|sedm|osm|dev[aá]t|desát|posledn)\w*"
ORDINALS = rf"{ORDINAL}(?:(?:\s*,|\s+a|\s+až)\s+{ORDINAL})*"  # "věty první a druhé"

# provision markers by their normalised form
UNIT_MARKERS = {
    "§": r"§§?|par\.",
    "čl.": r"[čČ]l\.|[čČ]lán(?:ek|ku|kem|ky|ků|cích)",
}
UNIT_MARK = "(?:" + "|".join(UNIT_MARKERS.values()) + ")"
MARKER_RE = re.compile(r"§|par\.|[čČ]l")  # a text without one holds no chain
GLUED_SUB = r"(?=odst|písm)"  # pdf text layers lose spaces: "§122odst. 3"
# "odst.1o.s.ř.", "odstavec 1občanského zákoníku", "odst. 1o. z.": a paragraph's number glued to the act after it (an
# abbreviation of two dotted parts or a word), not a paragraph's letter ("odst. 1a")
GLUED_WORD = r"(?=[a-zá-ž]{1,4}\.\s?[a-zá-ž]{1,4}\.|[a-zá-ž]{4})"
# a provision inserted later takes one or two letters (§ 14a, then § 14aa or § 14ab between § 14a and § 14b;
# an article of an amending act: Čl. IIa)
PROVISION_SUFFIX = "[a-z]{0,2}"
# "§ 14 b/ odst. 1", "§ 14 b) odst. 5", "§ 50 e odst. 1", "§ 118a) odst. 1": a letter set apart before a paragraph
# is the section's suffix, for a lettered point (písm.) has no paragraphs under it; without a bracket only b to h,
# the letters that suffix sections and are no Czech word ("§ 5 a odst. 2": "and")
SPLIT_SUFFIX = r"(?:[ \t](?:[a-z][/)]|[b-h])|[a-z]{1,2}[/)])(?=[ \t]*odst)"
# "§ 2 395 a násl.", "§ 1 970 NOZ": a section over a thousand with its thousands set apart, not an amount
THOUSANDS = rf"[1-3][ \t\u00a0]{D}{{3}}(?![\w/])(?![ \t\u00a0]*(?:{D}|Kč|,-|korun|%|EUR))"
UNIT_NUM = (
    rf"(?:{THOUSANDS}|{D}{{1,5}}(?:{SPLIT_SUFFIX}|{PROVISION_SUFFIX})|[IVXLC]{{1,6}}[a-z]?)"
    rf"(?:(?![\w/])|{GLUED_SUB})(?!\.{D})"
)
SPLIT_SUFFIX_MARKS_RE = re.compile(r"[ \t\u00a0/)]")
ITEM_NUM = rf"{D}{{1,5}}{PROVISION_SUFFIX}(?![\w/])(?!\.\s*{D})"
SENTENCE_PART = r"(?:\s+(?:část\w*\s+)?(?:před|za|po)\s+(?:středník\w*|čárk\w*))"
# "§ 160 odst. 1 před středníkem", "v části věty před středníkem": the part of a sentence without its number
SENTENCE_PART_ALONE = r"(?:v\s+)?(?:část\w*\s+(?:vět\w*\s+)?)?(?:před|za)\s+(?:středník\w*|čárk\w*)"
SUB_UNITS = {
    # "odst. l": a typed 1; "odst 2": the dot left out
    "odst.": rf"odst(?:\.|avc(?:e|i|em|ích)|avec|(?=[ \t]+{D}))\s*(?:{D}{{1,3}}{GLUED_WORD}|(?:{D}{{1,3}}[a-z]?|l)(?![\w/]))",
    # "§ 6 (2, 7), § 10 (1) zákona 549/1991 Sbírky", "§ 47 (1 a)": paragraphs in brackets on the provision's line
    # (the first is kept in the norm)
    "(odst.)": rf"(?:(?<=[\w.])|(?<=[\w.][ \t]))\({D}{{1,2}}(?:[ \t]*,?[ \t]*(?:{D}{{1,2}}\.?|[a-z]\)?))*\)",
    "písm.": r"pís(?:m(?:\.|eno|ene|enu|enem)|\.)\s*(?:[a-z]{1,2}(?:\)|/|(?!\w))|[A-Z]\))",  # "písm. H)": a capital typed
    "bod": rf"bod(?:u|ě|y|ů|em|ech)?\s+{D}{{1,3}}[a-z]?(?:\.(?=[\s,]))?(?![\w/])",
    "věta": rf"(?:část\w*\s+)?(?:vět(?:a|y|ě|u|ou)\s+(?:{ORDINALS}|[1-9](?!\d)|I{{1,3}}(?!\w)){SENTENCE_PART}?|{ORDINAL}\s+vět(?:a|y|ě|u|ou)"
    rf"{SENTENCE_PART}?|vět(?:a|y|ě|u|ou){SENTENCE_PART}|{SENTENCE_PART_ALONE})",
    "pododst.": rf"(?:{ORDINAL}\s+pododstav\w*|pododstav\w*\s+{ORDINAL})",
    # "§ 1 odst. písm. a) zákona": a paragraph left without its value before a point (kept in the span only)
    "(odst.)písm.": r"odst\.(?=\s*písm)",
    # "§ 153 b) a § 157 zákona", "§ 115 a/ o.s.ř.", "§ 11 a), d) vyhl.": a point written without "písm.", its letter
    # set apart from the number on the same line (a letter joined to it is the section's suffix: "§ 118a)")
    "(písm.)": rf"(?<={D}[ \t])[a-z][)/]",
}
SUB = "(?:" + "|".join(SUB_UNITS.values()) + ")"
SUB_SEP = r"(?:\s*,\s*(?=část|vět))?\s*"  # "§ 160 odst. 1, část věty před středníkem"
LIST_SEP = r"(?:\s*,\s*(?:a\s+|nebo\s+)?|\s+(?:a|nebo|či|až|a\s+až|resp\.|a/nebo)\s+|\s*[-–]\s*)"
PROVISION_WORD = r"(?:(?:ust\.|ustan\.|ustanovení)\s*)?"  # "§ 5 a ust. § 6"
UNIT = rf"{UNIT_MARK}\s*{UNIT_NUM}(?:{SUB_SEP}{SUB})*"
# "§ 2586 a násl.", "§ 2395 an.", "§ 2910 a n."
FOLLOWING = r"(?:\s+a\s+(?:násl\.|následující(?:ch|m)?(?!\w)|n\.(?!\s*[a-zá-ž]\.))|\s+an\.|\s+násl\.)"
LIST_ITEM = rf"(?:{PROVISION_WORD}{UNIT}|{ITEM_NUM}(?:\s+{SUB})*|{SUB}(?:\s+{SUB})*|[a-z]{{1,2}}[)/])"
CHAIN_RE = re.compile(rf"(?:(?=§)|(?<!\w)){UNIT}(?:{FOLLOWING})?(?:{LIST_SEP}{LIST_ITEM}(?:{FOLLOWING})?)*")
# a trailing "b)" belongs to the chain only after a point ("písm. a), b)", "§ 11 a), d)") and on the same line
# ("§ 38 odst. 1 a 2, nebo\nb) …")
TRAILING_LETTER_ITEM_RE = re.compile(rf"{LIST_SEP}[a-z]{{1,2}}[)/]$")
POINT_BEFORE_RE = re.compile(rf"pís(?:m|\.)|{SUB_UNITS['(písm.)']}")

# provisions of private documents, not law
NON_LAW_TAIL_RE = re.compile(
    r"\.?(?:\s+odst\.\s*[IVX0-9]+(?:\.[0-9]+)*)?"
    r"\s+(?:(?:této|teto|uvedené)\s+)?(?:smlouv|dohod[ayěo]|podmínek|zadávací\s+dokumentac|stanov\b|POV\b)"
)
# between a chain and its act: a bracket a number leaves open ("§ 115a) o. s. ř.", "odst. 1) zák."), a paragraph in
# brackets ("§ 160 (1) o. s. ř."), a comma before a full citation ("§ 87 odst. 1, z.č. 257/2016 Sb."), words that
# point back or describe ("citovaného", "téhož", "prováděcí") or a bare act type before an abbreviation ("zákona
# o.s.ř.")
STRAY_BRACKET_RE = re.compile(r"(?<=[0-9])\)|(?<=[0-9][a-z])\)")  # "§ 755 odst. 1) zák. č."
PARAGRAPH_MARK_RE = re.compile(rf"[ \t]*\((?P<odst>{D}{{1,2}})\)")
POINTING_WORDS = r"(?:(?:shora\s+|výše\s+|posledně\s+)?(?:citovan|uveden|zmíněn|předmětn)\w*|téhož|téže|cit\.)"
BEFORE_ACT_RES = (
    re.compile(r"\s+(?=\S)"),
    # a dot after the last number before a lower-case act ("§ 101 odst. 3. o. s. ř.": a new sentence would start
    # with a capital), a sub-unit left without its value ("§ 142 odst. o. s. ř.", "§ 101 odst. 1 písm. zákona")
    re.compile(r"\.[ \t]+(?=[a-zá-ž])"),
    re.compile(r"\s+(?:odst|písm)\.\s*(?=\S)"),
    re.compile(
        r"\s*,\s*(?=(?:zákon\w*|zák\.|z\.|vyhl\w*\.?|nařízení)\s*(?:č\.|číslo)|[a-zá-ž]{1,5}\.\s*[a-zá-ž]\.|\w+ého\s)"
    ),
    re.compile(rf"\s+(?:{POINTING_WORDS}\s*|prováděc\w*\s+|jeho\s+prováděc\w*\s+)(?=\S)"),
    re.compile(rf"\s+(?:{POINTING_WORDS}\s+)?(?:zákona|vyhlášky)\s+(?=\S)"),
)
ANAPHORA_RE = re.compile(
    rf"\s+(?:{POINTING_WORDS}|(?P<own>tohoto|této|téhož))\s*(?P<kind>zákon|zák(?=\.)|vyhlášk|vyhl(?=\.)|nařízení|předpis)\w*(?!\w)"
)
ANAPHORA_KINDS = {
    **{kind: ("zákon",) for kind in ("zákon", "zák")},  # "cit. zák."
    **{kind: ("vyhláška",) for kind in ("vyhlášk", "vyhl")},
    "nařízení": ("nařízení",),
    "předpis": (),
}
# a chain without an act joined to the next chain, whose act it shares
CONNECTOR_RE = re.compile(
    r"\s*,?\s*(?:ve\s+spojení\s+se?|ve\s+spoj\.\s+se?|za\s+použití|ve\s+smyslu|a(?:\s+(?:dle|podle|také|též|"
    r"dále|rovněž))?|resp\.|či|nebo|popř\.|případně|event\.)\s+(?:(?:ust\.|ustan\.|ustanovení|ustanoveními)\s*)?"
)


@dataclass(frozen=True)
class Element:
    """One provision of a chain: its span and norm (``99/1963 Sb. § 151 odst. 2``, or the path alone)."""

    start: int
    end: int
    norm: str


# --------------------------------------------------------------------------
# A chain's elements
# --------------------------------------------------------------------------

LEVELS = ("unit", "odst.", "písm.", "bod")
_HEAD_RE = re.compile(rf"{PROVISION_WORD}(?P<mark>{UNIT_MARK})\s*(?P<num>{UNIT_NUM})")
_ITEM_NUM_RE = re.compile(rf"(?P<num>{ITEM_NUM})")
_LETTER_RE = re.compile(r"(?P<letter>[a-z]{1,2})[)/]")
_SUB_RE = re.compile(rf"{SUB_SEP}(?P<sub>{SUB})")
_SEP_RE = re.compile(LIST_SEP)
_FOLLOWING_RE = re.compile(FOLLOWING)
_SUB_VALUES = (  # sub-units kept in the norm, with their value pattern
    ("odst.", re.compile(r"^odst\w*\.?\s*([0-9]+[a-z]?|l)")),
    ("odst.", re.compile(r"^\(([0-9]{1,2})")),
    ("písm.", re.compile(r"^pís\w*\.?\s*([a-zA-Z]{1,2})")),
    ("bod", re.compile(r"^bod\w*\s+([0-9]+[a-z]?)")),
    ("písm.", re.compile(r"^([a-z])[)/]$")),
)
# a bare number after a sub-unit of at most this value continues the sub-unit ("odst. 1 a 2"), a larger one is a
# provision of its own ("§ 137 odst. 3, 151")
MAX_SUB_NUMBER = 40
# "§ 45 až § 50", "§§ 45–50", "odst. 1 až 7": the separators of a range, whose inner provisions are cited too
RANGE_SEP_RE = re.compile(r"\s+(?:a\s+)?až\s+|\s*[-–]\s*")
# a range of more than this many steps is a typing error or a whole part of an act: only its ends are kept
MAX_RANGE_STEPS = 30
RANGE_LEVELS = ("unit", "odst.", "bod")


def _sub_level(sub: str) -> tuple[str, str] | None:
    for name, regex in _SUB_VALUES:
        value = regex.match(sub)
        if value:
            number = "1" if value.group(1) == "l" else value.group(1)
            return name, f"{number.lower()})" if name == "písm." else number
    return None  # věta, pododstavec: kept in the span, not in the norm


def _set(path: list[tuple[str, str]], level: str, value: str) -> list[tuple[str, str]]:
    depth = LEVELS.index(level)
    return [(lv, v) for lv, v in path if LEVELS.index(lv) < depth] + [(level, value)]


def path_text(path: list[tuple[str, str]], mark: str) -> str:
    parts = []
    for level, value in path:
        parts.append(f"{mark} {value}" if level == "unit" else f"{level} {value}")
    return " ".join(parts)


def _range_inside(first: list[tuple[str, str]], last: list[tuple[str, str]]) -> list[list[tuple[str, str]]]:
    """The paths strictly between the ends of a range that differ in their last level only, a plain number at both
    ends (``§ 45`` … ``§ 50``, ``§ 4 odst. 1`` … ``odst. 7``); none for lettered ends (``§ 14a``), mixed levels or
    a range over ``MAX_RANGE_STEPS``."""
    if not first or len(first) != len(last) or first[:-1] != last[:-1] or first[-1][0] != last[-1][0]:
        return []
    level, low = first[-1]
    high = last[-1][1]
    if level not in RANGE_LEVELS or not (low.isdigit() and high.isdigit()):
        return []
    if not 1 < int(high) - int(low) <= MAX_RANGE_STEPS:
        return []
    return [first[:-1] + [(level, str(number))] for number in range(int(low) + 1, int(high))]


def chain_elements(text: str, start: int, end: int) -> list[tuple[int, int, str]]:
    """(start, end, path) of every provision of the chain ``text[start:end]``, in order: ``§ 5 odst. 1 a 2`` ->
    ``§ 5 odst. 1``, ``§ 5 odst. 2``; ``§ 212, § 212a odst. 1, 3`` -> ``§ 212``, ``§ 212a odst. 1``, ``… odst. 3``.
    A range gives every provision in it: ``§ 45 až § 48`` -> ``§ 45``, ``§ 46``, ``§ 47``, ``§ 48``, the inner ones
    spanning the whole range (``§ 45 až § 48``), as the text writes them nowhere else."""
    elements: list[tuple[int, int, str]] = []
    path: list[tuple[str, str]] = []
    previous: tuple[int, list[tuple[str, str]]] | None = None  # start and path of the last element
    in_range = False  # the last separator was "až" or a dash
    mark = "§"
    pos = start
    while pos < end:
        item_start = pos
        head = _HEAD_RE.match(text, pos, end)
        if head:
            mark = next(norm for norm, pattern in UNIT_MARKERS.items() if re.fullmatch(pattern, head.group("mark")))
            path = [("unit", SPLIT_SUFFIX_MARKS_RE.sub("", head.group("num")))]
            pos = head.end()
        elif (number := _ITEM_NUM_RE.match(text, pos, end)) and path:
            following = _SUB_RE.match(text, number.end(), end)
            sub = _sub_level(following.group("sub")) if following else None
            value = number.group("num")
            if sub is not None and LEVELS.index(sub[0]) > 0:
                level = LEVELS[LEVELS.index(sub[0]) - 1]
            else:
                level = next((lv for lv, _ in reversed(path) if lv in ("unit", "odst.", "bod")), "unit")
            if level != "unit" and not (value.isdigit() and int(value) <= MAX_SUB_NUMBER):
                level = "unit"  # "§ 142 a 142 a)": no paragraph has that number
            path = _set(path, level, value)
            pos = number.end()
        elif (letter := _LETTER_RE.match(text, pos, end)) and path:
            path = _set(path, "písm.", f"{letter.group('letter')})")
            pos = letter.end()
        elif not _SUB_RE.match(text, pos, end) or not path:
            separator = _SEP_RE.match(text, pos, end) or _FOLLOWING_RE.match(text, pos, end)
            in_range = bool(separator and RANGE_SEP_RE.fullmatch(separator.group()))
            pos = separator.end() if separator and separator.end() > pos else pos + 1
            continue
        while sub := _SUB_RE.match(text, pos, end):
            level = _sub_level(sub.group("sub"))
            if level is not None:
                path = _set(path, *level)
            pos = sub.end()
        item_end = pos
        if following := _FOLLOWING_RE.match(text, pos, end):
            pos = following.end()
        if path and path[0][0] == "unit":
            if in_range and previous is not None:
                range_start = previous[0]
                elements += [(range_start, item_end, path_text(p, mark)) for p in _range_inside(previous[1], path)]
            elements.append((item_start, item_end, path_text(path, mark)))
            previous = (item_start, list(path))
        in_range = False
    return elements


def distribute(elements: list[tuple[int, int, str]], act: str | None) -> tuple[Element, ...]:
    """Every element of a chain with the chain's act."""
    return tuple(Element(s, e, f"{act} {path}" if act else path) for s, e, path in elements)


# --------------------------------------------------------------------------
# Chains with their act
# --------------------------------------------------------------------------

HEADING_NEXT_RE = re.compile(r"[ \t]*(?:\n\s*(\S)(?P<para>(?<=\()[0-9]{1,3}[a-z]?\))?|\s*$)")


def _is_heading(text: str, start: int, end: int) -> bool:
    """ "§ 1" or "Čl. I" alone on its line (a quoted new provision may open it: "„§ 64"), followed by a
    capitalised line, a numbered paragraph "(1)" or the end of a multi-line text."""
    line_start = text.rfind("\n", 0, start) + 1
    if text[line_start:start].strip(' \t„"“'):
        return False
    after = HEADING_NEXT_RE.match(text, end)
    if not after:
        return False
    if after.group(1) is None:
        return line_start > 0
    return after.group(1).isupper() or after.group("para") is not None


@dataclass
class Chain:
    start: int
    end: int  # the act included
    chain_end: int  # the provisions alone
    elements: list[tuple[int, int, str]]
    act: str | None = None


def _act_after(
    text: str, end: int, acts_before: list[ActMention], learned, own_act: str | None
) -> tuple[int, str, str | None] | None:
    """(end, act, extra sub-unit) of the act that follows a chain ending at ``end``; ``own_act``: the act the
    text belongs to, that "tohoto zákona" names. A number glued to the word after it ("odst.1o.s.ř.") is read as if
    a space stood between them."""
    if 0 < end < len(text) and text[end - 1].isdigit() and text[end].isalpha():
        found = _act_after(text[:end] + " " + text[end:], end, acts_before, learned, own_act)
        return (found[0] - (found[0] > end), *found[1:]) if found else None
    stray = STRAY_BRACKET_RE.match(text, end)
    opened = text.count("(", max(0, end - 80), end) > text.count(")", max(0, end - 80), end)
    pos = stray.end() if stray and not opened else end
    paragraph = PARAGRAPH_MARK_RE.match(text, pos)
    pos = paragraph.end() if paragraph else pos
    extra = f"odst. {paragraph.group('odst')}" if paragraph else None
    for before in BEFORE_ACT_RES:
        words = before.match(text, pos)
        act = act_at(text, words.end(), learned) if words else None
        if act is not None:
            return act.end, act.citation, extra
    anaphora = ANAPHORA_RE.match(text, pos)
    if anaphora:  # the span stays the chain's: "citovaného zákona" names no act by itself
        if anaphora.group("own") and own_act:
            return end, own_act, extra
        kinds = ANAPHORA_KINDS[anaphora.group("kind")]
        previous = next((a for a in reversed(acts_before) if not kinds or a.kind in kinds), None)
        if previous is not None:
            return end, previous.citation, extra
    return None


def find_chains(text: str, acts: list[ActMention], learned=None, own_act: str | None = None) -> list[Chain]:
    """The provision chains of ``text`` with the act each names (``acts``: the act mentions of the text, in
    order, for anaphora; ``own_act``: the act the text is part of), before any default act."""
    chains: list[Chain] = []
    if not MARKER_RE.search(text):
        return chains
    for m in CHAIN_RE.finditer(text):
        start, end = m.span()
        while (letter := TRAILING_LETTER_ITEM_RE.search(text, start, end)) and (
            "\n" in letter.group() or not POINT_BEFORE_RE.search(text, start, letter.start())
        ):
            end = letter.start()
        if NON_LAW_TAIL_RE.match(text, end) or _is_heading(text, start, end):
            continue
        elements = chain_elements(text, start, end)
        if not elements:
            continue
        acts_before = [a for a in acts if a.end <= start]
        tail = _act_after(text, end, acts_before, learned, own_act)
        chain = Chain(start, end, end, elements)
        if tail:
            chain.end, chain.act, extra = tail
            if extra:
                s, e, path = elements[-1]
                elements[-1] = (s, e, f"{path} {extra}")
        chains.append(chain)
    for chain, following in reversed(list(zip(chains, chains[1:]))):
        if chain.act is None and following.act and CONNECTOR_RE.fullmatch(text, chain.end, following.start):
            chain.act = following.act
    return chains
