"""The mirror's e-Sbírka fragments: the real API page layout, and text that is the act's own."""

from __future__ import annotations

import re

import requests

from mendel.act_versions import xhtml_text
from mendel.config import SAMPLE_CORPUS
from mirror import fragments

API = "/esel-esbir-daver/dokumenty-sbirky"


def test_fragment_pages_follow_the_api(mirror):
    url = f"{mirror.base_url}{API}/%2Fsb%2F2024%2F90/fragmenty"
    first = requests.get(url, params={"cisloStranky": 1}, timeout=120)
    assert first.status_code == 200
    page = first.json()
    assert page["pocetStranek"] == 2 and len(page["seznam"]) == 1000
    second = requests.get(url, params={"cisloStranky": 2}, timeout=60).json()
    assert 0 < len(second["seznam"]) < 1000 and second["pocetStranek"] == 2
    assert requests.get(url, timeout=30).status_code == 400  # cisloStranky is required
    assert requests.get(url, params={"cisloStranky": 3}, timeout=30).status_code == 404
    assert requests.get(url, params={"cisloStranky": 1}, headers={"If-None-Match": first.headers["ETag"]},
                        timeout=30).status_code == 304
    everything = page["seznam"] + second["seznam"]
    assert len({f["id"] for f in everything}) == len(everything)
    sample = everything[9]
    assert sample["kodTypuFragmentu"] == "Odstavec_Dc" and sample["xhtml"].startswith("<var>(1)</var>")
    assert sample["zkracenaCitace"] == "§ 1 odst. 1 zákona č. 90/2024 Sb."
    assert sample["eli"] == "/eli/cz/sb/2024/90/0000-00-00/dokument/norma/cast_1/par_1/odst_1"
    assert sample["staleUrl"] == "/sb/2024/90/0000-00-00#cast_1-par_1-odst_1"
    for fragment in everything:  # every link in the text has its odkazyZFragmentu entry and back
        ids = [int(i) for i in re.findall(r'data-odkaz-id="(\d+)"', fragment["xhtml"])]
        assert ids == [link["odkazId"] for link in fragment["odkazyZFragmentu"]]
        for link in fragment["odkazyZFragmentu"]:
            cited = link["cil"]["staleUrl"]
            assert re.match(r"^/sb/\d{4}/\d+(#.+)?$", cited) and not cited.startswith("/sb/2024/90")


def test_fragment_text_is_the_acts_own_text(mirror):
    lines = fragments.pdf_lines(SAMPLE_CORPUS / "esbirka" / "pdf" / "87-2024.pdf")
    source = re.sub(r"\s+", "", "".join(lines).replace("\ufffe", ""))
    page = requests.get(f"{mirror.base_url}{API}/%2Fsb%2F2024%2F87/fragmenty", params={"cisloStranky": 1},
                        timeout=60).json()
    texts = [xhtml_text(f["xhtml"]) for f in page["seznam"]]
    assert texts[:5] == [
        "87", "ÚSTAVNÍ ZÁKON", "ze dne 6. března 2024,",
        "kterým se mění ústavní zákon č. 1/1993 Sb., Ústava České republiky, ve znění pozdějších ústavních zákonů, "
        "a ústavní zákon č. 110/1998 Sb., o bezpečnosti České republiky, ve znění ústavního zákona č. 300/2000 Sb.",
        "Parlament se usnesl na tomto ústavním zákoně České republiky:"]
    for text in texts:  # segmentation is the mirror's, every character is the act's
        assert re.sub(r"\s+", "", text) in source
    docx = requests.get(f"{mirror.base_url}{API}/%2Fsb%2F1993%2F1/fragmenty", params={"cisloStranky": 1},
                        timeout=60).json()
    paragraphs = fragments.docx_paragraphs(SAMPLE_CORPUS / "esbirka" / "docx" / "Sb_1993_1_IZ.docx")
    assert [xhtml_text(f["xhtml"]) for f in docx["seznam"]] == paragraphs
    articles = [f for f in docx["seznam"] if f["kodTypuFragmentu"] == "Clanek"]
    assert articles[0]["zkracenaCitace"] == "čl. 1 ústavního zákona č. 1/1993 Sb." and len(articles) > 100


def test_segmenter_rules():
    lines = ["90", "ZÁKON", "ze dne 6. března 2024", "o zbraních", "Parlament se usnesl na tomto zákoně:",
             "ČÁST PRVNÍ", "ÚVODNÍ USTANOVENÍ", "§ 1", "Působnost zákona",
             "(1) Tento zákon nabývá účinnosti dnem", "1. ledna 2026.", "(2) Podle § 5 odst. 2 zákona č. 119/2002 Sb.",
             "se postupuje", "a) při nákupu,", "b) při prodeji.", "Vymezení pojmů", "§ 2", "Pro účely tohoto zákona je",
             "a) zbraní věc."]
    segments = fragments.segment_lines(lines)
    kinds = [(s.kind, s.text) for s in segments]
    assert kinds == [
        ("Virtual_Prefix", "90"), ("Virtual_Prefix", "ZÁKON"), ("Virtual_Prefix", "ze dne 6. března 2024"),
        ("Virtual_Prefix", "o zbraních"), ("Virtual_Prefix", "Parlament se usnesl na tomto zákoně:"),
        ("Cast", "ČÁST PRVNÍ"), ("Nadpis_pod", "ÚVODNÍ USTANOVENÍ"), ("Paragraf", "§ 1"),
        ("Nadpis_pod", "Působnost zákona"), ("Odstavec_Dc", "(1) Tento zákon nabývá účinnosti dnem 1. ledna 2026."),
        ("Odstavec_Dc", "(2) Podle § 5 odst. 2 zákona č. 119/2002 Sb. se postupuje"),
        ("Pismeno_Lb", "a) při nákupu,"), ("Pismeno_Lb", "b) při prodeji."), ("Nadpis_nad", "Vymezení pojmů"),
        ("Paragraf", "§ 2"), ("Text", "Pro účely tohoto zákona je"), ("Pismeno_Lb", "a) zbraní věc.")]
    assert segments[12].path == (("cast", "1"), ("par", "1"), ("odst", "2"), ("pism", "b"))
    assert segments[13].path == (("cast", "1"), ("par", "2"))  # the heading above § 2 belongs to § 2
    [ref] = fragments.cited_acts(segments[10].text)
    assert ref["stale_url"] == "/sb/2002/119#par_5-odst_2"
