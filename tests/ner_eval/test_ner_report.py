"""`mendel eval ner` writes an HTML report: the per-label table and every error in its context."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mendel.ner.rules import LABELS, Entity
from ner_eval.gate import evaluate_gate
from ner_eval.report import write_html_report

MENDEL = [str(Path(sys.executable).parent / "mendel")]
TEXT = "Podle § 5 zákona č. 89/2012 Sb. <b>dne</b> 12. 3. 2019 zaplatí 1 500 Kč Nejvyššímu soudu."


def tiny_gold(tmp_path: Path) -> Path:
    def span(surface, label, norm):
        start = TEXT.index(surface)
        return {"start": start, "end": start + len(surface), "label": label, "text": surface, "norm": norm}

    record = {
        "id": "tiny-1",
        "source": "test/tiny",
        "text": TEXT,
        "entities": [
            span("§ 5 zákona č. 89/2012 Sb.", "LAW_REF", "89/2012 Sb. § 5"),
            span("12. 3. 2019", "DATE", "2019-03-12"),
            span("1 500 Kč", "MONEY", "1500 CZK"),
            span("Nejvyššímu soudu", "INSTITUTION", "Nejvyšší soud"),
        ],
    }
    path = tmp_path / "tiny.jsonl"
    path.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def predict(text):
    start = text.index("12. 3. 2019")
    return [
        Entity(8, 31, "LAW_REF", text[8:31], "89/2012 Sb. § 5"),  # the gold span minus "§ " -> FP and FN
        Entity(start, start + 11, "DATE", "12. 3. 2019", "2019-12-03"),  # exact span, wrong norm
        Entity(text.index("<b>"), text.index("</b>") + 4, "MONEY", "<b>dne</b>", "0 CZK"),  # spurious, needs escaping
    ]


def test_report_lists_errors_in_context(tmp_path):
    gold = tiny_gold(tmp_path)
    result = evaluate_gate(gold_path=gold, predict=predict)
    report = write_html_report(result, tmp_path / "out" / "report.html", gold)
    page = report.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "Gate FAILED" in page
    # one row per label with its counts
    for row in result.table:
        cells = re.search(rf"<tr[^>]*><td>{row['label']}</td><td>(\d+)</td><td>(\d+)</td>", page)
        assert cells and (int(cells.group(1)), int(cells.group(2))) == (row["gold"], row["predicted"])
    # the LAW_REF near miss: a false positive and a false negative, each marked inside its sentence
    assert re.search(r'id="LAW_REF-fp">False positives \(1\)', page)
    assert re.search(r'id="LAW_REF-fn">False negatives \(1\)', page)
    assert "Podle § <mark>5 zákona č. 89/2012 Sb.</mark> &lt;b&gt;dne" in page
    assert "Podle <mark>§ 5 zákona č. 89/2012 Sb.</mark>" in page
    # a wrong norm shows both norms; the spurious amount is escaped, never rendered as markup
    assert re.search(r'id="DATE-norm">Wrong norms \(1\)', page) and "2019-03-12" in page and "2019-12-03" in page
    assert "<mark>&lt;b&gt;dne&lt;/b&gt;</mark>" in page and "<b>dne</b>" not in page
    assert re.search(r'id="INSTITUTION-fn">False negatives \(1\)', page)
    assert "tiny-1" in page and "test/tiny" in page


@pytest.mark.slow
def test_cli_writes_the_report_next_to_the_table(tmp_path):
    target = tmp_path / "ner.html"
    env = dict(os.environ, MENDEL_HOME=str(tmp_path / "home"))
    out = subprocess.run(
        MENDEL + ["eval", "ner", "--json", "--html", str(target)], capture_output=True, text=True, env=env, timeout=300
    )
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    assert payload["html_report"] == str(target)
    page = target.read_text(encoding="utf-8")
    assert "Gate PASSED" in page
    for row in payload["labels"]:  # the report shows the numbers the JSON reports
        assert f"<td>{row['label']}</td><td>{row['gold']}</td><td>{row['predicted']}</td>" in page
        assert f"<td>{row['precision']:.3f}</td><td>{row['recall']:.3f}</td>" in page
    assert {row["label"] for row in payload["labels"]} == set(LABELS)
    # without --html the report goes under MENDEL_HOME
    out = subprocess.run(MENDEL + ["eval", "ner"], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    default = tmp_path / "home" / "reports" / "ner_eval.html"
    assert default.is_file() and str(default) in out.stderr
    assert "LAW_REF" in out.stdout and "gate PASSED" in out.stdout
