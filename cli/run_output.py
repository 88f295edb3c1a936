"""What `mendel run` prints: a short line per event worth reading on the console, every detail (tracebacks too) in
the run's log file, and one closing line that names the failed step, the cause and what to do."""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass
from pathlib import Path

import dagster as dg

CONSOLE_WIDTH = 160


def run_log_path(home: Path) -> Path:
    return home / "logs" / f"nightly-{time.strftime('%Y%m%dT%H%M%S')}.log"


def _error_text(record: logging.LogRecord) -> str:
    event = getattr(record, "dagster_meta", {}).get("dagster_event")
    data = getattr(event, "event_specific_data", None)
    error = getattr(data, "error", None)
    return error.to_string() if error is not None else ""


class _FileHandler(logging.FileHandler):
    """Every record in full, with the error's whole chain and traceback. Writing is left to ``FileHandler.emit``:
    it opens the file again when something closed the handler (Dagster closes a run's log handlers when the run
    ends, and a record may come after that)."""

    def format(self, record: logging.LogRecord) -> str:
        meta = getattr(record, "dagster_meta", {})
        step = meta.get("step_key") or "-"
        message = meta.get("orig_message", record.getMessage())
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(record.created))
        text = f"{stamp} {record.levelname} {step} - {message}"
        error = _error_text(record)
        if error:
            text += "\n" + error
        return text.rstrip("\n")


class _ConsoleHandler(logging.StreamHandler):
    """One line a record: time, step and the message's first line; tracebacks only when asked for."""

    def __init__(self, tracebacks: bool):
        super().__init__()
        self.tracebacks = tracebacks

    def emit(self, record: logging.LogRecord) -> None:
        meta = getattr(record, "dagster_meta", {})
        message = str(meta.get("orig_message", record.getMessage())).strip()
        first = message.splitlines()[0] if message else ""
        step = meta.get("step_key")
        line = f"{time.strftime('%H:%M:%S', time.localtime(record.created))} {step + ': ' if step else ''}{first}"
        if len(line) > CONSOLE_WIDTH:
            line = line[: CONSOLE_WIDTH - 1] + "…"
        error = _error_text(record) if self.tracebacks else ""
        self.stream.write(line + ("\n" + error.rstrip("\n") if error else "") + "\n")
        self.flush()


def run_loggers(log_file: Path, tracebacks: bool = False) -> dict[str, dg.LoggerDefinition]:
    """The run's ``console`` logger (its config: ``log_level``): short lines on stderr, the whole run in
    ``log_file``."""

    @dg.logger(config_schema={"log_level": dg.Field(str, is_required=False, default_value="INFO")})
    def console(init_context) -> logging.Logger:
        logger = logging.Logger("mendel.run", level=logging.DEBUG)
        console_handler = _ConsoleHandler(tracebacks)
        console_handler.setLevel(init_context.logger_config["log_level"].upper())
        log_file.parent.mkdir(parents=True, exist_ok=True)
        logger.addHandler(console_handler)
        logger.addHandler(_FileHandler(log_file, encoding="utf-8"))
        return logger

    return {"console": console}


@dataclass(frozen=True)
class Cause:
    step: str
    kind: str  # the root exception's class name, or "check" for a failed blocking check
    message: str


def _first_line(text: str) -> str:
    text = text.strip()
    return text.splitlines()[0] if text else ""


def _root(error) -> tuple[str, str]:
    while (error.cause or error.context) is not None:
        error = error.cause or error.context
    message = _first_line(error.message)
    message = re.sub(rf"^[\w.]*{re.escape(error.cls_name)}: ", "", message)
    return error.cls_name, message


