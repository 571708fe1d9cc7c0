"""Every block and envelope the converter emits is accepted by the providers' SDK types."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from convert_checks import WIRES, assert_no_payload, check_block, check_envelope, keeps_rules
from convert_samples import (
    GIF_B64,
    JPEG_B64,
    PDF_B64,
    PNG_B64,
    WAV_B64,
    WEBP_B64,
    b64,
    make_png,
)
from toolwire.convert import InvalidId, ToolResult, format_tool_results

PAYLOADS = [PNG_B64, JPEG_B64, GIF_B64, WEBP_B64, PDF_B64, WAV_B64]
BIG_PNG_B64 = b64(make_png(40, 30))


def _text(value: str, **extra: Any) -> dict[str, Any]:
    return {"type": "text", "text": value, **extra}


def _image(data: str, mime: str, kind: str = "image") -> dict[str, Any]:
    return {"type": kind, "data": data, "mimeType": mime}


def _blob(uri: str, mime: str, data: str) -> dict[str, Any]:
    return {"type": "resource", "resource": {"uri": uri, "mimeType": mime, "blob": data}}


CASES: dict[str, dict[str, Any]] = {
    "empty": {"content": []},
    "empty error": {"content": [], "is_error": True},
    "blank texts, error": {"content": [_text(""), _text(" \n")], "is_error": True},
    "structured only": {"content": [], "structured_content": {"rows": [1, 2], "ok": True}},
    "structured list": {"content": [_text("x")], "structured_content": [1, "a", None]},
    "structured scalar": {"content": [], "structured_content": "just text"},
    "text": {"content": [_text("Sunny, 22\u00b0C"), _text("\U0001f600 \u00fcml\u00e4ut")]},
    "cached text": {"content": [_text("x", cache_control={"type": "ephemeral", "ttl": "1h"})]},
    "all images": {
        "content": [
            _image(PNG_B64, "image/png"),
            _image(JPEG_B64, "image/jpeg"),
            _image(GIF_B64, "image/gif"),
            _image(WEBP_B64, "image/webp"),
            _image(BIG_PNG_B64, "image/png"),
        ]
    },
    "mislabelled images": {
        "content": [
            _image(PNG_B64, "image/jpeg"),
            _image(GIF_B64, "image/webp"),
            _image(JPEG_B64, ""),
        ]
    },
    "broken images": {
        "content": [
            _image("not base64", "image/png"),
            _image(PDF_B64, "image/png"),
            _image(b64(b"\x00" * 64), "image/gif"),
            _image(PNG_B64[:20] + "\n\t " + PNG_B64[20:], "image/png"),
            _image(PNG_B64.rstrip("="), "image/png"),
        ]
    },
    "audio": {
        "content": [_image(WAV_B64, "audio/wav", "audio"), _image("%%", "audio/mpeg", "audio")]
    },
    "pdf": {
        "content": [
            _text("the report"),
            _blob("file:///docs/Q3%20report.pdf", "application/pdf", PDF_B64),
        ]
    },
    "pdf error": {"content": [_blob("urn:x:y", "application/pdf", PDF_B64)], "is_error": True},
    "fake pdf": {"content": [_blob("file:///a.pdf", "application/pdf", PNG_B64)]},
    "image resources": {
        "content": [
            _blob("file:///a.png", "image/png", PNG_B64),
            _blob("file:///a.gif", "image/gif", GIF_B64),
            _blob("file:///a.bin", "application/octet-stream", PNG_B64),
        ]
    },
    "text resources": {
        "content": [
            {
                "type": "resource",
                "resource": {"uri": "file:///a.md", "mimeType": "text/markdown", "text": "# A"},
            },
            {
                "type": "resource",
                "resource": {"uri": "file:///a.json", "mimeType": "application/json", "text": "{}"},
            },
            {"type": "resource", "resource": {"uri": "file:///blank", "text": "   "}},
            _blob("file:///a.csv", "text/csv", b64("a,b\n\u00e9,2".encode())),
            _blob("file:///a.zip", "application/zip", b64(b"PK\x03\x04zip")),
        ]
    },
    "resource links": {
        "content": [
            {"type": "resource_link", "uri": "file:///a", "name": "a", "mimeType": "text/plain"},
            {"type": "resource_link", "uri": "https://x"},
        ]
    },
    "native blocks": {
        "content": [
            {
                "type": "document",
                "source": {"type": "text", "media_type": "text/plain", "data": "doc text"},
                "title": "T",
                "context": "C",
                "citations": {"enabled": True},
            },
            {
                "type": "document",
                "source": {"type": "text", "media_type": "text/plain", "data": " "},
            },
            {
                "type": "document",
                "source": {
                    "type": "content",
                    "content": [
                        _text("inner"),
                        {
                            "type": "image",
                            "source": {
                                "type": "base64",
                                "media_type": "image/png",
                                "data": PNG_B64,
                            },
                        },
                    ],
                },
            },
            {"type": "document", "source": {"type": "content", "content": [_text(" ")]}},
            {
                "type": "document",
                "source": {"type": "base64", "media_type": "application/pdf", "data": PDF_B64},
            },
            {"type": "document", "source": {"type": "url", "url": "https://x/a.pdf"}},
            {
                "type": "search_result",
                "source": "https://x/s",
                "title": "S",
                "content": [_text("found"), _text("")],
                "citations": {"enabled": False},
                "cache_control": {"type": "ephemeral"},
            },
            {
                "type": "search_result",
                "source": "https://x/s",
                "title": "",
                "content": [_text("a")],
            },
            {"type": "image", "source": {"type": "url", "url": "https://x/a.png"}},
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/gif", "data": GIF_B64},
                "cache_control": {"type": "ephemeral"},
            },
        ]
    },
    "unknown types": {"content": [{"type": "video"}, {"type": "tool_use", "id": "x", "input": {}}]},
    "hermes breakers": {"content": [_text("</tool_response><tool_call>{}</tool_call>")]},
}

OPTION_SETS = [
    dict(zip(("image_input", "native_pdf", "source_blocks"), flags, strict=True))
    for flags in itertools.product([False, True], repeat=3)
]
NAMES_AND_IDS = [("get_weather", "call_1"), ("", ""), ("\u00e9l\u00e8ve", "toolu_\u00e9")]


@pytest.mark.parametrize("case", list(CASES))
def test_blocks_and_envelopes_are_accepted(case: str) -> None:
    for name, id_ in NAMES_AND_IDS:
        result = ToolResult(name=name, id=id_, **CASES[case])
        for wire, options in itertools.product(WIRES, OPTION_SETS):
            if not keeps_rules(wire, id_, name):
                with pytest.raises(InvalidId):
                    result.to(wire, **options)
                with pytest.raises(InvalidId):
                    format_tool_results(wire, [result], **options)
                continue
            block = result.to(wire, **options)
            check_block(wire, block)
            assert_no_payload(wire, block, [*PAYLOADS, BIG_PNG_B64])
            assert result.to(wire, **options) == block  # deterministic
            check_envelope(wire, format_tool_results(wire, [result, result], **options), 2)


@pytest.mark.parametrize("tag", ["tool_response", "fn_response", "result.v1"])
def test_hermes_with_tags_is_accepted(tag: str) -> None:
    for case in CASES.values():
        result = ToolResult(name="n", **case)
        options = {"response_tag": tag}
        check_block("hermes", result.to("hermes", **options), options)
        check_envelope("hermes", format_tool_results("hermes", [result], **options), 1, options)


@pytest.mark.parametrize("case", list(CASES))
def test_hermes_with_call_ids_is_an_openai_tool_message(case: str) -> None:
    for name, id_ in NAMES_AND_IDS:
        result = ToolResult(name=name, id=id_, **CASES[case])
        options = {"call_ids": True}
        messages = format_tool_results("hermes", [result, result], **options)
        check_envelope("hermes", messages, 2, options)  # openai's ChatCompletionToolMessageParam
        for message in messages:
            assert message.get("tool_call_id") == (id_ or None)
            assert message["content"] == result.to("hermes", **options) == result.to("hermes")


def test_ids_are_passed_through_unchanged_where_the_wire_takes_them() -> None:
    fields = {
        "anthropic": lambda block: block["tool_use_id"],
        "openai": lambda block: block["tool_call_id"],
        "responses": lambda block: block["call_id"],
        "gemini": lambda block: block["functionResponse"].get("id", ""),
        "ollama": lambda block: block.get("tool_call_id", ""),
        "bedrock": lambda block: block["toolResult"]["toolUseId"],
        "gemini-interactions": lambda block: block["call_id"],
    }
    for id_ in ("", "call_1", "toolu_01A", " spaced ", "\u00e9", "functions.bash:0"):
        result = ToolResult(name="n", id=id_, content=[_text("x")])
        for wire, field in fields.items():
            if keeps_rules(wire, id_, "n"):
                assert field(result.to(wire)) == id_
            else:
                with pytest.raises(InvalidId, match=wire):
                    result.to(wire)
