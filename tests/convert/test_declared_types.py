"""Declared MIME types against item types and bytes; payloads that hide in odd places."""

from __future__ import annotations

import base64

import pytest
from convert_samples import PDF, PDF_B64, PNG, PNG_B64
from toolwire.convert import InvalidOption, ToolResult


def one(item: dict[str, object]) -> ToolResult:
    return ToolResult(name="t", id="c", content=[item])


def test_an_image_item_declared_text_is_a_placeholder_not_decoded() -> None:
    result = one({"type": "image", "data": PNG_B64, "mimeType": "text/plain"})
    # the bytes are a PNG: the image is kept, labelled by what it is
    assert result.to("openai")["content"] == f"[image] image/png ({len(PNG)} bytes)"
    text = base64.b64encode(b"just text").decode()
    odd = one({"type": "image", "data": text, "mimeType": "text/plain"})
    assert odd.to("openai")["content"] == "[image] text/plain (9 bytes)"


def test_audio_declared_as_an_image_never_goes_out_as_one() -> None:
    result = one({"type": "audio", "data": PNG_B64, "mimeType": "image/png"})
    block = result.to("anthropic", image_input=True)
    assert block["content"] == [{"type": "text", "text": f"[audio] image/png ({len(PNG)} bytes)"}]
    gemini = result.to("gemini", image_input=True)["functionResponse"]
    assert "parts" not in gemini


@pytest.mark.parametrize("mime", ["Application/PDF", "application/pdf; name=x.pdf"])
def test_mime_types_compare_without_case_or_parameters(mime: str) -> None:
    resource = {"uri": "file:///r.pdf", "mimeType": mime, "blob": PDF_B64}
    block = one({"type": "resource", "resource": resource}).to("anthropic")
    assert block["content"][0]["type"] == "document"
    assert block["content"][0]["source"]["data"] is PDF_B64
    assert one({"type": "resource", "resource": resource}).to("openai")["content"] == (
        f"[resource] application/pdf <file:///r.pdf> ({len(PDF)} bytes)"
    )


def test_text_blob_with_charset_is_decoded() -> None:
    blob = base64.b64encode("grüße".encode()).decode()
    resource = {"uri": "file:///g.txt", "mimeType": "Text/Plain; charset=utf-8", "blob": blob}
    assert one({"type": "resource", "resource": resource}).to("openai")["content"] == "grüße"


def test_search_result_with_a_data_source_shows_no_payload() -> None:
    item = {
        "type": "search_result",
        "source": f"data:application/pdf;base64,{PDF_B64}",
        "title": "Report",
        "content": [{"type": "text", "text": "page one"}],
    }
    text = one(item).to("openai")["content"]
    assert PDF_B64 not in text
    assert text.startswith("[search_result] Report <data:application/pdf;base64,")


def test_anthropic_blank_text_with_structured_content_sends_the_json() -> None:
    result = ToolResult(
        id="call_1",
        name="tool",
        content=[{"type": "text", "text": "  "}],
        structured_content={"a": 1},
    )
    assert result.to("anthropic")["content"] == '{"a":1}'
    blank = ToolResult(id="call_1", name="tool", content=[{"type": "text", "text": " \n"}])
    assert blank.to("anthropic")["content"] == ""


@pytest.mark.parametrize("wire", ["openai", "ollama", "hermes"])
def test_a_bad_value_is_an_error_even_for_an_option_the_wire_ignores(wire: str) -> None:
    with pytest.raises(InvalidOption):
        one({"type": "text", "text": "x"}).to(wire, image_input=[1])
    with pytest.raises(InvalidOption):
        one({"type": "text", "text": "x"}).to(wire, native_pdf="yes")
