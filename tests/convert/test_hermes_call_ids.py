"""The hermes option ``call_ids``: each tool message carries its result's call id."""

from __future__ import annotations

import pytest
from convert_checks import check_envelope, check_typed, openai_chat
from toolwire.convert import (
    ID_RULES,
    WIRES,
    IdMap,
    InvalidOption,
    ToolResult,
    format_tool_results,
    report,
    wire_options,
)

WITH_ID = ToolResult(name="get_weather", id="call_1", content=[{"type": "text", "text": "Sunny"}])
NO_ID = ToolResult(name="get_time", id="", content=[{"type": "text", "text": "noon"}])
MEDIA = ToolResult(
    name="chart",
    id="call_2",
    content=[
        {"type": "text", "text": "see the chart"},
        {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
    ],
)
BLOCK_1 = '<tool_response>\n{"content":"Sunny","name":"get_weather"}\n</tool_response>'
BLOCK_2 = '<tool_response>\n{"content":"noon","name":"get_time"}\n</tool_response>'


def test_off_by_default() -> None:
    plain = [{"role": "tool", "content": BLOCK_1}]
    assert format_tool_results("hermes", [WITH_ID]) == plain
    assert format_tool_results("hermes", [WITH_ID], call_ids=False) == plain
    assert format_tool_results("hermes", [WITH_ID], call_ids=0) == plain


@pytest.mark.parametrize("on", [True, 1])
def test_on_each_message_carries_its_call_id(on: object) -> None:
    messages = format_tool_results("hermes", [WITH_ID, NO_ID], call_ids=on)
    assert messages == [
        {"role": "tool", "tool_call_id": "call_1", "content": BLOCK_1},
        {"role": "tool", "content": BLOCK_2},  # no id: no key (never an empty one)
    ]
    check_typed(messages[0], openai_chat.ChatCompletionToolMessageParam)
    check_envelope("hermes", messages, 2, {"call_ids": True})


def test_the_block_stays_the_tagged_string() -> None:
    assert WITH_ID.to("hermes", call_ids=True) == WITH_ID.to("hermes") == BLOCK_1
    (message,) = format_tool_results("hermes", [WITH_ID], call_ids=True, response_tag="fn")
    tagged = WITH_ID.to("hermes", response_tag="fn")
    assert message == {"role": "tool", "tool_call_id": "call_1", "content": tagged}


def test_any_iterable_and_the_other_options_keep_the_ids() -> None:
    messages = format_tool_results(
        "hermes", iter([MEDIA, NO_ID, WITH_ID]), call_ids=True, audience=True, hoist=True
    )
    assert [m.get("tool_call_id") for m in messages] == ["call_2", None, "call_1"]
    assert [m["content"] for m in messages] == [r.to("hermes") for r in (MEDIA, NO_ID, WITH_ID)]


def test_a_mapped_id_is_the_one_sent() -> None:
    long_id = "call_" + "x" * 80  # not 9 letters and digits, as the mistral rule needs
    result = ToolResult(name="get_weather", id=long_id, content=WITH_ID.content)
    ids = IdMap()
    (message,) = format_tool_results("hermes", [result], call_ids=True, ids=ids, id_rule="mistral")
    assert message["tool_call_id"] != long_id
    assert ids.original("mistral", message["tool_call_id"]) == long_id
    assert set(message) == {"role", "tool_call_id", "content"}
    check_typed(message, openai_chat.ChatCompletionToolMessageParam)


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("bad", ["yes", "true", 2, [], 0.5])
def test_the_value_is_checked_on_every_wire(wire: str, bad: object) -> None:
    with pytest.raises(InvalidOption, match="call_ids"):
        format_tool_results(wire, [WITH_ID], call_ids=bad)
    with pytest.raises(InvalidOption, match="call_ids"):
        WITH_ID.to(wire, call_ids=bad)


@pytest.mark.parametrize("wire", [w for w in WIRES if w != "hermes"])
def test_other_wires_ignore_it(wire: str) -> None:
    results = [WITH_ID, MEDIA] if wire in ID_RULES else [WITH_ID, NO_ID, MEDIA]
    assert "call_ids" not in wire_options(wire)
    assert format_tool_results(wire, results, call_ids=True) == format_tool_results(wire, results)
    assert WITH_ID.to(wire, call_ids=True) == WITH_ID.to(wire)
    assert report(wire, MEDIA, call_ids=True) == report(wire, MEDIA)


def test_hermes_reads_it() -> None:
    assert "call_ids" in wire_options("hermes")
    assert report("hermes", MEDIA, call_ids=True) == report("hermes", MEDIA)
