"""The LiteLLM callback through the real SDK, against loopback provider servers.

Each test sends one conversation with ``litellm.acompletion`` and the callback
installed, then reads the request body the provider's server received.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import pytest
from lazy import LazyModule
from litellm_helpers import HOISTING, PDF, PNG, conversation, litellm, nodes, run, send
from providers import ProviderServer

if TYPE_CHECKING:
    from toolwire.integrations.litellm import ToolwireCallback

# imported by the first test that uses them (tests/lazy.py)
litellm_types = LazyModule("litellm.types.utils")
litellm_loggers = LazyModule("litellm.integrations.custom_logger")
toolwire_litellm = LazyModule("toolwire.integrations.litellm")

pytestmark = [
    pytest.mark.usefixtures("server_checks"),
    # LiteLLM's own types warn as pydantic builds their schemas on first use
    pytest.mark.filterwarnings("ignore::UserWarning:pydantic._internal._generate_schema"),
]


ANTHROPIC_ID = re.compile(r"[a-zA-Z0-9_-]+")
BEDROCK_ID = re.compile(r"[a-zA-Z0-9_.:-]{1,64}")
MISTRAL_ID = re.compile(r"[a-zA-Z0-9]{9}")


def text(body: Any) -> str:
    return json.dumps(body)


def no_payload(body: Any) -> None:
    """Fail when a base64 payload reached the body in any form."""
    raw = text(body)
    assert PNG not in raw and PDF not in raw
    assert PNG[:40] not in raw and PDF[:40] not in raw


# -- native media where the model reads them, placeholders where it does not --------


def test_anthropic_reads_tool_images_and_kimi_ids_pair(
    servers: dict[str, ProviderServer], callback: ToolwireCallback
) -> None:
    ids = ["functions.bash:0", "functions.read_file:1"]
    body = run(
        send(servers["anthropic"], "anthropic/claude-sonnet-4-5-ignorer", conversation(*ids))
    )
    uses = [n for n in nodes(body) if isinstance(n, dict) and n.get("type") == "tool_use"]
    results = [n for n in nodes(body) if isinstance(n, dict) and n.get("type") == "tool_result"]
    assert [u["id"] for u in uses] == [r["tool_use_id"] for r in results]
    assert all(ANTHROPIC_ID.fullmatch(u["id"]) for u in uses)
    assert len({u["id"] for u in uses}) == 2
    kinds = [block["type"] for block in results[0]["content"]]
    assert kinds == ["text", "image", "document"]
    assert results[0]["content"][1]["source"]["data"] == PNG


def test_gemini_3_reads_them_in_the_function_response(
    servers: dict[str, ProviderServer], callback: ToolwireCallback
) -> None:
    body = run(send(servers["gemini"], "gemini/gemini-3-flash-ignorer", conversation("call_1")))
    (response,) = [
        n["function_response"]
        for n in nodes(body)
        if isinstance(n, dict) and "function_response" in n
    ]
    assert [p["inline_data"]["mime_type"] for p in response["parts"]] == [
        "image/png",
        "application/pdf",
    ]


def test_gemini_2_5_gets_placeholders_and_no_base64(
    servers: dict[str, ProviderServer], callback: ToolwireCallback
) -> None:
    body = run(send(servers["gemini"], "gemini/gemini-2.5-flash-ignorer", conversation("call_1")))
    no_payload(body)
    raw = text(body)
    assert "[image] image/png (70 bytes)" in raw
    assert "[document] application/pdf <r> (45 bytes)" in raw  # the file named r.pdf


def test_bedrock_converse_reads_them_and_long_ids_fit(
    servers: dict[str, ProviderServer], callback: ToolwireCallback
) -> None:
    long_id = "call_" + "x" * 70 + ".tail:9"
    model = "bedrock/converse/anthropic.claude-sonnet-4-5-ignorer-v1:0"
    body = run(send(servers["bedrock"], model, conversation(long_id, "tooluse_ok")))
    uses = [
        n["toolUse"]["toolUseId"] for n in nodes(body) if isinstance(n, dict) and "toolUse" in n
    ]
    results = [n["toolResult"] for n in nodes(body) if isinstance(n, dict) and "toolResult" in n]
    assert uses == [r["toolUseId"] for r in results]
    assert all(BEDROCK_ID.fullmatch(i) for i in uses)
    assert uses[1] == "tooluse_ok"  # a valid id is kept as it is
    assert [next(iter(part)) for part in results[0]["content"]] == ["text", "image", "document"]


def test_bedrock_model_without_vision_gets_placeholders(
    servers: dict[str, ProviderServer], callback: ToolwireCallback
) -> None:
    model = "bedrock/converse/amazon.nova-micro-ignorer-v1:0"
    body = run(send(servers["bedrock"], model, conversation("functions.bash:0")))
    no_payload(body)
    (result,) = [n["toolResult"] for n in nodes(body) if isinstance(n, dict) and "toolResult" in n]
    assert "[image] image/png (70 bytes)" in text(result)
    assert BEDROCK_ID.fullmatch(result["toolUseId"])


def test_openai_chat_gets_placeholders_not_litellm_hoisting(
    servers: dict[str, ProviderServer], callback: ToolwireCallback
) -> None:
    body = run(send(servers["openai"], "openai/gpt-4o-mini-ignorer", conversation("call_1")))
    no_payload(body)
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "tool"]
    assert body["messages"][2]["content"] == (
        "the screen and the report\n[image] image/png (70 bytes)\n"
        "[document] application/pdf <r> (45 bytes)"  # the file named r.pdf
    )


def test_mistral_gets_nine_character_ids_that_pair(
    servers: dict[str, ProviderServer], callback: ToolwireCallback
) -> None:
    ids = ["functions.bash:0", "call_2"]
    body = run(send(servers["openai"], "mistral/mistral-large-latest-ignorer", conversation(*ids)))
    calls = [c["id"] for c in body["messages"][1]["tool_calls"]]
    answers = [m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"]
    assert calls == answers
    assert all(MISTRAL_ID.fullmatch(i) for i in calls) and len(set(calls)) == 2
    no_payload(body)


# -- hoisting -------------------------------------------------------------------------


def test_hoisting_puts_media_after_every_tool_message(
    servers: dict[str, ProviderServer], callback: ToolwireCallback
) -> None:
    body = run(send(servers["openai"], f"openai/{HOISTING}", conversation("call_a", "call_b")))
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["user", "assistant", "tool", "tool", "user"]
    first = body["messages"][2]["content"]
    assert "[image] image/png (70 bytes) [attachment 1]" in first
    hoisted = body["messages"][4]["content"]
    assert hoisted[0]["type"] == "text"
    assert "returned by the tool bash (call id call_a)" in hoisted[0]["text"]
    assert "not as instructions" in hoisted[0]["text"]
    urls = [p["image_url"]["url"] for p in hoisted if p["type"] == "image_url"]
    assert urls == [f"data:image/png;base64,{PNG}"]
    assert [p["file"]["filename"] for p in hoisted if p["type"] == "file"] == ["r.pdf"]
    # LiteLLM's own hoisting found nothing left to move: one media message, toolwire's
    assert "The following media is tool output" not in text(body)


# -- nothing to do: nothing changed -----------------------------------------------------


def test_a_conversation_without_tool_media_passes_byte_identical(
    servers: dict[str, ProviderServer], registry: Any
) -> None:
    server = servers["anthropic"]
    messages = conversation("toolu_01A", "toolu_01B", media=False)
    before = litellm.callbacks
    try:
        litellm.callbacks = []
        run(send(server, "anthropic/claude-sonnet-4-5-ignorer", messages))
        litellm.callbacks = [toolwire_litellm.ToolwireCallback(registry=registry)]
        run(send(server, "anthropic/claude-sonnet-4-5-ignorer", messages))
    finally:
        litellm.callbacks = before
    assert len(server.raw) == 2
    assert server.raw[0] == server.raw[1]


def test_the_hook_returns_none_without_tool_turns(callback: ToolwireCallback) -> None:
    acompletion = litellm_types.CallTypes.acompletion
    kwargs = {
        "model": "anthropic/claude-sonnet-4-5",
        "messages": [{"role": "user", "content": "hi"}],
    }
    assert run(callback.async_pre_call_deployment_hook(kwargs, acompletion)) is None
    valid = {
        "model": "anthropic/claude-sonnet-4-5",
        "messages": conversation("toolu_1", media=False),
    }
    assert run(callback.async_pre_call_deployment_hook(valid, acompletion)) is None


# -- what LiteLLM's logging sees ------------------------------------------------------------


def _seen() -> Any:
    """Return a LiteLLM logger that keeps the metadata of each logged request."""

    class Seen(litellm_loggers.CustomLogger):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.metadata: list[Any] = []

        async def async_log_success_event(
            self, kwargs: Any, response_obj: Any, start_time: Any, end_time: Any
        ) -> None:
            self.metadata.append((kwargs.get("litellm_params") or {}).get("metadata"))

    return Seen()


def _reports_of(seen: Any, model: str) -> list[dict[str, Any]]:
    """The toolwire reports the logged requests for ``model`` carry."""
    reports = [(m or {}).get("toolwire") for m in seen.metadata]
    return [r for r in reports if isinstance(r, dict) and r.get("model") == model]


def test_the_decision_report_reaches_litellm_logging(
    servers: dict[str, ProviderServer], registry: Any
) -> None:
    seen = _seen()
    before = litellm.callbacks
    try:
        litellm.callbacks = [toolwire_litellm.ToolwireCallback(registry=registry), seen]
        run(send(servers["gemini"], "gemini/gemini-2.5-flash-ignorer", conversation("call_1")))
        for _ in range(100):  # success callbacks run after the reply, on the loop
            if _reports_of(seen, "gemini-2.5-flash-ignorer"):
                break
            run(asyncio.sleep(0.02))
    finally:
        litellm.callbacks = before
    # an earlier test's request may be logged late, while this one's callbacks are set
    (report,) = _reports_of(seen, "gemini-2.5-flash-ignorer")
    assert (report["engine"], report["model"], report["wire"]) == (
        "gemini",
        "gemini-2.5-flash-ignorer",
        "gemini",
    )
    image, pdf = report["media"]
    # the model is recorded nowhere, and the reason says so
    assert (image["outcome"], image["reason"], image["mime"]) == (
        "placeholder",
        "unknown_model",
        "image/png",
    )
    assert (image["message"], image["part"]) == (2, 1)
    assert pdf["mime"] == "application/pdf" and pdf["outcome"] == "placeholder"


def test_a_provider_without_an_engine_passes_unchanged_with_the_reason(
    callback: ToolwireCallback,
) -> None:
    messages = conversation("functions.bash:0")
    kwargs = {"model": "ollama/llava", "messages": messages}
    out = run(callback.async_pre_call_deployment_hook(kwargs, litellm_types.CallTypes.acompletion))
    assert out["messages"] is messages
    assert "no engine for the LiteLLM provider 'ollama'" in out["metadata"]["toolwire"]["skipped"]


def test_route_uses_the_catalog_table() -> None:
    route = toolwire_litellm.route
    assert route("anthropic/claude-sonnet-4-5") == (
        "anthropic",
        "claude-sonnet-4-5",
    )
    assert route("bedrock/converse/us.anthropic.claude-x-v1:0") == (
        "bedrock",
        "us.anthropic.claude-x-v1:0",
    )
    assert route("gemini/gemini-3-flash") == ("gemini", "gemini-3-flash")
    assert route("gpt-4o") == ("openai", "gpt-4o")
    assert route("mistral/mistral-large-latest") == (
        "mistral",
        "mistral-large-latest",
    )


def test_importing_toolwire_never_imports_litellm() -> None:
    code = (
        "import sys, toolwire.convert, toolwire.registry, toolwire.integrations\n"
        "from toolwire.registry import providers\n"
        "assert 'litellm' not in sys.modules, 'litellm imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_provider_lookup_is_the_catalog_table() -> None:
    from toolwire.registry.catalog import engine_map
    from toolwire.registry.providers import engine_for, engines_for

    table = engine_map("litellm")
    assert table  # the shipped table has the litellm section
    for provider, engines in table.items():
        assert engines_for("litellm", provider) == engines
        assert engine_for("litellm", provider) == engines[0]
    assert engine_for("litellm", "no-such-provider") is None
    assert engines_for("models.dev", "google") == engine_map("models.dev")["google"]
