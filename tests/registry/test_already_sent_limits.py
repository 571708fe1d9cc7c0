"""The request budget through the registry: an engine's limit claims and ``already_sent``."""

from __future__ import annotations

import base64

import pytest
from toolwire.convert import AlreadySent, InvalidOption, ToolResult
from toolwire.registry import Registry, Resolver, format_for, reformat_for

PNG_B64 = base64.b64encode(
    bytes.fromhex("89504e470d0a1a0a0000000d49484452") + (64).to_bytes(4, "big") * 2 + b"\0" * 48
).decode()
IMAGE = {"type": "image", "data": PNG_B64, "mimeType": "image/png"}
MODEL = "claude-sonnet-4-5"


def _results(count: int) -> list[ToolResult]:
    return [ToolResult(id=f"toolu_{i}", name="shot", content=[IMAGE]) for i in range(1, count + 1)]


def _kinds(messages: list[dict[str, object]]) -> list[str]:
    (message,) = messages
    blocks = message["content"]
    assert isinstance(blocks, list)
    return [block["content"][0]["type"] for block in blocks]


def test_format_for_counts_what_the_request_already_holds(registry: Registry) -> None:
    results = _results(2)
    assert _kinds(format_for("anthropic", MODEL, results, registry=registry)) == ["image"] * 2
    sent = format_for("anthropic", MODEL, results, registry=registry, already_sent={"images": 99})
    assert _kinds(sent) == ["image", "text"]
    typed = format_for(
        "anthropic", MODEL, results, registry=registry, already_sent=AlreadySent(images=100)
    )
    assert _kinds(typed) == ["text", "text"]


def test_the_report_names_the_limit_and_agrees_with_the_messages(registry: Registry) -> None:
    resolution = Resolver(registry).resolve("anthropic", MODEL)
    assert resolution.limits["max_images"] == 100  # the engine's claim
    results = _results(3)
    report = resolution.report(results, already_sent={"images": 98})
    assert [(d.outcome, d.reason) for (d,) in report] == [
        ("native", None),
        ("native", None),
        ("placeholder", "max_images"),
    ]
    assert _kinds(resolution.format(results, already_sent={"images": 98})) == [
        "image",
        "image",
        "text",
    ]


def test_an_engine_claim_below_the_wire_default_decides(registry: Registry) -> None:
    registry.set_claim(
        "anthropic",
        "max_images",
        2,
        model=MODEL,
        status="live-verified",
        evidence="a proxy in front takes two",
        recorded_by="ops",
    )
    assert _kinds(format_for("anthropic", MODEL, _results(3), registry=registry)) == [
        "image",
        "image",
        "text",
    ]


def test_reformat_for_counts_too(registry: Registry) -> None:
    blocks = format_for("anthropic", MODEL, _results(1), registry=registry)[0]["content"]
    again = reformat_for(
        "anthropic", MODEL, "anthropic", blocks, registry=registry, already_sent={"images": 100}
    )
    assert _kinds(again) == ["text"]


def test_a_bad_count_is_an_invalid_option(registry: Registry) -> None:
    with pytest.raises(InvalidOption, match="at least 0"):
        format_for("anthropic", MODEL, _results(1), registry=registry, already_sent={"images": -1})
