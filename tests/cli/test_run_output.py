"""`mendel run`'s console: short lines, tracebacks in the log file, and one closing line with step, cause and advice;
the whole console of `mendel run` for a run whose database dies, one a blocking check stops and one refused."""

from __future__ import annotations

import dagster as dg
import psycopg
import pytest

from cli.run_output import failure_line, run_loggers, startup_failure_line
from mendel.core.db import ProcessingLocked
from mendel.core.run_guard import RUN_TOKEN_ENV


def run(assets, checks=(), log_file=None, tracebacks=False):
    job = dg.define_asset_job("nightly", selection=dg.AssetSelection.all())
    defs = dg.Definitions(
        assets=assets, asset_checks=list(checks), jobs=[job], loggers=run_loggers(log_file, tracebacks)
    )
    with dg.DagsterInstance.ephemeral() as instance:  # disposed: an undisposed one's SQLite is closed at exit first
        return defs.resolve_job_def("nightly").execute_in_process(
            run_config={"loggers": {"console": {"config": {"log_level": "INFO"}}}},
            raise_on_error=False,
            instance=instance,
        )


@dg.asset
def document_pages():
    try:
        raise psycopg.OperationalError("connection to server at 127.0.0.1, port 5432 failed: Connection refused")
    except psycopg.Error as exc:
        raise RuntimeError("the stage could not read its pending versions") from exc


@dg.asset(deps=[document_pages])
def document_chunks():
    return None


def test_a_dead_database_ends_in_one_line_naming_step_cause_and_advice(tmp_path, capsys):
    log = tmp_path / "run.log"
    result = run([document_pages, document_chunks], log_file=log)
    line = failure_line(result, log)
    assert line.startswith(
        "nightly FAILED at document_pages: PostgreSQL stopped answering (OperationalError: connection to server at"
        " 127.0.0.1"
    )
    assert "— start it again" in line and str(log) in line
    console = capsys.readouterr()
    assert "Stack Trace" not in console.out + console.err and "Traceback" not in console.out + console.err
    assert "Stack Trace" in log.read_text(encoding="utf-8")  # the whole error chain is in the log


def test_tracebacks_on_the_console_when_asked_for(tmp_path, capsys):
    run([document_pages, document_chunks], log_file=tmp_path / "run.log", tracebacks=True)
    assert "Stack Trace" in capsys.readouterr().err


@dg.asset
def legal_entities():
    return None


@dg.asset_check(asset=legal_entities, blocking=True)
def ner_gold_precision_recall():
    return dg.AssetCheckResult(passed=False, description="LAW_REF precision 0.81 < 0.95")


@dg.asset(deps=[legal_entities])
def bm25_index():
    return None


def test_a_failed_blocking_check_is_named_with_its_reason(tmp_path):
    result = run([legal_entities, bm25_index], checks=[ner_gold_precision_recall], log_file=tmp_path / "run.log")
    line = failure_line(result)
    assert "blocking check ner_gold_precision_recall failed: LAW_REF precision 0.81 < 0.95" in line
    assert "the previous bundle stays live" in line


@dg.asset
def first_stage():
    raise ProcessingLocked("another processing run holds this database: mendel run 1234 (server pid 7)")


@dg.asset
def second_stage():
    raise ProcessingLocked("another processing run holds this database: mendel run 1234 (server pid 7)")


def test_a_refused_run_says_why_once(tmp_path):
    result = run([first_stage, second_stage], log_file=tmp_path / "run.log")
    line = failure_line(result)
    assert line.startswith("nightly REFUSED: another processing run holds this database: mendel run 1234")
    assert line.count("another processing run") == 1


def test_a_failure_before_the_run_is_one_line_with_the_traceback_in_the_log(tmp_path):
    log = tmp_path / "logs" / "run.log"
    with pytest.raises(RuntimeError) as raised:
        try:
            raise psycopg.OperationalError("could not connect to server: No such file or directory")
        except psycopg.Error as exc:
            raise RuntimeError("migrations could not run") from exc
    line = startup_failure_line(raised.value, log)
    assert line.startswith(
        "nightly FAILED before it started: PostgreSQL stopped answering (OperationalError: could not connect to server"
    )
    assert "Traceback" in log.read_text(encoding="utf-8")


