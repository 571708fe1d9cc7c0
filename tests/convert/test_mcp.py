"""ToolResult.from_mcp with the real ``mcp`` package (1.x or 2.x) and its JSON forms."""

from __future__ import annotations

import importlib.metadata
from typing import Any

import pytest
from convert_samples import GIF_B64, PDF, PDF_B64, PNG, PNG_B64, WAV, WAV_B64, b64
from toolwire.convert import WIRES, InvalidToolResult, ToolResult

mt = pytest.importorskip("mcp.types")
MCP_MAJOR = int(importlib.metadata.version("mcp").split(".")[0])
HAS_RESOURCE_LINK = hasattr(mt, "ResourceLink")


def _mime(value: str) -> dict[str, str]:
    """The MIME keyword as this mcp version spells it (2.x: snake_case fields)."""
    return {"mime_type" if MCP_MAJOR >= 2 else "mimeType": value}


def _result_fields(structured: Any, is_error: bool) -> dict[str, Any]:
    if MCP_MAJOR >= 2:
        return {"structured_content": structured, "is_error": is_error}
    return {"structuredContent": structured, "isError": is_error}


def build_call_tool_result() -> Any:
    """Build a CallToolResult with every content type, by keyword."""
    content = [
        mt.TextContent(type="text", text="Sunny, 22\u00b0C"),
        mt.ImageContent(type="image", data=PNG_B64, **_mime("image/png")),
        mt.AudioContent(type="audio", data=WAV_B64, **_mime("audio/wav")),
        mt.EmbeddedResource(
            type="resource",
            resource=mt.TextResourceContents(
                uri="file:///notes.md", text="# Notes", **_mime("text/markdown")
            ),
        ),
        mt.EmbeddedResource(
            type="resource",
            resource=mt.BlobResourceContents(
                uri="file:///docs/report.pdf", blob=PDF_B64, **_mime("application/pdf")
            ),
        ),
    ]
    if HAS_RESOURCE_LINK:
        content.append(
            mt.ResourceLink(
                type="resource_link", name="data.csv", uri="file:///data.csv", **_mime("text/csv")
            )
        )
    return mt.CallToolResult(content=content, **_result_fields({"temp": 22}, True))


CAMEL_JSON: dict[str, Any] = {
    "content": [
        {"type": "text", "text": "Sunny, 22\u00b0C"},
        {"type": "image", "data": PNG_B64, "mimeType": "image/png"},
        {"type": "audio", "data": WAV_B64, "mimeType": "audio/wav"},
        {
            "type": "resource",
            "resource": {"uri": "file:///notes.md", "mimeType": "text/markdown", "text": "# Notes"},
        },
        {
            "type": "resource",
            "resource": {
                "uri": "file:///docs/report.pdf",
                "mimeType": "application/pdf",
                "blob": PDF_B64,
            },
        },
    ],
    "structuredContent": {"temp": 22},
    "isError": True,
}
if HAS_RESOURCE_LINK:
    CAMEL_JSON["content"].append(
        {
            "type": "resource_link",
            "name": "data.csv",
            "uri": "file:///data.csv",
            "mimeType": "text/csv",
        }
    )

EXPECTED_STRING = "\n".join(
    [
        "Sunny, 22\u00b0C",
        f"[image] image/png ({len(PNG)} bytes)",
        f"[audio] audio/wav ({len(WAV)} bytes)",
        "# Notes",
        f"[resource] application/pdf <file:///docs/report.pdf> ({len(PDF)} bytes)",
        *(["[resource_link] data.csv <file:///data.csv>"] if HAS_RESOURCE_LINK else []),
    ]
)


def blocks(result: ToolResult) -> dict[str, Any]:
    options = {"image_input": True, "native_pdf": True}
    return {wire: result.to(wire, **options) for wire in WIRES}


def test_object_converts_like_its_json_form() -> None:
    obj = build_call_tool_result()
    result = ToolResult.from_mcp(obj, id="call_1", name="weather")
    assert result.is_error is True
    assert result.structured_content == {"temp": 22}
    assert result.to("openai")["content"] == EXPECTED_STRING
    assert result == ToolResult.from_mcp(CAMEL_JSON, id="call_1", name="weather")
    dumped = obj.model_dump(by_alias=True, mode="json", exclude_none=True)
    assert result == ToolResult.from_mcp(dumped, id="call_1", name="weather")
    # The full dump (nulls included) is the same result on every wire.
    full = ToolResult.from_mcp(
        obj.model_dump(by_alias=True, mode="json"), id="call_1", name="weather"
    )
    assert blocks(full) == blocks(result)


def test_object_built_from_camel_case_json_works_on_any_mcp_version() -> None:
    obj = mt.CallToolResult.model_validate(CAMEL_JSON)
    assert ToolResult.from_mcp(obj, id="call_1", name="tool") == ToolResult.from_mcp(
        CAMEL_JSON, id="call_1", name="tool"
    )


