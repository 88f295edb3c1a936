"""`mendel search`: the API's search from the shell, with the API's hit schema and filters. A search goes to a running
server for the same bundle when there is one (``--api URL``, ``MENDEL_API_URL``, or ``mendel serve``'s default
address); otherwise, or with ``--local``, the bundle is loaded here. Either way the JSON is the /search body.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from datetime import date

DEFAULT_API_URL = "http://127.0.0.1:8000"
API_URL_ENV = "MENDEL_API_URL"
PROBE_TIMEOUT_S = 0.3
SEARCH_TIMEOUT_S = 60
EXCERPT_CHARS = 240


class SearchFailed(Exception):
    """A request the server or the bundle refused; ``status`` 2 for the caller's mistake, 1 otherwise."""

    def __init__(self, message: str, status: int = 2):
        super().__init__(message)
        self.status = status


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("query")
    parser.add_argument("-k", type=int, default=10, help="number of hits (1-100)")
    parser.add_argument("--json", action="store_true", help="print the /search response body")
    parser.add_argument(
        "--source",
        action="append",
        default=[],
        metavar="SOURCE",
        help="only this source (esbirka, nsoud, …; repeatable; see /facets)",
    )
    parser.add_argument(
        "--from", dest="date_from", type=date.fromisoformat, metavar="YYYY-MM-DD", help="published on or after"
    )
    parser.add_argument(
        "--to", dest="date_to", type=date.fromisoformat, metavar="YYYY-MM-DD", help="published on or before"
    )
    parser.add_argument("--act", help="act citation (175/2025 Sb.), ELI or file number")
    parser.add_argument(
        "--at", type=date.fromisoformat, metavar="YYYY-MM-DD", help="acts as in force on this date (default: today)"
    )
    parser.add_argument(
        "--version", choices=["promulgated"], help="acts in their promulgated text (the Sbírka PDF), whatever the date"
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--api",
        metavar="URL",
        help=f"search through this server (default: ${API_URL_ENV}, or "
        f"{DEFAULT_API_URL} when it serves the same bundle)",
    )
    where.add_argument("--local", action="store_true", help="load the bundle here even if a server runs")


def run(args, settings) -> int:
    if not args.query.strip():
        print(
            "mendel: the query is blank: say what to search for, e.g. mendel search 'podpora bydlení'", file=sys.stderr
        )
        return 2
    if not 1 <= args.k <= 100:
        print("mendel: -k must be between 1 and 100", file=sys.stderr)
        return 2
    try:
        payload, served_by = search(args, settings)
    except SearchFailed as exc:
        print(f"mendel: {exc}", file=sys.stderr)
        return exc.status
    if args.json:
        print(json.dumps(payload, ensure_ascii=False))
    else:
        print_text(payload, color=sys.stdout.isatty())
    print(f"({len(payload['results'])} hits, bundle {payload['bundle']}, answered by {served_by})", file=sys.stderr)
    return 0


def search(args, settings) -> tuple[dict, str]:
    """The /search payload and who answered ("bundle <path>" or the server's URL)."""
    if not args.local:
        explicit = args.api or os.environ.get(API_URL_ENV, "").strip()
        url = explicit or server_for(settings.bundles_dir)
        if url:
            try:
                return search_server(url, args), url
            except OSError as exc:  # refused, unreachable or timed out (URLError is an OSError)
                reason = getattr(exc, "reason", exc)
                if not explicit:
                    raise SearchFailed(f"the server at {url} stopped answering: {reason}", 1) from None
                print(f"mendel: no answer from {url} ({reason}); loading the bundle here", file=sys.stderr)
    return search_bundle(args, settings), f"bundle {settings.bundles_dir}"


def params_of(args) -> dict:
    params = {"q": args.query, "k": args.k, "source": args.source}
    for name in ("date_from", "date_to", "act", "at", "version"):
        if getattr(args, name):
            params[name] = str(getattr(args, name))
    return params


