"""The official e-Sbírka API definition (``sample_corpus/esbirka/api/openapi.json``, OpenAPI 3.0) as validators,
with jsonschema (its 2020-12 validator resolving the definition's references): a response body against its operation's schema, with no field the definition does
not define (every object closed with ``unevaluatedProperties: false``, which sees through ``allOf``), and a request
as one of its operations with valid parameters."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date, datetime
from functools import cache
from urllib.parse import parse_qs, unquote, urlsplit

import jsonschema

from mendel.core.config import SAMPLE_CORPUS

DEFINITION = SAMPLE_CORPUS / "esbirka" / "api" / "openapi.json"
SERVER = "/esel-esbir-daver"  # the definition's server path
API_KEY_HEADER = "esel-api-access-key"  # its ApiKey security scheme
_REF = "#/components/schemas/"
_FORMATS = jsonschema.FormatChecker()


@_FORMATS.checks("date-time", raises=ValueError)
def _date_time(value) -> bool:
    return not isinstance(value, str) or bool(datetime.fromisoformat(value.replace("Z", "+00:00")))


@_FORMATS.checks("date", raises=ValueError)
def _date(value) -> bool:
    return not isinstance(value, str) or bool(date.fromisoformat(value))


def _closed(schema, in_all_of: bool = False):
    """The schema in JSON Schema 2020-12 with every object closed where it is used whole; a member of an ``allOf``
    stays open (the object around it closes over all of its members)."""
    if isinstance(schema, list):
        return [_closed(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "$ref" and isinstance(value, str) and value.startswith(_REF):
            name = value[len(_REF) :]
            out[key] = f"#/$defs/{name}" if in_all_of else f"#/$defs/{name}.closed"
        elif key == "allOf":
            out[key] = [_closed(member, in_all_of=True) for member in value]
        elif key in ("properties",):
            out[key] = {name: _closed(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties"):
            out[key] = _closed(value)
        else:
            out[key] = value
    if not in_all_of and ("properties" in schema or "allOf" in schema):
        out["unevaluatedProperties"] = False
    return out


def _is_object(schema: dict) -> bool:
    return schema.get("type") == "object" or "properties" in schema or "allOf" in schema


@dataclass(frozen=True)
class Operation:
    method: str
    template: str
    spec: dict

    @property
    def operation_id(self) -> str:
        return self.spec["operationId"]


class EsbirkaDefinition:
    def __init__(self, definition: dict):
        self.definition = definition
        defs = {}
        for name, schema in definition["components"]["schemas"].items():
            defs[name] = _closed(schema, in_all_of=True)
            # used whole: closed (an object) or as it is (an enum, a string)
            defs[f"{name}.closed"] = (
                {"$ref": f"#/$defs/{name}", "unevaluatedProperties": False} if _is_object(schema) else defs[name]
            )
        self.root = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs}
        self.operations = [
            Operation(method.upper(), template, spec)
            for template, item in definition["paths"].items()
            for method, spec in item.items()
            if method in ("get", "post", "put", "delete", "patch")
        ]
        # a concrete path before a templated one (/dokumenty-sbirky/zmeny-zneni before /dokumenty-sbirky/{staleUrl})
        self.operations.sort(key=lambda op: (op.template.count("{"), op.template))

    def validator(self, schema: dict) -> jsonschema.Draft202012Validator:
        """A validator of one schema of the definition (a parameter's, a body's), closed as above."""
        rooted = {"$schema": self.root["$schema"], **_closed(schema), "$defs": self.root["$defs"]}
        return jsonschema.Draft202012Validator(rooted, format_checker=_FORMATS)

    # ---------------------------------------------------------------- requests

    def match(self, method: str, url: str) -> tuple[Operation, dict[str, str]]:
        """The operation a request is, with its raw path parameters; AssertionError when it is none."""
        path = urlsplit(url).path
        assert path.startswith(SERVER + "/"), f"{url}: not under the server path {SERVER}"
        path = path[len(SERVER) :]
        for operation in self.operations:
            if operation.method != method.upper():
                continue
            pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(operation.template))
            found = re.fullmatch(pattern, path)
            if found:
                return operation, found.groupdict()
        raise AssertionError(f"{method} {url}: no operation of the definition")

    def check_request(self, method: str, url: str, body: bytes | None = None, headers: dict | None = None) -> str:
        """Raise when the request is not a valid operation of the definition; its operationId when it is."""
        operation, path_values = self.match(method, url)
        parameters = {(p["in"], p["name"]): p for p in operation.spec.get("parameters", [])}
        query = parse_qs(urlsplit(url).query, keep_blank_values=True)
        for name in query:
            assert ("query", name) in parameters, f"{url}: {operation.operation_id} has no query parameter {name}"
        for (where, name), parameter in parameters.items():
            if where == "path":
                values = [unquote(path_values[name])]
            elif where == "query":
                values = query.get(name, [])
            else:
                continue
            if not values:
                assert not parameter.get("required"), f"{url}: {name} is required"
                continue
            schema = parameter["schema"]
            value = values if schema.get("type") == "array" else values[0]
            self._check_value(schema, _typed(self._resolved(schema), value), f"{url}: parameter {name}")
        request_body = operation.spec.get("requestBody")
        if request_body is None:
            assert not body, f"{url}: {operation.operation_id} takes no body"
        elif body:
            schema = request_body["content"]["application/json"]["schema"]
            self._check_value(schema, json.loads(body), f"{url}: body")
        else:
            assert not request_body.get("required"), f"{url}: body required"
        if headers is not None:
            assert API_KEY_HEADER in {k.lower() for k in headers}, f"{url}: no {API_KEY_HEADER} header"
        return operation.operation_id

    def _resolved(self, schema: dict) -> dict:
        ref = schema.get("$ref")
        return self.definition["components"]["schemas"][ref[len(_REF) :]] if ref else schema

    def _check_value(self, schema: dict, value, where: str) -> None:
        errors = sorted(self.validator(schema).iter_errors(value), key=str)
        assert not errors, f"{where}: {errors[0].message}"

    # ---------------------------------------------------------------- responses

    def check_response(self, method: str, url: str, status: int, body: bytes, content_type: str = "") -> str:
        """Raise when the response body is not what the definition says the operation answers with this status."""
        operation, _ = self.match(method, url)
        responses = operation.spec["responses"]
        spec = responses.get(str(status)) or responses.get("default")
        assert spec is not None, f"{url}: {operation.operation_id} has no response {status}"
        content = spec.get("content") or {}
        if "application/json" not in content:
            return operation.operation_id  # a file ("*/*": binary)
        assert content_type.split(";")[0].strip() == "application/json", f"{url}: answered {content_type}"
        self._check_value(content["application/json"]["schema"], json.loads(body), f"{url} ({status})")
        return operation.operation_id


def _typed(schema: dict, value):
    """A parameter's text as the type its schema names (what a server deserialises)."""
    kind = schema.get("type")
    if isinstance(value, list):
        items = schema.get("items", {})
        return [_typed(items, v) for v in value]
    if kind == "integer" and re.fullmatch(r"-?\d+", value):
        return int(value)
    return value


@cache
def definition() -> EsbirkaDefinition:
    return EsbirkaDefinition(json.loads(DEFINITION.read_text(encoding="utf-8")))
