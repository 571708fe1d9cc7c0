"""The seeded bedrock engine: per-family claims, the wire rule, and messages botocore accepts."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from options_helpers import flags, limits
from toolwire.convert import ToolResult
from toolwire.registry import Registry, Resolver

sys.path.insert(0, str(Path(__file__).parents[1] / "convert"))
from convert_checks import check_envelope
from convert_samples import PDF_B64, PNG_B64

RESULT = ToolResult(
    name="fetch",
    id="tooluse_1",
    content=[
        {"type": "image", "data": PNG_B64, "mimeType": "image/png"},
        {
            "type": "resource",
            "resource": {"uri": "file:///r.pdf", "mimeType": "application/pdf", "blob": PDF_B64},
        },
    ],
)


@pytest.mark.parametrize(
    ("model", "options", "images_status"),
    [
        ("anthropic.claude-3-5-sonnet-20240620-v1:0", (True, True), "documented"),
        ("us.anthropic.claude-sonnet-4-20250514-v1:0", (True, True), "documented"),
        ("global.anthropic.claude-haiku-4-5-20251001-v1:0", (True, True), "documented"),
        ("anthropic.claude-v2:1", (False, False), "documented"),
        ("amazon.nova-pro-v1:0", (True, True), "documented"),
        ("us.amazon.nova-lite-v1:0", (True, True), "documented"),
        ("amazon.nova-micro-v1:0", (False, False), "documented"),
        ("us.meta.llama4-maverick-17b-instruct-v1:0", (True, False), "inferred"),
        ("openai.gpt-oss-120b-1:0", (False, False), "inferred"),
        ("mistral.mistral-large-2407-v1:0", (False, False), "documented"),
    ],
)
def test_bedrock_families(
    shared_registry: Registry, model: str, options: tuple[bool, bool], images_status: str
) -> None:
    found = Resolver(shared_registry).resolve("bedrock", model)
    assert (found.wire, found.wire_from) == ("bedrock", "engine")
    assert flags(found.options) == {"image_input": options[0], "native_pdf": options[1]}
    assert limits(found.options)["max_image_side"] == 8000  # Bedrock's, for every family
    assert found.trace["tool_result_images"].status == images_status
    assert found.native_forms == {"image": "documented", "pdf": "documented"}
    messages = found.format([RESULT])
    check_envelope("bedrock", messages, 1)
    kinds = [next(iter(part)) for part in messages[0]["content"][0]["toolResult"]["content"]]
    assert kinds == ["image" if options[0] else "text", "document" if options[1] else "text"]


def test_a_pdf_on_bedrock_does_not_need_image_input(registry: Registry) -> None:
    registry.set_claim(
        "bedrock",
        "tool_result_pdf",
        True,
        model="cohere.command-r-plus-v1:0",
        status="documented",
        evidence="test",
        recorded_by="tests",
    )
    found = Resolver(registry, max_age=0).resolve("bedrock", "cohere.command-r-plus-v1:0")
    assert found.capabilities["image_input"] is False
    assert flags(found.options) == {"image_input": False, "native_pdf": True}
    assert found.trace["tool_result_pdf"].cleared_by is None


def test_an_engine_forced_onto_bedrock_follows_the_wire(shared_registry: Registry) -> None:
    found = Resolver(shared_registry).resolve("anthropic", "claude-sonnet-4-5", wire="bedrock")
    assert found.wire == "bedrock"
    assert flags(found.options) == {"image_input": True, "native_pdf": True}
