"""The mirror's e-Sbírka fragments: the real API page layout, and text that is the act's own."""

from __future__ import annotations

import re

import requests

from mendel.core.config import SAMPLE_CORPUS
from mendel.law.act_versions import xhtml_text
from mirror import fragments

API = "/esel-esbir-daver/dokumenty-sbirky"


def test_fragment_pages_follow_the_api(mirror):
    url = f"{mirror.base_url}{API}/%2Fsb%2F2024%2F90/fragmenty"
    first = requests.get(url, params={"cisloStranky": 0}, timeout=120)  # pages count from 0 (minimum: 0)
    assert first.status_code == 200
    page = first.json()
    assert page["pocetStranek"] == 2 and len(page["seznam"]) == 1000
    second = requests.get(url, params={"cisloStranky": 1}, timeout=60).json()
    assert 0 < len(second["seznam"]) < 1000 and second["pocetStranek"] == 2
    assert requests.get(url, timeout=30).json() == page  # cisloStranky is optional: page 0
    assert requests.get(url, params={"cisloStranky": "x"}, timeout=30).status_code == 400
    assert requests.get(url, params={"cisloStranky": 2}, timeout=30).status_code == 404
    assert (
        requests.get(
            url, params={"cisloStranky": 0}, headers={"If-None-Match": first.headers["ETag"]}, timeout=30
        ).status_code
        == 304
    )
    everything = page["seznam"] + second["seznam"]
    assert len({f["id"] for f in everything}) == len(everything)
    sample = everything[9]
    assert sample["kodTypuFragmentu"] == "Odstavec_Dc" and sample["xhtml"].startswith("<var>(1)</var>")
    assert sample["zkracenaCitace"] == "§ 1 odst. 1 zákona č. 90/2024 Sb."
    # without a date the act's stale URL names its current wording: 90/2024 has one, in force from 1. 1. 2026
    assert sample["eli"] == "/eli/cz/sb/2024/90/2026-01-01/dokument/norma/cast_1/par_1/odst_1"
    assert sample["staleUrl"] == "/sb/2024/90/2026-01-01#cast_1-par_1-odst_1"
    for fragment in everything:  # every link in the text has its odkazyZFragmentu entry and back
        ids = [int(i) for i in re.findall(r'data-odkaz-id="(\d+)"', fragment["xhtml"])]
        assert ids == [link["odkazId"] for link in fragment["odkazyZFragmentu"]]
        for link in fragment["odkazyZFragmentu"]:
            cited = link["cil"]["staleUrl"]
            assert re.match(r"^/sb/\d{4}/\d+(#.+)?$", cited) and not cited.startswith("/sb/2024/90")


def test_fragment_text_is_the_acts_own_text(mirror):
    lines = fragments.pdf_lines(SAMPLE_CORPUS / "esbirka" / "pdf" / "87-2024.pdf")
    source = re.sub(r"\s+", "", "".join(lines).replace("\ufffe", ""))
    page = requests.get(
        f"{mirror.base_url}{API}/%2Fsb%2F2024%2F87/fragmenty", params={"cisloStranky": 0}, timeout=60
    ).json()
    texts = [xhtml_text(f["xhtml"]) for f in page["seznam"]]
    assert texts[:5] == [
        "87",
        "ÚSTAVNÍ ZÁKON",
        "ze dne 6. března 2024,",
        "kterým se mění ústavní zákon č. 1/1993 Sb., Ústava České republiky, ve znění pozdějších ústavních zákonů, "
        "a ústavní zákon č. 110/1998 Sb., o bezpečnosti České republiky, ve znění ústavního zákona č. 300/2000 Sb.",
        "Parlament se usnesl na tomto ústavním zákoně České republiky:",
    ]
    for text in texts:  # segmentation is the mirror's, every character is the act's
        assert re.sub(r"\s+", "", text) in source
    docx = requests.get(
        f"{mirror.base_url}{API}/%2Fsb%2F1993%2F1/fragmenty", params={"cisloStranky": 0}, timeout=60
    ).json()
    paragraphs = fragments.docx_paragraphs(SAMPLE_CORPUS / "esbirka" / "docx" / "Sb_1993_1_IZ.docx")
    assert [xhtml_text(f["xhtml"]) for f in docx["seznam"]] == paragraphs
    articles = [f for f in docx["seznam"] if f["kodTypuFragmentu"] == "Clanek"]
    assert articles[0]["zkracenaCitace"] == "čl. 1 ústavního zákona č. 1/1993 Sb." and len(articles) > 100