def test_the_log_file_is_written_again_after_its_handler_was_closed(tmp_path):
    # Dagster closes a run's log handlers when the run ends; a record that comes after must not crash the run
    log = tmp_path / "logs" / "run.log"
    logger = run_loggers(log)["console"].logger_fn(dg.build_init_logger_context(logger_config={"log_level": "INFO"}))
    logger.info("before the close")
    for handler in logger.handlers:
        handler.close()
    logger.info("after the close")
    lines = log.read_text(encoding="utf-8").splitlines()
    assert [line.rsplit(" - ", 1)[1] for line in lines] == ["before the close", "after the close"]


@dg.asset
def crawl_esbirka():
    return None


@dg.asset(deps=[crawl_esbirka])
def pages_while_the_database_dies():
    try:
        raise psycopg.errors.AdminShutdown("terminating connection due to administrator command")
    except psycopg.Error as exc:
        raise RuntimeError("the stage lost its connection") from exc


@dg.asset(deps=[pages_while_the_database_dies])
def chunks_after():
    return None


CONSOLE_CASES = {
    "database killed": (
        [crawl_esbirka, pages_while_the_database_dies, chunks_after],
        [],
        "nightly FAILED at pages_while_the_database_dies: PostgreSQL stopped answering (AdminShutdown: terminating"
        " connection due to administrator command) — start it again",
        "terminating connection",
    ),
    "blocking check": (
        [legal_entities, bm25_index],
        [ner_gold_precision_recall],
        "nightly FAILED at legal_entities_ner_gold_precision_recall: blocking check ner_gold_precision_recall failed:"
        " LAW_REF precision 0.81 < 0.95 — the night's data did not pass",
        "LAW_REF precision 0.81 < 0.95",
    ),
    "refused": (
        [first_stage, second_stage],
        [],
        "nightly REFUSED: another processing run holds this database: mendel run 1234 (server pid 7) — wait for that"
        " run to finish",
        "another processing run holds this database",
    ),
}


@pytest.mark.parametrize("case", CONSOLE_CASES)
def test_the_console_of_a_failed_run_ends_in_one_line(case, tmp_path, monkeypatch, capsys):
    import contextlib
    import types

    from cli import main

    assets, checks, last_line, reason = CONSOLE_CASES[case]
    monkeypatch.setenv(RUN_TOKEN_ENV, "console-test")  # as under a guarded run: no watcher of this test process
    monkeypatch.setenv("MENDEL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home" / "dagster_home"))
    monkeypatch.setattr(main, "demo_services", contextlib.nullcontext)  # no mirror, no database: the job fails alone

    def nightly(settings, log_file, tracebacks=False):
        job = dg.define_asset_job("nightly", selection=dg.AssetSelection.all())
        defs = dg.Definitions(assets=assets, asset_checks=checks, jobs=[job], loggers=run_loggers(log_file, tracebacks))
        with dg.DagsterInstance.get() as instance:
            return defs.resolve_job_def("nightly").execute_in_process(
                run_config={"loggers": {"console": {"config": {"log_level": "INFO"}}}},
                raise_on_error=False,
                instance=instance,
            )

    monkeypatch.setattr(main, "run_nightly", nightly)
    assert main.cmd_run(types.SimpleNamespace(traceback=False, query="q")) == 1
    console = capsys.readouterr()
    lines = console.out.strip().splitlines()
    assert lines[-1].startswith(last_line)
    both = console.out + console.err
    assert both.count(reason) == 1  # said once, in the closing line
    assert "Traceback" not in both and "Stack Trace" not in both
    [log] = (tmp_path / "home" / "logs").iterdir()
    assert reason in log.read_text(encoding="utf-8")  # the whole error, in the log file
