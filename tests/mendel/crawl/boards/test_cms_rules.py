"""HTML boards by CMS: one rule set (``mendel/data/board_rules_by_cms.yaml``) serves every board whose site the
municipal websites list says runs that CMS; a board whose CMS has no rule set is counted per CMS in the register's
metadata and logged by the crawl with its reason, never silently skipped.

The boards are the mirror's CMS boards (``mirror/municipal.py``, ``CMS_BOARDS``): real notices of six real
municipalities from the edesky register dump, in mirror-made markup per CMS."""

from __future__ import annotations

import json
import urllib.request

import psycopg
import pytest
from dagster import DagsterInstance, Definitions, define_asset_job
from parsel import Selector

from assets.boards import register_read
from assets.boards.assets import board_registry
from crawlers.spiders.boards.html import html_notice, select
from mendel.core.config import SAMPLE_CORPUS
from mendel.crawl.boards.board import Board, RegistryError
from mendel.crawl.boards.cms_rules import (
    UNKNOWN_CMS,
    UNLISTED_SITE,
    CmsRules,
    apply_cms_rules,
    cms_rules_from,
    cms_summary,
    load_cms_rules,
    load_websites,
)
from mendel.crawl.boards.maintained_list import html_boards_from
from mendel.crawl.boards.register import write_boards_file
from mirror.municipal import CMS_BOARDS, CMS_LIST_PATH, cms_board_notices, cms_board_page, cms_html_list
from mirror.server import MirrorThread
from orchestration.resources import MendelResource
from tests.support.crawl import crawl_runner, documents, logged, only

BY_ID = {b.id: b for b in CMS_BOARDS}


def cms_boards() -> dict[str, Board]:
    return {b.key.removeprefix("html:"): b for b in apply_cms_rules(html_boards_from(cms_html_list()))}


def parsed(board: Board) -> list[dict]:
    page = Selector(text=cms_board_page(SAMPLE_CORPUS, BY_ID[board.key.removeprefix("html:")]))
    assert select(page, board.rules["board"])
    return [html_notice(row, board.rules, board.url) for row in select(page, board.rules["row"])]


def test_the_websites_list_names_each_sites_cms():
    websites = load_websites()
    assert len(websites) > 3000  # one row per domain of the 6,848-site list that names a domain
    rules = load_cms_rules()
    assert rules.identify(websites["prerov.eu"]) == "public4u"  # generator Public4u, vendor as4u.cz
    assert rules.identify(websites["kubovahut.cz"]) == "sumavanet"  # vendor SumavaNet.CZ only
    assert rules.identify(websites["ostrava.cz"]) == "plone"
    assert rules.identify(websites["praha12.cz"]) == UNKNOWN_CMS  # listed, no generator or vendor
    assert rules.identify(None) == UNLISTED_SITE


def test_two_boards_of_one_cms_are_read_by_the_same_rule_set():
    boards = cms_boards()
    prerov, prostejov = boards["prerov"], boards["prostejov"]
    assert prerov.cms == prostejov.cms == "public4u"
    assert prerov.rules_from == prostejov.rules_from == f"cms:public4u@{load_cms_rules().version}"
    assert prerov.rules == prostejov.rules == load_cms_rules().system("public4u").rules
    for board in (prerov, prostejov, boards["kubova-hut"], boards["nyrsko"]):
        real = cms_board_notices(SAMPLE_CORPUS, BY_ID[board.key.removeprefix("html:")])
        notices = parsed(board)
        assert len(notices) == len(real) > 0
        for notice, source in zip(notices, real):
            assert notice["název"]["cs"] == " ".join(source["title"].split())
            assert notice["url"] == source["url"]
            assert notice["vyvěšení"]["datum"] == source["posted"]
            assert [d["url"] for d in notice.get("dokument", [])] == [url for _, url in source["files"]]
    # The other CMS's rules do not read a Public4u page.
    sumava = boards["nyrsko"].rules
    assert not select(Selector(text=cms_board_page(SAMPLE_CORPUS, BY_ID["prerov"])), sumava["board"])


def test_a_board_whose_cms_has_no_rules_is_counted_and_says_why():
    listed = html_boards_from(
        {"boards": [*cms_html_list()["boards"], {"id": "praha12", "url": "https://www.praha12.cz/deska/"}]}
    )
    boards = {b.key: b for b in apply_cms_rules(listed)}
    ostrava = boards["html:ostrava"]
    assert (ostrava.cms, ostrava.rules, ostrava.rules_from) == ("plone", {}, None)
    assert "no extraction rules for its CMS Plone (plone)" in ostrava.no_rules
    assert boards["html:praha7"].cms == UNLISTED_SITE and "not in the municipal websites list" in (
        boards["html:praha7"].no_rules
    )
    assert boards["html:praha12"].cms == UNKNOWN_CMS
    # Praha 7's page lists its real 2017 archive (301 notices), but no rule set reads it.
    assert len(Selector(text=cms_board_page(SAMPLE_CORPUS, BY_ID["praha7"])).css("tbody tr")) == 301
    summary = cms_summary(boards.values())
    assert summary == {
        "html_boards_by_cms": {"plone": 1, "public4u": 3, "sumavanet": 2, UNKNOWN_CMS: 1, UNLISTED_SITE: 1},
        "html_boards_without_rules": 3,
        "html_boards_without_rules_by_cms": {"plone": 1, UNKNOWN_CMS: 1, UNLISTED_SITE: 1},
    }
    # A list entry's own rules win over its CMS's (a site-specific layout).
    own = {"board": "div.x", "row": "div.x p", "title": "a::text"}
    (kept,) = apply_cms_rules(html_boards_from({"boards": [{"id": "o", "url": "http://ostrava.cz/d/", "rules": own}]}))
    assert (kept.cms, kept.rules, kept.rules_from) == ("plone", own, "list")


