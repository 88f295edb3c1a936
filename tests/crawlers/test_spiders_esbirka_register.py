"""The whole Sbírka, incrementally: a first crawl lists the complete register and stores every act the mirror
holds; a quiet night asks the change feed alone; a newly published version of an act of 2012 is fetched from the
feed, whatever its year, with the production profile's selection; every request is an operation of the official
definition; and bad input (a corrupt DOCX, a fragment page that is not a FragmentSeznam) is quarantined with its
reason while the night goes on."""

from __future__ import annotations

import shutil
from pathlib import Path
from urllib.parse import unquote

import psycopg
import pytest
from scrapy.crawler import Crawler

from crawlers.middlewares.host_guard import host_allowed
from crawlers.spiders.esbirka import EsbirkaSpider
from mendel.core.config import SAMPLE_CORPUS, Settings
from mirror.responses import json_response
from mirror.server import MirrorThread
from tests.support.crawl import crawl_runner, documents, logged
from tests.support.esbirka_openapi import definition

CORPUS_ACTS = 63  # every act of sample_corpus/esbirka with a text: 17 PDFs, 38 DOCX, 6 exports, 2 third-party pages


def linked_corpus(root: Path, copied: tuple[str, ...] = ()) -> Path:
    """The sample corpus seen through links, ``copied`` (paths under esbirka/) real copies made now."""
    root.mkdir()
    for entry in SAMPLE_CORPUS.iterdir():
        if entry.name != "esbirka":
            (root / entry.name).symlink_to(entry)
    for folder in (SAMPLE_CORPUS / "esbirka").iterdir():
        if folder.is_file():
            (root / "esbirka" / folder.name).parent.mkdir(exist_ok=True)
            (root / "esbirka" / folder.name).symlink_to(folder)
            continue
        (root / "esbirka" / folder.name).mkdir(parents=True)
        for entry in folder.iterdir():
            target = root / "esbirka" / folder.name / entry.name
            if f"{folder.name}/{entry.name}" in copied:
                shutil.copyfile(entry, target)
            else:
                target.symlink_to(entry)
    return root


def requested(log) -> list[tuple[str, str]]:
    return [(method, path) for method, path, _ in log]


def test_production_lists_the_whole_register_and_the_whole_feed(monkeypatch):
    monkeypatch.delenv("MENDEL_ESBIRKA_YEARS", raising=False)
    monkeypatch.delenv("MENDEL_ESBIRKA_ACTS", raising=False)
    for profile in ("demo", "production"):
        monkeypatch.setenv("MENDEL_PROFILE", profile)
        settings = Settings(mirror_url="http://mirror.test")
        assert settings.esbirka_years == ()  # no year window: the whole register, then the feed
        arguments = EsbirkaSpider.arguments(settings)
        assert (arguments["years"], arguments["acts"]) == ("", "")
    production = EsbirkaSpider.arguments(Settings())
    assert production["base_url"] == "https://www.e-sbirka.cz"
    spider = EsbirkaSpider(**production)
    assert spider.feed == "esbirka:zmeny-zneni|all"
    # an act of any year that the feed names is wanted
    assert spider.wanted(type("Act", (), {"collection": "sb", "year": 2012, "number": 89})())


def test_the_register_requests_are_operations_of_the_definition():
    spider = EsbirkaSpider(base_url="http://mirror.test")
    request = spider.register_request(2012)
    assert definition().check_request(request.method, request.url, request.body) == "vypisDokumentySbirkyPoMesicich"
    changes = spider.changes_request("2026-01-01T00:00:00+01:00", 500)
    assert definition().check_request(changes.method, changes.url) == "vypisNovaZmenenaZneniPravnichPredpisu"
    keyed = EsbirkaSpider(base_url="http://mirror.test", api_key="k3y")
    assert keyed.register_request(2012).headers.get("esel-api-access-key") == b"k3y"