def test_segmenter_rules():
    lines = [
        "90",
        "ZÁKON",
        "ze dne 6. března 2024",
        "o zbraních",
        "Parlament se usnesl na tomto zákoně:",
        "ČÁST PRVNÍ",
        "ÚVODNÍ USTANOVENÍ",
        "§ 1",
        "Působnost zákona",
        "(1) Tento zákon nabývá účinnosti dnem",
        "1. ledna 2026.",
        "(2) Podle § 5 odst. 2 zákona č. 119/2002 Sb.",
        "se postupuje",
        "a) při nákupu,",
        "b) při prodeji.",
        "Vymezení pojmů",
        "§ 2",
        "Pro účely tohoto zákona je",
        "a) zbraní věc.",
    ]
    segments = fragments.segment_lines(lines)
    kinds = [(s.kind, s.text) for s in segments]
    assert kinds == [
        ("Virtual_Prefix", "90"),
        ("Virtual_Prefix", "ZÁKON"),
        ("Virtual_Prefix", "ze dne 6. března 2024"),
        ("Virtual_Prefix", "o zbraních"),
        ("Virtual_Prefix", "Parlament se usnesl na tomto zákoně:"),
        ("Cast", "ČÁST PRVNÍ"),
        ("Nadpis_pod", "ÚVODNÍ USTANOVENÍ"),
        ("Paragraf", "§ 1"),
        ("Nadpis_pod", "Působnost zákona"),
        ("Odstavec_Dc", "(1) Tento zákon nabývá účinnosti dnem 1. ledna 2026."),
        ("Odstavec_Dc", "(2) Podle § 5 odst. 2 zákona č. 119/2002 Sb. se postupuje"),
        ("Pismeno_Lb", "a) při nákupu,"),
        ("Pismeno_Lb", "b) při prodeji."),
        ("Nadpis_nad", "Vymezení pojmů"),
        ("Paragraf", "§ 2"),
        ("Text", "Pro účely tohoto zákona je"),
        ("Pismeno_Lb", "a) zbraní věc."),
    ]
    assert segments[12].path == (("cast", "1"), ("par", "1"), ("odst", "2"), ("pism", "b"))
    assert segments[13].path == (("cast", "1"), ("par", "2"))  # the heading above § 2 belongs to § 2
    [ref] = fragments.cited_acts(segments[10].text)
    assert ref["stale_url"] == "/sb/2002/119#par_5-odst_2"


# ---------------------------------------------------------------- versions in time (historie, zmeny-zneni)

VERSIONS_573 = [
    ("/sb/2025/573/2026-01-01", "2026-01-01", "2026-05-31", []),
    ("/sb/2025/573/2026-06-01", "2026-06-01", "2026-09-30", []),
    ("/sb/2025/573/2026-10-01", "2026-10-01", None, ["175/2026 Sb."]),
]


def version_text(base_url: str, stale: str) -> dict[str, str]:
    """provision anchor -> text of one version's fragments (the § 4 family only)."""
    page = requests.get(f"{base_url}{API}/{stale}/fragmenty", params={"cisloStranky": 0}, timeout=60).json()
    return {
        f["staleUrl"].split("#")[1]: xhtml_text(f["xhtml"]) for f in page["seznam"] if "#par_4-pism_" in f["staleUrl"]
    }


def test_an_act_known_by_a_later_wording_only_gets_no_version_number(mirror):
    # the civil code's wording of 2025-07-01 is the corpus's only one: e-Sbírka numbers it far above 1
    history = requests.get(f"{mirror.base_url}{API}/%2Fsb%2F2012%2F89/historie", timeout=30).json()["historie"]
    assert [h["datumUcinnostiZneniOd"] for h in history] == ["2025-07-01"]
    assert all("cisloZneni" not in h for h in history)


