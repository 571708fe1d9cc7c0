"""The bedrock wire: Converse toolResult blocks, checked with botocore's own validator."""

from __future__ import annotations

import base64
import copy
from typing import Any

import pytest
from convert_checks import (
    SchemaError,
    check_bedrock,
    check_envelope,
    converse_request,
    validate_converse,
)
from convert_samples import GIF_B64, JPEG_B64, PDF, PDF_B64, PNG, PNG_B64, WEBP_B64, b64
from hypothesis import given
from hypothesis import strategies as st
from toolwire.convert import (
    InvalidId,
    ToolResult,
    carries_native,
    format_tool_results,
    native_needs_vision,
)
from toolwire.convert.wires.bedrock import (
    MAX_DOCUMENT_BYTES,
    MAX_IMAGE_BYTES,
    document_name,
)

NATIVE = {"image_input": True, "native_pdf": True}


def _pdf(uri: str, data: str = PDF_B64) -> dict[str, Any]:
    return {
        "type": "resource",
        "resource": {"uri": uri, "mimeType": "application/pdf", "blob": data},
    }


def _image(data: str, mime: str) -> dict[str, Any]:
    return {"type": "image", "data": data, "mimeType": mime}


MEDIA = ToolResult(
    name="fetch",
    id="tooluse_1",
    content=[
        {"type": "text", "text": "here"},
        _image(PNG_B64, "image/png"),
        _image(JPEG_B64, "image/jpeg"),
        _image(GIF_B64, "image/gif"),
        _image(WEBP_B64, "image/webp"),
        _pdf("file:///docs/report.pdf"),
    ],
)


def test_wire_facts() -> None:
    assert carries_native("bedrock", "image") is True
    assert carries_native("bedrock", "pdf") is True
    assert native_needs_vision("bedrock", "image") is True
    # Converse reads a document by text extraction unless citations are enabled.
    assert native_needs_vision("bedrock", "pdf") is False


def test_json_form_passes_the_base64_through_as_the_same_object() -> None:
    block = MEDIA.to("bedrock", **NATIVE)
    check_bedrock(block)
    content = block["toolResult"]["content"]
    assert [next(iter(part)) for part in content] == [
        "text", "image", "image", "image", "image", "document"
    ]  # fmt: skip
    assert [p["image"]["format"] for p in content[1:5]] == ["png", "jpeg", "gif", "webp"]
    originals = [item.get("data") or item["resource"]["blob"] for item in MEDIA.content[1:]]
    sent = [(p.get("image") or p.get("document"))["source"]["bytes"] for p in content[1:]]
    assert all(a is b for a, b in zip(originals, sent, strict=True))
    assert content[5]["document"] == {
        "format": "pdf",
        "name": "report",
        "source": {"bytes": PDF_B64},
    }


def test_raw_bytes_decodes_each_payload_once_into_bytes() -> None:
    block = MEDIA.to("bedrock", raw_bytes=True, **NATIVE)
    check_bedrock(block, raw_bytes=True)
    content = block["toolResult"]["content"]
    assert content[1]["image"]["source"]["bytes"] == PNG
    assert content[5]["document"]["source"]["bytes"] == PDF
    # raw_bytes alone changes nothing but the payload type
    as_json = MEDIA.to("bedrock", **NATIVE)["toolResult"]["content"]
    for raw, text in zip(content, as_json, strict=True):
        media, other = (
            raw.get("image") or raw.get("document"),
            text.get("image") or text.get("document"),
        )
        if media is None:
            assert raw == text
        else:
            assert media["source"]["bytes"] == base64.b64decode(other["source"]["bytes"])


def test_defaults_send_placeholders_and_success_status() -> None:
    block = MEDIA.to("bedrock")
    check_bedrock(block)
    assert block["toolResult"]["status"] == "success"
    texts = [part["text"] for part in block["toolResult"]["content"]]
    assert texts[1] == f"[image] image/png ({len(PNG)} bytes)"
    assert texts[5] == f"[resource] application/pdf <file:///docs/report.pdf> ({len(PDF)} bytes)"
    # the pdf alone needs native_pdf, the images alone image_input
    only_pdf = MEDIA.to("bedrock", native_pdf=True)["toolResult"]["content"]
    assert [next(iter(p)) for p in only_pdf] == ["text"] * 5 + ["document"]


def test_error_status() -> None:
    block = ToolResult(name="n", id="t", content=[{"type": "text", "text": "boom"}], is_error=True)
    assert block.to("bedrock")["toolResult"] == {
        "toolUseId": "t",
        "content": [{"text": "boom"}],
        "status": "error",
    }


def test_size_limits_are_bedrock_s_decoded_limits() -> None:
    at_image = b64(PNG + b"\0" * (MAX_IMAGE_BYTES - len(PNG)))
    over_image = b64(PNG + b"\0" * (MAX_IMAGE_BYTES - len(PNG) + 1))
    at_pdf = b64(PDF + b"\0" * (MAX_DOCUMENT_BYTES - len(PDF)))
    over_pdf = b64(PDF + b"\0" * (MAX_DOCUMENT_BYTES - len(PDF) + 1))
    result = ToolResult(
        name="n",
        id="t",
        content=[
            _image(at_image, "image/png"),
            _image(over_image, "image/png"),
            _pdf("file:///a.pdf", at_pdf),
            _pdf("file:///b.pdf", over_pdf),
        ],
    )
    content = result.to("bedrock", **NATIVE)["toolResult"]["content"]
    assert "image" in content[0] and "document" in content[2]
    assert content[1] == {"text": f"[image] image/png ({MAX_IMAGE_BYTES + 1} bytes)"}
    assert content[3] == {
        "text": f"[resource] application/pdf <file:///b.pdf> ({MAX_DOCUMENT_BYTES + 1} bytes)"
    }


