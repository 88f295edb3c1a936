"""Gazetteer of frequently cited named acts and their abbreviations.

Names are regex fragments covering the usual Czech case forms; a name that
starts lowercase also matches with a capital (sentence start), one that starts
uppercase (Ústava, Listina) matches only as written. Abbreviations are literal,
case-sensitive whole tokens; their inner spaces are optional ("o.s.ř.").
"""

from __future__ import annotations

from dataclasses import dataclass

from mendel.law.identifiers import act_citation, act_eli

# case endings
ADJ = "(?:ý|ého|ému|ém|ým)"  # občansk-ý
ADJ_SOFT = "(?:í|ího|ímu|ím)"  # trestn-í
ZAKON = "zákon(?:a|u|em|ě)?"
ZAKONIK = "zákoník(?:u|em)?"
RAD = "řád(?:u|em)?"


@dataclass(frozen=True)
class NamedAct:
    citation: str  # "89/2012 Sb." or an EU canonical citation
    eli: str | None
    names: tuple[str, ...] = ()  # full names, marked anywhere
    abbreviations: tuple[str, ...] = ()  # distinctive, marked anywhere
    strict: tuple[str, ...] = ()  # ambiguous: only right after a provision or "podle/dle"


def _sb(number: int, year: int) -> tuple[str, str]:
    return act_citation(number, year), act_eli(year, number)


def _act(number: int, year: int, **kw) -> NamedAct:
    citation, eli = _sb(number, year)
    return NamedAct(citation=citation, eli=eli, **kw)


NAMED_ACTS: tuple[NamedAct, ...] = (
    _act(1, 1993, names=(r"Ústav(?:a|y|ě|ou)(?:\s+České\s+republiky)?", r"Ústavu\s+České\s+republiky")),
    _act(2, 1993, names=(r"Listin(?:a|y|ě|u|ou)(?:\s+základních\s+práv\s+a\s+svobod)?",)),
    _act(
        209,
        1992,
        names=(r"Úmluv(?:a|y|ě|u|ou)\s+o\s+ochraně\s+lidských\s+práv\s+a\s+základních\s+svobod",),
        strict=("Úmluvy", "Úmluva", "Úmluvě", "EÚLP"),
    ),
    _act(89, 2012, names=(rf"občansk{ADJ}\s+{ZAKONIK}",), abbreviations=("NOZ",), strict=("OZ", "o. z.")),
    _act(99, 1963, names=(rf"občansk{ADJ}\s+soudn{ADJ_SOFT}\s+{RAD}",), abbreviations=("OSŘ", "o. s. ř.")),
    _act(262, 2006, names=(rf"{ZAKONIK}\s+práce",), abbreviations=("zák. práce",), strict=("ZP",)),
    _act(280, 2009, names=(rf"daňov{ADJ}\s+{RAD}",), strict=("DŘ", "daň. ř.")),
    _act(586, 1992, names=(rf"{ZAKON}\s+o\s+daních\s+z\s+příjmů",), abbreviations=("ZDP",)),
    _act(235, 2004, names=(rf"{ZAKON}\s+o\s+dani\s+z\s+přidané\s+hodnoty",), abbreviations=("ZDPH",)),
    _act(
        40,
        2009,
        names=(rf"trestn{ADJ_SOFT}\s+{ZAKONIK}",),
        abbreviations=("TrZ", "tr. zákoník", "tr. zákoníku", "tr. zákoníkem", "tr. zák."),
        strict=("TZ",),
    ),
    _act(141, 1961, names=(rf"trestn{ADJ_SOFT}\s+{RAD}",), abbreviations=("tr. ř.", "TrŘ"), strict=("TŘ",)),
    _act(500, 2004, names=(rf"správn{ADJ_SOFT}\s+{RAD}",), strict=("SŘ", "spr. ř.")),
    _act(150, 2002, names=(rf"soudn{ADJ_SOFT}\s+{RAD}\s+správn{ADJ_SOFT}",), abbreviations=("s. ř. s.", "SŘS")),
    _act(292, 2013, names=(rf"{ZAKON}\s+o\s+zvláštních\s+řízeních\s+soudních",), abbreviations=("z. ř. s.", "ZŘS")),
    _act(283, 2021, names=(rf"stavebn{ADJ_SOFT}\s+{ZAKON}",), strict=("SZ", "stav. zák.")),
    _act(182, 2006, names=(rf"insolvenčn{ADJ_SOFT}\s+{ZAKON}",), abbreviations=("InsZ", "ins. zák."), strict=("IZ",)),
    _act(
        120,
        2001,
        names=(rf"exekučn{ADJ_SOFT}\s+{RAD}",),
        abbreviations=("ex. ř.", "ex. řád", "ex. řádu"),
        strict=("EŘ",),
    ),
    _act(90, 2012, names=(rf"{ZAKON}\s+o\s+obchodních\s+korporacích",), abbreviations=("ZOK", "z. o. k.")),
    _act(513, 1991, names=(rf"obchodn{ADJ_SOFT}\s+{ZAKONIK}",), abbreviations=("ObchZ", "obch. zák.")),
    _act(91, 2012, names=(rf"{ZAKON}\s+o\s+mezinárodním\s+právu\s+soukromém",), abbreviations=("ZMPS",)),
    _act(6, 2002, names=(rf"{ZAKON}\s+o\s+soudech\s+a\s+soudcích",)),
    _act(128, 2000, names=(rf"{ZAKON}\s+o\s+obcích",)),
    _act(134, 2016, names=(rf"{ZAKON}\s+o\s+zadávání\s+veřejných\s+zakázek",), abbreviations=("ZZVZ",)),
    _act(254, 2001, names=(rf"vodn{ADJ_SOFT}\s+{ZAKON}", rf"{ZAKON}\s+o\s+vodách")),
    _act(274, 2001, names=(rf"{ZAKON}\s+o\s+vodovodech\s+a\s+kanalizacích",)),
    _act(110, 2019, names=(rf"{ZAKON}\s+o\s+zpracování\s+osobních\s+údajů",)),
    _act(137, 2006, names=(rf"{ZAKON}\s+o\s+veřejných\s+zakázkách",), abbreviations=("ZVZ",)),
    _act(187, 2006, names=(rf"{ZAKON}\s+o\s+nemocenském\s+pojištění",)),
    _act(582, 1991, names=(rf"{ZAKON}\s+o\s+organizaci\s+a\s+provádění\s+sociálního\s+zabezpečení",)),
    _act(73, 2011, names=(rf"{ZAKON}\s+o\s+Úřadu\s+práce\s+České\s+republiky",)),
    _act(256, 2004, names=(rf"{ZAKON}\s+o\s+podnikání\s+na\s+kapitálovém\s+trhu",), abbreviations=("ZPKT",)),
    NamedAct(
        citation="nařízení (EU) 2016/679",
        eli="http://data.europa.eu/eli/reg/2016/679/oj",
        names=(rf"obecn{ADJ}\s+nařízení(?:m)?\s+o\s+ochraně\s+osobních\s+údajů", rf"Obecn{ADJ}\s+nařízení(?:m)?"),
        abbreviations=("GDPR",),
    ),
)


def act_for_citation(citation: str) -> NamedAct | None:
    for act in NAMED_ACTS:
        if act.citation == citation:
            return act
    return None
