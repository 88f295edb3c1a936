"""Every 4xx/5xx answer of the API as an RFC 9457 problem (``application/problem+json``: type, title, status,
detail, and ``errors`` for a request that failed validation); none quotes more than a short prefix of what was
sent. Each kind of error has one status and a ``type`` that names it (``/problems/unknown-filter-value``), served
as a page that says what it means; the API's OpenAPI schema describes its error answers as these problems."""

from __future__ import annotations

import html
import logging
from dataclasses import dataclass
from http import HTTPStatus

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

log = logging.getLogger("mendel.serving.api")

PROBLEM_JSON = "application/problem+json"
MAX_LISTED_ERRORS = 10
MAX_LOGGED_PATH = 200
TYPE_PREFIX = "/problems/"


@dataclass(frozen=True)
class ProblemType:
    status: int
    title: str
    meaning: str


PROBLEM_TYPES: dict[str, ProblemType] = {
    "invalid-request": ProblemType(
        422,
        "The request's parameters are not valid",
        "A parameter is missing, empty or blank, too long, of the wrong type or holds a NUL character; "
        "errors lists each one (where and what), never the value sent.",
    ),
    "unknown-filter-value": ProblemType(
        400,
        "A filter names nothing this bundle can search",
        "A source, document kind, act or place that no document with passages of the live bundle has; "
        "/facets lists the values it knows.",
    ),
    "invalid-date-range": ProblemType(400, "The date range is empty", "date_from is after date_to."),
    "unknown-parameter": ProblemType(
        400,
        "A query parameter this endpoint does not take",
        'A parameter the endpoint would ignore ("kind" where it takes "doc_type"): answered anyway, the '
        "results would look filtered and not be. detail lists the parameters it takes; the OpenAPI schema too.",
    ),
    "rerank-unavailable": ProblemType(
        400,
        "No cross-encoder is configured",
        "rerank=true needs a local cross-encoder model directory in MENDEL_RERANK_MODEL.",
    ),
    "unknown-document": ProblemType(404, "No such document", "The live bundle has no document with this id."),
    "no-original": ProblemType(
        404, "The original is not stored", "The bundle names no stored original, or this server's raw store lacks it."
    ),
    "not-a-pdf": ProblemType(404, "The original has no pages", "The stored original is not a PDF."),
    "no-such-page": ProblemType(404, "No such page", "The document's PDF original has fewer pages."),
    "not-a-reference": ProblemType(
        400, "Not a legal reference", "ref names no act, provision, court file number or ECLI."
    ),
    "unknown-act": ProblemType(404, "No version of this act is stored", "The act is not in the database."),
    "not-found": ProblemType(404, "No such resource", "Nothing is served at this path."),
    "method-not-allowed": ProblemType(405, "Method not allowed", "The path is served, but not for this method."),
    "not-ready": ProblemType(
        503, "Search is not ready", "No bundle is loaded yet (none is published, or the published one fails to load)."
    ),
    "internal-error": ProblemType(500, "Internal server error", "The server failed; the log says why."),
    "http-error": ProblemType(400, "The request failed", "An HTTP error without a more specific type."),
}
BY_STATUS = {404: "not-found", 405: "method-not-allowed", 422: "invalid-request", 500: "internal-error"}


def known_parameters_only(request: Request) -> None:
    """A dependency of the API's endpoints: a query parameter the endpoint does not declare is an error
    (``unknown-parameter``), never silently ignored."""
    route = request.scope.get("route")
    dependant = getattr(route, "dependant", None)
    if dependant is None:
        return
    known = _query_parameters(dependant)
    unknown = sorted(set(request.query_params) - known)
    if unknown:
        named = ", ".join(name[:MAX_NAME_CHARS] for name in unknown[:MAX_NAMES])
        raise ProblemError(
            "unknown-parameter", f"{route.path} takes no {named}; it takes {', '.join(sorted(known)) or 'none'}"
        )


# the API's endpoints take these dependencies: a parameter they do not declare is a problem
KNOWN_PARAMETERS_ONLY = [Depends(known_parameters_only)]
# what an unknown-parameter problem quotes of the names sent
MAX_NAMES = 5
MAX_NAME_CHARS = 40