def test_native_media_from_an_mcp_object() -> None:
    result = ToolResult.from_mcp(build_call_tool_result(), id="c", name="tool")
    content = result.to("anthropic", image_input=True)["content"]
    assert [block["type"] for block in content[:5]] == [
        "text",
        "image",
        "text",
        "document",
        "document",
    ]
    assert content[1]["source"] == {"type": "base64", "media_type": "image/png", "data": PNG_B64}
    assert content[4]["source"] == {
        "type": "base64",
        "media_type": "application/pdf",
        "data": PDF_B64,
    }


def test_json_rpc_response_is_unwrapped() -> None:
    envelope = {"jsonrpc": "2.0", "id": 7, "result": CAMEL_JSON}
    assert ToolResult.from_mcp(envelope, id="call_1", name="tool") == ToolResult.from_mcp(
        CAMEL_JSON, id="call_1", name="tool"
    )


def test_json_rpc_error_is_a_failed_result() -> None:
    result = ToolResult.from_mcp(
        {"jsonrpc": "2.0", "id": 7, "error": {"code": -32602, "message": "x"}},
        id="call_1",
        name="tool",
    )
    assert (result.id, result.is_error) == ("call_1", True)
    assert result.to("openai")["content"] == "MCP error -32602: x"


def test_structured_content_without_content() -> None:
    result = ToolResult.from_mcp({"structuredContent": {"a": 1}}, id="call_1", name="tool")
    assert result.content == ()
    assert result.to("openai")["content"] == '{"a":1}'
    assert (
        ToolResult.from_mcp(
            {"content": None, "structuredContent": {"a": 1}}, id="call_1", name="tool"
        )
        == result
    )


@pytest.mark.parametrize("flag", ["yes", "false", "true", [], {}, 2])
def test_is_error_must_be_a_boolean(flag: Any) -> None:
    with pytest.raises(InvalidToolResult, match="is_error must be true or false"):
        ToolResult.from_mcp({"content": [], "isError": flag}, id="call_1", name="tool")


def test_is_error_booleans_count() -> None:
    assert (
        ToolResult.from_mcp({"content": [], "isError": False}, id="call_1", name="tool").is_error
        is False
    )
    assert (
        ToolResult.from_mcp({"content": [], "isError": True}, id="call_1", name="tool").is_error
        is True
    )
    assert (
        ToolResult.from_mcp({"content": [], "is_error": True}, id="call_1", name="tool").is_error
        is True
    )


@pytest.mark.parametrize("flag", [0, 1, 1.0])
def test_a_numeric_is_error_keeps_the_content(flag: Any) -> None:
    text = [{"type": "text", "text": "out"}]
    message = {"content": text, "isError": flag, "structuredContent": {}}
    result = ToolResult.from_mcp(message, id="c1", name="t")
    assert result.is_error is bool(flag)
    assert (result.id, result.name) == ("c1", "t")
    assert result.to("openai")["content"] == "out"
    assert result.structured_content == {}


@pytest.mark.parametrize("obj", ["text", 3, None, [1], {"no": "content"}, {"content": "text"}])
def test_not_a_tool_result(obj: Any) -> None:
    with pytest.raises(InvalidToolResult):
        ToolResult.from_mcp(obj, id="call_1", name="tool")


class Plain:
    """An attribute-only object, as mcp 1.x shapes results (no model_dump)."""

    def __init__(self, **attributes: Any) -> None:
        self.__dict__.update(attributes)


def _plain_items(camel: bool) -> list[Plain]:
    mime = "mimeType" if camel else "mime_type"
    items = [
        Plain(type="text", text="Sunny, 22\u00b0C", annotations=None),
        Plain(type="image", data=PNG_B64, **{mime: "image/png"}),
        Plain(type="audio", data=WAV_B64, **{mime: "audio/wav"}),
        Plain(
            type="resource",
            resource=Plain(uri="file:///notes.md", text="# Notes", **{mime: "text/markdown"}),
        ),
        Plain(
            type="resource",
            resource=Plain(
                uri="file:///docs/report.pdf", blob=PDF_B64, **{mime: "application/pdf"}
            ),
        ),
    ]
    if HAS_RESOURCE_LINK:
        items.append(
            Plain(
                type="resource_link", name="data.csv", uri="file:///data.csv", **{mime: "text/csv"}
            )
        )
    return items


def test_plain_object_with_camel_case_attributes() -> None:
    obj = Plain(content=_plain_items(camel=True), structuredContent={"temp": 22}, isError=True)
    result = ToolResult.from_mcp(obj, id="call_1", name="weather")
    assert result.to("openai")["content"] == EXPECTED_STRING
    assert blocks(result) == blocks(ToolResult.from_mcp(CAMEL_JSON, id="call_1", name="weather"))


def test_plain_object_with_snake_case_attributes() -> None:
    obj = Plain(content=_plain_items(camel=False), structured_content={"temp": 22}, is_error=True)
    result = ToolResult.from_mcp(obj, id="call_1", name="weather")
    assert result.to("openai")["content"] == EXPECTED_STRING
    assert blocks(result) == blocks(ToolResult.from_mcp(CAMEL_JSON, id="call_1", name="weather"))


