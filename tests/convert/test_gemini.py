"""The gemini wire: functionResponse parts, response objects and inlineData media."""

from __future__ import annotations

from typing import Any

import pytest
from convert_checks import check_gemini
from convert_samples import GIF, GIF_B64, JPEG_B64, PDF, PDF_B64, PNG, PNG_B64, WEBP_B64
from toolwire.convert import ToolResult


def call(
    *items: dict[str, Any], structured: Any = None, id_: str = "fc_1", **options: Any
) -> dict[str, Any]:
    result = ToolResult(name="lookup", id=id_, content=items, structured_content=structured)
    block = result.to("gemini", **options)
    check_gemini(block)
    return block["functionResponse"]  # type: ignore[no-any-return]


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def image(data: str, mime: str) -> dict[str, Any]:
    return {"type": "image", "data": data, "mimeType": mime}


def pdf(data: str = PDF_B64) -> dict[str, Any]:
    return {
        "type": "resource",
        "resource": {"uri": "file:///r.pdf", "mimeType": "application/pdf", "blob": data},
    }


def test_result_string() -> None:
    assert call(text("a"), text("b")) == {
        "name": "lookup",
        "id": "fc_1",
        "response": {"result": "a\nb"},
    }


def test_empty_id_is_omitted() -> None:
    assert call(text("a"), id_="") == {"name": "lookup", "response": {"result": "a"}}


def test_empty_content_is_an_empty_result() -> None:
    assert call()["response"] == {"result": ""}


def test_structured_object_is_the_response_whenever_present() -> None:
    structured = {"temp": 22, "unit": "C", "nested": {"list": [1, "\u00e9"]}}
    assert call(text("ignored here"), structured=structured)["response"] == structured
    assert call(structured=structured)["response"] == structured


@pytest.mark.parametrize("value", [[1, 2], "text", 3, 2.5, True, False, None])
def test_structured_non_object_is_wrapped(value: Any) -> None:
    response = call(text("t"), structured=value)["response"]
    if value is None:  # no structured content at all
        assert response == {"result": "t"}
    else:
        assert response == {"result": value}


def test_is_error_is_not_sent() -> None:
    result = ToolResult(name="n", id="i", content=[text("boom")], is_error=True)
    assert result.to("gemini") == {
        "functionResponse": {"name": "n", "id": "i", "response": {"result": "boom"}}
    }


@pytest.mark.parametrize(
    ("data", "mime"), [(PNG_B64, "image/png"), (JPEG_B64, "image/jpeg"), (WEBP_B64, "image/webp")]
)
def test_image_moves_into_parts_with_image_input(data: str, mime: str) -> None:
    assert call(text("before"), image(data, mime), text("after"), image_input=True) == {
        "name": "lookup",
        "id": "fc_1",
        "response": {"result": "before\nafter"},
        "parts": [{"inlineData": {"mimeType": mime, "data": data}}],
    }
    size = len(data) // 4 * 3 - data.count("=")
    assert call(image(data, mime)) == {
        "name": "lookup",
        "id": "fc_1",
        "response": {"result": f"[image] {mime} ({size} bytes)"},
    }


def test_gif_has_no_native_form() -> None:
    assert call(image(GIF_B64, "image/gif"), image_input=True) == {
        "name": "lookup",
        "id": "fc_1",
        "response": {"result": f"[image] image/gif ({len(GIF)} bytes)"},
    }


def test_gif_stays_in_the_string_beside_a_native_image() -> None:
    got = call(image(GIF_B64, "image/gif"), image(PNG_B64, "image/png"), image_input=True)
    assert got["response"] == {"result": f"[image] image/gif ({len(GIF)} bytes)"}
    assert got["parts"] == [{"inlineData": {"mimeType": "image/png", "data": PNG_B64}}]


def test_pdf_moves_into_parts_with_native_pdf() -> None:
    assert call(text("r"), pdf(), native_pdf=True) == {
        "name": "lookup",
        "id": "fc_1",
        "response": {"result": "r"},
        "parts": [{"inlineData": {"mimeType": "application/pdf", "data": PDF_B64}}],
    }
    placeholder = f"[resource] application/pdf <file:///r.pdf> ({len(PDF)} bytes)"
    assert call(pdf(), image_input=True)["response"] == {"result": placeholder}
    assert "parts" not in call(pdf(), image_input=True)


def test_media_parts_follow_content_order() -> None:
    got = call(pdf(), image(JPEG_B64, "image/jpeg"), image_input=True, native_pdf=True)
    assert got["response"] == {"result": ""}
    assert [p["inlineData"]["mimeType"] for p in got["parts"]] == ["application/pdf", "image/jpeg"]


def test_structured_content_and_native_media() -> None:
    got = call(text("t"), image(PNG_B64, "image/png"), structured={"ok": True}, image_input=True)
    assert got["response"] == {"ok": True}
    assert got["parts"] == [{"inlineData": {"mimeType": "image/png", "data": PNG_B64}}]


def test_mislabelled_image_goes_as_what_its_bytes_are() -> None:
    got = call(image(PNG_B64, "image/gif"), image_input=True)
    assert got["parts"] == [{"inlineData": {"mimeType": "image/png", "data": PNG_B64}}]
    assert got["response"] == {"result": ""}


def test_broken_media_stays_a_placeholder() -> None:
    got = call(image("@@@@", "image/png"), pdf(PNG_B64), image_input=True, native_pdf=True)
    assert "parts" not in got
    assert got["response"]["result"] == (
        "[image] image/png (invalid base64)\n"
        f"[resource] application/pdf <file:///r.pdf> ({len(PNG)} bytes)"
    )


def test_payload_is_passed_through_as_the_same_object() -> None:
    data = "".join(PNG_B64)
    block = ToolResult(id="call_1", name="tool", content=[image(data, "image/png")]).to(
        "gemini", image_input=True
    )
    assert block["functionResponse"]["parts"][0]["inlineData"]["data"] is data


def test_whitespace_is_stripped_from_inline_data() -> None:
    broken = "\n".join(PDF_B64[i : i + 76] for i in range(0, len(PDF_B64), 76))
    got = call(pdf(broken), native_pdf=True)
    assert got["parts"] == [{"inlineData": {"mimeType": "application/pdf", "data": PDF_B64}}]


def test_structured_response_is_a_fresh_copy() -> None:
    result = ToolResult(id="call_1", name="tool", content=[], structured_content={"a": [1]})
    first = result.to("gemini")
    first["functionResponse"]["response"]["a"].append(2)
    assert result.to("gemini")["functionResponse"]["response"] == {"a": [1]}
