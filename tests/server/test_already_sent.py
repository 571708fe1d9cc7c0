"""``already_sent`` on the service: the rest of the request counts against the engine's limits."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from served import TOKEN, Served

PNG_B64 = base64.b64encode(
    bytes.fromhex("89504e470d0a1a0a0000000d49484452") + (64).to_bytes(4, "big") * 2 + b"\0" * 48
).decode()
IMAGE = {"type": "image", "data": PNG_B64, "mimeType": "image/png"}
RESULTS = [
    {"id": "toolu_1", "name": "shot", "content": [IMAGE]},
    {"id": "toolu_2", "name": "shot", "content": [IMAGE]},
]
FORMAT = {"engine": "anthropic", "model": "claude-sonnet-4-5", "results": RESULTS}


@pytest.fixture
def client(shared_server: Served) -> Iterator[httpx.Client]:
    with httpx.Client(
        base_url=shared_server.base, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30
    ) as opened:
        yield opened


def _outcomes(answer: dict[str, Any]) -> list[tuple[str, str | None]]:
    return [(i["outcome"], i["reason"]) for r in answer["report"] for i in r["items"]]


def test_the_images_already_in_the_request_count_against_the_engine_limit(
    client: httpx.Client,
) -> None:
    plain = client.post("/v1/format", json=FORMAT)
    assert plain.status_code == 200, plain.text
    assert [o for o, _ in _outcomes(plain.json())] == ["native", "native"]
    # anthropic's engine claims 100 images per request: 99 sent before leave room for one
    full = client.post("/v1/format", json={**FORMAT, "already_sent": {"images": 99}})
    assert full.status_code == 200, full.text
    answer = full.json()
    assert _outcomes(answer) == [("native", None), ("placeholder", "max_images")]
    (message,) = answer["messages"]
    first, second = message["content"]
    assert first["content"][0]["type"] == "image"
    assert second["content"][0]["type"] == "text" and PNG_B64 not in second["content"][0]["text"]


def test_reformat_counts_them_too(client: httpx.Client) -> None:
    blocks = [
        {
            "type": "tool_result",
            "tool_use_id": "toolu_1",
            "content": [
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64},
                }
            ],
        }
    ]
    data = {
        "engine": "anthropic",
        "model": "claude-sonnet-4-5",
        "source_wire": "anthropic",
        "blocks": blocks,
        "names": {"toolu_1": "shot"},
        "already_sent": {"images": 100},
    }
    answer = client.post("/v1/reformat", json=data)
    assert answer.status_code == 200, answer.text
    assert _outcomes(answer.json()) == [("placeholder", "max_images")]


@pytest.mark.parametrize(
    ("value", "status", "words"),
    [
        ({"images": -1}, 422, "at least 0"),  # the converter's InvalidOption, as for options
        ({"photos": 1}, 422, "no field 'photos'"),
        ([1], 400, "'already_sent' must be an object"),
    ],
)
def test_a_bad_count_is_one_json_error(
    client: httpx.Client, value: object, status: int, words: str
) -> None:
    answer = client.post("/v1/format", json={**FORMAT, "already_sent": value})
    assert answer.status_code == status, answer.text
    assert words in answer.json()["error"]["message"]
