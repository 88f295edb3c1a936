"""The lay wordings of the heading over an act's provision: what the encoder reads besides the passage."""

import pytest

from mendel.index.corpus import ChunkRecord
from mendel.law.heading_wordings import HEADING_WORDINGS_MAX, heading_wordings, wordings_by_heading

VOCABULARY = """
version: 1
abbreviations: {OZ: občanský zákoník}
areas:
  rodina (nadpisy):
    Výživné rozvedeného manžela: [alimenty pro bývalou manželku, výživné po rozvodu]
    Nález: [našel jsem peněženku]
  rodina:
    výživné rozvedeného manžela: [výživné po rozvodu, platit bývalé ženě]
    Zvláštní ustanovení o nájmu bytu: [nájem bytu]
    Přehnané: [a, b, c, d, e, f, g, h, i, j, k, l]
equivalents:
  - [exekutor, soudní exekutor]
"""


@pytest.fixture
def vocabulary(tmp_path):
    path = tmp_path / "vocabulary.yaml"
    path.write_text(VOCABULARY, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "section, wordings",
    [
        # the heading over the § (its own or its group's), folded as the vocabulary's keys are: areas merged
        ("část 2 > hlava 1 > Výživné rozvedeného manžela > § 760", ["alimenty pro bývalou manželku", "výživné po rozvodu", "platit bývalé ženě"]),
        ("pododdíl 1 Přivlastnění a nález > NÁLEZ > § 1051", ["našel jsem peněženku"]),
        # no heading of its own: the division above it, its designation left out
        ("oddíl 3 Nájem > pododdíl 2 Zvláštní ustanovení o nájmu bytu > § 2257", ["nájem bytu"]),
        ("HLAVA DRUHÁ Přehnané > Čl. 16", list("abcdefghij")),  # at most HEADING_WORDINGS_MAX
        ("Výživné rozvedeného manžela > Příloha č. 1", []),  # no provision: no heading over it
        ("§ 760", []),  # nothing above the provision
        ("hlava 5 Krádež > § 205", []),  # a heading the vocabulary has no wording for
        ("soudní exekutor > § 1", []),  # an equivalent is no heading
    ],
)  # fmt: skip
def test_wordings_of_the_heading_over_a_provision(vocabulary, section, wordings):
    assert heading_wordings(section, vocabulary) == wordings
    assert len(wordings) <= HEADING_WORDINGS_MAX


def test_the_shipped_vocabulary_gives_the_codes_headings_their_wordings():
    assert len(wordings_by_heading()) > 1000
    assert heading_wordings("díl 5 Zánik manželství > oddíl 3 > Výživné rozvedeného manžela > § 760")


@pytest.mark.parametrize(
    "section, wording",
    [
        # the built codes' section paths of headings that had no wording before round 4
        ("část 2 ZVLÁŠTNÍ ČÁST > hlava 3 TRESTNÉ ČINY PROTI LIDSKÉ DŮSTOJNOSTI V SEXUÁLNÍ OBLASTI > Sexuální útok > § 185a", "osahával mě proti vůli"),
        ("část 2 ZVLÁŠTNÍ ČÁST > hlava 6 TRESTNÉ ČINY HOSPODÁŘSKÉ > díl 1 > Zkrácení daně, poplatku a podobné povinné platby > § 240", "daňový podvod"),
        ("část 3 ABSOLUTNÍ MAJETKOVÁ PRÁVA > hlava 2 VĚCNÁ PRÁVA > díl 3 Vlastnické právo > Rozhrady > § 1024", "plot mezi sousedy"),
        ("díl 15 Závazky z odvážných smluv > oddíl 2 Pojištění > pododdíl 5 Životní pojištění > § 2833", "životní pojistka"),
    ],
)  # fmt: skip
def test_the_shipped_vocabulary_words_headings_of_round_4(section, wording):
    assert wording in heading_wordings(section)


def test_only_the_encoder_reads_them_and_only_of_an_acts_provision():
    section = "část 2 RODINNÉ PRÁVO > díl 5 Zánik manželství > Výživné rozvedeného manžela > § 762"
    wordings = heading_wordings(section)
    first = wordings[0]
    act = ChunkRecord(
        "c1", "/eli/cz/sb/2012/89", "Občanský zákoník", "esbirka", "", "89/2012 Sb.", 1, 1, section,
        "§ 762\n(1) Nedohodnou-li se rozvedení manželé o výživném …", act_version={"version_kind": "consolidated"},
    )  # fmt: skip
    assert set(wordings) <= set(act.dense_text.rsplit("\n", 1)[1].split("; "))  # after the provision's own
    assert first not in act.context_text and first not in act.text  # BM25 and the stored text: the act's alone
    decision = ChunkRecord(
        "c2", "ECLI:CZ:NS:2020:1", "Rozhodnutí", "nsoud", "", "1 Cdo 1/2020", 1, 1, section, "Soud rozhodl …"
    )
    assert first not in decision.dense_text  # not an act's passage: no act version
