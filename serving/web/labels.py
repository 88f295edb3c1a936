"""Czech names for every key a page shows (sources, document kinds, an act's version and status) and Czech plural
forms from CLDR's rules (Babel), so no page shows a raw key or a hand-made plural."""

from __future__ import annotations

from functools import lru_cache

# A source's Czech name and the family the page groups it under.
SOURCE_LABELS: dict[str, tuple[str, str]] = {
    "esbirka": ("Sbírka zákonů (e-Sbírka)", "Předpisy"),
    "cnb": ("Česká národní banka", "Předpisy"),
    "nsoud": ("Nejvyšší soud", "Judikatura"),
    "nssoud": ("Nejvyšší správní soud", "Judikatura"),
    "nalus": ("Ústavní soud", "Judikatura"),
    "justice": ("Okresní, krajské a vrchní soudy (otevřená data)", "Judikatura"),
    "municipal": ("Obce", "Obce a úřední desky"),
    "boards": ("Úřední desky", "Obce a úřední desky"),
    "ruian": ("Registr územní identifikace (RÚIAN)", "Registry"),
}
FAMILY_ORDER = ("Předpisy", "Judikatura", "Obce a úřední desky", "Registry", "Ostatní")
UNKNOWN_SOURCE = ("jiný zdroj", "Ostatní")

DOC_TYPE_LABELS = {
    "law": "předpis",
    "law_consolidated": "konsolidované znění předpisu",
    "decision": "rozhodnutí",
    "notice": "oznámení",
    "notice_attachment": "příloha oznámení",
    "municipal_document": "dokument obce",
    "regulatory_document": "dokument regulátora",
    "ruian_vfr": "výměnný formát RÚIAN",
    "register_record": "záznam registru RÚIAN",
    "act_metadata": "údaje e-Sbírky o předpisu",
    "citation_record": "záznam o citaci rozhodnutí",
}
UNKNOWN_DOC_TYPE = "dokument"

VERSION_KIND_LABELS = {"promulgated": "vyhlášené znění", "consolidated": "konsolidované znění"}
VERSION_KIND_OF = {"promulgated": "vyhlášeného znění", "consolidated": "konsolidovaného znění"}  # "page 3 of …"
STATUS_BADGES = {
    "not_yet_in_force": "Dosud neúčinné",
    "superseded": "Již neúčinné znění",
    # an act stored in later wordings only: the one shown is its earliest, not the one in force on the date
    "before_stored_versions": "Pozdější znění: znění k datu v kolekci není",
}


def source_label(source: str | None) -> str:
    return SOURCE_LABELS.get(source or "", UNKNOWN_SOURCE)[0]


def source_family(source: str | None) -> str:
    return SOURCE_LABELS.get(source or "", UNKNOWN_SOURCE)[1]


def doc_type_label(kind: str | None) -> str | None:
    return DOC_TYPE_LABELS.get(kind, UNKNOWN_DOC_TYPE) if kind else None


@lru_cache(maxsize=1)
def _czech():
    from babel import Locale

    return Locale.parse("cs")


def plural(count: int, one: str, few: str, other: str) -> str:
    """``count`` with the Czech form of a word for it: ``plural(1, "dokument", "dokumenty", "dokumentů")`` is
    "1 dokument", 3 gives "3 dokumenty", 5 and 0 give "5 dokumentů" (CLDR's plural categories)."""
    form = _czech().plural_form(count)
    return f"{count} {one if form == 'one' else few if form == 'few' else other}"
