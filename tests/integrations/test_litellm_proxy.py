"""The callback inside the real LiteLLM proxy, named by its config file, over HTTP."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from litellm_helpers import PNG
from providers import KEY, ProviderServer

pytestmark = pytest.mark.usefixtures("server_checks")

MASTER_KEY = "sk-toolwire-proxy-test"
#: the proxy imports a great deal before it listens: a loaded machine takes a while
START_TIMEOUT = 240.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def proxy(
    servers: dict[str, ProviderServer], registry_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """Start ``litellm --config`` with the callback named in the config; yield its URL."""
    directory = tmp_path_factory.mktemp("proxy")
    config = directory / "config.yaml"
    config.write_text(
        "model_list:\n"
        "  - model_name: flash\n"
        "    litellm_params:\n"
        "      model: gemini/gemini-2.5-flash-ignorer\n"
        f"      api_base: {servers['gemini'].base_url}/v1beta\n"
        f"      api_key: {KEY}\n"
        "general_settings:\n"
        f"  master_key: {MASTER_KEY}\n"
        "litellm_settings:\n"
        "  callbacks: toolwire.integrations.litellm.handler\n",
        encoding="utf-8",
    )
    port = _free_port()
    env = {
        **os.environ,
        "TOOLWIRE_DATABASE_URL": registry_url,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "LITELLM_TELEMETRY": "False",
    }
    litellm_cli = Path(sys.executable).with_name("litellm")
    log = (directory / "proxy.log").open("w")
    process = subprocess.Popen(
        [str(litellm_cli), "--config", str(config), "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=directory,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if process.poll() is not None:
                pytest.fail(f"the proxy exited: {(directory / 'proxy.log').read_text()[-2000:]}")
            try:
                if httpx.get(f"{url}/health/liveliness", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"the proxy did not start in {START_TIMEOUT:.0f} s")
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def test_the_proxy_runs_the_callback_its_config_names(
    proxy: str, servers: dict[str, ProviderServer]
) -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "look at the screen"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "functions.screenshot:0",
                    "type": "function",
                    "function": {"name": "screenshot", "arguments": "{}"},
                }
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "functions.screenshot:0",
            "content": [
                {"type": "text", "text": "the screen"},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
            ],
        },
    ]
    reply = httpx.post(
        f"{proxy}/v1/chat/completions",
        headers={"Authorization": f"Bearer {MASTER_KEY}"},
        json={
            "model": "flash",
            "messages": messages,
            "max_tokens": 16,
            "tools": [{"type": "function", "function": {"name": "screenshot", "parameters": {}}}],
        },
        timeout=120,
    )
    assert reply.status_code == 200, reply.text
    (body,) = servers["gemini"].requests
    raw = json.dumps(body)
    assert PNG not in raw and PNG[:40] not in raw
    (response,) = [
        part["function_response"]
        for content in body["contents"]
        for part in content["parts"]
        if "function_response" in part
    ]
    assert response["response"] == {"content": "the screen\n[image] image/png (70 bytes)"}
    assert "parts" not in response