@pytest.mark.parametrize(
    ("uri", "name"),
    [
        ("file:///docs/report.pdf", "report"),
        ("file:///docs/Q3%20%20report.v2.PDF", "Q3 report-v2"),
        ("https://x.test/a/b_c?d=1", "b-c"),
        ("urn:uuid:1", "document"),
        ("", "document"),
        ("file:///docs/%C3%A9t%C3%A9%20(1)%20%5Bdraft%5D.pdf", "ete (1) [draft]"),
        ("file:///docs/%E6%97%A5%E6%9C%AC.pdf", "-"),
        ("file:///" + "x" * 300 + ".pdf", "x" * 124),  # bounded as the responses filename
    ],
)
def test_document_name(uri: str, name: str) -> None:
    assert document_name(uri) == name


@given(st.text(max_size=80))
def test_document_names_keep_bedrock_s_rules(segment: str) -> None:
    from urllib.parse import quote

    result = ToolResult(
        name="n",
        id="t",
        content=[_pdf("file:///d/" + quote(segment)), _pdf("file:///d/" + quote(segment))],
    )
    block = result.to("bedrock", native_pdf=True)
    check_bedrock(block)  # allowed characters, single spaces, length, distinct names
    names = [p["document"]["name"] for p in block["toolResult"]["content"]]
    assert names[1] == f"{names[0][:196].rstrip()} (2)"


def test_empty_and_structured_results() -> None:
    def content(**fields: Any) -> list[Any]:
        return ToolResult(name="n", id="t", **fields).to("bedrock")["toolResult"]["content"]

    assert content(content=[]) == [{"text": "The tool returned no output."}]
    assert content(content=[], is_error=True) == [
        {"text": "The tool failed without returning any output."}
    ]
    assert content(content=[{"type": "text", "text": " "}], structured_content={"a": 1}) == [
        {"json": {"a": 1}}
    ]
    assert content(content=[], structured_content="x") == [{"json": {"result": "x"}}]
    # structured content duplicates the text when both are there (MCP): the text goes
    assert content(content=[{"type": "text", "text": '{"a":1}'}], structured_content={"a": 1}) == [
        {"text": '{"a":1}'}
    ]


def test_ids_pass_through_unchanged() -> None:
    for id_ in ("tooluse_01", "call:1.a-b", "a" * 64):
        assert ToolResult(name="n", id=id_).to("bedrock")["toolResult"]["toolUseId"] == id_
    for id_ in ("", "a" * 65, "functions bash", "call|1", "é"):
        with pytest.raises(InvalidId, match="bedrock"):
            ToolResult(name="n", id=id_).to("bedrock")


def test_envelope_is_one_user_message_botocore_accepts() -> None:
    other = ToolResult(name="m", id="tooluse_2", content=[{"type": "text", "text": "b"}])
    for options in ({}, NATIVE, {**NATIVE, "raw_bytes": True}):
        messages = format_tool_results("bedrock", [MEDIA, other], **options)
        check_envelope("bedrock", messages, 2, options)
        assert messages == [
            {
                "role": "user",
                "content": [MEDIA.to("bedrock", **options), other.to("bedrock", **options)],
            }
        ]


@pytest.mark.parametrize(
    "change",
    [
        lambda c: c[1]["image"].pop("source"),
        lambda c: c[5]["document"].pop("name"),
        lambda c: c[0].update(image={"format": "png", "source": {"bytes": PNG}}),
        lambda c: c[1]["image"]["source"].update(bytes=12),
        lambda c: c.append({"video": "x"}),
    ],
)
def test_botocore_s_validator_rejects_what_bedrock_would(change: Any) -> None:
    block = copy.deepcopy(MEDIA.to("bedrock", **NATIVE))
    validate_converse(converse_request([copy.deepcopy(block)]))
    change(block["toolResult"]["content"])
    with pytest.raises(SchemaError, match="botocore rejects"):
        validate_converse(converse_request([block]))


def test_formats_are_checked_against_the_service_model_enums() -> None:
    block = copy.deepcopy(MEDIA.to("bedrock", **NATIVE))
    block["toolResult"]["content"][1]["image"]["format"] = "bmp"
    with pytest.raises(SchemaError, match="not in the service model"):
        check_bedrock(block)


def test_raw_bytes_is_exactly_one_decode_per_native_payload(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import binascii

    calls: list[int] = []
    real = binascii.a2b_base64

    def counting(data: Any, *args: Any, **kwargs: Any) -> bytes:
        calls.append(len(data))
        return real(data, *args, **kwargs)

    result = ToolResult(name=MEDIA.name, id=MEDIA.id, content=MEDIA.content)  # built unpatched
    monkeypatch.setattr(binascii, "a2b_base64", counting)
    result.to("bedrock", raw_bytes=True, **NATIVE)
    assert sorted(calls) == sorted(
        len(i.get("data") or i["resource"]["blob"]) for i in MEDIA.content[1:]
    )
    calls.clear()
    result.to("bedrock", **NATIVE)
    assert calls == []  # the JSON form never decodes
