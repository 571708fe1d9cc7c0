"""The string form: what openai, responses, ollama, hermes and gemini's result carry."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from convert_checks import split_hermes
from convert_samples import GIF, JPEG_B64, PDF, PDF_B64, PNG, PNG_B64, WAV_B64, WEBP_B64, b64
from toolwire.convert import ToolResult


def string_forms(result: ToolResult) -> dict[str, str]:
    """Return the string form each string wire sends for ``result``."""
    forms = {
        "openai": result.to("openai")["content"],
        "ollama": result.to("ollama")["content"],
        "responses": result.to("responses")["output"],
        "hermes": split_hermes(result.to("hermes"))["content"],
    }
    if result.structured_content is None:
        forms["gemini"] = result.to("gemini")["functionResponse"]["response"]["result"]
    return forms


def string_form(*content: dict[str, Any], structured: Any = None) -> str:
    """Return the one string form every string wire agrees on."""
    forms = string_forms(
        ToolResult(id="call_1", name="tool", content=content, structured_content=structured)
    )
    assert len(set(forms.values())) == 1, forms
    return next(iter(forms.values()))


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def image(data: str, mime: str = "image/png", kind: str = "image") -> dict[str, Any]:
    return {"type": kind, "data": data, "mimeType": mime}


def blob(data: str, mime: str | None, uri: str = "file:///docs/report.pdf") -> dict[str, Any]:
    resource: dict[str, Any] = {"uri": uri, "blob": data}
    if mime is not None:
        resource["mimeType"] = mime
    return {"type": "resource", "resource": resource}


def test_texts_are_joined_with_newlines() -> None:
    assert string_form(text("a"), text(""), text("b\nc"), text("  ")) == "a\n\nb\nc\n  "


def test_seed_image_placeholder() -> None:
    data = b64(PNG + b"\x00" * (12345 - len(PNG)))
    assert string_form(image(data)) == "[image] image/png (12345 bytes)"


def test_seed_pdf_placeholder() -> None:
    data = b64(PDF + b"\x00" * (12345 - len(PDF)))
    expected = "[resource] application/pdf <file:///docs/report.pdf> (12345 bytes)"
    assert string_form(blob(data, "application/pdf")) == expected


@pytest.mark.parametrize("size", range(9))
def test_size_is_the_decoded_size(size: int) -> None:
    raw = bytes(range(size))
    padded = b64(raw)
    unpadded = padded.rstrip("=")
    spaced = " \n".join(padded[i : i + 3] for i in range(0, len(padded), 3))
    for data in (padded, unpadded, spaced):
        form = string_form(blob(data, "application/octet-stream", uri="mem://x"))
        assert form == f"[resource] application/octet-stream <mem://x> ({size} bytes)"


def test_placeholders_of_audio_and_other_blobs() -> None:
    assert string_form(image(WAV_B64, "audio/wav", "audio")) == "[audio] audio/wav (44 bytes)"
    zip_ = b64(b"PK\x03\x04" + b"\x00" * 6)
    assert (
        string_form(blob(zip_, "application/zip", "file:///a.zip"))
        == "[resource] application/zip <file:///a.zip> (10 bytes)"
    )
    # A blob without a MIME type is application/octet-stream.
    assert string_form(blob(zip_, None, "")) == "[resource] application/octet-stream (10 bytes)"


@pytest.mark.parametrize(
    "data", ["not base64!", "QUJD=", "QQ==QQ==", "A", "\u00e9t\u00e9", "QUJD\u2028"]
)
def test_broken_base64_is_named_not_sized(data: str) -> None:
    assert string_form(image(data)) == "[image] image/png (invalid base64)"
    assert (
        string_form(blob(data, "application/pdf"))
        == "[resource] application/pdf <file:///docs/report.pdf> (invalid base64)"
    )


@pytest.mark.parametrize("data", [None, 12, ["QUJD"]])
def test_missing_payload_is_invalid(data: Any) -> None:
    assert string_form(image(data)) == "[image] image/png (invalid base64)"


def test_image_placeholder_names_what_the_bytes_are() -> None:
    assert string_form(image(PNG_B64, "image/jpeg")) == f"[image] image/png ({len(PNG)} bytes)"
    assert string_form(image(b64(GIF), "image/png")) == f"[image] image/gif ({len(GIF)} bytes)"


def test_image_that_is_no_image_keeps_its_declared_type() -> None:
    assert string_form(image(PDF_B64, "image/png")) == f"[image] image/png ({len(PDF)} bytes)"


def test_text_resource_is_its_text() -> None:
    csv = {"type": "resource", "resource": {"uri": "file:///a.csv", "mimeType": "text/csv"}}
    csv["resource"]["text"] = "a,b\n1,2"
    json_ = {"type": "resource", "resource": {"uri": "x:y", "mimeType": "application/json"}}
    json_["resource"]["text"] = '{"k": 1}'
    bare = {"type": "resource", "resource": {"uri": "x:z", "text": "no mime"}}
    assert string_form(csv, json_, bare) == 'a,b\n1,2\n{"k": 1}\nno mime'


@pytest.mark.parametrize("mime", ["text/plain", "text/markdown", "text/csv; charset=utf-8"])
def test_text_blob_is_decoded_as_utf8(mime: str) -> None:
    value = "h\u00e9llo \u2603 \U0001f600\nline"
    assert string_form(blob(b64(value.encode()), mime)) == value


def test_text_blob_with_invalid_utf8_is_replaced_not_an_error() -> None:
    assert string_form(blob(b64(b"ok \xff\xfe"), "text/plain")) == "ok \ufffd\ufffd"


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        (
            {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt"},
            "[resource_link] a.txt <file:///a.txt>",
        ),
        (
            {"type": "resource_link", "uri": "https://x/y", "name": "Y", "mimeType": "text/html"},
            "[resource_link] Y <https://x/y>",
        ),
        (
            {"type": "resource_link", "uri": "https://x/t", "title": "T"},
            "[resource_link] T <https://x/t>",
        ),
        ({"type": "resource_link", "uri": "https://x/z"}, "[resource_link] <https://x/z>"),
    ],
)
def test_resource_link_line(item: dict[str, Any], expected: str) -> None:
    assert string_form(item) == expected


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ({"type": "video", "data": "QUJD", "mimeType": "video/mp4"}, "[video] video/mp4 (3 bytes)"),
        ({"type": "model", "uri": "file:///m.bin"}, "[model] <file:///m.bin>"),
        ({"type": "video", "data": "not base64!", "mimeType": "video/mp4"}, "[video] video/mp4"),
        ({"type": "tool_use", "id": "x"}, "[tool_use]"),
        ({"type": "text"}, "[text]"),
        ({"type": "text", "text": 5}, "[text]"),
        ({"type": "resource"}, "[resource]"),
        ({"type": "resource", "resource": "file:///a"}, "[resource]"),
        ({"type": "document"}, "[document]"),
        ({"type": "document", "source": {"type": "file", "file_id": "f"}}, "[document]"),
        ({"type": "image", "source": {"type": "file", "file_id": "f"}}, "[image]"),
        (
            {"type": "document", "source": {"type": "url", "url": "https://x/a.pdf"}},
            "[document] <https://x/a.pdf>",
        ),
        (
            {"type": "image", "source": {"type": "url", "url": "https://x/a.png"}},
            "[image] <https://x/a.png>",
        ),
    ],
)
def test_anything_else_is_a_placeholder_naming_its_type(
    item: dict[str, Any], expected: str
) -> None:
    assert string_form(item) == expected


def test_native_document_text_source() -> None:
    item = {
        "type": "document",
        "source": {"type": "text", "media_type": "text/plain", "data": "the text"},
        "title": "T",
    }
    assert string_form(item) == "the text"


def test_native_document_content_source() -> None:
    item = {
        "type": "document",
        "source": {
            "type": "content",
            "content": [
                text("first"),
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/jpeg", "data": JPEG_B64},
                },
                text("last"),
            ],
        },
    }
    jpeg_size = len(base64.b64decode(JPEG_B64))
    assert string_form(item) == f"first\n[image] image/jpeg ({jpeg_size} bytes)\nlast"
    as_string = {"type": "document", "source": {"type": "content", "content": "plain"}}
    assert string_form(as_string) == "plain"


def test_native_base64_pdf_document() -> None:
    item = {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": PDF_B64},
    }
    assert string_form(item) == "[document] application/pdf"


def test_native_search_result() -> None:
    item = {
        "type": "search_result",
        "source": "https://example.com/a",
        "title": "Result A",
        "content": [text("one"), text("two")],
    }
    assert string_form(item) == "[search_result] Result A <https://example.com/a>\none\ntwo"


def test_native_base64_image_is_a_placeholder() -> None:
    item = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/webp", "data": WEBP_B64},
    }
    size = len(base64.b64decode(WEBP_B64))
    assert string_form(item) == f"[image] image/webp ({size} bytes)"


def test_items_keep_their_order() -> None:
    form = string_form(
        text("1"), image(PNG_B64), text("3"), {"type": "resource_link", "uri": "u:v", "name": "4"}
    )
    assert form.split("\n") == [
        "1",
        f"[image] image/png ({len(PNG)} bytes)",
        "3",
        "[resource_link] 4 <u:v>",
    ]


def test_empty_content_is_the_empty_string() -> None:
    assert string_form() == ""


@pytest.mark.parametrize(
    ("structured", "expected"),
    [
        ({"b": 1, "a": [1, 2.5, None, True]}, '{"a":[1,2.5,null,true],"b":1}'),
        (
            {"city": "M\u00fcnchen", "emoji": "\U0001f600"},
            '{"city":"M\u00fcnchen","emoji":"\U0001f600"}',
        ),
        ([3, {"z": 1, "y": 2}], '[3,{"y":2,"z":1}]'),
        ("a string", '"a string"'),
        (0, "0"),
        (False, "false"),
        ({}, "{}"),
    ],
)
def test_empty_content_is_canonical_structured_json(structured: Any, expected: str) -> None:
    result = ToolResult(id="call_1", name="tool", content=[], structured_content=structured)
    forms = string_forms(result)
    assert set(forms.values()) == {expected}
    assert json.loads(expected) == structured


def test_content_wins_over_structured_content_in_the_string() -> None:
    assert string_form(text("shown"), structured={"hidden": True}) == "shown"


def test_a_data_uri_shows_no_payload() -> None:
    uri = "data:application/pdf;base64," + PDF_B64
    assert (
        string_form(blob(PDF_B64, "application/pdf", uri))
        == f"[resource] application/pdf <data:application/pdf;base64,...> ({len(PDF)} bytes)"
    )
    link = {"type": "resource_link", "uri": "DATA:text/plain," + "x" * 40, "name": "n"}
    assert string_form(link) == "[resource_link] n <DATA:text/plain,...>"
    assert (
        string_form({"type": "resource_link", "uri": "data:oops"}) == "[resource_link] <data:oops>"
    )
