"""The fix an id or name error names is one that works when followed."""

from __future__ import annotations

import pytest
from toolwire.convert import IdMap, InvalidId, convert_tool_results

#: Two openai tool messages: call ids, no tool names.
BLOCKS = [
    {"role": "tool", "tool_call_id": "call_1", "content": "one"},
    {"role": "tool", "tool_call_id": "call_2", "content": "two"},
]
NAMES = {"call_1": "search", "call_2": "fetch"}


def _message(**options: object) -> str:
    with pytest.raises(InvalidId) as caught:
        convert_tool_results("openai", "gemini", BLOCKS, **options)  # type: ignore[arg-type]
    return str(caught.value)


def test_a_missing_tool_name_names_names_and_that_fix_works() -> None:
    for options in ({}, {"ids": IdMap()}):
        message = _message(**options)
        assert "names={call id: tool name}" in message, message
        assert "pass ids=IdMap()" not in message  # it maps a name, it cannot invent one
    (sent,) = convert_tool_results("openai", "gemini", BLOCKS, names=NAMES)
    assert [p["functionResponse"]["name"] for p in sent["parts"]] == ["search", "fetch"]


def test_a_same_wire_conversion_says_why_ids_are_kept() -> None:
    block = [{"type": "tool_result", "tool_use_id": "bad id!", "content": "x"}]
    for options in ({}, {"ids": IdMap()}):
        with pytest.raises(InvalidId) as caught:
            convert_tool_results("anthropic", "anthropic", block, **options)  # type: ignore[arg-type]
        message = str(caught.value)
        assert "pass ids=IdMap()" not in message, message
        assert "go back to the provider that minted them unchanged" in message
        assert caught.value.value == "bad id!" and caught.value.kind == "id"


def test_a_bad_id_across_wires_still_names_the_map_that_fixes_it() -> None:
    block = [{"type": "tool_result", "tool_use_id": "x" * 70, "content": "x"}]
    with pytest.raises(InvalidId, match=r"pass ids=IdMap\(\) to map it"):
        convert_tool_results("anthropic", "openai", block, id_rule="mistral")
    (sent,) = convert_tool_results("anthropic", "openai", block, id_rule="mistral", ids=IdMap())
    assert len(sent["tool_call_id"]) == 9