def failure_causes(result) -> list[Cause]:
    """The failed steps in the order they failed, each with its root cause; a failed blocking check with the
    check's own description."""
    failed_checks = {}
    for event in result.all_events:
        if event.event_type_value == "ASSET_CHECK_EVALUATION" and not event.event_specific_data.passed:
            evaluation = event.event_specific_data
            reason = evaluation.description or ", ".join(
                f"{key}={getattr(value, 'value', value)}" for key, value in (evaluation.metadata or {}).items()
            )
            failed_checks[event.step_key] = (evaluation.check_name, reason)
    causes = []
    for event in result.all_events:
        if event.event_type_value != "STEP_FAILURE":
            continue
        error = event.event_specific_data.error
        if error is not None and error.cls_name == "DagsterAssetCheckFailedError" and event.step_key in failed_checks:
            name, reason = failed_checks[event.step_key]
            causes.append(Cause(event.step_key, "check", f"blocking check {name} failed: {reason}"))
        elif error is not None:
            causes.append(Cause(event.step_key, *_root(error)))
        else:
            causes.append(Cause(event.step_key, "Failure", "failed"))
    return causes


# The root causes that mean PostgreSQL stopped answering (psycopg's classes; DatabaseOutage is the crawl's), and
# the crawl subprocess's exit status when it stopped for that reason (mendel.crawl.outage.OUTAGE_EXIT_CODE).
DATABASE_GONE = frozenset(
    {"OperationalError", "InterfaceError", "AdminShutdown", "CrashShutdown", "ConnectionTimeout", "DatabaseOutage"}
)
_DATABASE_GONE_TEXT = re.compile(
    r"server closed the connection|terminating connection|connection refused|could not connect|"
    r"the connection is closed|failed with code 75\b",
    re.IGNORECASE,
)


def database_gone(cause: Cause) -> bool:
    return cause.kind in DATABASE_GONE or bool(_DATABASE_GONE_TEXT.search(cause.message))


# What to do, by the root cause's class or its message.
ADVICE = (
    (
        database_gone,
        "start it again (the embedded one starts with the next mendel command) and re-run",
    ),
    (lambda c: c.kind == "ProcessingLocked", "wait for that run to finish (or stop it), then re-run"),
    (
        lambda c: c.kind == "check",
        "the night's data did not pass — read the check in the Dagster UI or the log, fix the input or the "
        "thresholds, then re-run; the previous bundle stays live",
    ),
)


def _advice(cause: Cause) -> str:
    for matches, advice in ADVICE:
        if matches(cause):
            return advice
    return "see the log for the traceback, fix the cause and re-run"


def _said(cause: Cause) -> str:
    """The cause in words: a check's own reason, PostgreSQL named when it stopped answering, else class: message."""
    if cause.kind in ("check", "Failure"):
        return cause.message
    if database_gone(cause):
        return f"PostgreSQL stopped answering ({cause.kind}: {cause.message})"
    return f"{cause.kind}: {cause.message}"


def failure_line(result, log_file: Path | None = None) -> str:
    """One line for a failed run: the first failed step, its cause and what to do (a refusal said once)."""
    causes = failure_causes(result)
    where = f" (details: {log_file})" if log_file else ""
    if not causes:
        return f"nightly FAILED: the run failed before any step ran{where}"
    first = causes[0]
    if first.kind == "ProcessingLocked":
        return f"nightly REFUSED: {first.message} — {_advice(first)}"
    others = sorted({c.step for c in causes[1:] if c.message != first.message})
    also = f"; also failed: {', '.join(others)}" if others else ""
    return f"nightly FAILED at {first.step}: {_said(first)} — {_advice(first)}{also}{where}"


def startup_failure_line(exc: BaseException, log_file: Path) -> str:
    """One line for a run that failed before its job started (services, migrations); the traceback goes to
    ``log_file``."""
    import traceback

    log_file.parent.mkdir(parents=True, exist_ok=True)
    with log_file.open("a", encoding="utf-8") as log:
        log.write("".join(traceback.format_exception(exc)))
    root = exc
    while (root.__cause__ or root.__context__) is not None:
        root = root.__cause__ or root.__context__
    cause = Cause("start", type(root).__name__, _first_line(str(root)))
    if cause.kind == "ProcessingLocked":
        return f"nightly REFUSED: {cause.message} — {_advice(cause)}"
    return f"nightly FAILED before it started: {_said(cause)} — {_advice(cause)} (details: {log_file})"