def server_for(bundles_dir) -> str | None:
    """``mendel serve``'s default address when it answers /ready quickly with this home's current bundle."""
    from mendel.index import bundle

    version = bundle.current_version(bundles_dir)
    if version is None:
        return None
    try:
        with urllib.request.urlopen(f"{DEFAULT_API_URL}/ready", timeout=PROBE_TIMEOUT_S) as response:
            ready = json.load(response)
    except (OSError, ValueError):
        return None
    return DEFAULT_API_URL if isinstance(ready, dict) and ready.get("version") == version else None


def search_server(base_url: str, args) -> dict:
    query = urllib.parse.urlencode(params_of(args), doseq=True)
    try:
        with urllib.request.urlopen(f"{base_url.rstrip('/')}/search?{query}", timeout=SEARCH_TIMEOUT_S) as response:
            return json.load(response)
    except urllib.error.HTTPError as exc:  # a problem+json body says why
        try:
            detail = json.load(exc).get("detail") or exc.reason
        except ValueError:
            detail = exc.reason
        raise SearchFailed(str(detail), 2 if 400 <= exc.code < 500 else 1) from None


def search_bundle(args, settings) -> dict:
    from mendel.index.bundle import BundleError
    from serving.ranking.backend import BackendError, open_searcher
    from serving.web.facets import FilterError, checked_filters
    from serving.web.results import run_search

    try:
        searcher = open_searcher(settings)  # MENDEL_SERVING_BACKEND: bundle (default) or postgres
    except (BundleError, BackendError) as exc:
        raise SearchFailed(str(exc)) from None
    try:
        filters = checked_filters(
            searcher, source=args.source, date_from=args.date_from, date_to=args.date_to, act=args.act
        )
    except FilterError as exc:
        raise SearchFailed(str(exc)) from None
    payload, _ = run_search(searcher, args.query, k=args.k, filters=filters, at=args.at, version=args.version)
    return payload


def print_text(payload: dict, color: bool = False) -> None:
    from serving.web.evidence import excerpt_window, segments

    mark_on, mark_off = ("\033[1;33m", "\033[0m") if color else ("[", "]")
    coverage = payload.get("coverage") or {}
    for item in coverage.get("missing", []):
        print(f"not in the collection: {item.get('message') or item.get('id')}")
    if not payload["results"]:
        print("nothing found")
    elif coverage.get("weak"):
        print("weak match: the hits answer the query only loosely, check them")
    if payload["results"]:  # how the search read the query, as the page says it
        if coverage.get("notice_kind"):
            print(f"read as a search for the boards' notices ({coverage['notice_kind']['label']}), not about the law")
        if coverage.get("place_notices_first"):
            print(
                f"the boards' documents of {', '.join(coverage['place_notices_first'])} first, before every other text"
            )
        if coverage.get("places_first"):
            print(f"the boards' documents of {', '.join(coverage['places_first'])} first")
        if coverage.get("years_first"):
            print(f"the boards' documents titled with {', '.join(coverage['years_first'])} first")
        if coverage.get("case_law"):
            print("asks for case law: the courts' decisions first")
    for rank, hit in enumerate(payload["results"], start=1):
        pages = f"p. {hit['page']}" + (f"-{hit['page_end']}" if hit["page_end"] != hit["page"] else "")
        where = " · ".join(x for x in (hit.get("citation") or hit["doc_id"], hit["source"], hit["section"], pages) if x)
        if hit.get("version_eli"):  # an act's passage: which version, valid when
            where += (
                f"\n    version {hit['version_eli']} ({hit.get('version_kind')}, "
                f"{hit.get('valid_from') or '?'} – {hit.get('valid_to') or '…'}; {hit.get('status')})"
            )
        spans = [tuple(s) for s in hit.get("highlights", [])]
        start, end = excerpt_window(hit["text"], spans, EXCERPT_CHARS)
        excerpt = "".join(
            f"{mark_on}{text}{mark_off}" if marked else text
            for text, marked in segments(hit["text"], spans, start, end)
        )
        excerpt = " ".join(excerpt.split())
        print(
            f"{rank:2}. [{hit['score']:.4f}] {hit['title']}\n    {where}\n    {hit['url']}\n"
            f"    {'… ' if start else ''}{excerpt}{' …' if end < len(hit['text']) else ''}"
        )
