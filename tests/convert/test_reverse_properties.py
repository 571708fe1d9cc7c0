"""Property tests for the reverse path: any result written to a wire reads back and re-targets.

Over generated content arrays (the generators of ``test_properties``) and
options: writing the result read back to its own wire gives the same block;
re-targeting it to every wire raises nothing unexpected, gives blocks the SDK
checks accept, leaks no base64 into a string form, and sends no media the
target options say the model does not read.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from convert_checks import (
    WIRES,
    assert_no_payload,
    check_block,
    check_envelope,
    native_payloads,
    native_urls,
)
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_properties import _without_text_blobs, options, results
from toolwire.convert import ID_RULES, InvalidBlock, InvalidId, ToolResult, convert_tool_results

SETTINGS = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


EMPTY_OBJECT = {"name": "n", "id": "c", "content": [], "is_error": False, "structured_content": {}}


@settings(SETTINGS, max_examples=300)
@given(fields=results, opts=options, wire=st.sampled_from(WIRES))
@example(fields=EMPTY_OBJECT, opts={}, wire="gemini")
@example(fields={**EMPTY_OBJECT, "structured_content": 42}, opts={}, wire="anthropic")
@example(
    fields={**EMPTY_OBJECT, "is_error": True, "structured_content": None}, opts={}, wire="anthropic"
)
def test_reading_back_then_writing_is_the_identity(
    fields: dict[str, Any], opts: dict[str, Any], wire: str
) -> None:
    block = ToolResult(**fields).to(wire, **opts)
    again = ToolResult.from_wire(wire, block)
    if wire == "anthropic" and native_urls(wire, block) and not opts.get("url_sources"):
        # a native image or document by URL passed through reads as a resource_link
        # (see test_reverse_golden)
        opts = {**opts, "url_sources": True, "native_pdf": True}
    assert again.to(wire, **opts) == block
    if not opts.get("raw_bytes"):  # bytes have no JSON form
        assert ToolResult.from_wire(wire, json.loads(json.dumps(block))).to(wire, **opts) == block


@SETTINGS
@given(fields=results, opts=options, target_opts=options, source=st.sampled_from(WIRES))
def test_retargeted_blocks_are_valid_and_carry_only_what_is_read(
    fields: dict[str, Any], opts: dict[str, Any], target_opts: dict[str, Any], source: str
) -> None:
    original = ToolResult(**fields)
    payloads = _without_text_blobs([i for i in fields["content"] if not _text_document(i)])
    block = original.to(source, **opts)
    # the call id and tool name a block lacks come from the call, as a gateway gives them
    again = ToolResult.from_wire(source, block, id=original.id, name=original.name)
    source_media = native_payloads(source, block)
    source_urls = native_urls(source, block)
    for target in WIRES:
        out = again.to(target, **target_opts)
        check_block(target, out, target_opts)
        assert_no_payload(target, out, payloads)
        media = native_payloads(target, out)
        # nothing the source block did not carry natively, nothing the options do not allow
        assert all(payload in source_media for payload in media)
        urls = native_urls(target, out)
        assert all(url in source_urls for url in urls)
        if not target_opts.get("url_sources"):
            assert urls == [] or target == "anthropic"  # native URL blocks pass through there
        if not target_opts.get("image_input"):
            assert not [m for m, _ in media if m.startswith("image/")]
        native_pdf = target_opts.get("native_pdf", target == "anthropic")
        if not native_pdf or (target_opts.get("source_blocks") is False and target == "anthropic"):
            assert not [m for m, _ in media if m == "application/pdf"]
        names = {original.id: original.name}  # what a gateway reads off the tool calls
        if source == "hermes" and target in ID_RULES:  # no id to send: refused
            with pytest.raises(InvalidId):
                convert_tool_results(source, target, [block], names=names, **target_opts)
            continue
        messages = convert_tool_results(source, target, [block, block], names=names, **target_opts)
        check_envelope(target, messages, 2, target_opts)


def _text_document(item: dict[str, Any]) -> bool:
    """True for a document whose ``source.data`` is its text (meant to show), not base64."""
    source = item.get("source")
    return (
        item.get("type") == "document"
        and isinstance(source, dict)
        and source.get("type") != "base64"
    )


# -- a wrong discriminator: described briefly, never walked or quoted whole -------------

#: values where a wire's discriminator (role, type, status, is_error) goes: deep,
#: huge, a long int, an object holding a deep value, a short wrong string
hostile_values = st.one_of(
    st.integers(200, 2000).map(lambda depth: _nested(depth, "x")),
    st.integers(81, 2_000_000).map(lambda size: "x" * size),
    st.integers(200, 4000).map(lambda digits: 10**digits),
    st.integers(200, 2000).map(lambda depth: {"k": _nested(depth, 1)}),
    st.text(max_size=20).filter(lambda text: text not in ("tool", "tool_result")),
)


def _nested(depth: int, leaf: Any) -> Any:
    for _ in range(depth):
        leaf = [leaf]
    return leaf


def _spoiled(wire: str, block: Any, value: Any) -> Any:
    """Return ``block`` with its discriminator replaced by ``value``."""
    if wire in ("openai", "ollama"):
        return {**block, "role": value}
    if wire in ("anthropic", "responses"):
        return {**block, "type": value}
    if wire == "bedrock":
        return {"toolResult": {**block["toolResult"], "status": value}}
    if wire == "gemini":  # no discriminator but its response object
        return {"functionResponse": {**block["functionResponse"], "response": value}}
    return value if isinstance(value, str) and not value.startswith("<") else [value]  # hermes


@SETTINGS
@given(fields=results, wire=st.sampled_from(WIRES), value=hostile_values, flag=st.booleans())
def test_a_wrong_discriminator_is_an_invalid_block_with_a_short_message(
    fields: dict[str, Any], wire: str, value: Any, flag: bool
) -> None:
    block = ToolResult(**fields).to(wire)
    spoiled = _spoiled(wire, block, value)
    if flag and wire == "anthropic":
        spoiled = {**block, "is_error": value}
    with pytest.raises(InvalidBlock) as info:
        ToolResult.from_wire(wire, spoiled)
    assert len(str(info.value)) < 300
