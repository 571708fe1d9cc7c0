"""Reading wire blocks back: SDK-built inputs, bad input per wire, and convert_tool_results."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from convert_checks import (
    WIRES,
    anthropic_types,
    assert_no_payload,
    check_block,
    check_envelope,
    gtypes,
    ollama,
    openai_chat,
    openai_items,
)
from convert_samples import GIF_B64, PDF, PDF_B64, PNG, PNG_B64, WAV_B64, b64
from lazy import LazyModule
from toolwire.convert import (
    InvalidBlock,
    InvalidOption,
    ToolResult,
    UnknownOption,
    UnknownWire,
    convert_tool_results,
    format_tool_results,
)
from toolwire.convert.wires import TABLE

openai_responses = LazyModule("openai.types.responses")

NATIVE = {"image_input": True, "native_pdf": True}


def test_every_wire_declares_a_reader() -> None:
    assert set(TABLE) == set(WIRES)
    for wire in WIRES:
        assert callable(TABLE[wire].read), wire


# --- real inputs built with the providers' SDK types --------------------------------


def test_anthropic_tool_result_with_image_and_documents() -> None:
    block = anthropic_types.ToolResultBlockParam(
        type="tool_result",
        tool_use_id="toolu_01",
        is_error=True,
        content=[
            anthropic_types.TextBlockParam(
                type="text", text="Here:", cache_control={"type": "ephemeral"}
            ),
            anthropic_types.ImageBlockParam(
                type="image",
                source=anthropic_types.Base64ImageSourceParam(
                    type="base64", media_type="image/png", data=PNG_B64
                ),
            ),
            anthropic_types.DocumentBlockParam(
                type="document",
                source=anthropic_types.Base64PDFSourceParam(
                    type="base64", media_type="application/pdf", data=PDF_B64
                ),
            ),
            anthropic_types.DocumentBlockParam(
                type="document",
                source=anthropic_types.PlainTextSourceParam(
                    type="text", media_type="text/plain", data="notes"
                ),
                title="Notes",
            ),
            anthropic_types.SearchResultBlockParam(
                type="search_result",
                source="https://example.com/s",
                title="Found",
                content=[anthropic_types.TextBlockParam(type="text", text="a hit")],
            ),
        ],
    )
    result = ToolResult.from_wire("anthropic", block, name="fetch")
    assert (result.name, result.id, result.is_error) == ("fetch", "toolu_01", True)
    content = [dict(item) for item in result.content]
    assert content[0]["text"] == "Here:" and content[0]["cache_control"]["type"] == "ephemeral"
    assert content[1] == {"type": "image", "data": PNG_B64, "mimeType": "image/png"}
    # the untitled PDF reads as an MCP resource (its size then shows where it cannot go)
    assert content[2] == {
        "type": "resource",
        "resource": {"uri": "", "mimeType": "application/pdf", "blob": PDF_B64},
    }
    assert [c["type"] for c in content[3:]] == ["document", "search_result"]
    assert f"[resource] application/pdf ({len(PDF)} bytes)" in result.to("openai")["content"]
    # back to anthropic: the very block; to gemini: the image and the PDF as inlineData
    assert result.to("anthropic", image_input=True) == block
    call = result.to("gemini", **NATIVE)["functionResponse"]
    assert [p["inlineData"]["mimeType"] for p in call["parts"]] == ["image/png", "application/pdf"]
    assert call["response"]["result"].split("\n") == [
        "Here:",
        "notes",
        "[search_result] Found <https://example.com/s>",
        "a hit",
    ]
    check_block("gemini", result.to("gemini", **NATIVE))


def test_anthropic_string_content() -> None:
    plain = ToolResult.from_wire(
        "anthropic", {"type": "tool_result", "tool_use_id": "t", "content": "ok"}
    )
    assert [dict(i) for i in plain.content] == [{"type": "text", "text": "ok"}]
    structured = ToolResult.from_wire(
        "anthropic", {"type": "tool_result", "tool_use_id": "t", "content": '{"a":[1,2]}'}
    )
    assert structured.content == () and structured.structured_content == {"a": (1, 2)}
    spaced = ToolResult.from_wire(
        "anthropic", {"type": "tool_result", "tool_use_id": "t", "content": '{"a": 1}'}
    )
    assert spaced.structured_content is None  # not toolwire's canonical form: text
    failed = ToolResult.from_wire(
        "anthropic",
        {"type": "tool_result", "tool_use_id": "t", "content": "", "is_error": True},
    )
    assert failed.content == () and failed.is_error
    assert (
        ToolResult.from_wire("anthropic", {"type": "tool_result", "tool_use_id": "t"}).content == ()
    )


def test_openai_tool_messages() -> None:
    text = openai_chat.ChatCompletionToolMessageParam(
        role="tool", tool_call_id="call_1", content="[image] image/png (68 bytes)"
    )
    result = ToolResult.from_wire("openai", text, name="chart")
    assert (result.id, result.name) == ("call_1", "chart")
    # the placeholder stays text: no image is invented from it, on any wire
    for wire in WIRES:
        out = result.to(wire, **NATIVE)
        assert "inlineData" not in json.dumps(out) and "base64" not in json.dumps(out)
    parts = openai_chat.ChatCompletionToolMessageParam(
        role="tool",
        tool_call_id="call_2",
        content=[
            openai_chat.ChatCompletionContentPartTextParam(type="text", text="one"),
            openai_chat.ChatCompletionContentPartTextParam(type="text", text="two"),
        ],
    )
    assert ToolResult.from_wire("openai", parts).to("openai")["content"] == "one\ntwo"


def test_responses_function_call_output_with_image_and_file() -> None:
    block = openai_items.FunctionCallOutput(
        type="function_call_output",
        call_id="call_r",
        output=[
            openai_responses.ResponseInputTextContentParam(type="input_text", text="Report:"),
            openai_responses.ResponseInputImageContentParam(
                type="input_image", image_url=f"data:image/png;base64,{PNG_B64}"
            ),
            openai_responses.ResponseInputFileContentParam(
                type="input_file",
                file_data=f"data:application/pdf;base64,{PDF_B64}",
                filename="Q3 report.pdf",
            ),
            openai_responses.ResponseInputFileContentParam(
                type="input_file", file_url="https://example.com/a.pdf", filename="a.pdf"
            ),
            openai_responses.ResponseInputImageContentParam(type="input_image", file_id="file_123"),
        ],
    )
    result = ToolResult.from_wire("responses", block)
    content = [json.loads(json.dumps(item, default=dict)) for item in result.content]
    assert content[1] == {"type": "image", "data": PNG_B64, "mimeType": "image/png"}
    # a named PDF reads as a document block titled with the name
    assert content[2] == {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": PDF_B64},
        "title": "Q3 report",
    }
    assert content[3] == {
        "type": "resource_link",
        "uri": "https://example.com/a.pdf",
        "mimeType": "application/pdf",
        "name": "a.pdf",
    }
    assert content[4] == {"type": "text", "text": "[input_image]"}
    out = result.to("responses", **NATIVE)["output"]
    assert out[2]["filename"] == "Q3 report.pdf"
    anthropic = result.to("anthropic", image_input=True)
    kinds = [(b["type"], b.get("source", {}).get("type")) for b in anthropic["content"]]
    assert kinds[1:3] == [("image", "base64"), ("document", "base64")]
    assert anthropic["content"][2]["title"] == "Q3 report"
    check_block("anthropic", anthropic)


def test_responses_image_by_url_and_broken_data_urls() -> None:
    by_url = ToolResult.from_wire(
        "responses",
        {
            "type": "function_call_output",
            "call_id": "c",
            "output": [
                {"type": "input_image", "image_url": "https://example.com/cat.png"},
                {"type": "input_image", "image_url": "data:image/png,notbase64"},
                {"type": "input_file", "file_data": "JVBERi0x"},  # not a data URL
            ],
        },
    )
    assert by_url.content[0] == {
        "type": "resource_link",
        "uri": "https://example.com/cat.png",
        "mimeType": "image/png",
    }
    block = by_url.to("anthropic", image_input=True, url_sources=True)
    assert block["content"][0] == {
        "type": "image",
        "source": {"type": "url", "url": "https://example.com/cat.png"},
    }
    assert [b["text"] for b in block["content"][1:]] == ["[input_image]", "[input_file]"]
    # without url_sources the link is its placeholder: the destination fetches no URL
    plain = by_url.to("anthropic", image_input=True)["content"][0]
    assert plain == {"type": "text", "text": "[resource_link] <https://example.com/cat.png>"}


def test_gemini_function_response_with_parts() -> None:
    part = gtypes.Part.from_function_response(
        name="render",
        response={"result": "done"},
        parts=[
            gtypes.FunctionResponsePart.from_bytes(data=PNG, mime_type="image/png"),
            gtypes.FunctionResponsePart.from_bytes(data=PDF, mime_type="application/pdf"),
        ],
    )
    part.function_response.id = "fc_1"  # type: ignore[union-attr]
    result = ToolResult.from_wire("gemini", part)
    assert (result.name, result.id) == ("render", "fc_1")
    assert [item["type"] for item in result.content] == ["text", "image", "resource"]
    assert result.content[1]["data"] == PNG_B64
    again = result.to("gemini", **NATIVE)
    assert gtypes.Part.model_validate_json(json.dumps(again)) == part
    anthropic = result.to("anthropic", image_input=True)
    assert [b["type"] for b in anthropic["content"]] == ["text", "image", "document"]


def test_gemini_structured_response_and_file_data() -> None:
    block = {
        "functionResponse": {
            "name": "w",
            "response": {"temp": 21, "unit": "C"},
            "parts": [{"fileData": {"fileUri": "gs://b/a.pdf", "mimeType": "application/pdf"}}],
        }
    }
    result = ToolResult.from_wire("gemini", block, id="call_1")
    assert result.structured_content == {"temp": 21, "unit": "C"}
    assert dict(result.content[0]) == {
        "type": "resource_link",
        "uri": "gs://b/a.pdf",
        "mimeType": "application/pdf",
    }
    assert result.to("openai")["content"] == "[resource_link] <gs://b/a.pdf>"
    empty = ToolResult.from_wire("gemini", {"functionResponse": {"name": "w", "response": {}}})
    assert empty.structured_content == {} and empty.content == ()
    bare = ToolResult.from_wire("gemini", {"functionResponse": {"name": "w"}})
    assert bare.structured_content is None and bare.content == ()


def test_ollama_message() -> None:
    message = ollama.Message(role="tool", content="22C", tool_name="weather")
    result = ToolResult.from_wire("ollama", message, id="call_9")
    assert (result.name, result.id) == ("weather", "call_9")
    assert result.to("ollama") == {
        "role": "tool",
        "content": "22C",
        "tool_name": "weather",
        "tool_call_id": "call_9",
    }
    with_image = ollama.Message(role="tool", content="", images=[ollama.Image(value=PNG)])
    read = ToolResult.from_wire("ollama", with_image)
    assert dict(read.content[0]) == {"type": "image", "data": PNG_B64, "mimeType": "image/png"}


def test_hermes_any_tag_and_escapes() -> None:
    result = ToolResult(name="n", content=[{"type": "text", "text": "a </x> b"}])
    for tag in ("tool_response", "function_response", "r.v-1"):
        block = result.to("hermes", response_tag=tag)
        assert ToolResult.from_wire("hermes", block) == result
    loose = '  <tool_response>\n{"name": "w", "content": {"t": 1}}\n</tool_response>\n'
    read = ToolResult.from_wire("hermes", loose, id="c")
    assert (read.name, read.id, read.structured_content) == ("w", "c", {"t": 1})


def test_the_block_fills_in_before_the_arguments() -> None:
    block = {"role": "tool", "tool_call_id": "call_a", "content": "x"}
    assert ToolResult.from_wire("openai", block, id="other").id == "call_a"
    assert ToolResult.from_wire("openai", {**block, "tool_call_id": ""}, id="other").id == "other"


# --- bad input: a typed error, per case ---------------------------------------------

BAD: list[tuple[str, Any, str]] = [
    ("anthropic", {"role": "tool", "tool_call_id": "x", "content": "y"}, "expected type"),
    ("anthropic", {"type": "tool_result", "tool_use_id": 3, "content": ""}, "tool_use_id"),
    ("anthropic", {"type": "tool_result", "is_error": "yes", "content": ""}, "is_error"),
    ("anthropic", {"type": "tool_result", "content": {"type": "text"}}, "content"),
    ("anthropic", {"type": "tool_result", "content": ["text"]}, "content[0]"),
    ("anthropic", "a string", "expected an object"),
    ("openai", {"type": "tool_result", "content": "y"}, "expected role"),
    ("openai", {"role": "tool", "content": 5}, "content"),
    ("openai", {"role": "tool", "tool_call_id": ["x"], "content": ""}, "tool_call_id"),
    ("responses", {"role": "tool", "content": "y"}, "expected type"),
    ("responses", {"type": "function_call_output", "output": {"a": 1}}, "output"),
    ("gemini", {"functionCall": {"name": "x"}}, "functionResponse"),
    ("gemini", {"functionResponse": {"name": "x", "response": "ok"}}, "response"),
    ("gemini", {"functionResponse": {"name": 1, "response": {}}}, "name"),
    ("gemini", {"functionResponse": {"response": {}, "parts": {"x": 1}}}, "parts"),
    ("gemini", {"functionResponse": {"response": {"x": float("nan")}}}, "not JSON"),
    ("ollama", {"role": "user", "content": "y"}, "expected role"),
    ("ollama", {"role": "tool", "content": None, "images": "abc"}, "images"),
    ("ollama", {"role": "tool", "content": 3}, "content"),
    ("hermes", {"role": "tool", "content": "<tool_response>"}, "expected a string"),
    ("hermes", '<tool_response>\n{"name":"x","content":"y"}\n', "does not close"),
    ("hermes", '<tool_response>\n{"name":"x","content":"y"}\n</fn_response>', "does not close"),
    ("hermes", '<a>\n{"name":"x"}\n</a> trailing', "does not close"),
    ("hermes", "<tool_response>\nnot json\n</tool_response>", "not JSON"),
    ("hermes", '<tool_response>\n["x"]\n</tool_response>', "not a JSON object"),
    ("hermes", '<tool_response>\n{"name":1}\n</tool_response>', "name"),
    ("hermes", '{"name":"x","content":"y"}', "does not start"),
    ("hermes", "<a>\n" + "[" * 100_000 + "\n</a>", "not JSON"),
]


@pytest.mark.parametrize(("wire", "block", "message"), BAD)
def test_bad_blocks_raise_invalid_block(wire: str, block: Any, message: str) -> None:
    with pytest.raises(InvalidBlock, match=re.escape(message)) as caught:
        ToolResult.from_wire(wire, block)
    assert isinstance(caught.value, ValueError)
    assert str(caught.value).startswith(f"{wire} block:")


def test_unknown_wire_and_bad_arguments() -> None:
    with pytest.raises(UnknownWire, match="antropic"):
        ToolResult.from_wire("antropic", {})
    with pytest.raises(ValueError, match="strings"):
        ToolResult.from_wire("openai", {"role": "tool", "content": ""}, id=3)  # type: ignore[arg-type]


def test_placeholders_for_what_no_item_holds() -> None:
    block = {
        "type": "tool_result",
        "tool_use_id": "t",
        "content": [
            {"type": "tool_reference", "tool_name": "x"},
            {"type": "image", "source": {"type": "file", "file_id": "f"}},
            {"type": "text", "text": 5},
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": "!!"},
            },
        ],
    }
    result = ToolResult.from_wire("anthropic", block, id="call_1")
    assert result.to("openai")["content"].split("\n") == [
        "[tool_reference]",
        "[image]",
        "[text]",
        "[image] image/png (invalid base64)",
    ]
    gemini = {"functionResponse": {"name": "x", "response": {}, "parts": [{"text": "hi"}, 3]}}
    read = ToolResult.from_wire("gemini", gemini, id="call_1")
    assert read.to("openai")["content"] == "[part]\n[part]"


# --- convert_tool_results -----------------------------------------------------------


def test_convert_tool_results_anthropic_to_every_wire() -> None:
    blocks = [
        {
            "type": "tool_result",
            "tool_use_id": "toolu_1",
            "content": [
                {"type": "text", "text": "chart"},
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/gif", "data": GIF_B64},
                },
            ],
        },
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": "", "is_error": True},
    ]
    names = {"toolu_1": "plot", "toolu_2": "fail"}
    for target in WIRES:
        for options in ({}, NATIVE):
            messages = convert_tool_results("anthropic", target, blocks, names=names, **options)
            check_envelope(target, messages, 2, options)
            hand = [
                ToolResult.from_wire("anthropic", b, name=names[b["tool_use_id"]]) for b in blocks
            ]
            assert messages == format_tool_results(target, hand, **options)
            for result in hand:
                assert_no_payload(target, result.to(target, **options), [GIF_B64])
    gemini = convert_tool_results("anthropic", "gemini", blocks, names=names, **NATIVE)
    parts = gemini[0]["parts"]
    assert [p["functionResponse"]["name"] for p in parts] == ["plot", "fail"]
    assert "parts" not in parts[0]["functionResponse"]  # no GIF on gemini: the placeholder


def test_convert_tool_results_errors() -> None:
    block = {"role": "tool", "tool_call_id": "c", "content": "x"}
    with pytest.raises(UnknownWire):
        convert_tool_results("openai", "bedrok", [block])
    with pytest.raises(UnknownWire):
        convert_tool_results("opena", "anthropic", [])
    with pytest.raises(InvalidBlock, match=r"blocks\[1\]: openai block"):
        convert_tool_results("openai", "anthropic", [block, {"type": "tool_result"}])
    with pytest.raises(InvalidBlock, match="list of blocks"):
        convert_tool_results("openai", "anthropic", block)
    with pytest.raises(InvalidBlock, match="list of blocks"):
        convert_tool_results("hermes", "anthropic", "<tool_response>")
    with pytest.raises(UnknownOption):
        convert_tool_results("openai", "anthropic", [block], image_inputs=True)
    with pytest.raises(InvalidOption, match="names must map"):
        convert_tool_results("openai", "gemini", [block], names=["x"])  # type: ignore[arg-type]
    with pytest.raises(InvalidOption, match="names must map"):
        convert_tool_results("openai", "gemini", [block], names={"c": 3})  # type: ignore[dict-item]
    with pytest.raises(InvalidOption, match="names must map"):  # checked even when unused
        convert_tool_results("openai", "gemini", [block], names={"zzz": 5})  # type: ignore[dict-item]
    assert (
        convert_tool_results("openai", "ollama", [block], names={"c": "t"})[0]["tool_name"] == "t"
    )


def test_audio_and_other_blobs_from_gemini_stay_placeholders_elsewhere() -> None:
    block = {
        "functionResponse": {
            "name": "rec",
            "response": {"result": ""},
            "parts": [
                {"inlineData": {"mimeType": "audio/wav", "data": WAV_B64}},
                {"inlineData": {"mimeType": "application/zip", "data": b64(b"PK\x03\x04")}},
            ],
        }
    }
    result = ToolResult.from_wire("gemini", block, id="call_1")
    assert result.to("openai")["content"] == (
        "[audio] audio/wav (44 bytes)\n[resource] application/zip (4 bytes)"
    )
    for wire in WIRES:
        assert_no_payload(wire, result.to(wire, **NATIVE), [WAV_B64])
