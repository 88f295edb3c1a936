"""`mendel search` against the tiny real bundle of tests/serving/web/test_api.py: the API's hit schema on both paths (the
bundle loaded here, or a running server), filters, a clear refusal of a blank query, and the server probe."""

from __future__ import annotations

import copy
import json

import pytest

import cli.search
from cli.main import main
from serving.web.api import create_app
from tests.support.bundle import EMBEDDER, base_docs, build_bundle, load_corpus
from tests.support.web import TestClient, running_server

QUERY = "podpora bydlení vyhovující bydlení"
BROAD = "zákon soud rozhodl bydlení náhrady ústava Sb. §"  # matches every document: the filters decide


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    root = tmp_path_factory.mktemp("home")
    build_bundle(root / "bundles", base_docs(copy.deepcopy(load_corpus())))
    return root


@pytest.fixture(autouse=True)
def environment(home, monkeypatch):
    """MENDEL_HOME on the test bundle, the hashed embedder the bundle was built with, and no server probed
    unless a test starts one."""
    import mendel.index.embed

    monkeypatch.setenv("MENDEL_HOME", str(home))
    monkeypatch.delenv(cli.search.API_URL_ENV, raising=False)
    monkeypatch.setattr(mendel.index.embed, "get_embedder", lambda name=None: EMBEDDER)
    monkeypatch.setattr(cli.search, "DEFAULT_API_URL", "http://127.0.0.1:9")  # discard port: nothing answers


@pytest.fixture(scope="module")
def server(home):
    with running_server(home / "bundles") as (base_url, _):
        yield base_url


def search_json(capsys, *args) -> tuple[int, dict | None, str]:
    status = main(["search", *args, "--json"])
    out = capsys.readouterr()
    return status, json.loads(out.out) if out.out.strip() else None, out.err


def test_local_json_is_the_api_body(capsys, home):
    status, payload, err = search_json(capsys, QUERY, "-k", "5")
    assert status == 0, err
    api = TestClient(create_app(home / "bundles", embedder=EMBEDDER, reload_interval=0))
    assert payload == api.get("/search", params={"q": QUERY, "k": 5}).json()  # one schema, field for field
    assert payload["results"][0]["doc_id"] == "/eli/cz/sb/2025/175" and payload["results"][0]["highlights"]


def test_server_path_prints_the_same(capsys, server):
    _, local, _ = search_json(capsys, QUERY, "-k", "5", "--local")
    status, served, err = search_json(capsys, QUERY, "-k", "5", "--api", server)
    assert status == 0 and served == local
    assert f"answered by {server}" in err
    # MENDEL_API_URL does the same as --api
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(cli.search.API_URL_ENV, server)
        assert search_json(capsys, QUERY, "-k", "5")[1] == local


def test_probe_uses_the_default_server_only_for_the_same_bundle(capsys, server, home, tmp_path, monkeypatch):
    monkeypatch.setattr(cli.search, "DEFAULT_API_URL", server)
    assert cli.search.server_for(home / "bundles") == server
    _, _, err = search_json(capsys, QUERY, "-k", "2")
    assert f"answered by {server}" in err
    other = tmp_path / "bundles"
    build_bundle(other, base_docs(copy.deepcopy(load_corpus())))  # another home: another version
    assert cli.search.server_for(other) is None


def test_unreachable_server_falls_back_to_the_bundle(capsys, home):
    status, payload, err = search_json(capsys, QUERY, "-k", "2", "--api", "http://127.0.0.1:9")
    assert status == 0 and payload["results"]
    assert "no answer from http://127.0.0.1:9" in err and f"bundle {home / 'bundles'}" in err


def test_text_output_has_title_url_and_marks(capsys):
    assert main(["search", QUERY, "-k", "3"]) == 0
    out = capsys.readouterr().out
    first = out.split("\n 2. ")[0]
    assert "Zákon o poskytování některých opatření v podpoře bydlení" in first
    assert "https://www.e-sbirka.cz/sb/2025/175" in first and "175/2025 Sb." in first
    assert "[bydlení]" in first  # the query's words marked (brackets when not on a terminal)


@pytest.mark.parametrize("via_server", [False, True])
def test_filters(capsys, server, via_server):
    where = ["--api", server] if via_server else ["--local"]
    status, payload, _ = search_json(capsys, "dovolání soud", "-k", "10", "--source", "nsoud", *where)
    assert status == 0 and payload["results"] and {r["source"] for r in payload["results"]} == {"nsoud"}
    _, dated, _ = search_json(capsys, BROAD, "-k", "100", "--from", "2025-01-01", "--to", "2025-12-31", *where)
    assert {r["doc_id"] for r in dated["results"]} == {"/eli/cz/sb/2025/175", "/eli/cz/sb/2025/573"}
    _, act, _ = search_json(capsys, BROAD, "-k", "10", "--act", "573/2025 Sb.", *where)
    assert {r["doc_id"] for r in act["results"]} == {"/eli/cz/sb/2025/573"}
    status, payload, err = search_json(capsys, QUERY, "--source", "cnb", *where)
    assert status == 2 and payload is None and "source: unknown value 'cnb'" in err
    status, _, err = search_json(capsys, QUERY, "--act", "1/1900 Sb.", *where)
    assert status == 2 and "names no document" in err


def test_text_output_says_what_is_not_in_the_collection(capsys):
    assert main(["search", "Co říká § 2079 občanského zákoníku o kupní smlouvě?", "-k", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("not in the collection: 89/2012 Sb.") and "weak match" in out


@pytest.mark.parametrize("query", ["", "   ", "\t\n"])
def test_blank_query_is_refused(capsys, query):
    assert main(["search", query]) == 2
    out = capsys.readouterr()
    assert out.out == "" and "the query is blank" in out.err


def test_bad_k_and_date_are_usage_errors(capsys):
    assert main(["search", QUERY, "-k", "0"]) == 2
    assert "-k must be between 1 and 100" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["search", QUERY, "--from", "yesterday"])
    assert exit_info.value.code == 2


@pytest.mark.parametrize(
    ("coverage", "said"),
    [
        (
            {"notice_kind": {"id": "waste_collection", "label": "svoz odpadu"}},
            "read as a search for the boards' notices",
        ),
        ({"places_first": ["Blešno"]}, "the boards' documents of Blešno first"),
        ({"years_first": ["2019"]}, "the boards' documents titled with 2019 first"),
        ({"case_law": True}, "asks for case law: the courts' decisions first"),
    ],
)
def test_text_output_says_how_the_query_was_read(capsys, coverage, said):
    from cli.search import print_text

    hit = {"page": 1, "page_end": 1, "citation": None, "doc_id": "d", "source": "boards", "section": "", "score": 0.5}
    hit.update(title="Svoz odpadu", url="u", text="Svoz odpadu ve středu.", highlights=[])
    print_text({"results": [hit], "coverage": coverage})
    assert said in capsys.readouterr().out
    print_text({"results": [], "coverage": coverage})
    assert said not in capsys.readouterr().out  # nothing found: nothing was ordered
