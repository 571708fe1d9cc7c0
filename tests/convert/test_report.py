"""The decision report: golden decisions, and agreement with the blocks actually emitted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from convert_checks import GOLDEN_WIRES
from hypothesis import given
from hypothesis import strategies as st
from test_properties import (
    SETTINGS,
    link_items,
    media_items,
    pdf_items,
    resource_items,
    text_items,
)
from toolwire.convert import (
    OUTCOMES,
    REASONS,
    WIRES,
    Decision,
    InvalidToolResult,
    ToolResult,
    UnknownOption,
    UnknownWire,
    format_tool_results,
    report,
)

GOLDEN = Path(__file__).with_name("golden_report") / "report.json"
CASES = json.loads(GOLDEN.read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize(
    ("case", "expect"),
    [
        pytest.param(case, expect, id=f"{case['name']}:{expect['wire']}:{index}")
        for case in CASES
        for index, expect in enumerate(case["expect"])
    ],
)
def test_golden_decisions(case: dict[str, Any], expect: dict[str, Any]) -> None:
    result = ToolResult.from_mcp(case["mcp"], id=case["tool"]["id"], name=case["tool"]["name"])
    decisions = report(expect["wire"], result, **expect["options"])
    assert [d.as_dict() for d in decisions] == expect["decisions"]


def test_golden_covers_every_wire_and_outcome_and_reason() -> None:
    seen = [d for case in CASES for e in case["expect"] for d in e["decisions"]]
    assert {e["wire"] for case in CASES for e in case["expect"]} == set(GOLDEN_WIRES)
    assert {d["outcome"] for d in seen} == set(OUTCOMES)
    # malformed and too_large have tests of their own (no megabytes in the golden file);
    # unknown_model, hoist_off and not_in_tool_result are the registry's
    # (tests/registry/test_unknown_models.py, tests/registry/test_report_reasons.py)
    untested = {"malformed", "too_large", "unknown_model", "hoist_off", "not_in_tool_result"}
    # the limits' reasons are tested by limit (tests/convert/test_limits.py)
    untested |= {
        "max_image_side",
        "max_images",
        "many_images_max_side",
        "max_pdf_pages",
        "max_pdf_request_bytes",
    }
    assert {d["reason"] for d in seen} - {None} == set(REASONS) - untested


def test_too_large() -> None:
    from convert_samples import PNG, b64

    big = b64(PNG + b"\0" * 3_750_000)
    result = ToolResult(
        name="n", id="c", content=[{"type": "image", "data": big, "mimeType": "image/png"}]
    )
    assert report("bedrock", result, image_input=True)[0].reason == "too_large"
    assert report("anthropic", result, image_input=True)[0].outcome == "native"


def test_messages_read_well() -> None:
    image = Decision(1, "image", "placeholder", "not_read", "image/png", 68)
    assert image.message == (
        "image (image/png) not shown to the model (a placeholder instead): "
        "the model does not read it"
    )
    assert Decision(0, "text", "left_out", "audience", "", 0).message == (
        "text left out: it is meant for the user (annotations.audience)"
    )
    assert Decision(2, "resource", "native", None, "application/pdf", 9).message == (
        "resource (application/pdf) sent natively"
    )


def test_malformed_items() -> None:
    result = ToolResult(name="n", id="c", content=[{"type": "text"}, {"type": "resource"}])
    assert [d.reason for d in report("anthropic", result)] == ["malformed", "malformed"]


def test_errors_are_those_of_the_converter() -> None:
    result = ToolResult(name="n", id="c")
    with pytest.raises(UnknownWire):
        report("chat", result)
    with pytest.raises(UnknownOption):
        report("openai", result, hoisting=True)
    with pytest.raises(InvalidToolResult):
        report("openai", {"content": []})  # type: ignore[arg-type]


mcp_items = st.one_of(text_items(), media_items(), resource_items(), pdf_items(), link_items())
options = st.fixed_dictionaries(
    {},
    optional={
        "image_input": st.booleans(),
        "native_pdf": st.booleans(),
        "source_blocks": st.booleans(),
        "url_sources": st.booleans(),
        "hoist": st.booleans(),
        "audience": st.booleans(),
    },
)


def _native_count(wire: str, messages: list[Any]) -> int:
    """Count the media that went natively (or hoisted) in what the wire emitted."""
    if wire == "anthropic":
        content = messages[0]["content"][0]["content"]
        blocks = content if isinstance(content, list) else []
        return sum(1 for b in blocks if b.get("source", {}).get("type") in ("base64", "url"))
    if wire == "responses":
        output = messages[0]["output"]
        parts = output if isinstance(output, list) else []
        return sum(1 for p in parts if p["type"] in ("input_image", "input_file"))
    if wire == "gemini":
        return len(messages[0]["parts"][0]["functionResponse"].get("parts", []))
    if wire == "gemini-interactions":
        result = messages[0]["result"]
        return sum(1 for i in result if i["type"] == "image") if isinstance(result, list) else 0
    if wire == "bedrock":
        parts = messages[0]["content"][0]["toolResult"]["content"]
        return sum(1 for p in parts if "image" in p or "document" in p)
    if wire == "openai" and len(messages) == 2:
        return sum(1 for p in messages[1]["content"] if p["type"] in ("image_url", "file"))
    if wire == "ollama" and len(messages) == 2:
        return len(messages[1]["images"])
    return 0


@SETTINGS
@given(content=st.lists(mcp_items, max_size=6), opts=options, structured=st.booleans())
def test_the_report_agrees_with_the_blocks(
    content: list[Any], opts: dict[str, Any], structured: bool
) -> None:
    result = ToolResult(
        name="n", id="c", content=content, structured_content={"a": 1} if structured else None
    )
    for wire in WIRES:
        decisions = report(wire, result, **opts)
        assert len(decisions) == len(content)
        assert all(
            d.outcome in OUTCOMES and (d.reason is None or d.reason in REASONS) for d in decisions
        )
        sent = sum(1 for d in decisions if d.outcome in ("native", "hoisted"))
        assert sent == _native_count(wire, format_tool_results(wire, [result], **opts)), wire
        kept = [d for d in decisions if d.outcome != "left_out"]
        if opts.get("audience"):
            view = ToolResult(
                name="n",
                id="c",
                content=[content[d.index] for d in kept],
                structured_content={"a": 1} if structured else None,
            )
            assert format_tool_results(wire, [view], **opts) == format_tool_results(
                wire, [result], **opts
            )


def test_decisions_are_read_only_values() -> None:
    decision = Decision(0, "text", "text", None, "", 0)
    assert decision == Decision(0, "text", "text", None, "", 0)
    assert hash(decision) == hash(Decision(0, "text", "text", None, "", 0))
    with pytest.raises(AttributeError):
        decision.outcome = "native"  # type: ignore[misc]


def test_audience_and_url_sources_from_real_mcp_objects() -> None:
    import mcp.types as mt

    call = mt.CallToolResult(
        content=[
            mt.TextContent(
                type="text", text="secret", annotations=mt.Annotations(audience=["user"])
            ),
            mt.ResourceLink(
                type="resource_link", uri="https://x.test/a.png", name="a", mimeType="image/png"
            ),
        ]
    )
    result = ToolResult.from_mcp(call, id="toolu_1", name="n")
    options = {"audience": True, "url_sources": True, "image_input": True}
    assert result.to("anthropic", **options)["content"] == [
        {"type": "image", "source": {"type": "url", "url": "https://x.test/a.png"}}
    ]
    assert [(d.outcome, d.reason) for d in report("anthropic", result, **options)] == [
        ("left_out", "audience"),
        ("native", None),
    ]
    assert result.to("openai")["content"] == "secret\n[resource_link] a <https://x.test/a.png>"
