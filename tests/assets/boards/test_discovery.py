"""Board discovery on the mirror's municipal websites (``mirror/municipal_sites.py``: six real municipalities, their
real notices in mirror-made pages): the finder searches each site, the boards whose first read yields dated notices
enter the register and are crawled; the others are recorded with their reason. When a registered board's page
changes layout (Turnov's, after the first Kadaň snapshot) the crawl quarantines it with the reason and withdraws
nothing."""

from __future__ import annotations

import psycopg
import pytest
from dagster import DagsterInstance, Definitions, define_asset_job

from assets.boards import discovery, register_read
from assets.boards.assets import board_registry
from assets.boards.attachments import attachment_health
from assets.boards.discovery import DEMO_SITES_PATH, board_discovery, discover_boards
from mendel.core.config import SAMPLE_CORPUS, Settings
from mendel.crawl.boards import candidates
from mendel.crawl.boards.register import write_boards_file
from mirror.municipal import SNAPSHOT_ENV, cms_board_notices
from mirror.municipal_sites import DEMO_SITES, SITES_PATH
from mirror.server import MirrorThread
from orchestration.resources import MendelResource
from tests.support.crawl import crawl_runner, logged

pytestmark = pytest.mark.e2e

EXPECTED = {
    "obec:511382": ("confirmed", "public4u"),  # Přerov: its generator meta
    "obec:556831": ("confirmed", "sumavanet"),  # Nýrsko: its vendor
    "obec:563978": ("confirmed", "sumavanet"),  # Kubova Huť: a link the address alone tells
    "obec:577626": ("confirmed", "public4u"),  # Turnov, before its redesign
    "obec:554821": ("no_rule_set", "plone"),  # Ostrava
    "obec:575429": ("no_rule_set", "antee"),  # Opatovice nad Labem
}


def test_the_demo_sites_list_names_the_national_lists_rows():
    assert DEMO_SITES_PATH == SITES_PATH
    assert len(DEMO_SITES) == len(EXPECTED)


def not_started(*args, **kwargs):
    raise AssertionError("the board finder was started with no site due")


