"""End to end: a real MCP server over stdio, the real ``mcp`` client, then toolwire.

The server is the MCP reference server ``@modelcontextprotocol/server-everything``
from the npm registry. Point ``TOOLWIRE_MCP_EVERYTHING`` at its ``dist/index.js``
(``.ci/run`` installs it); without it these tests are skipped, or fail when
``TOOLWIRE_REQUIRE_E2E=1``.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from toolwire.convert import ToolResult, format_tool_results
from toolwire.registry import Registry, format_for

mcp = pytest.importorskip("mcp")

CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "image": ("get-tiny-image", {}),
    "text_resource": ("get-resource-reference", {"resourceType": "Text", "resourceId": 1}),
    "blob_resource": ("get-resource-reference", {"resourceType": "Blob", "resourceId": 2}),
    "links": ("get-resource-links", {"count": 2}),
    "structured": ("get-structured-content", {"location": "Chicago"}),
}


def _server() -> Path:
    script = os.environ.get("TOOLWIRE_MCP_EVERYTHING", "")
    problem = None
    if not script:
        problem = "TOOLWIRE_MCP_EVERYTHING is not set"
    elif not Path(script).is_file():
        problem = f"TOOLWIRE_MCP_EVERYTHING={script} is not a file"
    elif shutil.which("node") is None:
        problem = "node is not installed"
    if problem is not None:
        reason = (
            f"MCP reference server unavailable ({problem}); install it with "
            "`npm install @modelcontextprotocol/server-everything` and set "
            "TOOLWIRE_MCP_EVERYTHING to its dist/index.js"
        )
        if os.environ.get("TOOLWIRE_REQUIRE_E2E") == "1":
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    return Path(script)


async def _call_all(script: Path) -> dict[str, Any]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command="node", args=[str(script), "stdio"])
    results: dict[str, Any] = {}
    with open(os.devnull, "w") as quiet:  # the server greets on stderr
        async with (
            stdio_client(params, errlog=quiet) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            for key, (tool, arguments) in CALLS.items():
                results[key] = await session.call_tool(tool, arguments)
    return results


@pytest.fixture(scope="module")
def mcp_results() -> Iterator[dict[str, Any]]:
    """Call each tool once on a real server; the values are mcp CallToolResult objects."""
    yield asyncio.run(asyncio.wait_for(_call_all(_server()), timeout=60))


def _result(mcp_results: dict[str, Any], key: str) -> ToolResult:
    return ToolResult.from_mcp(mcp_results[key], id=f"call_{key}", name=CALLS[key][0])


def test_object_and_json_forms_agree(mcp_results: dict[str, Any]) -> None:
    for key, obj in mcp_results.items():
        as_json = json.loads(obj.model_dump_json(by_alias=True, exclude_none=True))
        from_json = ToolResult.from_mcp(as_json, id=f"call_{key}", name=CALLS[key][0])
        assert from_json == _result(mcp_results, key), key


def test_tiny_image_native_where_read_placeholder_elsewhere(mcp_results: dict[str, Any]) -> None:
    result = _result(mcp_results, "image")
    image = next(item for item in result.content if item["type"] == "image")
    size = len(base64.b64decode(image["data"]))
    block = result.to("anthropic", image_input=True)
    native = [b for b in block["content"] if b["type"] == "image"]
    assert native == [
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": image["data"]},
        }
    ]
    chat = result.to("openai")
    assert f"\n[image] image/png ({size} bytes)\n" in chat["content"]
    assert image["data"] not in chat["content"]
    gemini = result.to("gemini", image_input=True)["functionResponse"]
    assert gemini["parts"] == [{"inlineData": {"mimeType": "image/png", "data": image["data"]}}]
    assert "[image]" not in gemini["response"]["result"]


def test_resources_links_and_structured_content(mcp_results: dict[str, Any]) -> None:
    text = _result(mcp_results, "text_resource").to("anthropic")["content"]
    document = next(b for b in text if b["type"] == "document")
    assert document["source"]["media_type"] == "text/plain"
    assert document["source"]["data"].startswith("Resource 1:")

    blob = _result(mcp_results, "blob_resource")
    resource = next(item for item in blob.content if item["type"] == "resource")["resource"]
    decoded = base64.b64decode(resource["blob"]).decode()
    assert decoded in blob.to("ollama")["content"]  # a text/* blob is sent as its text

    links = _result(mcp_results, "links").to("responses")["output"]
    assert "[resource_link] Blob Resource 1 <demo://resource/dynamic/blob/1>" in links

    structured = _result(mcp_results, "structured")
    response = structured.to("gemini")["functionResponse"]["response"]
    expected = mcp_results["structured"].model_dump(by_alias=True)["structuredContent"]
    assert response == expected and isinstance(response, dict)


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_format_for_with_the_registry(
    mcp_results: dict[str, Any], seeded_database_url: str
) -> None:
    registry = Registry(seeded_database_url)
    try:
        results = [_result(mcp_results, key) for key in CALLS]
        claude = format_for("anthropic", "claude-sonnet-4-5", results, registry=registry)
        assert [b["tool_use_id"] for b in claude[0]["content"]] == [f"call_{k}" for k in CALLS]
        assert any(
            block["type"] == "image" for block in claude[0]["content"][0]["content"]
        )  # a vision model on first-party Anthropic reads the image
        aki = format_for("aki-anthropic", "qwen3.6-35b", results, registry=registry)
        kinds = {block["type"] for r in aki[0]["content"] for block in r["content"]}
        assert kinds == {"text"}  # no images, no source blocks on AKI.IO's shim
        flash = format_for("gemini", "gemini-2.5-flash", results, registry=registry)
        assert flash == format_tool_results("gemini", results)  # placeholders only
    finally:
        registry.close()
