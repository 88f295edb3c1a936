"""The big codes as they stand: § 2288 of the civil code (89/2012 Sb., a consolidated DOCX of ~3,100 §§) and § 205
of the criminal code (40/2009 Sb., its wording from a third-party page served as derived fragments) answer with the
wording in force and their place in the act's full hierarchy (část, hlava, díl, oddíl, pododdíl, §), by the names
people write; the citator resolves them."""

from __future__ import annotations

from datetime import date

import psycopg
import pytest

from mendel.citator import build as citator
from mendel.citator.cites import cites
from mendel.citator.wording import describe, provision_at
from tests.support.law import crawled_database

pytestmark = pytest.mark.e2e

CRAWLS = [("esbirka", {"MENDEL_ESBIRKA_ACTS": "/sb/2012/89,/sb/2009/40", "MENDEL_ESBIRKA_FRAGMENTS": "1"})]
TODAY = date(2026, 3, 1)


@pytest.fixture(scope="module")
def conn(pg_server_url, tmp_path_factory):
    url = crawled_database(pg_server_url, tmp_path_factory.mktemp("codes-home"), CRAWLS)
    with psycopg.connect(url, autocommit=True) as connection:
        citator.build(connection)
        yield connection


@pytest.mark.parametrize(
    ("ref", "eli", "path", "heading", "wording"),
    [
        (
            "§ 2288 občanského zákoníku",
            "/eli/cz/sb/2012/89/2025-07-01",
            "část 4 › hlava 2 › díl 2 › oddíl 3 › pododdíl 2 › § 2288",
            None,
            "Pronajímatel může vypovědět nájem na dobu určitou nebo neurčitou v tříměsíční výpovědní době",
        ),
        (
            "§ 205 trestního zákoníku",
            "/eli/cz/sb/2009/40/2026-01-01",
            "část 2 › hlava 5 › § 205",
            "Krádež",
            "Kdo si přisvojí cizí věc tím, že se jí zmocní",
        ),
        ("§ 205 tr. zákoníku", "/eli/cz/sb/2009/40/2026-01-01", "část 2 › hlava 5 › § 205", "Krádež", "přisvojí"),
    ],
)
def test_a_provision_of_a_big_code_in_force_with_its_place_in_the_act(conn, ref, eli, path, heading, wording):
    answer = provision_at(conn, ref, TODAY)
    assert answer["status"] == "in_force", answer["message"]
    assert answer["version"]["eli"] == eli
    provision = answer["provision"]
    assert provision["section_path"] == path
    assert heading is None or provision["heading"] == heading
    assert wording in provision["text"]
    assert f"in {path}" in describe(answer)
    # the odstavce and písmena below it are the act's own items
    assert any(item["id"].endswith("odst. 1 písm. a)") for item in provision["items"])


def test_the_civil_code_has_its_whole_hierarchy(conn):
    kinds = dict(
        conn.execute(
            "SELECT kind, count(*) FROM provisions WHERE doc_id = '/eli/cz/sb/2012/89' GROUP BY kind"
        ).fetchall()
    )
    assert kinds["Paragraf"] > 3000
    assert {"Cast", "Hlava", "Dil", "Oddil", "Pododdil", "Odstavec_Dc", "Pismeno_Lb", "Bod_Dd"} <= set(kinds)


def test_the_citator_knows_the_big_codes_provisions(conn):
    answer = cites(conn, "§ 2288 občanského zákoníku")
    assert answer["status"] != "not_a_reference"
    assert answer["target"]["key"] == "89/2012 Sb."
    assert answer["target"]["provision"] == "§ 2288"
