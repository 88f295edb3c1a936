"""`mendel` command line: run the nightly job, serve the mirror, and query what it built."""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path

from cli import boards as board_commands
from cli import law as law_commands
from cli import search as search_command
from cli.processes import call_as_group
from mendel.core.config import PROJECT_ROOT, SAMPLE_CORPUS, Settings, get_settings

DEMO_MIRROR_PORT = 8765
# Other homes (a copy measured beside the default one, a test's) get a port of their own, the same every night.
_HOME_PORTS = range(20000, 30000)


def demo_mirror_port(home: Path) -> int:
    """The mirror's port for a home: stored URLs carry it, so a port that changed between nights would mark every
    re-fetched document changed and re-index it."""
    if home == (PROJECT_ROOT / ".mendel").resolve():
        return DEMO_MIRROR_PORT
    digest = int.from_bytes(hashlib.sha256(str(home).encode()).digest()[:4], "big")
    return _HOME_PORTS.start + digest % len(_HOME_PORTS)


SAMPLE_QUERY = "Jaké podmínky musí splnit žadatel o podporu bydlení?"


def dagster_yaml_for(profile: str) -> Path:
    """The instance configuration of a profile: SQLite (embedded) by default, PostgreSQL in production."""
    if profile == "production":
        return PROJECT_ROOT / "deploy" / "production" / "dagster.yaml"
    return PROJECT_ROOT / "dagster.yaml"


def prepare_home(settings: Settings) -> None:
    """State directories, and DAGSTER_HOME holding the project's dagster.yaml."""
    for path in (settings.home, settings.raw_store, settings.build_dir, settings.bundles_dir, settings.dagster_home):
        path.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("DAGSTER_HOME", str(settings.dagster_home))
    target = Path(os.environ["DAGSTER_HOME"]) / "dagster.yaml"
    source = dagster_yaml_for(settings.profile)
    if not target.exists() or target.read_bytes() != source.read_bytes():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)


@contextlib.contextmanager
def demo_services(settings: Settings):
    """The local mirror (demo profile) and the embedded database, for as long as the command runs."""
    from mendel.core import db
    from mirror.server import MirrorThread

    with contextlib.ExitStack() as stack:
        if settings.profile != "production" and not settings.mirror_url:
            # A fixed port keeps URLs (and so conditional-request validators) stable between runs.
            port = demo_mirror_port(settings.home)
            try:
                mirror = stack.enter_context(MirrorThread(SAMPLE_CORPUS, port=port))
            except OSError:
                print(
                    f"mirror port {port} is taken: this night's documents carry other URLs and are re-indexed",
                    file=sys.stderr,
                )
                mirror = stack.enter_context(MirrorThread(SAMPLE_CORPUS, port=0))
            os.environ["MENDEL_MIRROR_URL"] = mirror.base_url
        if not settings.database_url:
            os.environ["MENDEL_DATABASE_URL"] = db.embedded_url(settings.pgdata)
        db.migrate(os.environ["MENDEL_DATABASE_URL"])
        yield get_settings()


def run_nightly(settings: Settings, log_file: Path | None = None, tracebacks: bool = False):
    """Materialise the nightly job in process; returns the Dagster result. With ``log_file``, the console shows a
    short line per event and the file holds the whole run."""
    from dagster import DagsterInstance

    from cli.run_output import run_loggers
    from orchestration.definitions import build_definitions

    loggers = run_loggers(log_file, tracebacks) if log_file else None
    job = build_definitions(loggers=loggers).resolve_job_def("nightly")
    run_config = {"loggers": {"console": {"config": {"log_level": os.environ.get("MENDEL_LOG_LEVEL", "INFO")}}}}
    sigterm = signal.getsignal(signal.SIGTERM)
    try:
        with DagsterInstance.get() as instance:  # disposed: its storage's connections close before the process ends
            return job.execute_in_process(
                run_config=run_config, instance=instance, raise_on_error=False, tags=workspace_run_tags()
            )
    finally:  # Dagster maps SIGTERM to SIGINT's handler for the run and leaves it so (ignored under nohup)
        signal.signal(signal.SIGTERM, sigterm)


