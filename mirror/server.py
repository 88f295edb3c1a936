"""Local mirror: serves the bundled sample corpus under each source's real URL layout, on one origin.

Sources are told apart by path (the real hosts' paths do not collide), so switching a crawl from the mirror to
production is a change of base URL; the Host header matters only for the made-up board hosts
``{name}.mirror.test``. Files are served byte for byte with a sha256 ETag, conditional requests get 304, and each
server can be given its own robots.txt and fault rules (:mod:`mirror.faults`). Sites and paths: docs/mirror.md.
"""

from __future__ import annotations

import argparse
import email.utils
import html
import os
import socket
import socketserver
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from .cnb import CnbSite
from .courts import NsoudSite
from .cuzk import CuzkSite
from .esbirka import API_PREFIX, EsbirkaSite, not_found_api
from .faults import Faults, configured_rules
from .faults import serve as serve_fault
from .justice import JusticeSite
from .municipal import MIRROR_HOST_SUFFIX, BoardHosts, MunicipalSite, request_host
from .municipal_sites import MunicipalWebsites
from .nalus import NalusSite
from .nkod import NkodSite
from .nssoud import NssoudSite
from .responses import FileDigests, Response, chyby_response, html_response, text_response

ROBOTS_TXT = (
    "# Mendel local mirror of the bundled sample corpus (real documents, real URL layout).\n"
    "# Everything may be crawled.\n"
    "User-agent: *\n"
    "Allow: /\n"
)
MAX_REQUEST_BODY = 1 << 20
ROBOTS_ENV = "MENDEL_MIRROR_ROBOTS_TXT"


def configured_robots_txt() -> str:
    """robots.txt from the file named by ``MENDEL_MIRROR_ROBOTS_TXT``, else the allow-all default."""
    path = os.environ.get(ROBOTS_ENV)
    return Path(path).read_text(encoding="utf-8") if path else ROBOTS_TXT


def default_corpus_root() -> Path:
    """``sample_corpus/`` next to the ``mendel`` package."""
    return Path(__file__).resolve().parents[1] / "sample_corpus"


class MirrorServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # scale mode: a crawler opens connections to many board hosts at once

    def __init__(
        self,
        server_address: tuple[str, int],
        corpus_root: Path,
        robots_txt: str | None = None,
        faults=None,
        scale: int = 0,
    ):
        self.corpus_root = Path(corpus_root).resolve()
        self.robots_txt = robots_txt if robots_txt is not None else configured_robots_txt()
        self.faults = Faults(faults if faults is not None else configured_rules())
        self.request_log: list[tuple[str, str, int]] = []
        self.digests = FileDigests()
        self.esbirka = EsbirkaSite(self.corpus_root, self.digests)
        # Scale mode (mirror.scale): `scale` generated notice boards, each on its own host name.
        from .scale import ScaleBoards

        self.scale = ScaleBoards(self.corpus_root, scale, self.digests) if scale else None
        self.board_hosts = BoardHosts(self.corpus_root, self.digests, self.scale)
        self.sites = [
            MunicipalWebsites(self.corpus_root),  # before the board hosts, which answer 404 for their other paths
            self.board_hosts,
            NkodSite(self.corpus_root, self.scale),
            self.esbirka,
            NsoudSite(self.corpus_root),
            MunicipalSite(self.corpus_root, self.digests),
            CuzkSite(self.corpus_root, self.digests),
            NalusSite(self.corpus_root),
            NssoudSite(self.corpus_root),
            CnbSite(self.corpus_root, self.digests),
            JusticeSite(self.corpus_root),
        ]
        super().__init__(server_address, MirrorRequestHandler)

    def handle_error(self, request, client_address) -> None:
        # A client dropping its connection (a crawler giving up on a slow or faulty answer) is not a mirror error.
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)

    def server_bind(self) -> None:
        # HTTPServer.server_bind would call socket.getfqdn(), which can stall on reverse DNS.
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name, self.server_port = host, port

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"

    def route(self, method: str, path: str, raw_path: str, query: str, headers, body: bytes) -> Response:
        if path == "/robots.txt" and method in ("GET", "HEAD"):
            return text_response(self.robots_txt)
        if path == "/" and method in ("GET", "HEAD") and not request_host(headers).endswith(MIRROR_HOST_SUFFIX):
            return self.index()
        for site in self.sites:
            response = site.handle(method, path, raw_path, query, headers, body)
            if response is not None:
                return response
        if path.startswith(API_PREFIX):
            return not_found_api(f"Cesta {path} nebyla nalezena.")
        return text_response("404 Not Found\n", status=404)

    def index(self) -> Response:
        acts = sorted(self.esbirka.acts.values(), key=lambda a: (a.year, a.number))
        rows = "\n".join(f"<li>{html.escape(a.citation)} {html.escape(a.name)}</li>" for a in acts)
        return html_response(
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="UTF-8"><title>Mendel mirror</title></head><body>\n'
            "<h1>Mendel local mirror</h1>\n<p>See <code>mirror/server.py</code> for the URL layout.</p>\n"
            f"<h2>e-Sbírka acts</h2>\n<ul>\n{rows}\n</ul>\n"
            '<p><a href="/assets/articles/">Obec Blešno documents</a> · '
            '<a href="/1ad1f16beff952576ae7ddd76a91e163">Kadaň notice board (OFN)</a> · '
            '<a href="/Judikatura/judikatura_ns.nsf/$$WebSearch1?SearchView&amp;Query=">Nejvyšší soud</a> · '
            '<a href="/vdp/ruian/vymennyformat/seznamlinku?vf.cr=U&amp;vf.up=OB&amp;vf.uo=A">RÚIAN VFR files</a> · '
            '<a href="/Search/Search.aspx">Ústavní soud (NALUS)</a> · '
            '<a href="/Home/Index?formular=4">Nejvyšší správní soud</a> · '
            '<a href="/cs/dohled-financni-trh/vykon-dohledu/dohledova-uredni-sdeleni-a-benchmarky/">ČNB</a> · '
            '<a href="/api/opendata/2025/09/16">Soudní rozhodnutí (otevřená data)</a></p>\n'
            "</body></html>\n"
        )


class MirrorRequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "MendelMirror/0.1"
    timeout = 30
    server: MirrorServer

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in separate writes; without this, Nagle + delayed ACK add ~40 ms a request.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_HEAD(self) -> None:
        self._dispatch("HEAD")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def _dispatch(self, method: str) -> None:
        split = urlsplit(self.path)
        raw_path = split.path or "/"
        path = unquote(raw_path)
        body = b""
        if method == "POST":
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_REQUEST_BODY:
                self._send(method, text_response("413 Payload Too Large\n", status=413))
                return
            body = self.rfile.read(length) if length > 0 else b""
        fault = self.server.faults.take(method, path, split.query)
        if fault is not None:
            serve_fault(
                fault,
                self,
                method,
                path,
                raw_path,
                split.query,
                lambda p, rp: self.server.route(method, p, rp, split.query, self.headers, body),
            )
            return
        try:
            response = self.server.route(method, path, raw_path, split.query, self.headers, body)
        except Exception as exc:  # a mirror bug must not kill the connection silently
            if path.startswith(API_PREFIX):
                response = chyby_response(500, "OBECNA_CHYBA", f"{type(exc).__name__}: {exc}")
            else:
                response = text_response(f"500 Internal Server Error\n{type(exc).__name__}: {exc}\n", status=500)
        self._send(method, response)

    def _not_modified(self, response: Response) -> bool:
        if_none_match = self.headers.get("If-None-Match")
        if if_none_match is not None:
            if response.etag is None:
                return False
            tags = [t.strip() for t in if_none_match.split(",")]
            return "*" in tags or any(t.removeprefix("W/") == response.etag for t in tags)
        if_modified_since = self.headers.get("If-Modified-Since")
        if if_modified_since and response.last_modified is not None:
            try:
                since = email.utils.parsedate_to_datetime(if_modified_since)
            except (TypeError, ValueError):
                return False
            if since is None:
                return False
            return int(response.last_modified) <= since.timestamp()
        return False

    def _send(self, method: str, response: Response) -> None:
        status = response.status
        if method in ("GET", "HEAD") and status == 200 and self._not_modified(response):
            status = 304
        self.send_response(status)
        if status != 304:
            self.send_header("Content-Type", response.content_type)
            self.send_header("Content-Length", str(len(response.body)))
        if response.etag:
            self.send_header("ETag", response.etag)
        if response.last_modified is not None:
            self.send_header("Last-Modified", email.utils.formatdate(response.last_modified, usegmt=True))
        for name, value in response.headers.items():
            self.send_header(name, value)
        self.end_headers()
        if method != "HEAD" and status != 304:
            self.wfile.write(response.body)

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        try:
            status = int(code)
        except (TypeError, ValueError):
            status = 0
        self.server.request_log.append((self.command or "", self.path or "", status))

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - keep stderr quiet
        pass


