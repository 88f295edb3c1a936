"""Every 4xx/5xx answer of the API as an RFC 9457 problem (``application/problem+json``: type, title, status,
detail, and ``errors`` for a request that failed validation); none quotes more than a short prefix of what was
sent. The API's OpenAPI schema describes its validation answers as these problems."""

from __future__ import annotations

from http import HTTPStatus

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

PROBLEM_JSON = "application/problem+json"
MAX_LISTED_ERRORS = 10


class Problem(BaseModel):
    """RFC 9457 problem details."""

    type: str = "about:blank"
    title: str
    status: int
    detail: str | None = None
    errors: list[dict] | None = Field(default=None, description="validation errors: loc, msg, type (no input)")


PROBLEM = {
    "description": "problem details (RFC 9457)",
    "content": {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}},
}


def problem(status: int, detail: str | None = None, headers: dict | None = None, **extra) -> JSONResponse:
    body = {"type": "about:blank", "title": HTTPStatus(status).phrase, "status": status}
    if detail:
        body["detail"] = detail
    body.update(extra)
    return JSONResponse(body, status_code=status, media_type=PROBLEM_JSON, headers=headers)


def validation_problem(exc: RequestValidationError) -> JSONResponse:
    """422 listing what failed where, never the input itself (a 10k-character query is not sent back)."""
    errors = []
    for error in exc.errors()[:MAX_LISTED_ERRORS]:
        loc = [str(part) for part in error.get("loc", ())]
        errors.append({"loc": loc, "msg": str(error.get("msg", ""))[:200], "type": str(error.get("type", ""))})
    detail = "; ".join(f"{'.'.join(e['loc'][1:]) or '.'.join(e['loc'])}: {e['msg']}" for e in errors)
    return problem(422, detail or "invalid request", errors=errors)


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
