"""``raw_bytes`` on the service: a JSON answer cannot hold bytes, so every route refuses it."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from served import TOKEN, Served

PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452") + b"\0" * 64
PNG_B64 = base64.b64encode(PNG).decode()
RESULT = {
    "id": "tooluse_1",
    "name": "shot",
    "content": [{"type": "image", "data": PNG_B64, "mimeType": "image/png"}],
}
MODEL = "us.anthropic.claude-sonnet-4-20250514-v1:0"
BLOCK = {
    "toolResult": {
        "toolUseId": "tooluse_1",
        "content": [{"image": {"format": "png", "source": {"bytes": PNG_B64}}}],
        "status": "success",
    }
}


@pytest.fixture
def client(shared_server: Served) -> Iterator[httpx.Client]:
    with httpx.Client(
        base_url=shared_server.base, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30
    ) as opened:
        yield opened


BODIES: list[tuple[str, dict[str, Any], str]] = [
    ("/v1/format", {"engine": "bedrock", "model": MODEL, "results": [RESULT]}, "raw_bytes"),
    (
        "/v1/reformat",
        {"engine": "bedrock", "model": MODEL, "source_wire": "bedrock", "blocks": [BLOCK]},
        "raw_bytes",
    ),
    (
        "/v1/convert",
        {"target_wire": "bedrock", "results": [RESULT], "options": {"image_input": True}},
        "options.raw_bytes",
    ),
]


def _with_raw_bytes(path: str, data: dict[str, Any], value: object) -> dict[str, Any]:
    if path == "/v1/convert":
        return {**data, "options": {**data["options"], "raw_bytes": value}}
    return {**data, "raw_bytes": value}


@pytest.mark.parametrize(("path", "data", "key"), BODIES, ids=[b[0] for b in BODIES])
def test_raw_bytes_is_refused_with_one_json_error(
    client: httpx.Client, path: str, data: dict[str, Any], key: str
) -> None:
    for value in (True, 1, "yes"):
        response = client.post(path, json=_with_raw_bytes(path, data, value))
        assert response.status_code == 400, response.text
        error = response.json()["error"]
        assert error["type"] == "InvalidRequest"
        assert error["message"].startswith(f"{key!r}: JSON cannot hold bytes")
        assert "\n" not in error["message"]


@pytest.mark.parametrize(("path", "data", "key"), BODIES, ids=[b[0] for b in BODIES])
def test_raw_bytes_false_is_the_base64_answer(
    client: httpx.Client, path: str, data: dict[str, Any], key: str
) -> None:
    plain = client.post(path, json=data)
    explicit = client.post(path, json=_with_raw_bytes(path, data, False))
    assert plain.status_code == explicit.status_code == 200, plain.text
    assert plain.json() == explicit.json()
    block = plain.json()["messages"][0]["content"][0]["toolResult"]["content"][0]
    assert base64.b64decode(block["image"]["source"]["bytes"]) == PNG
