"""The mirror's fault modes answered over real sockets, and the pieces the crawl uses to classify what went wrong
(retry waits, failure reasons, listing sync, the reconciliation query). The crawls through the faults are in
test_faults_crawl.py."""

from __future__ import annotations

import gzip
import hashlib
import http.client
import json
import socket
import zlib
from email.utils import formatdate

import psycopg
import pytest
from scrapy import Request
from scrapy.exceptions import DownloadTimeoutError, IgnoreRequest
from scrapy.http import HtmlResponse
from scrapy.spidermiddlewares.httperror import HttpError
from twisted.python.failure import Failure

from crawlers.middlewares import OffLimits, backoff_delay, retry_after_seconds
from crawlers.spiders.base import failure_outcome
from mendel.core.config import SAMPLE_CORPUS
from mendel.crawl import crawlstate
from mirror import faults as faults_mod
from mirror.faults import FaultRule, Faults, parse_rules
from mirror.server import MirrorThread, make_server

PDF_PATH = "/articles/kanalizace/assets/kanalizacni-rad.pdf"
PDF_BYTES = (SAMPLE_CORPUS / "municipal" / "blesno" / "text" / "kanalizace__kanalizacni-rad.pdf").read_bytes()
OTHER_PATH = "/articles/svoz-odpadu-2019/assets/svozovy-plan-pro-rok-2019.pdf"
OTHER_BYTES = (
    SAMPLE_CORPUS / "municipal" / "blesno" / "text" / "svoz-odpadu-2019__svozovy-plan-pro-rok-2019.pdf"
).read_bytes()
DECISION = "/Judikatura/judikatura_ns.nsf/WebSearch/0080C73B8514F9FBC1258C180052DBC5?openDocument"


@pytest.fixture(scope="module")
def faulty():
    with MirrorThread(SAMPLE_CORPUS, faults=[]) as running:
        yield running


def get(mirror, path: str, headers: dict | None = None):
    """(status, headers, body) through a fresh connection; redirects are not followed."""
    conn = http.client.HTTPConnection(mirror.server.server_address[0], mirror.server.server_address[1], timeout=10)
    try:
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def with_faults(mirror, rules):
    mirror.server.faults.replace(rules)
    return mirror.server.faults


