"""The probe's hermes tool conversation frames its tool turns as the resolver does.

No probe scenario sends a hermes tool message today (the wire has no native media
form, so ``image_input`` is its only scenario), so these tests send the tool
conversation of ``tool_result_images`` through ``send_scenario``, the runner's own
path, to the loopback hermes server and read the body it received.
"""

from __future__ import annotations

from typing import Any

import pytest
from providers import KEY, ProviderServer
from toolwire.registry import Registry
from toolwire.registry.probe._http import Client
from toolwire.registry.probe._runner import Budget, prepare, send_scenario
from toolwire.registry.resolver import Resolver


def tool_message(server: ProviderServer) -> dict[str, Any]:
    """Return the tool message of the last request ``server`` received."""
    [message] = [m for m in server.requests[-1]["messages"] if m["role"] == "tool"]
    assert isinstance(message, dict)
    return message


def send_tool_turn(registry: Registry, engine: str, server: ProviderServer) -> None:
    target = prepare(
        registry, engine, "Hermes-4-70B", base_url=server.base_url, api_key=KEY, timeout=10.0
    )
    assert target.wire == "hermes"
    with Client() as client:
        result = send_scenario(
            client, registry, target, "tool_result_images", "ops", False, Budget(1)
        )
    assert result is not None


@pytest.mark.usefixtures("server_checks")
def test_an_openai_family_engine_sends_the_call_id(
    sqlite_registry: Registry, servers: dict[str, ProviderServer]
) -> None:
    server = servers["hermes"]
    options = Resolver(sqlite_registry).resolve("aki-openai", "Hermes-4-70B").options
    assert options.get("call_ids") is True  # what the resolver sends for this engine
    send_tool_turn(sqlite_registry, "aki-openai", server)
    message = tool_message(server)
    assert message["tool_call_id"] == "call_probe"
    assert message["content"].startswith("<tool_response>\n")
    # the call it answers: made by the assistant turn before it (the stand-in refuses
    # a tool message answering no call, as the API does)
    assistant = server.requests[-1]["messages"][-2]
    assert [call["id"] for call in assistant["tool_calls"]] == ["call_probe"]
    assert assistant["content"].startswith("<tool_call>\n")


def test_another_family_sends_no_call_id_and_its_own_tag(
    sqlite_registry: Registry, servers: dict[str, ProviderServer]
) -> None:
    # (the hermes server's own checks expect <tool_response>, so they are not asked here)
    server = servers["hermes"]
    sqlite_registry.add_engine(
        "tagged",
        provider="loopback",
        family="hermes",
        default_wire="hermes",
        kind="self-hosted",
        response_tag="function_response",
        created_by="ops",
    )
    options = Resolver(sqlite_registry).resolve("tagged", "Hermes-4-70B").options
    assert "call_ids" not in options
    send_tool_turn(sqlite_registry, "tagged", server)
    message = tool_message(server)
    assert set(message) == {"role", "content"}
    assert "tool_calls" not in server.requests[-1]["messages"][-2]
    assert message["content"].startswith("<function_response>\n")
