"""A crawl never downloads the Public Suffix List: Scrapy's cookie middleware asks tldextract, whose default is to
fetch the list from publicsuffix.org on first use and cache it under ~/.cache. Each test runs a crawl process
(its own interpreter, since tldextract fixes its settings at import) with every non-loopback connection refused
and recorded, and HOME pointed at an empty directory."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mendel.core.config import PROJECT_ROOT, SAMPLE_CORPUS
from mirror.courts import load_conco
from tests.support.crawl import crawl_runner

pytestmark = pytest.mark.e2e

# Installed before the crawl's own code runs: refuses and records any way out of this machine, then runs the
# module (``-m name``, as Dagster starts a crawl) or the code given.
OFFLINE_LAUNCHER = r"""
import json, os, runpy, socket, sys

RECORD = os.environ["OFFLINE_TEST_ATTEMPTS"]


def refuse(what):
    with open(RECORD, "a", encoding="utf-8") as out:
        out.write(json.dumps(str(what)) + "\n")
    raise OSError(f"offline test: network access refused: {what}")


def is_loopback(host):
    host = host.decode() if isinstance(host, bytes) else str(host)
    return host in ("localhost", "::1") or host.startswith("127.")


real_getaddrinfo = socket.getaddrinfo


def getaddrinfo(host, *args, **kwargs):
    if host is not None and not is_loopback(host):
        refuse(f"resolve {host}")
    return real_getaddrinfo(host, *args, **kwargs)


def guarded(real):
    def connect(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6) and not is_loopback(address[0]):
            refuse(f"connect {address[0]}")
        return real(self, address)
    return connect


socket.getaddrinfo = getaddrinfo
socket.socket.connect = guarded(socket.socket.connect)
socket.socket.connect_ex = guarded(socket.socket.connect_ex)

import requests.adapters  # tldextract fetches through requests: record the URL even if a proxy were loopback

real_send = requests.adapters.HTTPAdapter.send


def send(self, request, *args, **kwargs):
    with open(RECORD, "a", encoding="utf-8") as out:
        out.write(json.dumps(f"requests {request.url}") + "\n")
    return real_send(self, request, *args, **kwargs)


requests.adapters.HTTPAdapter.send = send

if sys.argv[1] == "-m":
    sys.argv = [sys.argv[2], *sys.argv[3:]]
    runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
else:
    exec(compile(sys.argv[1], "<offline test>", "exec"), {"__name__": "__main__"})
"""

# The lookups Scrapy's cookie middleware makes, through its public API: a cookie set for a registrable domain
# reaches that domain's other hosts only; one set for a public suffix (ICANN ``cz`` or the private ``github.io``,
# which only the Public Suffix List knows) is dropped.
COOKIE_LOOKUPS = r"""
import json
import crawlers.run  # what a crawl process imports first
from scrapy.downloadermiddlewares.cookies import CookiesMiddleware, _split_domain
from scrapy.http import Request, Response

middleware = CookiesMiddleware()
for origin, set_cookie in [("https://www.mesto.kadan.cz/deska", ["town=1; Domain=kadan.cz", "tld=1; Domain=cz"]),
                           ("https://obec-kadan.cz/", ["village=1"]),
                           ("https://user.github.io/", ["pages=1; Domain=github.io"])]:
    request = Request(origin)
    middleware.process_response(request, Response(origin, headers={"Set-Cookie": set_cookie}, request=request))


def sent(url):
    request = Request(url)
    middleware.process_request(request)
    return request.headers.get("Cookie", b"").decode()


print(json.dumps({
    "sent": {url: sent(url) for url in ["https://uredni-deska.kadan.cz/", "https://obec-kadan.cz/x",
                                        "https://example.cz/", "https://other.github.io/"]},
    "registrable": {host: _split_domain(host).top_domain_under_public_suffix
                    for host in ["www.mesto.kadan.cz", "obec-kadan.cz", "user.github.io", "praha.eu"]},
}))
"""


def offline_process(args: list[str], tmp_path: Path, env: dict | None = None, timeout: int = 120):
    """Run a Python process with the network refused and an empty HOME; returns (process, attempts, home)."""
    launcher = tmp_path / "offline_launcher.py"
    launcher.write_text(OFFLINE_LAUNCHER, encoding="utf-8")
    attempts = tmp_path / "network_attempts.jsonl"
    home = tmp_path / "user_home"
    home.mkdir()
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.upper().endswith("_PROXY") and not k.startswith("TLDEXTRACT_") and k != "XDG_CACHE_HOME"
    }
    proc = subprocess.run(
        [sys.executable, str(launcher), *args],
        env={**clean, **(env or {}), "HOME": str(home), "OFFLINE_TEST_ATTEMPTS": str(attempts)},
        capture_output=True,
        text=True,
        cwd=PROJECT_ROOT,
        timeout=timeout,
    )
    recorded = [json.loads(line) for line in attempts.read_text().splitlines()] if attempts.exists() else []
    return proc, recorded, home


def files_under(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


def test_cookie_domain_checks_use_the_bundled_suffix_list_without_fetching_or_caching(tmp_path):
    proc, attempts, home = offline_process([COOKIE_LOOKUPS], tmp_path)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert attempts == []  # no DNS lookup, connection or HTTP request at all
    assert "Public Suffix List" not in proc.stderr  # no "Exception reading Public Suffix List url" warning
    assert files_under(home) == []  # no ~/.cache/python-tldextract

    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["registrable"] == {
        "www.mesto.kadan.cz": "kadan.cz",
        "obec-kadan.cz": "obec-kadan.cz",
        "user.github.io": "user.github.io",
        "praha.eu": "praha.eu",
    }
    assert result["sent"] == {
        "https://uredni-deska.kadan.cz/": "town=1",
        "https://obec-kadan.cz/x": "village=1",
        "https://example.cz/": "",
        "https://other.github.io/": "",
    }


def test_nalus_crawl_keeps_its_session_cookie_with_no_suffix_list_fetch(tmp_path, fresh_db, mirror, monkeypatch):
    """The one spider with cookies on (the NALUS form search lives in an ASP.NET session), run as Dagster runs it."""
    crawl = crawl_runner(monkeypatch, tmp_path / "mendel_home", fresh_db, mirror.base_url)  # sets the MENDEL_* env
    newest = max(d.decided for d in load_conco(SAMPLE_CORPUS).constitutional.values())  # a few hits: one page
    before = len(mirror.request_log)
    proc, attempts, home = offline_process(
        ["-m", "crawlers.run", "nalus"],
        tmp_path,
        timeout=300,
        env={"MENDEL_RUN_ID": "psl-1", "MENDEL_NALUS_FROM": newest.isoformat()},
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert attempts == []
    assert "Public Suffix List" not in proc.stderr
    assert files_under(home) == []
    assert not [p for p in files_under(crawl.home) if "tldextract" in p]  # nor a cache in MENDEL_HOME

    counts = ast.literal_eval(proc.stdout.strip().splitlines()[-1])
    assert counts["finish_reason"] == "finished" and counts["stored"] >= 1, counts
    requests = [(method, path.split("?")[0], status) for method, path, status in mirror.request_log[before:]]
    # The results page answers only within the session, so the cookie set by the search page was kept and sent.
    assert ("POST", "/Search/Search.aspx", 302) in requests and ("GET", "/Search/Results.aspx", 200) in requests
    assert ("GET", "/Search/Results.aspx", 302) not in requests