def make_server(
    corpus_root: Path,
    host: str = "127.0.0.1",
    port: int = 0,
    robots_txt: str | None = None,
    faults=None,
    scale: int = 0,
) -> ThreadingHTTPServer:
    return MirrorServer((host, port), corpus_root, robots_txt=robots_txt, faults=faults, scale=scale)


class MirrorThread:
    """Context manager running a mirror in a daemon thread: ``with MirrorThread(root) as m: m.base_url``."""

    def __init__(
        self,
        corpus_root: Path,
        host: str = "127.0.0.1",
        port: int = 0,
        robots_txt: str | None = None,
        faults=None,
        scale: int = 0,
    ):
        self.corpus_root = Path(corpus_root)
        self.scale = scale
        self.host = host
        self.port = port
        self.robots_txt = robots_txt
        self.faults = faults
        self.server: MirrorServer | None = None
        self.base_url: str = ""
        self._thread: threading.Thread | None = None

    @property
    def request_log(self) -> list[tuple[str, str, int]]:
        return self.server.request_log if self.server else []

    def start(self) -> "MirrorThread":
        if self.server is None:
            self.server = make_server(
                self.corpus_root, self.host, self.port, robots_txt=self.robots_txt, faults=self.faults, scale=self.scale
            )
            self.base_url = self.server.base_url
            self._thread = threading.Thread(
                target=self.server.serve_forever,
                kwargs={"poll_interval": 0.05},
                name=f"mendel-mirror-{self.server.server_address[1]}",
                daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        if self.server is None:
            return
        self.server.shutdown()
        self.server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.server = None
        self._thread = None

    def __enter__(self) -> "MirrorThread":
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()


def serve_forever(
    corpus_root: Path, host: str, port: int, robots_txt: str | None = None, faults=None, scale: int = 0
) -> None:
    """Run a mirror in the foreground (the ``mendel mirror`` command); prints its base URL first."""
    server = make_server(corpus_root, host, port, robots_txt=robots_txt, faults=faults, scale=scale)
    print(server.base_url, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve the sample corpus under the real sites' URL layout.")
    parser.add_argument("--corpus", type=Path, default=default_corpus_root())
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument(
        "--robots",
        type=Path,
        default=None,
        help=f"serve this file as /robots.txt (default: ${ROBOTS_ENV} or allow all)",
    )
    parser.add_argument(
        "--faults",
        default=None,
        help="fault rules, JSON text or a JSON file (default: $MENDEL_MIRROR_FAULTS or none); see mirror.faults",
    )
    parser.add_argument(
        "--scale", type=int, default=0, help="also serve this many generated notice boards (see mirror.scale)"
    )
    args = parser.parse_args(argv)
    robots = args.robots.read_text(encoding="utf-8") if args.robots else None
    serve_forever(args.corpus, args.host, args.port, robots_txt=robots, faults=args.faults, scale=args.scale)


if __name__ == "__main__":
    main()