def workspace_run_tags() -> dict[str, str]:
    """The tag by which the UI lists a job's runs (its repository in the workspace's code location): without it
    an in-process run shows in the run list but not under the ``nightly`` job."""
    from dagster._core.definitions.repository_definition.valid_definitions import SINGLETON_REPOSITORY_NAME
    from dagster._core.storage.tags import REPOSITORY_LABEL_TAG
    from dagster._core.workspace.load_target import WorkspaceFileTarget

    (origin,) = WorkspaceFileTarget(paths=[str(PROJECT_ROOT / "workspace.yaml")]).create_origins()
    return {REPOSITORY_LABEL_TAG: f"{SINGLETON_REPOSITORY_NAME}@{origin.location_name}"}


def summarize(result) -> dict:
    assets: dict[str, dict] = {}
    checks: dict[str, bool] = {}
    skipped: list[str] = []
    for event in result.all_events:
        if event.event_type_value == "ASSET_MATERIALIZATION":
            mat = event.event_specific_data.materialization
            assets[mat.asset_key.to_user_string()] = {
                k: v.value for k, v in mat.metadata.items() if not isinstance(v.value, (dict, list))
            }
        elif event.event_type_value == "ASSET_CHECK_EVALUATION":
            evaluation = event.event_specific_data
            checks[f"{evaluation.asset_key.to_user_string()}:{evaluation.check_name}"] = evaluation.passed
        elif event.event_type_value == "STEP_SKIPPED":
            skipped.append(event.step_key)
    # An asset whose step ran but chose not to materialize (the Neo4j export without a server) is skipped too.
    planned = {key.to_user_string() for key in result.job_def.asset_layer.executable_asset_keys}
    skipped = sorted(set(skipped) | (planned - set(assets) - set(failed_steps(result))))
    return {"success": result.success, "assets": assets, "checks": checks, "skipped": skipped}


def step_wall_times(instance, run_id: str) -> dict[str, float]:
    """Each step's wall time in seconds (the run's step stats in the instance), in the order the steps started."""
    stats = sorted(instance.get_run_step_stats(run_id), key=lambda s: s.start_time or 0)
    return {s.step_key: round(s.end_time - s.start_time, 1) for s in stats if s.start_time and s.end_time}


def failed_steps(result) -> list[str]:
    return [event.step_key for event in result.all_events if event.event_type_value == "STEP_FAILURE"]


def cmd_run(args) -> int:
    from mendel.core.run_guard import guard_run

    guard_run()  # whatever ends this run, nothing it started outlives it
    settings = get_settings()
    prepare_home(settings)
    started = time.monotonic()
    from cli.run_output import failure_line, run_log_path, startup_failure_line

    log_file = run_log_path(settings.home)
    try:
        with demo_services(settings) as live:
            result = run_nightly(live, log_file, tracebacks=args.traceback)
            summary = summarize(result)
            from dagster import DagsterInstance

            with DagsterInstance.get() as instance:
                summary["step_seconds"] = step_wall_times(instance, result.run_id)
    except Exception as exc:  # the services or the instance failed: no run to summarise
        if args.traceback:
            raise
        print(startup_failure_line(exc, log_file))
        return 1
    summary["wall_time_s"] = round(time.monotonic() - started, 1)
    print(f"nightly run {'succeeded' if summary['success'] else 'FAILED'} in {summary['wall_time_s']} s")
    for asset_key, metadata in summary["assets"].items():
        shown = ", ".join(f"{k}={v}" for k, v in metadata.items())
        print(f"  {asset_key:<20} {shown}")
    for check, passed in summary["checks"].items():
        print(f"  check {check}: {'PASSED' if passed else 'FAILED'}")
    if summary["skipped"]:
        print(f"  skipped: {', '.join(summary['skipped'])}")
    slowest = sorted(summary["step_seconds"].items(), key=lambda item: -item[1])
    print("  step wall times (s): " + ", ".join(f"{step}={seconds}" for step, seconds in slowest))
    if summary["success"]:
        print(f"\nsample query: {args.query}")
        from serving.ranking.search import Searcher

        for rank, hit in enumerate(Searcher.latest(live.bundles_dir).search(args.query, k=3), start=1):
            print(
                f"  {rank}. {hit.citation or hit.doc_id} — {hit.title[:70]}\n     page {hit.page}, {hit.section or '-'}: "
                f"{hit.text[:140].replace(chr(10), ' ')}…"
            )
    if not summary["success"]:
        print(failure_line(result, log_file))
    return 0 if summary["success"] else 1


def cmd_mirror(args) -> int:
    from mirror.server import serve_forever

    serve_forever(Path(args.corpus), args.host, args.port, faults=args.faults, scale=args.scale)
    return 0


