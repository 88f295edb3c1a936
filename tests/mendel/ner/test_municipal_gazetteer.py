"""The municipalities gazetteer, generated from the registers: every municipality's name in the cases the recogniser
meets, their offices, and the recogniser finding municipalities and municipal offices the hand-kept table never
listed — in real notice titles of the Hranice, Kadaň and MVČR boards."""

from __future__ import annotations

import json

import yaml

from mendel.core.config import SAMPLE_CORPUS
from mendel.czech.declension import case_forms
from mendel.ner.institutions import institution_candidates
from mendel.registers import municipalities
from mendel.registers.gazetteer import fire_rescue_services, gazetteer_forms, offices, regional_offices

HAND_KEPT = yaml.safe_load(
    (municipalities.DATA_FILE.parent.parent / "ner" / "data" / "institutions.yaml").read_text(encoding="utf-8")
)["municipalities"]


def notice_titles() -> dict[str, str]:
    """Every real notice title of the bundled boards, by notice IRI."""
    base = SAMPLE_CORPUS / "municipal"
    feeds = [
        json.loads((base / name).read_text(encoding="utf-8-sig"))
        for name in ("boards/hranice_ofn.jsonld", "kadan_uredni_deska.json", "kadan_history/kadan_2023-08-16.json")
    ]
    feeds += json.loads((base / "boards" / "mvcr_182_boards.json").read_text(encoding="utf-8"))
    return {n["iri"]: n["název"]["cs"] for feed in feeds for n in feed["informace"]}


def test_generated_case_forms_cover_the_hand_kept_table():
    for name, forms in HAND_KEPT.items():
        assert set(forms) <= set(case_forms(name)), name
    assert case_forms("Karviná") == ("Karviná", "Karviné", "Karvinou")
    assert {"Frýdku-Místku", "Frýdkem-Místkem"} <= set(case_forms("Frýdek-Místek"))
    assert {"Karlových Varů", "Karlovými Vary"} <= set(case_forms("Karlovy Vary"))
    assert {"Ústí nad Labem", "Ústím nad Labem"} <= set(case_forms("Ústí nad Labem"))
    forms = gazetteer_forms()
    assert len(forms) == len({m.name for m in municipalities.register().municipalities}) == 5346


def test_offices_of_municipalities_and_regions():
    by_name = {m.name: m for m in municipalities.register().municipalities if m.boards}
    assert offices(by_name["Blešno"]) == ["Obecní úřad Blešno"]
    assert offices(by_name["Karviná"]) == ["Městský úřad Karviná", "Magistrát města Karviné"]
    assert offices(by_name["Náměšť na Hané"]) == ["Úřad městyse Náměšť na Hané"]
    regional = regional_offices()
    assert len(regional) == 14 and regional["Ústecký kraj"] == "Krajský úřad Ústeckého kraje"
    assert regional["Kraj Vysočina"] == "Krajský úřad Kraje Vysočina"
    assert regional["Hlavní město Praha"] == "Magistrát hlavního města Prahy"


def test_the_recogniser_finds_municipalities_of_the_registers_in_real_notice_titles():
    titles = notice_titles()
    expected = {  # notice → (what the title says, the norm); none of these names is in the hand-kept table
        "https://data.mesto-hranice.cz/zdroj/uredni-deska/2246": ("Městského úřadu Hranice", "Městský úřad Hranice"),
        "https://data.mesto-hranice.cz/zdroj/uredni-deska/2209": ("obce Teplice nad Bečvou", "obec Teplice nad Bečvou"),
        "https://data.mesto-hranice.cz/zdroj/uredni-deska/725": (
            "obce Luboměř pod Strážnou",
            "obec Luboměř pod Strážnou",
        ),
        "https://data.mesto-hranice.cz/zdroj/uredni-deska/745": ("obce Zámrsky", "obec Zámrsky"),
        "https://www.mesto-kadan.cz/zdroj/uredni-deska/informace/197525": (
            "Městský úřad Horní Bříza",
            "Městský úřad Horní Bříza",
        ),
    }
    for iri, (surface, norm) in expected.items():
        title = titles[iri]
        assert not {surface.split(" ", 1)[1], norm.split(" ", 1)[1]} & set(HAND_KEPT)
        found = {(title[s:e], n) for s, e, _, n in institution_candidates(title)}
        assert (surface, norm) in found, (title, found)
    # Not a municipality after "výrobce" / a place after a preposition: nothing of the registers is claimed.
    for iri in (
        "https://opendata-test.mvcr.cz/api/boards/3/info/1450445",  # "výrobce WALTHER"
        "https://data.mesto-hranice.cz/zdroj/uredni-deska/420",
    ):  # "v obci Polom u Hranic"
        assert not [n for *_, n in institution_candidates(titles[iri]) if n.startswith(("obec", "město"))]


def _found(text: str) -> set[tuple[str, str]]:
    return {(text[s:e], n) for s, e, _, n in institution_candidates(text)}


def test_every_regions_fire_and_rescue_service_is_recognised_in_full_and_abbreviated():
    services = fire_rescue_services()
    assert len(services) == 14
    assert services["Kraj Vysočina"] == "Hasičský záchranný sbor Kraje Vysočina"
    assert services["Hlavní město Praha"] == "Hasičský záchranný sbor hlavního města Prahy"
    for name in services.values():
        region = name.removeprefix("Hasičský záchranný sbor ")
        for text, surface in (
            (f"Smlouva mezi {name} a obcí Lysovice", name),
            (f"o činnosti a hospodaření HZS {region} 2012", f"HZS {region}"),
            (f"dotace Hasičskému záchrannému sboru {region}", f"Hasičskému záchrannému sboru {region}"),
        ):
            assert (surface, name) in _found(text), text
    # other spellings of a region name the service as its full name does
    assert ("HZS hl. m. Prahy", services["Hlavní město Praha"]) in _found("HZS hl. m. Prahy")
    assert ("HZS kraje Vysočina", services["Kraj Vysočina"]) in _found("HZS kraje Vysočina")
    # a bare HZS is not one region's service; a region funding is no authority (real notice texts)
    for text in (
        "Spolufinancování MV-GŘ HZS smlouva D/2170/2020/KH",
        "Generální ředitelství HZS ČR",
        "o poskytnutí dotace z rozpočtu Zlínského kraje",
    ):
        assert _found(text) == set(), text


def test_abbreviated_town_offices_take_a_municipality_of_the_registers():
    # real Hranice notice titles; neither Hranice nor Odry is in the hand-kept table
    assert not {"Hranice", "Odry"} & set(HAND_KEPT)
    text = 'nabídky - "Dodávka drogistického spotřebního materiálu pro MěÚ Hranice" e.č. 71/2018'
    assert ("MěÚ Hranice", "Městský úřad Hranice") in _found(text)
    assert ("MěÚ Odry", "Městský úřad Odry") in _found("Odboru kanceláře starosty - MěÚ Odry e.č 435/2017")
    # "Lipník n. B." is Lipník nad Bečvou, not the obec Lipník: the office is marked, no wrong town claimed
    assert _found("za rok 2017 MěÚ Lipník n. B. e.č. 78/2020") == {("MěÚ", "městský úřad")}
    assert _found("MÚ ŽP VV Zákaz odběru povrch vod") == {("MÚ", "městský úřad")}
    assert _found("Teplárna Karviná - ZŘ změny IP - vyvěšení na ÚD SMK") >= {("SMK", "statutární město Karviná")}