def test_573_2025_has_three_real_versions_with_their_own_wording(mirror):
    history = requests.get(f"{mirror.base_url}{API}/%2Fsb%2F2025%2F573/historie", timeout=30).json()["historie"]
    assert [
        (
            h["staleUrl"],
            h["datumUcinnostiZneniOd"],
            h.get("datumUcinnostiZneniDo"),
            [n["kodDokumentuSbirky"] for n in h["novely"]],
        )
        for h in history
    ] == VERSIONS_573
    # the promulgated PDF's wording is the original; whether versions lie between the later ones is not known
    assert [h.get("cisloZneni") for h in history] == [1, None, None]
    first, june, october = (
        version_text(mirror.base_url, "%2Fsb%2F2025%2F573%2F" + d) for d in ("2026-01-01", "2026-06-01", "2026-10-01")
    )
    # the promulgated PDF, then the two Markdown versions: c) changes in June, a) in October
    assert first["par_4-pism_c"] == "c) 34,10 Kč za 1 litr motorové nafty,"
    assert june["par_4-pism_c"] == "c) 44,50 Kč za 1 litr motorové nafty,"
    assert (first["par_4-pism_a"], june["par_4-pism_a"], october["par_4-pism_a"]) == (
        "a) 34,70 Kč za 1 litr benzinu automobilového 95 oktanů,",
    ) * 2 + ("a) 41,80 Kč za 1 litr benzinu automobilového 95 oktanů,",)
    assert {k for k in first if first[k] != june[k]} == {"par_4-pism_c"}
    assert {k for k in june if june[k] != october[k]} == {"par_4-pism_a"}
    # a date inside a version names it; the version's detail carries its ELI, validity and amending act
    inside = requests.get(f"{mirror.base_url}{API}/%2Fsb%2F2025%2F573%2F2026-07-15", timeout=30).json()
    assert (inside["staleUrl"], inside["eli"], inside["datumUcinnostiZneniDo"]) == (
        "/sb/2025/573/2026-06-01",
        "/eli/cz/sb/2025/573/2026-06-01",
        "2026-09-30",
    )
    latest = requests.get(f"{mirror.base_url}{API}/%2Fsb%2F2025%2F573%2F2026-10-01", timeout=30).json()
    assert latest["novely"] == [{"staleUrl": "/sb/2026/175", "kodDokumentuSbirky": "175/2026 Sb."}]
    # the promulgated text stays served as announced
    announced = requests.get(
        f"{mirror.base_url}{API}/%2Fsb%2F2025%2F573%2F0000-00-00/fragmenty", params={"cisloStranky": 0}, timeout=30
    ).json()["seznam"]
    assert announced[0]["eli"].startswith("/eli/cz/sb/2025/573/0000-00-00/")


def test_acts_with_one_known_wording_have_one_version(mirror):
    for stale, expected in (
        ("%2Fsb%2F2024%2F90", [("/sb/2024/90/2026-01-01", "2026-01-01")]),
        ("%2Fsb%2F1993%2F1", [("/sb/1993/1", None)]),
    ):  # a DOCX with no date
        history = requests.get(f"{mirror.base_url}{API}/{stale}/historie", timeout=30).json()["historie"]
        assert [(h["staleUrl"], h.get("datumUcinnostiZneniOd")) for h in history] == expected


def test_zmeny_zneni_lists_versions_published_after_a_time(mirror):
    url = f"{mirror.base_url}{API}/zmeny-zneni"
    everything = requests.get(url, params={"pocet": 1000}, timeout=30).json()
    listed = everything["seznamZneniPravnichPredpisu"]
    assert everything["pocetCelkem"] == len(listed) >= 40
    assert {i["staleUrl"] for i in listed} >= {v[0] for v in VERSIONS_573}
    times = [i["datumCasPublikaceDokumentu"] for i in listed]
    assert times == sorted(times)
    paged = requests.get(url, params={"pocet": 5, "start": 5}, timeout=30).json()["seznamZneniPravnichPredpisu"]
    assert paged == listed[5:10]
    after = requests.get(url, params={"datumCasOdberuOd": times[-1]}, timeout=30).json()
    assert after == {"pocetCelkem": 0, "seznamZneniPravnichPredpisu": []}
    assert requests.get(url, params={"datumCasOdberuOd": "včera"}, timeout=30).status_code == 400
