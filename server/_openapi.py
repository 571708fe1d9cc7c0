"""The OpenAPI 3.1 document: every route, body and error of the service (the contract)."""

from __future__ import annotations

import json
from typing import Any

from toolwire.convert import WIRES

__all__ = ["openapi_document"]

_REF = "#/components/schemas/"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": _REF + name}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _errors(*statuses: int) -> dict[str, Any]:
    return {str(s): {"$ref": f"#/components/responses/E{s}"} for s in statuses}


#: the ``raw_bytes`` field of the format routes: only false (a JSON answer holds no bytes)
_RAW_BYTES: dict[str, Any] = {
    "type": "boolean",
    "enum": [False],
    "description": "Refused when true: JSON holds payloads as base64 strings (the Bedrock "
    "HTTP API's form); bytes for boto3 come from the Python library.",
}
#: the ``already_sent`` field of the format routes: what the rest of the request holds
_ALREADY_SENT: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        key: {"type": "integer", "minimum": 0} for key in ("images", "pdf_pages", "pdf_bytes")
    },
    "description": "The images, PDF pages and PDF bytes the rest of the request already "
    "holds, counted against the engine's request limits (docs/limits.md).",
}
_SCHEMAS: dict[str, Any] = {
    "Error": {
        "type": "object",
        "required": ["error"],
        "additionalProperties": False,
        "properties": {
            "error": {
                "type": "object",
                "required": ["type", "message"],
                "additionalProperties": False,
                "properties": {
                    "type": {
                        "type": "string",
                        "description": "The error's name, e.g. UnknownEngine, InvalidId.",
                    },
                    "message": {"type": "string", "description": "One line saying what to fix."},
                },
            }
        },
    },
    "Wire": {"type": "string", "enum": list(WIRES)},
    "CallToolResult": {
        "type": "object",
        "description": "An MCP CallToolResult (camelCase JSON) with the call id and tool name "
        'beside its content, or {"id", "name", "result": CallToolResult}.',
        "properties": {
            "id": {"type": "string", "description": "The provider's call id."},
            "name": {"type": "string", "description": "The tool's name."},
            "content": {"type": "array", "items": {"type": "object"}},
            "structuredContent": {},
            "isError": {"type": "boolean"},
            "result": {"type": "object", "description": "The CallToolResult, when wrapped."},
        },
    },
    "Results": {"type": "array", "minItems": 1, "items": _ref("CallToolResult")},
    "Options": {
        "type": "object",
        "description": "Converter options (toolwire.convert.OPTIONS), those the wire reads; "
        "raw_bytes is refused (a JSON answer holds payloads as base64).",
        "additionalProperties": True,
    },
    "IdMapping": {
        "type": "object",
        "description": "The ids and tool names mapped to ones the engine accepts: "
        "{ORIGINAL: SENT}.",
        "required": ["ids", "names"],
        "properties": {
            "ids": {"type": "object", "additionalProperties": {"type": "string"}},
            "names": {"type": "object", "additionalProperties": {"type": "string"}},
        },
    },
    "Decision": {
        "type": "object",
        "description": "What one content item became and why (toolwire.convert.Decision).",
        "required": ["index", "type", "outcome"],
        "properties": {
            "index": {"type": "integer"},
            "type": {"type": "string"},
            "mime": {"type": ["string", "null"]},
            "size": {"type": ["integer", "null"]},
            "outcome": {"type": "string"},
            "reason": {"type": ["string", "null"]},
        },
    },
    "Formatted": {
        "type": "object",
        "required": ["wire", "messages", "report"],
        "properties": {
            "wire": _ref("Wire"),
            "messages": {
                "type": "array",
                "description": "The messages (or items) to append after the assistant turn.",
            },
            "report": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["result", "id", "name", "items"],
                    "properties": {
                        "result": {"type": "integer"},
                        "id": {"type": "string"},
                        "name": {"type": "string"},
                        "items": {"type": "array", "items": _ref("Decision")},
                    },
                },
            },
            "ids": _ref("IdMapping"),
        },
    },
    "FormatRequest": {
        "type": "object",
        "required": ["engine", "model", "results"],
        "properties": {
            "engine": {"type": "string", "minLength": 1},
            "model": {"type": "string", "minLength": 1},
            "results": _ref("Results"),
            "ids": {
                "type": "boolean",
                "description": "Map call ids and tool names the engine refuses (IdMap).",
            },
            "raw_bytes": _RAW_BYTES,
            "already_sent": _ALREADY_SENT,
        },
    },
    "ReformatRequest": {
        "type": "object",
        "required": ["engine", "model", "source_wire", "blocks"],
        "properties": {
            "engine": {"type": "string", "minLength": 1},
            "model": {"type": "string", "minLength": 1},
            "source_wire": {"type": "string", "minLength": 1},
            "blocks": {"type": "array", "minItems": 1, "description": "Tool-result blocks."},
            "names": {"type": "object", "additionalProperties": {"type": "string"}},
            "ids": {"type": "boolean"},
            "raw_bytes": _RAW_BYTES,
            "already_sent": _ALREADY_SENT,
        },
    },
    "ConvertRequest": {
        "type": "object",
        "required": ["target_wire"],
        "description": "Either results, or source_wire and blocks.",
        "properties": {
            "target_wire": {"type": "string", "minLength": 1},
            "results": _ref("Results"),
            "source_wire": {"type": "string", "minLength": 1},
            "blocks": {"type": "array", "minItems": 1},
            "names": {"type": "object", "additionalProperties": {"type": "string"}},
            "options": _ref("Options"),
        },
    },
    "Converted": {
        "type": "object",
        "required": ["wire", "messages"],
        "properties": {"wire": _ref("Wire"), "messages": {"type": "array"}},
    },
    "Capability": {
        "type": "object",
        "required": ["value", "decided_by", "status", "source", "verified_at", "stale_after"],
        "properties": {
            "value": {"type": "boolean"},
            "claimed": {"type": ["boolean", "null"]},
            "decided_by": {"type": "string"},
            "status": {"type": ["string", "null"]},
            "source": {"type": ["string", "null"]},
            "verified_at": {"type": ["string", "null"], "format": "date"},
            "stale_after": {"type": ["string", "null"], "format": "date"},
            "stale": {
                "type": ["string", "null"],
                "description": "Why the deciding claim is stale today (null: fresh).",
            },
            "evidence": {"type": ["string", "null"]},
            "cleared_by": {"type": ["string", "null"]},
        },
    },
    "Resolved": {
        "type": "object",
        "required": ["engine", "model", "wire", "options", "capabilities", "explanation"],
        "properties": {
            "engine": {"type": "string"},
            "model": {"type": "string"},
            "revision": {"type": "integer"},
            "wire": _ref("Wire"),
            "wire_from": {"type": "string"},
            "id_rule": {"type": ["string", "null"]},
            "options": _ref("Options"),
            "native_forms": {"type": "object", "additionalProperties": {"type": "string"}},
            "capabilities": {"type": "object", "additionalProperties": _ref("Capability")},
            "limits": {
                "type": "object",
                "description": "The limits the claims decide (docs/limits-data.md): a whole "
                "number, or a list of MIME types; an absent one is the wire's default.",
                "additionalProperties": {
                    "oneOf": [
                        {"type": "integer", "minimum": 1},
                        {"type": "array", "items": {"type": "string"}},
                    ]
                },
            },
            "explain": {
                "type": "object",
                "description": "The sections resolve --explain adds: {title: {name: text}}.",
                "additionalProperties": {
                    "type": "object",
                    "additionalProperties": {"type": "string"},
                },
            },
            "explanation": {"type": "string", "description": "The text resolve --explain prints."},
        },
    },
    "Snapshot": {
        "type": "object",
        "description": "The registry snapshot; its full JSON Schema is GET /v1/snapshot/schema.",
        "required": ["schema_version", "revision", "changed_at", "evidence_policy", "engines"],
        "properties": {
            "schema_version": {"type": "integer"},
            "revision": {"type": "integer"},
            "changed_at": {"type": ["string", "null"]},
            "evidence_policy": {"type": "object"},
            "engines": {"type": "object"},
        },
    },
}

