"""Reading request bodies: the size limit while streaming, JSON, and the routes' fields."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from starlette.requests import ClientDisconnect, Request
from toolwire.convert import IdMap, ToolResult, ToolwireError

from ._errors import ServiceError

__all__ = [
    "flag",
    "mapping",
    "no_raw_bytes",
    "optional_str",
    "read_json",
    "read_results",
    "required",
    "results_from_blocks",
]


def _too_large(limit: int) -> ServiceError:
    return ServiceError(413, "BodyTooLarge", f"the body is over the limit of {limit} bytes")


async def read_json(request: Request, limit: int) -> dict[str, Any]:
    """Return the request's JSON object, read chunk by chunk and refused past ``limit`` bytes.

    :raises ServiceError: 413 past the limit, 415 for a compressed body, 400 for a body
        that is not a JSON object, 499 when the client closed the connection before the
        body ended (no one reads the answer; the metrics count it apart from the
        server's own errors).
    """
    encoding = request.headers.get("content-encoding", "identity").strip().lower()
    if encoding not in ("", "identity"):
        raise ServiceError(
            415,
            "UnsupportedEncoding",
            f"content encoding {encoding[:40]!r} is not supported; send the body uncompressed",
        )
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise _too_large(limit)
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise _too_large(limit)
            chunks.append(chunk)
    except ClientDisconnect:
        raise ServiceError(
            499, "ClientClosedRequest", "the client closed the connection before the body ended"
        ) from None
    try:
        data = json.loads(b"".join(chunks))
    except json.JSONDecodeError as exc:
        raise ServiceError(
            400, "InvalidJSON", f"the body is not JSON ({exc.msg} at line {exc.lineno})"
        ) from None
    except UnicodeDecodeError:
        raise ServiceError(400, "InvalidJSON", "the body is not UTF-8 text") from None
    except (RecursionError, ValueError) as exc:  # nested too deep, a number too long
        raise ServiceError(400, "InvalidJSON", f"unusable JSON ({type(exc).__name__})") from None
    if not isinstance(data, dict):
        raise ServiceError(
            400, "InvalidRequest", f"the body must be a JSON object, not {_kind(data)}"
        )
    return data


def _kind(value: object) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else "null"
    )


def required(data: Mapping[str, Any], key: str) -> str:
    """Return the non-empty string field ``key``.

    :raises ServiceError: 400 when it is missing or not a non-empty string.
    """
    value = data.get(key)
    if not isinstance(value, str) or not value:
        what = "missing" if value is None else f"{_kind(value)}"
        raise ServiceError(400, "InvalidRequest", f"{key!r} must be a non-empty string ({what})")
    return value


def optional_str(data: Mapping[str, Any], key: str) -> str | None:
    """Return the string field ``key``, or None when it is absent or null.

    :raises ServiceError: 400 when it is something else.
    """
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise ServiceError(
            400, "InvalidRequest", f"{key!r} must be a non-empty string ({_kind(value)})"
        )
    return value


def flag(data: Mapping[str, Any], key: str) -> bool:
    """Return the boolean field ``key`` (absent: False).

    :raises ServiceError: 400 when it is not a boolean.
    """
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise ServiceError(400, "InvalidRequest", f"{key!r} must be a boolean ({_kind(value)})")
    return value


def no_raw_bytes(value: object, key: str) -> None:
    """Refuse ``raw_bytes`` set to anything but false: a JSON answer cannot hold bytes.

    :raises ServiceError: 400 when ``value`` is not absent (None) or false.
    """
    if value is not None and value is not False:
        raise ServiceError(
            400,
            "InvalidRequest",
            f"{key!r}: JSON cannot hold bytes, so payloads stay base64 strings (the Bedrock"
            " HTTP API's form); for boto3 call format_for(..., raw_bytes=True) in Python",
        )


def mapping(data: Mapping[str, Any], key: str) -> dict[str, Any]:
    """Return the object field ``key`` (absent or null: empty).

    :raises ServiceError: 400 when it is not an object.
    """
    value = data.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ServiceError(400, "InvalidRequest", f"{key!r} must be an object ({_kind(value)})")
    return value


def _array(data: Mapping[str, Any], key: str) -> list[Any]:
    value = data.get(key)
    if not isinstance(value, list) or not value:
        what = "missing" if value is None else _kind(value)
        raise ServiceError(400, "InvalidRequest", f"{key!r} must be a non-empty array ({what})")
    return value


def read_results(data: Mapping[str, Any], key: str = "results") -> list[ToolResult]:
    """Return the MCP results of ``data[key]``.

    Each entry is ``{"id": CALL_ID, "name": TOOL, "result": CallToolResult}`` or a
    CallToolResult with ``id`` and ``name`` beside ``content``.

    :raises ServiceError: 400 for an entry that is not an MCP result.
    """
    found = []
    for index, entry in enumerate(_array(data, key)):
        where = f"{key}[{index}]"
        if not isinstance(entry, dict):
            raise ServiceError(
                400, "InvalidToolResult", f"{where}: expected an object, not {_kind(entry)}"
            )
        call_id, name = entry.get("id", ""), entry.get("name", "")
        for what, value in (("id", call_id), ("name", name)):
            if not isinstance(value, str):
                raise ServiceError(
                    400, "InvalidToolResult", f"{where}: {what} must be a string ({_kind(value)})"
                )
        body = entry.get("result", entry)
        try:
            found.append(ToolResult.from_mcp(body, id=call_id, name=name))
        except ToolwireError as exc:
            raise ServiceError(400, type(exc).__name__, f"{where}: {exc}") from None
    return found


def blocks(data: Mapping[str, Any]) -> list[Any]:
    """Return the non-empty array ``data["blocks"]``.

    :raises ServiceError: 400 when it is missing or not a non-empty array.
    """
    return _array(data, "blocks")


def names(data: Mapping[str, Any]) -> dict[str, str]:
    """Return ``data["names"]`` (call id -> tool name; absent: empty).

    :raises ServiceError: 400 when it is not an object of strings.
    """
    found = mapping(data, "names")
    for key, value in found.items():
        if not isinstance(value, str):
            raise ServiceError(
                400, "InvalidRequest", f"names[{key!r}] must be a string ({_kind(value)})"
            )
    return found


def results_from_blocks(
    source_wire: str, entries: list[Any], tool_names: Mapping[str, str]
) -> list[ToolResult]:
    """Return the results the ``source_wire`` blocks hold, as ``convert_tool_results`` reads them.

    :raises ServiceError: 400 for a block that is not of ``source_wire``.
    """
    found = []
    for index, block in enumerate(entries):
        try:
            result = ToolResult.from_wire(source_wire, block)
            if not result.name and result.id in tool_names:
                result = ToolResult.from_wire(source_wire, block, name=tool_names[result.id])
        except ToolwireError as exc:
            raise ServiceError(
                400 if exc.__class__.__name__ == "InvalidBlock" else 422,
                type(exc).__name__,
                f"blocks[{index}]: {exc}",
            ) from None
        found.append(result)
    return found


def mapped_ids(ids: IdMap | None) -> dict[str, dict[str, str]] | None:
    """Return the mapping ``ids`` used: {"ids": {ORIGINAL: SENT}, "names": {...}} (None: none)."""
    if ids is None:
        return None
    found: dict[str, dict[str, str]] = {"ids": {}, "names": {}}
    for entry in ids.items():
        found["ids" if entry["kind"] == "id" else "names"][entry["original"]] = entry["mapped"]
    return found