def cmd_ner(args) -> int:
    from mendel.ner import recognise_text

    for line in sys.stdin:
        text = line.rstrip("\r\n")
        entities = [e.to_dict() for e in recognise_text(text)]
        sys.stdout.write(json.dumps({"entities": entities}, ensure_ascii=False) + "\n")
    sys.stdout.flush()
    return 0


def cmd_search(args) -> int:
    return search_command.run(args, get_settings())


def cmd_analyze(args) -> int:
    from mendel.index.bundle import BundleError
    from serving.query.analyze import analyze_query
    from serving.ranking.search import Searcher

    try:
        searcher = Searcher.latest(get_settings().bundles_dir)
    except BundleError:
        searcher = None  # references still work without a bundle
    analysis = analyze_query(args.query, searcher=searcher)
    if args.json:
        print(json.dumps(analysis, ensure_ascii=False))
    else:
        for ref in analysis["references"]:
            print(f"reference: {ref['act'] or '?'} {ref['provision'] or ''} ({ref['text']})")
        for act in analysis["acts"]:
            print(f"act: {act['citation']} {act['title'][:60]} score={act['score']}")
    return 0


def cmd_ui(args) -> int:
    settings = get_settings()
    prepare_home(settings)
    with demo_services(settings):
        command = [
            str(Path(sys.executable).parent / "dagster"),
            "dev",
            "-w",
            str(PROJECT_ROOT / "workspace.yaml"),
            "-h",
            "127.0.0.1",
            "-p",
            str(args.port),
        ]
        return call_as_group(command, cwd=PROJECT_ROOT)  # SIGTERM stops the webserver, daemon and code server


def cmd_eval_ner(args) -> int:
    from ner_eval.gate import evaluate_gate
    from ner_eval.report import write_html_report

    gate = evaluate_gate(gold_path=args.gold, thresholds_path=args.thresholds)
    report = write_html_report(gate, args.html or get_settings().home / "reports" / "ner_eval.html", args.gold)
    print(f"HTML report: {report}", file=sys.stderr)
    if args.json:
        print(
            json.dumps(
                {"passed": gate.passed, "failures": gate.failures, "labels": gate.table, "html_report": str(report)},
                ensure_ascii=False,
            )
        )
    else:
        columns = ["label", "gold", "predicted", "precision", "recall", "f1", "norm_accuracy", "passed"]
        print("  ".join(f"{c:>13}" for c in columns))
        for row in gate.table:
            print("  ".join(f"{str(row.get(c, '')):>13}" for c in columns))
        print("gate " + ("PASSED" if gate.passed else "FAILED: " + "; ".join(gate.failures)))
    return 0 if gate.passed else 1


def cmd_serve(args) -> int:
    from serving.web.server import serve

    settings = get_settings()
    query_log = None
    if not args.no_query_log:
        from mendel.core import db
        from serving.web.querylog import PostgresQueryLog

        query_log = PostgresQueryLog(db.ready_url(settings))
    serve(settings.bundles_dir, host=args.host, port=args.port, query_log=query_log)
    return 0


def cmd_eval_retrieval(args) -> int:
    from retrieval_eval.retrieval import main as evaluate_retrieval

    return evaluate_retrieval(args.rest)


def cmd_migrate(args) -> int:
    from mendel.core import db

    settings = get_settings()
    url = db.database_url(settings)
    applied = db.migrate(url)
    print("applied: " + (", ".join(applied) if applied else "nothing (schema is current)"))
    return 0


def cmd_doctor(args) -> int:
    from mendel.checks import doctor
    from mendel.core import db
    from mendel.core.rawstore import RawStore

    settings = get_settings()
    with db.connect(db.ready_url(settings)) as conn:
        report = doctor.examine(
            conn,
            RawStore(settings.raw_store),
            settings.bundles_dir,
            verify_hashes=not args.no_hashes,
            rehash=args.rehash,
        )
    print(json.dumps(report.as_dict(), ensure_ascii=False, indent=1) if args.json else report.format())
    return 0 if report.ok else 1


