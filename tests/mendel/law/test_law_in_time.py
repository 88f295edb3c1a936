"""The wording of a provision on a date, over the real versions of vyhláška 573/2025 Sb.: the promulgated PDF
(in force from 1. 1. 2026), the consolidated version of 1. 6. 2026 (§ 4 písm. c) motorová nafta 34,10 -> 44,50
Kč) and that of 1. 10. 2026 (§ 4 písm. a) benzin 95 34,70 -> 41,80 Kč, by 175/2026 Sb.) — each checked against
the files in sample_corpus/esbirka."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date

import psycopg
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from mendel.citator.wording import parse_reference, provision_at, provision_key
from mendel.core.config import PROJECT_ROOT
from serving.web.law_routes import law_router
from tests.support.law import crawled_database

REF = "§ 4 vyhlášky č. 573/2025 Sb."
ACT = "/eli/cz/sb/2025/573"


@pytest.fixture(scope="module")
def database(pg_server_url, tmp_path_factory) -> str:
    return crawled_database(
        pg_server_url,
        tmp_path_factory.mktemp("law-home"),
        [("esbirka", {"MENDEL_ESBIRKA_YEARS": "2025", "MENDEL_ESBIRKA_ACTS": "/sb/2025/573"})],
    )


@pytest.fixture
def conn(database):
    with psycopg.connect(database, autocommit=True) as connection:
        yield connection


def items(answer: dict) -> dict[str, str]:
    return {item["id"]: item["text"] for item in answer["provision"]["items"]}


@pytest.mark.e2e
def test_three_dates_give_the_three_wordings_of_section_4(conn):
    march, july, november = (
        provision_at(conn, REF, date.fromisoformat(d)) for d in ("2026-03-01", "2026-07-01", "2026-11-01")
    )
    assert [a["status"] for a in (march, july, november)] == ["in_force"] * 3
    assert [a["version"]["eli"] for a in (march, july, november)] == [
        f"{ACT}/2026-01-01",
        f"{ACT}/2026-06-01",
        f"{ACT}/2026-10-01",
    ]
    assert [(a["version"]["effective_from"], a["version"]["effective_to"]) for a in (march, july, november)] == [
        ("2026-01-01", "2026-05-31"),
        ("2026-06-01", "2026-09-30"),
        ("2026-10-01", None),
    ]
    assert [items(a)["§ 4 písm. c)"] for a in (march, july, november)] == [
        "c) 34,10 Kč za 1 litr motorové nafty,",
        "c) 44,50 Kč za 1 litr motorové nafty,",
        "c) 44,50 Kč za 1 litr motorové nafty,",
    ]
    assert [items(a)["§ 4 písm. a)"] for a in (march, july, november)] == [
        "a) 34,70 Kč za 1 litr benzinu automobilového 95 oktanů,"
    ] * 2 + ["a) 41,80 Kč za 1 litr benzinu automobilového 95 oktanů,"]
    assert list(items(march)) == ["§ 4", "§ 4 písm. a)", "§ 4 písm. b)", "§ 4 písm. c)", "§ 4 písm. d)"]
    assert march["provision"]["heading"] == "Průměrná cena pohonných hmot"
    first_line = march["provision"]["text"].splitlines()[0]
    assert first_line.startswith("§ 4: Průměrná cena pohonných hmot Výše průměrné")


@pytest.mark.e2e
def test_each_diff_names_the_changed_letter_and_values(conn):
    march, july, november = (
        provision_at(conn, REF, date.fromisoformat(d)) for d in ("2026-03-01", "2026-07-01", "2026-11-01")
    )
    assert march["diff"] is None and march["previous_version"] is None  # the original wording
    assert march["version"]["amended_by"] == []
    [june_change] = july["diff"]["changed"]
    assert june_change["provision"] == "§ 4 písm. c)"
    assert june_change["values"] == {"before": ["34,10"], "after": ["44,50"]}
    assert july["previous_version"]["eli"] == f"{ACT}/2026-01-01"
    assert july["version"]["amended_by"] == []  # the corpus names no amending act for this version
    [october_change] = november["diff"]["changed"]
    assert october_change["provision"] == "§ 4 písm. a)"
    assert october_change["values"] == {"before": ["34,70"], "after": ["41,80"]}
    assert november["version"]["amended_by"] == [{"citation": "175/2026 Sb.", "eli": "/eli/cz/sb/2026/175"}]
    assert november["diff"]["added"] == [] and november["diff"]["removed"] == []
    assert "-  § 4 písm. a): a) 34,70 Kč" in november["diff"]["unified"]
    assert "+  § 4 písm. a): a) 41,80 Kč" in november["diff"]["unified"]
    # an unchanged provision has a previous version and nothing changed in it
    unchanged = provision_at(conn, "§ 2 vyhlášky č. 573/2025 Sb.", date(2026, 11, 1))
    assert unchanged["diff"]["changed"] == [] and unchanged["previous_version"]["eli"] == f"{ACT}/2026-06-01"


@pytest.mark.e2e
def test_before_the_act_took_effect_it_says_not_yet_in_force(conn):
    announced = provision_at(conn, REF, date(2025, 12, 30))
    assert announced["status"] == "not_yet_in_force" and "2026-01-01" in announced["message"]
    assert "provision" not in announced and "version" not in announced
    earlier = provision_at(conn, REF, date(2025, 6, 1))
    assert earlier["status"] == "not_yet_announced" and "2025-12-22" in earlier["message"]


@pytest.mark.e2e
def test_a_provision_that_does_not_exist_on_that_date_is_said_so(conn):
    missing = provision_at(conn, "§ 7 vyhlášky č. 573/2025 Sb.", date(2026, 7, 1))
    assert missing["status"] == "no_such_provision" and "provision" not in missing
    assert "§ 7" in missing["message"] and missing["exists_in"] == []
    letter = provision_at(conn, "§ 4 písm. e) vyhlášky č. 573/2025 Sb.", date(2026, 7, 1))
    assert letter["status"] == "no_such_provision"
    unknown = provision_at(conn, "§ 1 zákona č. 1/2099 Sb.", date(2026, 7, 1))
    assert unknown["status"] == "unknown_act"


@pytest.mark.e2e
def test_the_promulgated_text_keeps_its_pages(conn):
    answer = provision_at(conn, REF, date(2026, 3, 1))
    assert answer["promulgated"]["doc_id"] == ACT and answer["promulgated"]["page"] == 3  # § 4 is on page 3


def test_references_in_several_forms():
    assert parse_reference(REF).text == "§ 4 573/2025 Sb."
    assert parse_reference("573/2025 Sb. § 4 písm. a)").provision == "§ 4 písm. a)"
    assert parse_reference("/eli/cz/sb/2025/573/2026-06-01/dokument/norma/par_4/pism_c").provision == "§ 4 písm. c)"
    assert parse_reference("§ 158 odst. 3 zákoníku práce").act.citation == "262/2006 Sb."
    assert parse_reference("nic takového") is None
    # typed as people type: without diacritics the recogniser reads the § alone, the acts table the act
    for typed, citation, provision in [
        ("§ 2910 obcanskeho zakoniku", "89/2012 Sb.", "§ 2910"),
        ("§ 52 zakoniku prace", "262/2006 Sb.", "§ 52"),
        ("§ 205 trestniho zakoniku", "40/2009 Sb.", "§ 205"),
    ]:
        found = parse_reference(typed)
        assert (found.act.citation, found.provision) == (citation, provision), typed
    assert provision_key("Čl. IV odst. 2") == "čl. 4 odst. 2"
    assert provision_key("§ 2 odst.1 písm.a)") == "§ 2 odst. 1 písm. a)"


@pytest.mark.e2e
def test_cli_provision_json_and_text(database, tmp_path):
    env = {**os.environ, "MENDEL_DATABASE_URL": database, "MENDEL_HOME": str(tmp_path)}
    run = subprocess.run(
        [sys.executable, "-m", "cli.main", "provision", REF, "--at", "2026-07-01", "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=PROJECT_ROOT,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    answer = json.loads(run.stdout)
    assert answer["version"]["eli"] == f"{ACT}/2026-06-01"
    assert answer["diff"]["changed"][0]["values"] == {"before": ["34,10"], "after": ["44,50"]}
    text = subprocess.run(
        [sys.executable, "-m", "cli.main", "provision", REF, "--at", "2026-11-01"],
        capture_output=True,
        text=True,
        env=env,
        cwd=PROJECT_ROOT,
        timeout=120,
    )
    assert text.returncode == 0, text.stderr[-2000:]
    assert "amended by: 175/2026 Sb." in text.stdout and "§ 4 písm. a): 34,70 -> 41,80" in text.stdout


@pytest.mark.e2e
def test_api_provisions_route(database):
    app = FastAPI()
    app.include_router(law_router(database))
    client = TestClient(app)
    body = client.get("/provisions", params={"ref": REF, "at": "2026-11-01"}).json()
    assert body["version"]["eli"] == f"{ACT}/2026-10-01" and body["diff"]["changed"][0]["provision"] == "§ 4 písm. a)"
    early = client.get("/provisions", params={"ref": REF, "at": "2025-12-30"})
    assert early.status_code == 200 and early.json()["status"] == "not_yet_in_force"
    assert client.get("/provisions", params={"ref": "nic", "at": "2026-01-01"}).status_code == 400
    assert client.get("/provisions", params={"ref": "§ 1 zákona č. 1/2099 Sb."}).status_code == 404
    assert client.get("/provisions", params={"ref": REF, "at": "včera"}).status_code == 422
