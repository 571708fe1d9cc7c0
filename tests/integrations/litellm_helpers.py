"""What the LiteLLM tests share: the payloads, the conversations, the models, sending."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

from lazy import LazyModule
from providers import KEY, ProviderServer
from tiny_media import PDF, PNG

litellm = LazyModule("litellm")  # imported by the first test that sends (tests/lazy.py)

T = TypeVar("T")
#: one event loop for every LiteLLM test: LiteLLM keeps its clients and its logging
#: worker per loop
_RUNNER = asyncio.Runner()


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` on the tests' event loop."""
    return _RUNNER.run(coroutine)


#: the model that hoists (hoist_media and pdf_input claimed in the test registry)
HOISTING = "gpt-4o-ignorer"
#: per engine, a model that takes at most 3 images per request (the test registry's
#: claims; the anthropic one also at most 100 PDF bytes, the openai one hoists)
FEW = {
    "anthropic": "claude-sonnet-4-5-few-ignorer",
    "gemini": "gemini-3-flash-few-ignorer",
    "openai": "gpt-4o-few-ignorer",
}


def media_parts() -> list[dict[str, Any]]:
    return [
        {"type": "text", "text": "the screen and the report"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
        {
            "type": "file",
            "file": {"file_data": f"data:application/pdf;base64,{PDF}", "filename": "r.pdf"},
        },
    ]


def conversation(*call_ids: str, media: bool = True) -> list[dict[str, Any]]:
    """Return a conversation: one assistant turn calling tools, then their results."""
    names = ["bash", "read_file"]
    calls = [
        {"id": call_id, "type": "function", "function": {"name": names[i % 2], "arguments": "{}"}}
        for i, call_id in enumerate(call_ids)
    ]
    results = [
        {
            "role": "tool",
            "tool_call_id": call_id,
            "content": media_parts() if media and i == 0 else f"output {i}",
        }
        for i, call_id in enumerate(call_ids)
    ]
    return [
        {"role": "user", "content": "look at the screen"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        *results,
    ]


def image_part() -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}


def pdf_part() -> dict[str, Any]:
    return {
        "type": "file",
        "file": {"file_data": f"data:application/pdf;base64,{PDF}", "filename": "r.pdf"},
    }


TOOLS = [
    {"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}},
    {"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}},
]


async def send(
    server: ProviderServer, model: str, messages: list[dict[str, Any]], **extra: Any
) -> dict[str, Any]:
    """Send ``messages`` through LiteLLM to ``server``; return the body it received."""
    base = server.base_url + ("/v1beta" if server.api.wire == "gemini" else "")
    if server.api.wire == "bedrock":
        extra.setdefault("aws_region_name", "us-east-1")
    await litellm.acompletion(
        model=model,
        messages=messages,
        tools=TOOLS,
        api_base=base,
        api_key=KEY,
        max_tokens=64,
        **extra,
    )
    assert server.requests, "the server got no request"
    body: dict[str, Any] = server.requests[-1]
    return body


def nodes(value: Any) -> list[Any]:
    """Return ``value`` and every dict and list inside it, depth first."""
    found = [value]
    if isinstance(value, dict):
        for item in value.values():
            found += nodes(item)
    elif isinstance(value, list):
        for item in value:
            found += nodes(item)
    return found