def test_found_boards_enter_the_register_and_a_changed_layout_is_quarantined(tmp_path, fresh_db, monkeypatch):
    monkeypatch.setenv("MENDEL_BOARD_DOWNLOAD_DELAY", "0")
    monkeypatch.setenv(SNAPSHOT_ENV, "1")  # the first snapshot: Turnov's board in its Public4u layout
    with MirrorThread(SAMPLE_CORPUS) as mirror:
        settings = Settings(home=tmp_path, profile="demo", mirror_url=mirror.base_url, database_url=fresh_db)
        with psycopg.connect(fresh_db, autocommit=True) as conn:
            first = discover_boards(settings, conn, "night-1")
            rows = {
                key: (outcome, cms, reason, dated)
                for key, outcome, cms, reason, dated in conn.execute(
                    "SELECT list_key, outcome, cms, reason, notices_dated FROM board_candidates"
                )
            }
            quarantined = conn.execute("SELECT url, reason, detail FROM quarantine ORDER BY url").fetchall()
            found = candidates.confirmed_boards(conn)
        assert {key: row[:2] for key, row in rows.items()} == EXPECTED
        assert first["sites_searched_now"] == 6 and first["now_confirmed"] == 4 and first["now_no_rule_set"] == 2
        assert first["finder"] == "searched 6 sites due"
        assert rows["obec:554821"][2] == "no rule set for its CMS Plone (plone)"
        assert all(rows[k][3] > 0 for k, (outcome, _) in EXPECTED.items() if outcome == "confirmed")
        assert [r[1] for r in quarantined] == ["board finder: no_rule_set"] * 2
        assert {b.key for b in found} == {f"html:{k}" for k, (o, _) in EXPECTED.items() if o == "confirmed"}
        turnov = next(b for b in found if b.key == "html:obec:577626")
        assert (turnov.obec_kod, turnov.rules_from) == ("577626", "cms:public4u@1")

        run = crawl_runner(monkeypatch, tmp_path, fresh_db, mirror.base_url)
        boards_file = write_boards_file(found, tmp_path / "found.json")
        night1 = run("boards", "crawl-1", MENDEL_BOARDS_FILE=str(boards_file))
        assert night1["boards_html"] == 4 and night1["listing_failed"] == 0 and "boards_links_failed" not in night1
        # The notices' attachments link edesky pages the corpus has no bytes of: each is counted, by reason.
        read = [s.board for s in DEMO_SITES if s.board.host in {b.host for b in found}]
        # (a notice the board lists twice is one notice: Kubova Huť's edesky rows repeat three)
        files = sum({n["url"]: len(n["files"]) for b in read for n in cms_board_notices(SAMPLE_CORPUS, b)}.values())
        with psycopg.connect(fresh_db, autocommit=True) as conn:
            health = attachment_health(conn, settings, "crawl-1")
        assert (health["linked"], health["failed"], health["failed_by_reason"]) == (files, files, {"HTTP 404": files})

        # The next night the mirror serves the next snapshot: Turnov's board has been redesigned.
        monkeypatch.setenv(SNAPSHOT_ENV, "2")
        # Confirmed ones stay, the others wait out their retry days: no site is due, the finder is not started.
        monkeypatch.setattr(discovery, "run_finder", not_started)
        with psycopg.connect(fresh_db, autocommit=True) as conn:
            second = discover_boards(settings, conn, "night-2")
        assert second["sites_searched_now"] == 0 and second["finder"] == "not started: no site due"
        night2 = run("boards", "crawl-2", MENDEL_BOARDS_FILE=str(boards_file))
    assert night2["listing_failed"] == 1 and night2["withdrawn"] == 0
    (layout,) = [row for row in logged(fresh_db, "crawl-2") if row[0].startswith("http://turnov.mirror.test")]
    assert layout[1] == "quarantined" and "board layout changed" in layout[3]
    with psycopg.connect(fresh_db) as conn:
        statuses = conn.execute(
            "SELECT status, count(*) FROM documents WHERE listing = %s GROUP BY 1", (turnov.url,)
        ).fetchall()
        still = conn.execute("SELECT outcome FROM board_candidates WHERE list_key = 'obec:577626'").fetchone()
    assert statuses == [("active", 5)] and still == ("confirmed",)


def test_the_register_step_takes_in_the_found_boards(tmp_path, mirror, fresh_db, monkeypatch):
    monkeypatch.setattr(register_read, "read_catalogue", lambda path: [])  # the found boards alone
    (tmp_path / "empty.yaml").write_text("boards: []\n", encoding="utf-8")
    monkeypatch.setenv("MENDEL_HTML_BOARDS", str(tmp_path / "empty.yaml"))
    monkeypatch.setenv("MENDEL_BOARD_DOWNLOAD_DELAY", "0")
    monkeypatch.delenv("MENDEL_SOURCES", raising=False)
    resource = MendelResource(home=str(tmp_path), profile="demo", mirror_url=mirror.base_url, database_url=fresh_db)
    defs = Definitions(
        assets=[board_discovery, board_registry],
        jobs=[define_asset_job("reg", selection=["board_discovery", "board_registry"])],
        resources={"mendel": resource},
    )
    with DagsterInstance.ephemeral() as instance:
        result = defs.resolve_job_def("reg").execute_in_process(instance=instance)
    assert result.success

    def metadata(asset: str) -> dict:
        (materialization,) = result.asset_materializations_for_node(asset)
        return {k: v.value for k, v in materialization.metadata.items()}

    found, register = metadata("board_discovery"), metadata("board_registry")
    # the mirror serves the latest snapshot: Turnov's redesigned page is not read, so it never enters
    assert (found["sites_confirmed"], found["sites_layout_unknown"], found["sites_no_rule_set"]) == (3, 1, 2)
    assert found["found_boards_by_cms"] == {"public4u": 1, "sumavanet": 2}
    assert register["boards"] == register["found_boards"] == 3 and register["placed"] == 3
