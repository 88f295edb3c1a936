"""A provision's own lay wordings: what the encoder reads beside its passage, before its heading's."""

import pytest

from mendel.index.corpus import ChunkRecord
from mendel.law.heading_wordings import heading_wordings
from mendel.law.provision_wordings import (
    PROVISION_WORDINGS_MAX,
    lay_wordings,
    provision_key,
    provision_of,
    provision_wordings,
    wordings_by_provision,
)

TABLE = """
version: 1
acts:
  "89/2012 Sb.":
    "§ 2874": [sázka s kamarádem o peníze, vymáhat prohranou sázku, sázka s kamarádem o peníze]
    "§ 2389m": [koupená aplikace nefunguje]
    "§ 1": []
    "§ 5": [a, b, c, d, e, f]
  "1/1993 Sb.":
    "čl. 16": [kolik je poslanců]
"""


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "provision_wordings.yaml"
    path.write_text(TABLE, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "designation, key",
    [("§ 2874", "§ 2874"), ("§2389m", "§ 2389m"), ("Čl. 16", "čl. 16"), ("čl.  16", "čl. 16"), ("Čl.16", "čl. 16")],
)
def test_one_spelling_of_a_provision(designation, key):
    assert provision_key(designation) == key


@pytest.mark.parametrize(
    "citation, section, key",
    [
        ("89/2012  Sb.", "díl 15 > Sázka > § 2874", ("89/2012 Sb.", "§ 2874")),
        ("1/1993 Sb.", "HLAVA DRUHÁ > Čl.16", ("1/1993 Sb.", "čl. 16")),
        ("89/2012 Sb.", "§ 2874 > Příloha č. 1", None),
        (None, "§ 2874", None),
        ("89/2012 Sb.", "", None),
    ],
)
def test_the_tables_key_of_a_passages_provision(citation, section, key):
    assert provision_of(citation, section) == key


@pytest.mark.parametrize(
    "citation, section, wordings",
    [
        # the last part of the section path names the provision; repeats dropped
        ("89/2012 Sb.", "díl 15 > Sázka > § 2874", ["sázka s kamarádem o peníze", "vymáhat prohranou sázku"]),
        ("89/2012 Sb.", "oddíl 5 > § 2389m", ["koupená aplikace nefunguje"]),
        ("1/1993 Sb.", "HLAVA DRUHÁ MOC ZÁKONODÁRNÁ > Čl. 16", ["kolik je poslanců"]),
        ("89/2012  Sb.", "§ 5", ["a", "b", "c", "d"]),  # at most PROVISION_WORDINGS_MAX, the first written first
        ("89/2012 Sb.", "§ 1", []),  # listed without wordings
        ("40/2009 Sb.", "§ 2874", []),  # another act's § of the same number
        ("89/2012 Sb.", "§ 2874 > Příloha č. 1", []),  # not a provision
        (None, "§ 2874", []),  # no act
    ],
)  # fmt: skip
def test_wordings_of_the_provision_itself(table, citation, section, wordings):
    assert provision_wordings(citation, section, table) == wordings
    assert len(wordings) <= PROVISION_WORDINGS_MAX


def test_the_shipped_table_words_the_big_codes_provisions():
    acts = {citation for citation, _ in wordings_by_provision()}
    assert {"89/2012 Sb.", "40/2009 Sb.", "1/1993 Sb.", "2/1993 Sb."} <= acts
    assert len(wordings_by_provision()) > 1000
    assert all(1 <= len(w) <= PROVISION_WORDINGS_MAX for w in wordings_by_provision().values())


def test_own_wordings_lead_then_the_headings_without_repeats():
    section = "část 2 RODINNÉ PRÁVO > díl 5 Zánik manželství > Výživné rozvedeného manžela > § 760"
    own = provision_wordings("89/2012 Sb.", section)
    heading = heading_wordings(section)
    combined = lay_wordings("89/2012 Sb.", section)
    assert combined[: len(own)] == own
    assert combined[len(own) :] == [w for w in heading if w not in own]
    assert lay_wordings("89/2012 Sb.", section) == lay_wordings("89/2012 Sb.", section)  # cached table, same list


def test_only_the_encoder_reads_a_provisions_wordings():
    section = "část 4 RELATIVNÍ MAJETKOVÁ PRÁVA > díl 15 Závazky z odvážných smluv > Sázka > § 2874"
    wordings = lay_wordings("89/2012 Sb.", section)
    assert provision_wordings("89/2012 Sb.", section), "the shipped table words the sázka's §"
    act = ChunkRecord(
        "c1", "/eli/cz/sb/2012/89", "Občanský zákoník", "esbirka", "", "89/2012 Sb.", 1, 1, section,
        "§ 2874\n(1) Nelze se domáhat plnění ze sázky …", act_version={"version_kind": "consolidated"},
    )  # fmt: skip
    assert act.dense_text.endswith("\n" + "; ".join(wordings))
    assert wordings[0] not in act.context_text and wordings[0] not in act.text  # BM25 and the stored text
    decision = ChunkRecord(
        "c2", "/ns/1", "Rozhodnutí", "nsoud", "", "89/2012 Sb.", 1, 1, section, "Sázka je …"
    )  # fmt: skip
    assert wordings[0] not in decision.dense_text  # only an act's provision carries them