def test_rules_by_cms_are_validated():
    with pytest.raises(RegistryError, match="system 'x': rules missing \\['row'\\]"):
        cms_rules_from(
            {"version": 1, "systems": {"x": {"match": {"author": ["x"]}, "rules": {"board": "a", "title": "b"}}}}
        )
    with pytest.raises(RegistryError, match="'match' must map"):
        cms_rules_from({"version": 1, "systems": {"x": {"match": {"domain": ["x"]}}}})
    with pytest.raises(RegistryError, match="integer 'version'"):
        cms_rules_from({"systems": {}})
    assert isinstance(load_cms_rules(), CmsRules)


@pytest.mark.e2e
def test_crawl_reads_cms_boards_and_logs_the_one_without_rules(tmp_path, fresh_db, monkeypatch):
    with MirrorThread(SAMPLE_CORPUS) as mirror:
        with urllib.request.urlopen(mirror.base_url + CMS_LIST_PATH) as answer:
            served = json.loads(answer.read())
        assert served == cms_html_list()
        chosen = [b for key, b in cms_boards().items() if key in ("prerov", "prostejov", "nyrsko", "ostrava")]
        run = crawl_runner(monkeypatch, tmp_path, fresh_db, mirror.base_url)
        counts = run(
            "boards",
            "cms-1",
            MENDEL_BOARDS_FILE=str(write_boards_file(chosen, tmp_path / "b.json")),
            MENDEL_BOARD_DOWNLOAD_DELAY="0",
        )
        asked = {path for _, path, _ in mirror.request_log}
    read = [b for b in chosen if b.rules]
    notices = {n["url"]: n for b in read for n in cms_board_notices(SAMPLE_CORPUS, BY_ID[b.key[5:]])}
    # Attachment links anchor on edesky pages the mirror does not serve: one 404 per notice page with files.
    pages_with_files = {url.split("#")[0] for n in notices.values() for _, url in n["files"]}
    only(counts, stored=len(notices), quarantined=len(pages_with_files) + 1)
    assert counts["boards_html"] == 3 and counts["boards_without_rules"] == 1
    docs = documents(fresh_db, "boards")
    for url, notice in notices.items():
        assert docs[url]["doc_type"] == "notice" and docs[url]["title"] == " ".join(notice["title"].split())
    (skip,) = [row for row in logged(fresh_db, "cms-1") if row[0] == BY_ID["ostrava"].url]
    assert skip[1] == "quarantined" and "Plone (plone)" in skip[3]
    assert "/uredni-deska/" in asked  # the three boards with rules were fetched …
    with psycopg.connect(fresh_db) as conn:  # … and Ostrava's page never was: nothing of it is stored
        assert not conn.execute("SELECT 1 FROM documents WHERE listing = %s", (BY_ID["ostrava"].url,)).fetchall()


def test_register_metadata_counts_boards_by_cms(tmp_path, mirror, fresh_db, monkeypatch):
    monkeypatch.setattr(register_read, "read_catalogue", lambda path: [])  # the maintained list's boards alone
    monkeypatch.setenv("MENDEL_HTML_BOARDS", mirror.base_url + CMS_LIST_PATH)
    monkeypatch.delenv("MENDEL_SOURCES", raising=False)
    resource = MendelResource(home=str(tmp_path), profile="demo", mirror_url=mirror.base_url, database_url=fresh_db)
    defs = Definitions(
        assets=[board_registry],
        jobs=[define_asset_job("reg", selection=["board_registry"])],
        resources={"mendel": resource},
    )
    with DagsterInstance.ephemeral() as instance:
        result = defs.resolve_job_def("reg").execute_in_process(instance=instance)
    assert result.success
    (materialization,) = result.asset_materializations_for_node("board_registry")
    meta = {k: v.value for k, v in materialization.metadata.items()}
    assert meta["boards"] == len(CMS_BOARDS)
    assert meta["html_boards_by_cms"] == {"plone": 1, "public4u": 3, "sumavanet": 2, UNLISTED_SITE: 1}
    assert (meta["html_boards_without_rules"], meta["html_boards_without_rules_by_cms"]) == (
        2,
        {"plone": 1, UNLISTED_SITE: 1},
    )
    with psycopg.connect(fresh_db) as conn:  # the register keeps each board's CMS and why it has no rules
        specs = {k: s for k, s in conn.execute("SELECT key, spec FROM boards").fetchall()}
    assert specs["html:ostrava"]["cms"] == "plone" and specs["html:ostrava"]["no_rules"]
    assert specs["html:trutnov"]["rules_from"].startswith("cms:public4u@")