def _query_parameters(dependant) -> set[str]:
    names = {param.alias for param in dependant.query_params}
    for sub in dependant.dependencies:
        names |= _query_parameters(sub)
    return names


class ProblemError(HTTPException):
    """An error of a named kind (a key of ``PROBLEM_TYPES``), answered as its problem."""

    def __init__(self, kind: str, detail: str | None = None, headers: dict | None = None):
        super().__init__(PROBLEM_TYPES[kind].status, detail=detail, headers=headers)
        self.kind = kind


class Problem(BaseModel):
    """RFC 9457 problem details."""

    type: str = Field(description="the kind of error: /problems/{kind}, a page saying what it means")
    title: str
    status: int
    detail: str | None = None
    errors: list[dict] | None = Field(default=None, description="validation errors: loc, msg, type (no input)")


PROBLEM = {
    "description": "problem details (RFC 9457)",
    "content": {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}},
}


def problem(kind: str, detail: str | None = None, headers: dict | None = None, **extra) -> JSONResponse:
    known = PROBLEM_TYPES[kind]
    body = {"type": TYPE_PREFIX + kind, "title": known.title, "status": known.status}
    if detail:
        body["detail"] = detail
    body.update(extra)
    return JSONResponse(body, status_code=known.status, media_type=PROBLEM_JSON, headers=headers)


def validation_problem(exc: RequestValidationError) -> JSONResponse:
    """422 listing what failed where, never the input itself (a 10k-character query is not sent back)."""
    errors = []
    for error in exc.errors()[:MAX_LISTED_ERRORS]:
        loc = [str(part) for part in error.get("loc", ())]
        errors.append({"loc": loc, "msg": str(error.get("msg", ""))[:200], "type": str(error.get("type", ""))})
    detail = "; ".join(f"{'.'.join(e['loc'][1:]) or '.'.join(e['loc'])}: {e['msg']}" for e in errors)
    return problem("invalid-request", detail or "invalid request", errors=errors)


def answer_problems(app: FastAPI) -> None:
    """Every error of ``app`` as its problem, the problem types' pages, and the schema describing them."""

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError):
        return validation_problem(exc)

    @app.exception_handler(StarletteHTTPException)
    async def http_problem(request: Request, exc: StarletteHTTPException):
        kind = getattr(exc, "kind", None) or BY_STATUS.get(exc.status_code, "http-error")
        response = problem(kind, str(exc.detail) if exc.detail else None, headers=exc.headers)
        if kind == "http-error":
            response.status_code = exc.status_code
        return response

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception):
        log.exception("unhandled error on %s", request.url.path[:MAX_LOGGED_PATH])
        return problem("internal-error", "internal server error")

    @app.get(TYPE_PREFIX + "{kind}", response_class=HTMLResponse, include_in_schema=False)
    def problem_type(kind: str):
        known = PROBLEM_TYPES.get(kind)
        if known is None:
            raise ProblemError("not-found", "no such problem type")
        title, meaning = html.escape(known.title), html.escape(known.meaning)
        return HTMLResponse(
            f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title></head><body>'
            f"<h1>{title}</h1><p><code>{TYPE_PREFIX}{kind}</code>: HTTP {known.status} "
            f"{HTTPStatus(known.status).phrase}.</p><p>{meaning}</p></body></html>"
        )

    app.openapi = lambda: openapi_with_problems(app)


def openapi_with_problems(app: FastAPI) -> dict:
    """FastAPI's schema with its 422 answers described as what this app sends: problem details."""
    if app.openapi_schema is None:
        from fastapi.openapi.utils import get_openapi

        schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
        schema.setdefault("components", {}).setdefault("schemas", {})["Problem"] = Problem.model_json_schema()
        for operations in schema.get("paths", {}).values():
            for operation in operations.values():
                if "422" in operation.get("responses", {}):
                    operation["responses"]["422"] = PROBLEM
        for name in ("HTTPValidationError", "ValidationError"):
            schema["components"]["schemas"].pop(name, None)
        app.openapi_schema = schema
    return app.openapi_schema