@pytest.mark.e2e
def test_the_whole_register_first_then_the_feed_fetches_an_act_of_2012(tmp_path, fresh_db, monkeypatch):
    corpus = linked_corpus(tmp_path / "corpus")
    with MirrorThread(corpus) as site:
        crawl = crawl_runner(monkeypatch, tmp_path / "home", fresh_db, site.base_url)
        first = crawl("esbirka", "whole-1")
        log = list(site.request_log)
    stored = documents(fresh_db, "esbirka")
    assert first["stored"] == len(stored) == CORPUS_ACTS
    # every act of the corpus: the 38 DOCX of the first collections and the third collection's big codes
    docx = {p.stem for p in (SAMPLE_CORPUS / "esbirka" / "docx").glob("*.docx")}
    assert len(docx) == 38
    for eli in ("/eli/cz/sb/2012/89", "/eli/cz/sb/2009/40", "/eli/cz/sb/2016/251", "/eli/cz/sb/1918/8"):
        assert stored[eli]["doc_type"] == "law_consolidated" and stored[eli]["content_type"].startswith("text/plain")
    assert stored["/eli/cz/sb/2025/157"]["content_type"] == "application/pdf"
    assert ("POST", "/esel-esbir-daver/chronologicke-rejstriky/roky") in requested(log)
    for method, path in requested(log):  # every API request the spider made is an operation of the definition
        if path == "/robots.txt":
            continue
        definition().check_request(method, "http://mirror" + path)
    with psycopg.connect(fresh_db) as conn:
        civil = conn.execute(
            "SELECT count(*) FROM provisions WHERE doc_id = '/eli/cz/sb/2012/89' AND provision_id ~ '^§ [0-9]+[a-z]*$'"
        ).fetchone()[0]
    assert civil > 3000

    # A quiet night: the change feed and nothing else.
    with MirrorThread(corpus) as site:
        crawl = crawl_runner(monkeypatch, tmp_path / "home", fresh_db, site.base_url)
        quiet = crawl("esbirka", "whole-2")
        assert [path.split("?")[0] for _, path in requested(site.request_log) if path != "/robots.txt"] == [
            "/esel-esbir-daver/dokumenty-sbirky/zmeny-zneni"
        ]
    assert quiet["discovered"] == 0

    # A new wording of vyhláška 259/2012 Sb. is published: the feed names it and the crawl fetches it.
    republished = corpus / "esbirka" / "consolidated" / "esb_259-2012_IZ_2024-07-01.docx"
    republished.unlink()
    shutil.copyfile(SAMPLE_CORPUS / "esbirka" / "consolidated" / republished.name, republished)
    with MirrorThread(corpus) as site:
        crawl = crawl_runner(monkeypatch, tmp_path / "home", fresh_db, site.base_url)
        crawl("esbirka", "whole-3")
        paths = {unquote(path.split("?")[0]) for _, path in requested(site.request_log)}
    api = "/esel-esbir-daver/dokumenty-sbirky"
    assert {
        f"{api}//sb/2012/259",
        f"{api}//sb/2012/259/historie",
        f"{api}//sb/2012/259/2024-07-01/fragmenty",
        f"{api}//sb/2012/259/fragmenty",
    } <= paths
    assert not any("/roky" in p or "/sb/2012/89" in p for p in paths)  # that act alone


@pytest.mark.e2e
def test_a_corrupt_docx_and_a_bad_fragment_page_are_quarantined_and_the_night_goes_on(tmp_path, fresh_db, monkeypatch):
    corpus = linked_corpus(tmp_path / "corpus")
    corrupt = corpus / "esbirka" / "docx" / "Sb_1918_8_IZ.docx"
    corrupt.unlink()
    corrupt.write_bytes(b"PK\x03\x04 this is not a zip archive")
    with MirrorThread(corpus) as site:
        esbirka = site.server.esbirka
        answer = esbirka.fragment_page

        def spoiled(act, version, query, last_modified):  # 2/1993 Sb.: a page that is no FragmentSeznam
            if act.year == 1993 and act.number == 2:
                return json_response({"seznam": "nic", "pocetStranek": 1})
            return answer(act, version, query, last_modified)

        esbirka.fragment_page = spoiled
        crawl = crawl_runner(monkeypatch, tmp_path / "home", fresh_db, site.base_url)
        counts = crawl("esbirka", "bad-1", MENDEL_ESBIRKA_YEARS="1918,1993")
    quarantined = {url: reason for url, outcome, _, reason in logged(fresh_db, "bad-1") if outcome == "quarantined"}
    corrupt_reasons = [r for u, r in quarantined.items() if "%2Fsb%2F1918%2F8" in u]
    spoiled_reasons = [r for u, r in quarantined.items() if "%2Fsb%2F1993%2F2" in u]
    assert corrupt_reasons and all("500" in r for r in corrupt_reasons)
    assert spoiled_reasons and all("not a FragmentSeznam" in r for r in spoiled_reasons)
    stored = documents(fresh_db, "esbirka")
    assert "/eli/cz/sb/1918/8" not in stored and "/eli/cz/sb/1993/2" not in stored
    assert {"/eli/cz/sb/1993/1", "/eli/cz/sb/1993/4", "/eli/cz/sb/1993/29"} <= set(stored)
    assert counts["finish_reason"] == "finished" and counts["stored"] == len(stored)
    with psycopg.connect(fresh_db) as conn:
        position = conn.execute("SELECT count(*) FROM change_feeds").fetchone()[0]
    assert position == 0  # the feed is not taken in past versions that failed: the next night asks again


def test_redirects_between_official_hosts_pass_the_host_guard():
    spider = EsbirkaSpider.from_crawler(
        Crawler(EsbirkaSpider, {"MENDEL_HOST_GUARD": True}), base_url="https://api.e-sbirka.cz"
    )
    for host in ("api.e-sbirka.cz", "www.e-sbirka.cz", "opendata.eselpoint.gov.cz"):
        assert host_allowed(host, spider.allowed_hosts), host
    for host in ("e-sbirka.cz.example.org", "zakonyprolidi.cz", "localhost"):
        assert not host_allowed(host, spider.allowed_hosts), host