def cmd_status(args) -> int:
    from mendel.checks import stage_status
    from mendel.core import db

    settings = get_settings()
    with db.connect(db.ready_url(settings)) as conn:
        report = stage_status.status(conn, settings.bundles_dir)
    print(json.dumps(report, ensure_ascii=False, indent=1) if args.json else stage_status.format_status(report))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mendel", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="materialise the nightly job on the current profile and print a summary")
    run.add_argument("--query", default=SAMPLE_QUERY, help="sample query shown after the run")
    run.add_argument("--traceback", action="store_true", help="print tracebacks on the console too (always in the log)")
    run.set_defaults(func=cmd_run)
    mirror = sub.add_parser("mirror", help="serve the sample corpus under the real sites' URL layout")
    mirror.add_argument("--host", default="127.0.0.1")
    mirror.add_argument("--port", type=int, default=DEMO_MIRROR_PORT)
    mirror.add_argument("--corpus", default=str(SAMPLE_CORPUS))
    mirror.add_argument(
        "--scale",
        type=int,
        default=0,
        metavar="N",
        help="scale mode: also serve N generated notice boards on hosts of their own",
    )
    mirror.add_argument(
        "--faults",
        default=None,
        metavar="JSON|FILE",
        help="fault rules to inject (see mirror.faults); default: MENDEL_MIRROR_FAULTS",
    )
    mirror.set_defaults(func=cmd_mirror)
    sub.add_parser("ner", help="entities of each stdin line as one JSON object per line").set_defaults(func=cmd_ner)
    search = sub.add_parser("search", help="query the latest published bundle (through `mendel serve` when it runs)")
    search_command.add_arguments(search)
    search.set_defaults(func=cmd_search)
    analyze = sub.add_parser("analyze", help="references, acts and domains of a query")
    analyze.add_argument("query")
    analyze.add_argument("--json", action="store_true")
    analyze.set_defaults(func=cmd_analyze)
    api = sub.add_parser("serve", help="HTTP API over the latest bundle (FastAPI; /search /analyze /documents /docs)")
    api.add_argument("--host", default="127.0.0.1")
    api.add_argument("--port", type=int, default=8000)
    api.add_argument("--no-query-log", action="store_true", help="don't log queries to PostgreSQL")
    api.set_defaults(func=cmd_serve)
    ui = sub.add_parser("ui", help="start the Dagster UI on 127.0.0.1")
    ui.add_argument("--port", type=int, default=3000)
    ui.set_defaults(func=cmd_ui)
    evaluate = sub.add_parser("eval", help="evaluations").add_subparsers(dest="evaluation", required=True)
    eval_ner = evaluate.add_parser("ner", help="per-label precision/recall of the recogniser on the gold corpus")
    eval_ner.add_argument("--gold", default=None, help="gold JSONL (default: the bundled ner_eval gold)")
    eval_ner.add_argument("--thresholds", default=None, help="thresholds YAML (default: ner_eval/thresholds.yaml)")
    eval_ner.add_argument("--json", action="store_true")
    eval_ner.add_argument(
        "--html", default=None, help="where to write the HTML report (default: $MENDEL_HOME/reports/ner_eval.html)"
    )
    eval_ner.set_defaults(func=cmd_eval_ner)
    eval_retrieval = evaluate.add_parser(
        "retrieval", add_help=False, help="recall@k, MRR, nDCG per variant on a question set (see --help)"
    )
    eval_retrieval.set_defaults(func=cmd_eval_retrieval)
    sub.add_parser("migrate", help="apply database migrations").set_defaults(func=cmd_migrate)
    check = sub.add_parser("doctor", help="invariants of the database, raw store and live bundle (exit 1 on a problem)")
    check.add_argument("--no-hashes", action="store_true", help="check blob sizes, not their sha256 (faster)")
    check.add_argument(
        "--rehash",
        action="store_true",
        help="read every file again (a file whose size, times and inode are unchanged since it was "
        "hashed within the last 7-14 days is otherwise trusted)",
    )
    check.add_argument("--json", action="store_true")
    check.set_defaults(func=cmd_doctor)
    status = sub.add_parser("status", help="stage versions of the code, the live data and the live bundle")
    status.add_argument("--json", action="store_true")
    status.set_defaults(func=cmd_status)
    law_commands.add_parsers(sub)  # provision, cites
    board_commands.add_parsers(sub)  # boards build-list
    return parser


def main(argv: list[str] | None = None) -> int:
    args, rest = build_parser().parse_known_args(argv)
    if rest and getattr(args, "func", None) is not cmd_eval_retrieval:
        build_parser().parse_args(argv)  # reports the unknown arguments and exits
    args.rest = rest
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
