"""The CLI contract other tools depend on: shapes of `mendel ner`, `search --json` and `analyze --json`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

MENDEL = [sys.executable, "-m", "cli.main"]


def run_cli(args, env=None, stdin=None):
    return subprocess.run(MENDEL + args, input=stdin, capture_output=True, text=True, env=env, timeout=300)


def test_ner_one_json_object_per_line():
    lines = [
        "Podle § 2358 odst. 1 zákona č. 89/2012 Sb. se postupuje.",
        "",
        "Nic tu není.",
        "Viz usnesení sp. zn. IV. ÚS 2265/13.",
    ]
    out = run_cli(["ner"], stdin="\n".join(lines) + "\n")
    assert out.returncode == 0, out.stderr
    records = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(records) == len(lines)
    for line, record in zip(lines, records):
        assert set(record) == {"entities"}
        for entity in record["entities"]:
            assert set(entity) == {"start", "end", "label", "text", "norm"}
            assert line[entity["start"] : entity["end"]] == entity["text"]
    assert records[0]["entities"][0]["label"] == "LAW_REF"
    assert records[0]["entities"][0]["norm"].startswith("89/2012 Sb. § 2358")
    assert records[1] == {"entities": []}
    assert any(e["label"] == "DECISION_REF" and e["norm"] == "IV. ÚS 2265/13" for e in records[3]["entities"])


@pytest.mark.e2e
def test_search_json_shape(cli_env):
    out = run_cli(["search", "volební obvody", "-k", "3", "--json"], env=cli_env)
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    assert 1 <= len(payload["results"]) <= 3
    for hit in payload["results"]:
        assert {"doc_id", "title", "source", "url", "page", "section", "text", "score"} <= set(hit)
        assert isinstance(hit["page"], int) and hit["page"] >= 1


def test_search_without_bundle_fails_clearly(tmp_path):
    env = dict(os.environ, MENDEL_HOME=str(tmp_path))
    out = run_cli(["search", "cokoli", "--json"], env=env)
    assert out.returncode != 0
    assert "no published bundle" in out.stderr


@pytest.mark.e2e
def test_analyze_json_shape(cli_env):
    out = run_cli(["analyze", "Co říká § 2079 zákona č. 89/2012 Sb.?", "--json"], env=cli_env)
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    assert {"references", "acts", "domains"} <= set(payload)
    ref = payload["references"][0]
    assert (ref["act"], ref["provision"], ref["eli"]) == ("89/2012 Sb.", "§ 2079", "/eli/cz/sb/2012/89")
    assert payload["acts"][0]["citation"] == "89/2012 Sb."
    assert all({"citation", "title", "score"} <= set(a) for a in payload["acts"])


def test_eval_ner_json():
    out = run_cli(["eval", "ner", "--json"])
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    assert payload["passed"] is True
    labels = {row["label"]: row for row in payload["labels"]}
    assert {"LAW_REF", "DECISION_REF"} <= set(labels)
    assert all(0.0 <= row["precision"] <= 1.0 and 0.0 <= row["recall"] <= 1.0 for row in labels.values())


def test_each_home_keeps_its_own_mirror_port_between_nights():
    from cli.main import DEMO_MIRROR_PORT, demo_mirror_port
    from mendel.core.config import PROJECT_ROOT

    assert demo_mirror_port((PROJECT_ROOT / ".mendel").resolve()) == DEMO_MIRROR_PORT
    other, another = Path("/srv/mendel/home-a"), Path("/srv/mendel/home-b")
    assert demo_mirror_port(other) == demo_mirror_port(other) != DEMO_MIRROR_PORT
    assert demo_mirror_port(other) != demo_mirror_port(another)
