"""The court's own witness in the citator: the provisions real decisions' metadata lists (a district court's open-data
``ZminenaUstanoveni``, a high court's Dotčené předpisy on the Nejvyšší soud site) become citator links beside the
recogniser's mentions, each passage saying who found it; disagreements are kept and counted; the answer for a
provision groups the decisions by court level."""

from __future__ import annotations

import os
import subprocess
import sys

import psycopg
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from mendel.citator import build as citator
from mendel.citator.cites import cites, describe
from mendel.citator.court_links import item_targets, spelled_out
from mendel.core.config import PROJECT_ROOT
from mendel.core.rawstore import RawStore
from mendel.ner import recognise
from mendel.records.court_decisions import update_court_decisions
from serving.web.law_routes import law_router
from tests.support.law import crawled_database

CRAWLS = [
    ("justice", {"MENDEL_JUSTICE_FROM": "2025-09-20", "MENDEL_JUSTICE_TO": "2025-09-20"}),  # 3 of Okresní soud ve Zlíně
    ("nsoud", {"MENDEL_NSOUD_FROM": "2002-10-10", "MENDEL_NSOUD_TO": "2002-10-10"}),  # 13 Cmo 115/2002 (Vrchní soud)
]
ZLIN = {"26 C 69/2025-62", "26 C 132/2025-30", "26 C 117/2025-43"}


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ("§ 142 z. č. 99/1963 Sb.", [("99/1963 Sb.", "§ 142")]),
        ("§ 6 vyhl. č. 177/1996 Sb.", [("177/1996 Sb.", "§ 6")]),
        ("§ 2 nař. vl. č. 351/2013 Sb.", [("351/2013 Sb.", "§ 2")]),
        ("§ 59 písm. a) předpisu č. 328/1991Sb.", [("328/1991 Sb.", "§ 59 písm. a)")]),
        ("§ 36 odst. 2 tr. ř.", [("141/1961 Sb.", "§ 36 odst. 2")]),
        ("§ 150 odst. 4 obč. zák. ve znění od 01.08.1998", [("40/1964 Sb.", "§ 150 odst. 4")]),
        # the Nejvyšší soud's lists name the replaced codes "obč. zák." and "tr. zák.", the newer ones otherwise
        ("§ 123 obč. zák.", [("40/1964 Sb.", "§ 123")]),
        ("§ 45a odst. 4 tr. zák.", [("140/1961 Sb.", "§ 45a odst. 4")]),
        ("§ 2758 odst. 2 o. z.", [("89/2012 Sb.", "§ 2758 odst. 2")]),
        ("§ 92 odst. 4 tr. zákoníku", [("40/2009 Sb.", "§ 92 odst. 4")]),
    ],
)
def test_each_listed_provision_is_read_by_the_recogniser(item, expected):
    (entities,) = recognise([spelled_out(item)])
    assert [(t.key, t.provision) for t in item_targets(entities)] == expected


@pytest.fixture(scope="module")
def database(pg_server_url, tmp_path_factory) -> str:
    home = tmp_path_factory.mktemp("court-links")
    url = crawled_database(pg_server_url, home, CRAWLS, process=True)
    with psycopg.connect(url, autocommit=True) as conn:
        update_court_decisions(conn, RawStore(home / "raw"))
    return url


@pytest.mark.e2e
def test_metadata_links_beside_mentions_with_their_witness_and_the_disagreements_counted(database):
    with psycopg.connect(database, autocommit=True) as conn:
        stats = citator.build(conn, force=True)
        assert stats["links_court_decisions_listing"] == 4
        assert stats["links_court_metadata"] == 3 * 4 + 2
        assert (
            stats["links_court_metadata_agreed"] + stats["links_court_metadata_only"] == stats["links_court_metadata"]
        )
        assert stats["links_court_metadata_agreed"] >= 3  # § 142 o. s. ř. is in each Zlín decision's text
        assert stats["links_court_metadata_only"] >= 1 and stats["links_recogniser_only"] >= 1  # kept, counted
        answer = cites(conn, "§ 142 o. s. ř.")
    decisions = answer["families"]["decisions"]
    assert {doc["citation"] for doc in decisions["items"]} == ZLIN | {"13 Cmo 115/2002"}
    high, district = decisions["by_court_level"]  # highest first
    assert (high["court_level"], high["documents"], district["court_level"]) == ("high", 1, "district")
    assert district["label"] == "okresní soudy" and {doc["citation"] for doc in district["items"]} == ZLIN
    dates = [doc["date"] for doc in district["items"]]
    assert dates == sorted(dates, reverse=True)  # newest first within a level
    (vrchni,) = high["items"]  # its header does not list § 142: the recogniser alone found it in the text
    assert {o for p in vrchni["passages"] for o in p["origins"]} == {"mention"}
    for doc in district["items"]:
        assert doc["court"] == "Okresní soud ve Zlíně"
        witnesses = {origin for passage in doc["passages"] for origin in passage["origins"]}
        assert witnesses == {"court_metadata", "mention"}
        assert any(set(p["origins"]) == {"court_metadata", "mention"} for p in doc["passages"])  # one sentence, two
        assert all(p["sentence"] for p in doc["passages"])
    text = describe(answer)
    assert "vrchní soudy (1)" in text and "okresní soudy (3)" in text and "(court metadata, recogniser)" in text


@pytest.mark.e2e
def test_a_high_court_header_provision_links_its_decision(database):
    with psycopg.connect(database, autocommit=True) as conn:
        citator.build(conn, force=True)
        answer = cites(conn, "§ 59 zákona č. 328/1991 Sb.")
    (high,) = answer["families"]["decisions"]["by_court_level"]
    (doc,) = high["items"]
    assert (high["court_level"], doc["citation"], doc["court"]) == ("high", "13 Cmo 115/2002", "Vrchní soud v Praze")
    assert "court_metadata" in {o for p in doc["passages"] for o in p["origins"]}


@pytest.mark.e2e
def test_the_command_and_the_api_answer_the_same(database, tmp_path):
    with psycopg.connect(database, autocommit=True) as conn:
        citator.build(conn)
    env = {**os.environ, "MENDEL_DATABASE_URL": database, "MENDEL_HOME": str(tmp_path)}
    run = subprocess.run(
        [sys.executable, "-m", "cli.main", "cites", "§ 142 o. s. ř."],
        capture_output=True,
        text=True,
        env=env,
        cwd=PROJECT_ROOT,
        timeout=180,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "okresní soudy (3)" in run.stdout and "Okresní soud ve Zlíně" in run.stdout
    assert "(court metadata, recogniser)" in run.stdout
    app = FastAPI()
    app.include_router(law_router(database))
    body = TestClient(app).get("/citations", params={"ref": "§ 142 o. s. ř."}).json()
    levels = [group["court_level"] for group in body["families"]["decisions"]["by_court_level"]]
    assert levels == ["high", "district"]
    district = body["families"]["decisions"]["by_court_level"][1]["items"]
    assert all(any("court_metadata" in p["origins"] and p["sentence"] for p in d["passages"]) for d in district)
