"""Secrets come only from the environment and never reach logs, asset metadata or run records.

The real nightly job (production-style resources: ``mendel_resource_from_env``) runs with recognisable secrets in
the environment: a database URL with a password, the e-Sbírka API key, the Neo4j password (a real ArcadeDB Bolt
server, whose root password it is) and an alert-webhook token. Each secret is shown to be used (the mirror sees the
API key header, the Neo4j export logs in, the webhook gets the alert) and then looked for in every event of the
run (log messages, metadata, failures), the run record and its job snapshot (what the Dagster UI shows), the
failure sensor's output, and everything the process and its crawler subprocess wrote to stdout/stderr.
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import psycopg.conninfo
import pytest
from dagster import DagsterInstance, EnvVar, build_run_status_sensor_context, job, op, serialize_value

from mendel.core import db
from mendel.core.config import SAMPLE_CORPUS
from mendel.encoder.runtime import CACHE_ENV, cache_dir
from mirror.server import MirrorThread
from tests.support.nightly import E2E_COURT_GOLD

pytest.importorskip("arcadedb_embedded", reason="the Bolt test server comes with the test extra")
from tests.support.bolt_server import PASSWORD as NEO4J_PASSWORD  # noqa: E402 - the server's root password

DB_PASSWORD = "pgSecret-7f3a9c1e"
API_KEY = "eselKey-4b8d2e6f"
HOOK_TOKEN = "hookToken-9e1c5a7b"
SECRETS = {
    "database password": DB_PASSWORD,
    "e-Sbírka API key": API_KEY,
    "Neo4j password": NEO4J_PASSWORD,
    "webhook token": HOOK_TOKEN,
}


class _Webhook(BaseHTTPRequestHandler):
    received: list[dict] = []

    def do_POST(self):
        _Webhook.received.append(
            {"path": self.path, "body": json.loads(self.rfile.read(int(self.headers["Content-Length"])))}
        )
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def webhook():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Webhook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _Webhook.received = []
    yield f"http://127.0.0.1:{server.server_address[1]}/hook?token={HOOK_TOKEN}"
    server.shutdown()


@pytest.fixture
def api_keys_seen():
    """A mirror that notes the e-Sbírka API key header of every request."""
    seen: list[str | None] = []
    with MirrorThread(SAMPLE_CORPUS) as mirror:
        route = mirror.server.route

        def noting(method, path, raw_path, query, headers, body):
            if path.startswith("/esel-esbir-daver"):
                seen.append(headers.get("esel-api-access-key"))
            return route(method, path, raw_path, query, headers, body)

        mirror.server.route = noting
        yield mirror, seen


def _leaks(text: str) -> list[str]:
    return [name for name, secret in SECRETS.items() if secret in text]


@pytest.mark.e2e
def test_secrets_stay_out_of_logs_metadata_and_run_records(
    tmp_path, monkeypatch, capfd, caplog, pg_server_url, bolt_server, api_keys_seen, webhook
):
    from assets.ops.sensors import alert_on_run_failure
    from orchestration.definitions import build_definitions
    from orchestration.resources import mendel_resource_from_env

    mirror, seen = api_keys_seen
    # The embedded server trusts local connections, so the password is carried along without being needed.
    plain_url = db.create_database(pg_server_url, f"secrets_{uuid.uuid4().hex[:10]}")
    secret_url = psycopg.conninfo.make_conninfo(plain_url, password=DB_PASSWORD)
    for name, value in {
        CACHE_ENV: str(cache_dir()),  # the session's converted encoder (not converted again into this home)
        "MENDEL_HOME": str(tmp_path / "home"),
        "MENDEL_PROFILE": "demo",
        "MENDEL_DATABASE_URL": secret_url,
        "MENDEL_MIRROR_URL": mirror.base_url,
        "MENDEL_SOURCES": "esbirka",
        "MENDEL_ESBIRKA_YEARS": "2025",
        "MENDEL_ESBIRKA_ACTS": "/sb/2025/573",
        "MENDEL_ESBIRKA_FRAGMENTS": "0",
        "ESBIRKA_API_KEY": API_KEY,
        "MENDEL_NEO4J_URL": bolt_server["url"],
        "MENDEL_NEO4J_USER": "root",
        "MENDEL_NEO4J_PASSWORD": NEO4J_PASSWORD,
        "MENDEL_ALERT_WEBHOOK_URL": webhook,
        "MENDEL_NER_COURT_GOLD": E2E_COURT_GOLD,  # 100 decisions: the gate scored as in every nightly test
    }.items():
        monkeypatch.setenv(name, value)

    resource = mendel_resource_from_env()
    assert isinstance(resource.database_url, EnvVar)  # a reference to the variable, not its value
    assert resource.ner_court_gold == E2E_COURT_GOLD
    caplog.set_level(logging.INFO)  # (DEBUG would add pdfminer's per-glyph log lines: slow, and no secret there)
    with DagsterInstance.ephemeral() as instance:
        result = (
            build_definitions().resolve_job_def("nightly").execute_in_process(instance=instance, raise_on_error=False)
        )
        assert result.success
        # Each secret was really used.
        # (the API calls carry it; the PDF download, a public file, goes without it)
        assert seen.count(API_KEY) >= 3 and set(seen) <= {API_KEY, None}
        exported = {
            e.event_specific_data.materialization.asset_key.to_user_string(): {
                k: v.value for k, v in e.event_specific_data.materialization.metadata.items()
            }
            for e in result.all_events
            if e.event_type_value == "ASSET_MATERIALIZATION"
        }
        assert exported["neo4j_graph"]["exported"] is True
        assert exported["esbirka_documents"]["stored"] == 1
        records = [serialize_value(entry) for entry in instance.all_logs(result.run_id)]
        run = instance.get_run_by_id(result.run_id)
        records += [
            serialize_value(run),
            serialize_value(instance.get_job_snapshot(run.job_snapshot_id)),
            serialize_value(instance.get_execution_plan_snapshot(run.execution_plan_snapshot_id)),
        ]
        # A failed run of the job the sensor watches: the alert goes to the webhook, logged without its token.
        failed = _failing_nightly().execute_in_process(instance=instance, raise_on_error=False)
        context = build_run_status_sensor_context(
            sensor_name="alert_on_run_failure",
            dagster_instance=instance,
            dagster_run=failed.dagster_run,
            dagster_event=failed.get_run_failure_event(),
        ).for_run_failure()
        alert_on_run_failure(context)
        records += [serialize_value(entry) for entry in instance.all_logs(failed.run_id)]
    assert [r["path"] for r in _Webhook.received] == [f"/hook?token={HOOK_TOKEN}"]
    assert _Webhook.received[0]["body"]["run_id"] == failed.run_id

    assert len(records) > 100  # the run's whole event log was read
    for record in records:
        assert _leaks(record) == [], record[:500]
    captured = capfd.readouterr()
    assert "esbirka_documents" in captured.out + captured.err  # the run's own output was captured
    assert _leaks(captured.out) == [] and _leaks(captured.err) == []
    assert _leaks("\n".join(r.getMessage() for r in caplog.records)) == []
    assert _leaks(repr(resource)) == [] and _leaks(str(resource.settings())) == []


def _failing_nightly():
    @op
    def crawl_step():
        raise RuntimeError("mirror unreachable")

    @job(name="nightly")
    def nightly():
        crawl_step()

    return nightly


def test_env_var_keeps_the_database_password_out_of_the_job_snapshot(monkeypatch):
    """What the UI shows of a job (its snapshot, with resource config defaults) holds a plain-string database URL
    verbatim; the EnvVar reference that mendel_resource_from_env uses leaves only the variable's name."""
    from orchestration.definitions import build_definitions
    from orchestration.resources import MendelResource, mendel_resource_from_env

    secret_url = f"host=/nonexistent dbname=mendel password={DB_PASSWORD}"
    monkeypatch.setenv("MENDEL_DATABASE_URL", secret_url)
    from_env = serialize_value(
        build_definitions(mendel=mendel_resource_from_env()).resolve_job_def("nightly").get_job_snapshot()
    )
    assert DB_PASSWORD not in from_env and "MENDEL_DATABASE_URL" in from_env
    plain = MendelResource(home="/nonexistent", database_url=secret_url)
    assert DB_PASSWORD in serialize_value(build_definitions(mendel=plain).resolve_job_def("nightly").get_job_snapshot())
