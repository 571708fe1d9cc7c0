"""Reading bedrock toolResult blocks back, and URL sources read as resource_link items.

Bedrock inputs are checked with botocore's validator against the bedrock-runtime
service model before they are read, so each one is a block Bedrock accepts.
"""

from __future__ import annotations

import base64
import re
from typing import Any

import pytest
from convert_checks import anthropic_types, check_block, converse_request, validate_converse
from convert_samples import PDF, PDF_B64, PNG, PNG_B64
from toolwire.convert import InvalidBlock, ToolResult, convert_tool_results

NATIVE = {"image_input": True, "native_pdf": True}


def _valid(block: dict[str, Any]) -> dict[str, Any]:
    """Return ``block`` after botocore accepted it inside a Converse request."""
    validate_converse(converse_request([{"toolResult": dict(block["toolResult"])}]))
    return block


def _block(content: list[dict[str, Any]], status: str = "success") -> dict[str, Any]:
    return _valid({"toolResult": {"toolUseId": "tooluse_1", "content": content, "status": status}})


@pytest.mark.parametrize(("png", "pdf"), [(PNG_B64, PDF_B64), (PNG, PDF)], ids=["json", "bytes"])
def test_image_pdf_and_text_in_both_forms(png: Any, pdf: Any) -> None:
    block = _block(
        [
            {"text": "Chart and report:"},
            {"image": {"format": "png", "source": {"bytes": png}}},
            {"document": {"format": "pdf", "name": "Q3 report (2)", "source": {"bytes": pdf}}},
        ]
    )
    result = ToolResult.from_wire("bedrock", block)
    assert (result.id, result.is_error, result.name) == ("tooluse_1", False, "")
    content = [dict(item) for item in result.content]
    assert content[0] == {"type": "text", "text": "Chart and report:"}
    assert content[1] == {"type": "image", "data": PNG_B64, "mimeType": "image/png"}
    assert content[2] == {  # the name is the title of a document block
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": PDF_B64},
        "title": "Q3 report (2)",
    }
    # the same name on bedrock, the same file name on responses, the title on anthropic
    again = result.to("bedrock", **NATIVE, raw_bytes=not isinstance(png, str))
    assert again == block
    assert result.to("responses", **NATIVE)["output"][2]["filename"] == "Q3 report (2).pdf"
    anthropic = result.to("anthropic", image_input=True)
    assert [b["type"] for b in anthropic["content"]] == ["text", "image", "document"]
    assert anthropic["content"][2]["title"] == "Q3 report (2)"
    check_block("anthropic", anthropic)


def test_json_is_the_structured_content_and_error_status_the_flag() -> None:
    block = _block([{"json": {"temp": 21, "unit": "C"}}], status="error")
    result = ToolResult.from_wire("bedrock", block, name="weather")
    assert result.structured_content == {"temp": 21, "unit": "C"}
    assert (result.content, result.is_error) == ((), True)
    assert result.to("bedrock") == block
    assert result.to("anthropic") == {
        "type": "tool_result",
        "tool_use_id": "tooluse_1",
        "content": '{"temp":21,"unit":"C"}',
        "is_error": True,
    }
    assert result.to("gemini")["functionResponse"]["response"] == {"temp": 21, "unit": "C"}
    # a second json block is kept as its canonical JSON text
    two = ToolResult.from_wire("bedrock", _block([{"json": {"a": 1}}, {"json": {"b": [2]}}]))
    assert two.structured_content == {"a": 1}
    assert two.content == ({"type": "text", "text": '{"b":[2]}'},)


def test_the_texts_written_for_no_output_read_as_no_content() -> None:
    for is_error in (False, True):
        written = ToolResult(name="t", id="tooluse_1", is_error=is_error).to("bedrock")
        result = ToolResult.from_wire("bedrock", _valid(written))
        assert (result.content, result.is_error) == ((), is_error)
        assert result.to("bedrock") == written
        assert result.to("openai")["content"] == ""
    # the same words beside other blocks, or under the other status, stay text
    text = written["toolResult"]["content"][0]["text"]
    kept = ToolResult.from_wire("bedrock", _block([{"text": text}]))
    assert kept.content == ({"type": "text", "text": text},)


@pytest.mark.parametrize(
    ("form", "mime"),
    [("txt", "text/plain"), ("md", "text/markdown"), ("html", "text/html"), ("csv", "text/csv")],
)
@pytest.mark.parametrize("encoded", [True, False], ids=["json", "bytes"])
def test_text_documents_are_text(form: str, mime: str, encoded: bool) -> None:
    raw = "a,b\nCafé,2\n".encode()
    data: Any = base64.b64encode(raw).decode("ascii") if encoded else raw
    block = _block([{"document": {"format": form, "name": "data", "source": {"bytes": data}}}])
    result = ToolResult.from_wire("bedrock", block)
    resource = dict(result.content[0]["resource"])
    assert resource == {"uri": f"data.{form}", "mimeType": mime, "text": "a,b\nCafé,2\n"}
    assert result.to("bedrock")["toolResult"]["content"] == [{"text": "a,b\nCafé,2\n"}]
    assert result.to("openai")["content"] == "a,b\nCafé,2\n"
    document = result.to("anthropic")["content"][0]
    assert document["source"] == {"type": "text", "media_type": "text/plain", "data": raw.decode()}


