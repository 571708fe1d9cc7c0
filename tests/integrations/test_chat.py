"""The conversation rewrite the LiteLLM callback runs, without HTTP."""

from __future__ import annotations

import copy
import re

import pytest
from lazy import LazyModule
from litellm_helpers import HOISTING, PNG, conversation, media_parts
from toolwire.convert import NAME_RULES, InvalidId
from toolwire.integrations._chat import has_tool_turns, rewrite
from toolwire.registry import Registry, resolve

# imported by the test that uses them (tests/lazy.py)
litellm_types = LazyModule("litellm.types.utils")
toolwire_litellm = LazyModule("toolwire.integrations.litellm")


def test_the_callers_messages_are_never_changed(registry: Registry) -> None:
    messages = conversation("functions.bash:0", "functions.read_file:1")
    before = copy.deepcopy(messages)
    done = rewrite(messages, resolve("gemini", "gemini-2.5-flash", registry=registry))
    assert done is not None and done.messages is not messages
    assert messages == before


def test_gemini_names_are_mapped_in_calls_and_tools_alike(registry: Registry) -> None:
    rule = NAME_RULES["gemini"]
    messages = conversation("call_1", media=False)
    messages[1]["tool_calls"][0]["function"]["name"] = "1 bad name"
    messages[2]["name"] = "1 bad name"
    tools = [{"type": "function", "function": {"name": "1 bad name", "parameters": {}}}]
    done = rewrite(
        messages, resolve("gemini", "gemini-3-flash-preview", registry=registry), tools=tools
    )
    assert done is not None and done.tools is not None
    called = done.messages[1]["tool_calls"][0]["function"]["name"]
    assert called == done.tools[0]["function"]["name"] == done.messages[2]["name"]
    assert called != "1 bad name"
    assert re.fullmatch(rule.pattern, called)
    assert tools[0]["function"]["name"] == "1 bad name"  # the caller's list as it was


def test_each_run_of_tool_messages_gets_its_own_hoisted_turn(registry: Registry) -> None:
    first = conversation("call_a")
    second = conversation("call_b")[1:]
    done = rewrite(first + second, resolve("openai", HOISTING, registry=registry))
    assert done is not None
    roles = [m["role"] for m in done.messages]
    assert roles == ["user", "assistant", "tool", "user", "assistant", "tool", "user"]
    assert done.report["hoisted"] == 4  # an image and a PDF in each run
    assert all(isinstance(m["content"], str) for m in done.messages if m["role"] == "tool")


def test_a_part_the_model_reads_stays_the_same_object(registry: Registry) -> None:
    messages = conversation("toolu_01")
    done = rewrite(messages, resolve("anthropic", "claude-sonnet-4-5", registry=registry))
    assert done is not None
    assert done.messages[2]["content"] is messages[2]["content"]
    assert [m["outcome"] for m in done.report["media"]] == ["native", "native"]


def test_one_unread_part_beside_a_read_one(registry: Registry) -> None:
    parts = [
        *media_parts(),
        {"type": "image_url", "image_url": {"url": "data:image/bmp;base64,Qk0="}},
    ]
    messages = conversation("toolu_01")
    messages[2]["content"] = parts
    done = rewrite(messages, resolve("anthropic", "claude-sonnet-4-5", registry=registry))
    assert done is not None
    content = done.messages[2]["content"]
    assert content[:3] == parts[:3]
    assert content[3]["type"] == "text" and content[3]["text"].startswith("[image] image/bmp")
    assert PNG in str(content[1])


def test_no_tool_turns_is_seen_cheaply() -> None:
    assert not has_tool_turns([{"role": "user", "content": "hi"}])
    assert not has_tool_turns("not a list")
    assert has_tool_turns(conversation("x", media=False))


def test_an_empty_call_id_goes_on_unchanged_with_the_reason(registry: Registry) -> None:
    callback = toolwire_litellm.ToolwireCallback(registry=registry)
    messages = conversation("", media=True)
    kwargs = {"model": "anthropic/claude-sonnet-4-5", "messages": messages}
    coroutine = callback.async_pre_call_deployment_hook(kwargs, litellm_types.CallTypes.acompletion)
    with pytest.raises(StopIteration) as done:
        coroutine.send(None)
    out = done.value.value
    assert out["messages"] is messages
    assert "empty" in out["metadata"]["toolwire"]["skipped"]
    with pytest.raises(InvalidId):
        rewrite(messages, resolve("anthropic", "claude-sonnet-4-5", registry=registry))