def test_plain_content_items_in_a_mapping() -> None:
    result = ToolResult.from_mcp(
        {"content": [Plain(type="image", data=GIF_B64, mimeType="image/gif")]},
        id="call_1",
        name="tool",
    )
    assert result.to("responses", image_input=True)["output"] == [
        {"type": "input_image", "image_url": f"data:image/gif;base64,{GIF_B64}"}
    ]


def test_plain_item_without_type_is_invalid() -> None:
    with pytest.raises(InvalidToolResult, match=r"content\[0\]"):
        ToolResult.from_mcp(Plain(content=[Plain(text="no type")]), id="call_1", name="tool")


def test_content_objects_given_directly() -> None:
    item = mt.ImageContent(type="image", data=b64(PNG), **_mime("image/png"))
    result = ToolResult(id="call_1", name="tool", content=[item])
    assert result.to("openai")["content"] == f"[image] image/png ({len(PNG)} bytes)"


# --- MCP 2026-07-28: any JSON value as structuredContent, resultType ------------------

NON_OBJECTS = [[1, "two", {"three": 3}], "plain", 42, 1.5, True, False]


@pytest.mark.parametrize("value", NON_OBJECTS)
def test_structured_content_may_be_any_json_value(value: Any) -> None:
    import json

    result = ToolResult.from_mcp({"content": [], "structuredContent": value}, name="t", id="call_1")
    encoded = json.dumps(value, separators=(",", ":"), sort_keys=True)
    assert result.to("openai")["content"] == encoded
    assert result.to("responses")["output"] == encoded
    assert result.to("ollama")["content"] == encoded
    assert result.to("anthropic")["content"] == encoded
    assert result.to("gemini")["functionResponse"]["response"] == {"result": value}


def test_structured_object_is_gemini_response_itself() -> None:
    result = ToolResult.from_mcp(
        {"content": [], "structuredContent": {"a": [1]}}, id="call_1", name="tool"
    )
    assert result.to("gemini")["functionResponse"]["response"] == {"a": [1]}


def test_non_object_structured_content_from_mcp_objects() -> None:
    try:
        obj = mt.CallToolResult(content=[], **_result_fields([1, 2], False))
    except Exception:  # mcp 1.x: structuredContent is an object only
        assert MCP_MAJOR < 2
        pytest.skip("this mcp version takes only objects as structuredContent")
    result = ToolResult.from_mcp(obj, id="call_1", name="tool")
    assert result.structured_content == (1, 2)
    assert result.to("openai")["content"] == "[1,2]"
    assert result.to("gemini")["functionResponse"]["response"] == {"result": [1, 2]}


def test_result_type_is_kept() -> None:
    assert ToolResult.from_mcp({"content": []}, id="call_1", name="tool").result_type == "complete"
    assert (
        ToolResult.from_mcp(
            {"content": [], "resultType": "complete"}, id="call_1", name="tool"
        ).result_type
        == "complete"
    )
    other = ToolResult.from_mcp(
        {"content": [{"type": "text", "text": "t"}], "resultType": "x-batch"}, id="c", name="tool"
    )
    assert other.result_type == "x-batch"
    assert other.to("openai")["content"] == "t"  # converted as any result; not sent
    assert other != ToolResult.from_mcp(
        {"content": [{"type": "text", "text": "t"}]}, id="c", name="tool"
    )
    assert ToolResult(id="call_1", name="tool", result_type="task").result_type == "task"


def test_result_type_from_mcp_objects() -> None:
    obj = mt.CallToolResult(
        id="call_1", name="tool", content=[mt.TextContent(type="text", text="t")]
    )
    assert (
        ToolResult.from_mcp(obj, id="call_1", name="tool").result_type == "complete"
    )  # 1.x: absent; 2.x: dumped
    if "result_type" in getattr(mt.CallToolResult, "model_fields", {}):
        obj = mt.CallToolResult(id="call_1", name="tool", content=[], result_type="x-batch")
        assert ToolResult.from_mcp(obj, id="call_1", name="tool").result_type == "x-batch"


def test_input_required_is_not_a_tool_result() -> None:
    asked = {"resultType": "input_required", "inputRequests": {"a": {}}, "requestState": "s"}
    with pytest.raises(InvalidToolResult, match="input_required"):
        ToolResult.from_mcp(asked, id="call_1", name="tool")
    with pytest.raises(InvalidToolResult, match="input_required"):
        ToolResult.from_mcp({**asked, "content": []})
    with pytest.raises(InvalidToolResult, match="input_required"):
        ToolResult.from_mcp({"jsonrpc": "2.0", "id": 1, "result": {**asked, "content": []}})


@pytest.mark.parametrize("bad", [1, ["complete"], {"x": 1}])
def test_result_type_must_be_a_string(bad: Any) -> None:
    with pytest.raises(InvalidToolResult, match="result_type must be a string"):
        ToolResult.from_mcp({"content": [], "resultType": bad}, id="call_1", name="tool")