_RESPONSES = {
    f"E{status}": _json(_ref("Error"), text)
    for status, text in {
        400: "The body is not JSON, not of this route's shape, or holds an unreadable result.",
        401: "No or a wrong bearer token (only when the server has one).",
        404: "An unknown engine.",
        413: "The body is over the server's limit.",
        415: "The body is compressed (a Content-Encoding); send it uncompressed.",
        422: "An option, wire, model id or call id the converter or registry refuses.",
        503: "The registry cannot be read, or its schema is not current.",
    }.items()
}


def _post(summary: str, request: str, answer: str, *errors: int) -> dict[str, Any]:
    return {
        "post": {
            "summary": summary,
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": _ref(request)}},
            },
            "responses": {"200": _json(_ref(answer), "Done."), **_errors(*errors)},
        }
    }


def _get(summary: str, ok: dict[str, Any], *errors: int, **extra: Any) -> dict[str, Any]:
    return {"get": {"summary": summary, "responses": {"200": ok, **_errors(*errors)}, **extra}}


def openapi_document(*, bench: bool = False, auth: bool = False) -> dict[str, Any]:
    """Return the OpenAPI 3.1 document of the app (``bench``: with its bench route)."""
    body_errors = (400, 401, 404, 413, 415, 422, 503)
    paths: dict[str, Any] = {
        "/v1/format": _post(
            "Format MCP results for a model on an engine (format_for), with the decision report.",
            "FormatRequest",
            "Formatted",
            *body_errors,
        ),
        "/v1/reformat": _post(
            "Re-target tool-result blocks of another wire to a model on an engine (reformat_for).",
            "ReformatRequest",
            "Formatted",
            *body_errors,
        ),
        "/v1/convert": _post(
            "Convert results or blocks to a wire with the options given (no registry).",
            "ConvertRequest",
            "Converted",
            400,
            401,
            413,
            415,
            422,
        ),
        "/v1/resolve/{engine}/{model}": _get(
            "The wire, converter options and every capability a model on an engine gets, "
            "with the evidence and the explanation.",
            _json(_ref("Resolved"), "The resolution."),
            401,
            404,
            422,
            503,
            parameters=[
                {"name": "engine", "in": "path", "required": True, "schema": {"type": "string"}},
                {
                    "name": "model",
                    "in": "path",
                    "required": True,
                    "description": "The model id (may hold slashes).",
                    "schema": {"type": "string"},
                },
                {
                    "name": "wire",
                    "in": "query",
                    "required": False,
                    "description": "Force this wire instead of the engine's or model's.",
                    "schema": _ref("Wire"),
                },
            ],
        ),
        "/v1/snapshot": _get(
            "Every engine x recorded model x capability, resolved (ETag: the registry revision).",
            {
                **_json(_ref("Snapshot"), "The snapshot."),
                "headers": {"ETag": {"schema": {"type": "string"}}},
            },
            401,
            503,
            parameters=[
                {
                    "name": "If-None-Match",
                    "in": "header",
                    "required": False,
                    "schema": {"type": "string"},
                }
            ],
        ),
        "/v1/snapshot/schema": _get(
            "The snapshot's JSON Schema.",
            {
                "description": "A JSON Schema (2020-12).",
                "content": {"application/schema+json": {"schema": {"type": "object"}}},
            },
            401,
        ),
        "/v1/matrix": _get(
            "The capability matrix page.",
            {"description": "HTML.", "content": {"text/html": {"schema": {"type": "string"}}}},
            401,
            503,
        ),
        "/healthz": _get(
            "The process answers.",
            _json(
                {
                    "type": "object",
                    "required": ["status", "pid"],
                    "properties": {
                        "status": {"const": "ok"},
                        "pid": {"type": "integer", "description": "The worker that answered."},
                    },
                },
                "Alive.",
            ),
        ),
        "/readyz": _get(
            "The registry can be read and its schema is current.",
            _json(
                {
                    "type": "object",
                    "required": ["status", "revision", "schema"],
                    "properties": {
                        "status": {"const": "ready"},
                        "revision": {"type": "integer"},
                        "schema": {"type": "string"},
                    },
                },
                "Ready.",
            ),
            503,
        ),
        "/metrics": _get(
            "Prometheus metrics.",
            {
                "description": "The Prometheus text format.",
                "content": {"text/plain": {"schema": {"type": "string"}}},
            },
            401,
        ),
        "/openapi.json": _get(
            "This document.",
            _json({"type": "object"}, "The OpenAPI document."),
            401,
        ),
    }
    paths["/v1/snapshot"]["get"]["responses"]["304"] = {
        "description": "Not modified: the If-None-Match tag is the current revision's.",
        "headers": {"ETag": {"schema": {"type": "string"}}},
    }
    if bench:
        paths["/bench/echo"] = _post(
            "Bench baseline: parse the JSON body, answer `size` bytes.",
            "EchoRequest",
            "Echo",
            400,
            413,
            415,
        )
    schemas = dict(_SCHEMAS)
    if bench:
        schemas["EchoRequest"] = {"type": "object", "properties": {"size": {"type": "integer"}}}
        schemas["Echo"] = {"type": "object"}
    document: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {
            "title": "toolwire",
            "version": "1",
            "description": "Tool results to LLM wires, decided by an evidence-backed registry.",
        },
        "paths": paths,
        "components": {"schemas": schemas, "responses": _RESPONSES},
    }
    if auth:
        document["components"]["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
        document["security"] = [{"bearer": []}]
        for path in ("/healthz", "/readyz"):
            paths[path]["get"]["security"] = []
    copied: dict[str, Any] = json.loads(json.dumps(document))  # callers may change it
    return copied