def test_rules_are_validated_and_parsed(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="unknown fault kind"):
        FaultRule.from_dict({"kind": "explode", "path": "/x"})
    with pytest.raises(ValueError, match="takes no seconds"):
        FaultRule.from_dict({"kind": "reset", "path": "/x", "seconds": 1})
    with pytest.raises(ValueError, match="needs 'of'"):
        FaultRule.from_dict({"kind": "duplicate", "path": "/x"})
    with pytest.raises(ValueError, match="needs 'path'"):
        FaultRule.from_dict({"kind": "reset"})
    spec = [{"kind": "status", "path": "/a/*", "times": 2, "status": 502, "method": "get"}]
    rule = parse_rules(json.dumps(spec))[0]
    assert (rule.kind, rule.times, rule.method) == ("status", 2, "GET")
    assert rule.params == {"status": 502, "retry_after": None}
    path = tmp_path / "faults.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    assert parse_rules(str(path))[0].path == "/a/*"
    monkeypatch.setenv(faults_mod.FAULTS_ENV, str(path))
    server = make_server(SAMPLE_CORPUS)  # no explicit faults: the environment's
    try:
        assert [r.kind for r in server.faults.rules] == ["status"]
    finally:
        server.server_close()


def test_rules_match_by_path_query_and_count():
    rules = Faults(
        [{"kind": "status", "path": "/s", "query": "*Start=3*", "times": 1}, {"kind": "reset", "path": "/articles/*"}]
    )
    assert rules.take("GET", "/s", "a=1&Start=1") is None
    assert rules.take("GET", "/s", "a=1&Start=3&b").kind == "status"
    assert rules.take("GET", "/s", "a=1&Start=3&b") is None  # its one try is spent
    assert rules.take("GET", "/articles/x/assets/y.pdf").kind == "reset"
    assert rules.hits == [1, 1]
    rules.clear()
    assert not rules and rules.take("GET", "/articles/x") is None


def test_status_burst_then_normal(faulty):
    faults = with_faults(faulty, [{"kind": "status", "path": PDF_PATH, "times": 2, "status": 503, "retry_after": 7}])
    first, second, third = get(faulty, PDF_PATH), get(faulty, PDF_PATH), get(faulty, PDF_PATH)
    assert (first[0], first[1]["Retry-After"], second[0]) == (503, "7", 503)
    assert third[0] == 200 and third[2] == PDF_BYTES and faults.hits == [2]
    assert get(faulty, OTHER_PATH)[2] == OTHER_BYTES  # other paths are served normally


def test_reset_truncate_and_cut(faulty):
    with_faults(faulty, [{"kind": "reset", "path": PDF_PATH}, {"kind": "truncate", "path": OTHER_PATH, "keep": 1000}])
    with pytest.raises((ConnectionResetError, http.client.RemoteDisconnected)):
        get(faulty, PDF_PATH)
    with pytest.raises(http.client.IncompleteRead) as truncated:
        get(faulty, OTHER_PATH)
    assert truncated.value.partial == OTHER_BYTES[:1000] and truncated.value.expected == len(OTHER_BYTES) - 1000
    with_faults(faulty, [{"kind": "cut", "path": PDF_PATH, "keep": 0.25}])
    status, headers, body = get(faulty, PDF_PATH)
    assert status == 200 and body == PDF_BYTES[: len(PDF_BYTES) // 4]
    assert int(headers["Content-Length"]) == len(body)
    assert headers["ETag"] == f'"{hashlib.sha256(body).hexdigest()}"'


def test_transcode_duplicate_and_error_page(faulty):
    _, _, original = get(faulty, DECISION)
    with_faults(
        faulty,
        [
            {"kind": "transcode", "path": DECISION.split("?")[0], "encoding": "utf-16"},
            {"kind": "duplicate", "path": OTHER_PATH, "of": PDF_PATH},
            {"kind": "error_page", "path": "/articles/volby/assets"},
        ],
    )
    status, headers, body = get(faulty, DECISION)
    assert headers["Content-Type"] == "text/html; charset=utf-16" and body.startswith(b"\xff\xfe")
    assert body.decode("utf-16") == original.decode("utf-8").replace('charset="UTF-8"', 'charset="utf-16"', 1)
    assert get(faulty, OTHER_PATH)[2] == PDF_BYTES
    status, headers, body = get(faulty, "/articles/volby/assets?type=references")
    assert status == 200 and headers["Content-Type"].startswith("text/html") and b"<html" in body


def test_redirect_loop_keeps_the_query(faulty):
    with_faults(faulty, [{"kind": "redirect_loop", "path": "/articles/volby/assets"}])
    status, headers, _ = get(faulty, "/articles/volby/assets?type=references")
    assert status == 302 and headers["Location"] == "/articles/volby/assets?type=references&mendel-loop=1"
    status, headers, _ = get(faulty, headers["Location"])
    assert status == 302 and headers["Location"] == "/articles/volby/assets?type=references"


def test_gzip_bomb_and_oversize(faulty):
    with_faults(
        faulty,
        [
            {"kind": "gzip_bomb", "path": PDF_PATH, "size": 16 << 20},
            {"kind": "gzip_bomb", "path": OTHER_PATH, "size": 1 << 20, "as_file": True},
        ],
    )
    status, headers, body = get(faulty, PDF_PATH)
    assert headers["Content-Encoding"] == "gzip" and len(body) < 64 << 10
    inflater = zlib.decompressobj(31)
    assert len(inflater.decompress(body, 1 << 20)) == 1 << 20 and inflater.unconsumed_tail  # it goes on
    status, headers, body = get(faulty, OTHER_PATH)
    assert "Content-Encoding" not in headers and gzip.decompress(body) == bytes(1 << 20)
    with_faults(
        faulty,
        [
            {"kind": "oversize", "path": PDF_PATH, "size": 3 << 20},
            {"kind": "oversize", "path": OTHER_PATH, "size": 3 << 20, "declare_length": False},
        ],
    )
    status, headers, body = get(faulty, PDF_PATH)
    assert int(headers["Content-Length"]) == len(body) == 3 << 20 and body.startswith(PDF_BYTES)
    status, headers, body = get(faulty, OTHER_PATH)
    assert "Content-Length" not in headers and len(body) == 3 << 20


def test_slow_answers_wait(faulty):
    with_faults(faulty, [{"kind": "slow", "path": PDF_PATH, "seconds": 2}])
    host, port = faulty.server.server_address[:2]
    with socket.create_connection((host, port), timeout=0.5) as sock:
        sock.sendall(f"GET {PDF_PATH} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        with pytest.raises(socket.timeout):
            sock.recv(1)


# ---------------------------------------------------------------- the crawl side


def test_backoff_and_retry_after():
    assert [backoff_delay(n, 0.5, 10) for n in (1, 2, 3, 6)] == [0.5, 1.0, 2.0, 10]
    assert backoff_delay(1, 0.5, 10, retry_after=4) == 4 and backoff_delay(1, 0.5, 10, retry_after=99) == 10
    assert retry_after_seconds(b"120") == 120.0 and retry_after_seconds(None) is None
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0
    assert retry_after_seconds(formatdate(0, usegmt=True)) == 0.0 and retry_after_seconds("soon") is None


def failed(exc: Exception, **meta) -> Failure:
    failure = Failure(exc)
    failure.request = Request("http://mirror/x", meta=meta)
    return failure


def test_failures_are_classified_with_reasons():
    html = HtmlResponse("http://mirror/x", status=503, body=b"", request=Request("http://mirror/x"))
    assert failure_outcome(failed(HttpError(html), retry_times=2)) == ("quarantined", "HTTP 503 after 2 retries")
    assert failure_outcome(failed(IgnoreRequest("Forbidden by robots.txt"))) == ("disallowed", "robots.txt")
    assert failure_outcome(failed(OffLimits("host a.b is outside this source's allowlist"))) == (
        "disallowed",
        "host a.b is outside this source's allowlist",
    )
    assert failure_outcome(failed(IgnoreRequest("max redirections reached"), redirect_urls=["a", "b"])) == (
        "quarantined",
        "redirect loop: gave up after 2 redirects",
    )
    assert failure_outcome(failed(DownloadTimeoutError("took longer"), download_timeout=3.0, retry_times=1)) == (
        "quarantined",
        "timeout: no complete answer within 3.0 s after 1 retry",
    )
    assert failure_outcome(failed(ValueError("odd"))) == ("quarantined", "download failed: ValueError: odd")


def test_listing_sync_withdraws_only_from_complete_listings(fresh_db):
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        for doc in ("a", "b", "c"):
            crawlstate.record_document(
                conn,
                run_id="r1",
                source="municipal",
                doc_id=doc,
                url=f"http://m/{doc}",
                sha256=doc * 64,
                byte_size=1,
                content_type="text/plain",
                listing="feed",
            )
        crawlstate.record_document(
            conn,
            run_id="r1",
            source="municipal",
            doc_id="lone",
            url="http://m/lone",
            sha256="d" * 64,
            byte_size=1,
            content_type="text/plain",
        )
        # A partly read listing proves nothing missing.
        assert crawlstate.sync_listing(conn, source="municipal", listing="feed", doc_ids={"a"}, complete=False) == (
            [],
            [],
        )
        assert crawlstate.sync_listing(conn, source="municipal", listing="feed", doc_ids={"a"}) == (["b", "c"], [])
        assert crawlstate.sync_listing(conn, source="municipal", listing="feed", doc_ids=set()) == (["a"], [])
        assert crawlstate.sync_listing(conn, source="municipal", listing="feed", doc_ids={"b"}, complete=False) == (
            [],
            ["b"],
        )
        statuses = dict(conn.execute("SELECT doc_id, status FROM documents"))
        assert statuses == {"a": "withdrawn", "b": "active", "c": "withdrawn", "lone": "active"}
        crawlstate.log_outcome(
            conn, run_id="r1", source="municipal", url="http://m/x", outcome="quarantined", reason="HTTP 404"
        )
        crawlstate.log_outcome(
            conn, run_id="r2", source="municipal", url="http://m/x", outcome="quarantined", reason="HTTP 404"
        )
        with pytest.raises(ValueError, match="needs a reason"):
            crawlstate.log_outcome(conn, run_id="r1", source="municipal", url="http://m/y", outcome="quarantined")
        with pytest.raises(ValueError, match="unknown crawl outcome"):
            crawlstate.log_outcome(conn, run_id="r1", source="municipal", url="http://m/y", outcome="failed")
        # A link that stays broken is one quarantine record, and a crawl_log row per run.
        assert conn.execute("SELECT count(*) FROM quarantine WHERE url = 'http://m/x'").fetchone()[0] == 1
        assert crawlstate.run_counts(conn, "r1", "municipal")["discovered"] is None  # the spider never closed
        crawlstate.record_run(conn, run_id="r1", source="municipal", discovered=5)
        counts = crawlstate.run_counts(conn, "r1", "municipal")
        assert counts == {
            "discovered": 5,
            "stored": 4,
            "unchanged": 0,
            "quarantined": 1,
            "disallowed": 0,
            "withdrawn": 0,
            "reactivated": 0,
            "reconciled": True,
        }
        crawlstate.record_run(conn, run_id="r1", source="municipal", discovered=6)
        assert crawlstate.run_counts(conn, "r1", "municipal")["reconciled"] is False