def test_what_no_item_holds_becomes_a_placeholder() -> None:
    s3 = {"s3Location": {"uri": "s3://bucket/a.png"}}
    block = _block(
        [
            {"image": {"format": "png", "source": s3}},
            {"document": {"format": "pdf", "name": "a", "source": s3}},
            {"document": {"format": "docx", "name": "memo", "source": {"bytes": "UEsDBA=="}}},
            {"document": {"format": "txt", "name": "bad", "source": {"bytes": "/w=="}}},
            {"video": {"format": "mp4", "source": s3}},
        ]
    )
    result = ToolResult.from_wire("bedrock", block)
    assert [item.get("text") for item in result.content[:2]] == ["[image] png", "[document] pdf"]
    docx = dict(result.content[2]["resource"])
    assert docx["uri"] == "memo.docx" and docx["mimeType"].endswith("wordprocessingml.document")
    assert [item.get("text") for item in result.content[3:]] == ["[document] txt", "[video]"]
    # the docx blob goes on as its placeholder, never its payload
    assert result.to("openai")["content"].split("\n")[2].startswith("[resource] application/vnd")
    check_block("bedrock", result.to("bedrock", **NATIVE))


BAD = [
    ({"toolUse": {"toolUseId": "x"}}, "toolResult"),
    ({"type": "tool_result", "tool_use_id": "x"}, "toolResult"),
    ({"toolResult": {"toolUseId": 7, "content": []}}, "toolUseId"),
    ({"toolResult": {"toolUseId": "x", "content": [], "status": "failed"}}, "status"),
    ({"toolResult": {"toolUseId": "x", "content": {"text": "y"}}}, "content"),
    ({"toolResult": {"toolUseId": "x", "content": ["y"]}}, "content"),
    ({"toolResult": {"toolUseId": "x", "content": ""}}, "content"),
]


@pytest.mark.parametrize(("block", "message"), BAD)
def test_bad_blocks_raise_invalid_block(block: Any, message: str) -> None:
    with pytest.raises(InvalidBlock, match=re.escape(message)):
        ToolResult.from_wire("bedrock", block)


def test_an_anthropic_turn_goes_to_bedrock_and_back() -> None:
    anthropic = ToolResult(
        name="render",
        id="toolu_1",
        content=[
            {"type": "text", "text": "done"},
            {"type": "image", "data": PNG_B64, "mimeType": "image/png"},
        ],
        is_error=True,
    ).to("anthropic", image_input=True)
    [message] = convert_tool_results("anthropic", "bedrock", [anthropic], image_input=True)
    validate_converse(converse_request(message["content"]))
    back = convert_tool_results("bedrock", "anthropic", message["content"], image_input=True)
    assert back == [{"role": "user", "content": [anthropic]}]


# -- URL sources: what url_sources writes reads back as a resource_link ----------------

URL_OPTIONS = {"image_input": True, "native_pdf": True, "url_sources": True}


def test_anthropic_url_image_and_document_are_resource_links() -> None:
    image = anthropic_types.ImageBlockParam(
        type="image",
        source=anthropic_types.URLImageSourceParam(
            type="url", url="https://cdn.example.com/c.webp"
        ),
    )
    pdf = {
        "type": "document",
        "source": anthropic_types.URLPDFSourceParam(type="url", url="https://e.com/r"),
    }
    titled = {**pdf, "title": "Report"}
    block = {"type": "tool_result", "tool_use_id": "toolu_u", "content": [image, pdf, titled]}
    result = ToolResult.from_wire("anthropic", block, name="read")
    assert [dict(item) for item in result.content[:2]] == [
        {
            "type": "resource_link",
            "uri": "https://cdn.example.com/c.webp",
            "mimeType": "image/webp",
        },
        {"type": "resource_link", "uri": "https://e.com/r", "mimeType": "application/pdf"},
    ]
    assert result.content[2]["title"] == "Report"  # more than a URL: the native block
    assert result.to("anthropic", **URL_OPTIONS) == block
    parts = result.to("gemini", **URL_OPTIONS)["functionResponse"]["parts"]
    assert parts == [
        {"fileData": {"mimeType": "image/webp", "fileUri": "https://cdn.example.com/c.webp"}},
        {"fileData": {"mimeType": "application/pdf", "fileUri": "https://e.com/r"}},
    ]
    output = result.to("responses", **URL_OPTIONS)["output"]
    assert output[:2] == [
        {"type": "input_image", "image_url": "https://cdn.example.com/c.webp"},
        {"type": "input_file", "file_url": "https://e.com/r"},
    ]
    check_block("responses", result.to("responses", **URL_OPTIONS), URL_OPTIONS)


def test_url_sources_round_trip_between_responses_gemini_and_anthropic() -> None:
    links = ToolResult(
        name="fetch",
        id="call_1",
        content=[
            {
                "type": "resource_link",
                "uri": "https://e.com/a.png",
                "name": "a",
                "mimeType": "image/png",
            },
            {
                "type": "resource_link",
                "uri": "https://e.com/q3",
                "name": "q",
                "mimeType": "application/pdf",
            },
        ],
    )
    for source in ("anthropic", "responses", "gemini"):
        written = links.to(source, **URL_OPTIONS)
        for target in ("anthropic", "responses", "gemini"):
            again = ToolResult.from_wire(source, written, name="find")
            again = again.to(target, **URL_OPTIONS)
            expected = links.to(target, **URL_OPTIONS)
            if target == "gemini":  # the tool name rides on gemini; some sources lack it
                again["functionResponse"]["name"] = expected["functionResponse"]["name"]
            assert again == expected, (source, target)
    # an extension-less image URL from responses is declared image/jpeg
    item = ToolResult.from_wire(
        "responses",
        {
            "type": "function_call_output",
            "call_id": "c",
            "output": [{"type": "input_image", "image_url": "https://e.com/img?id=3"}],
        },
    ).content[0]
    assert item["mimeType"] == "image/jpeg"
