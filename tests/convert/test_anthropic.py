"""The anthropic wire: structured tool_result blocks."""

from __future__ import annotations

from typing import Any

import pytest
from convert_checks import check_anthropic
from convert_samples import GIF, GIF_B64, JPEG, JPEG_B64, PDF, PDF_B64, PNG, PNG_B64, WEBP_B64, b64
from toolwire.convert import ToolResult

FAILED_TEXT = "The tool failed without returning any output."
MAX_IMAGE_BASE64 = 10 * 1024 * 1024  # first-party: 10 MB of base64 (10485760 symbols)


def content(
    *items: dict[str, Any], is_error: bool = False, structured: Any = None, **options: Any
) -> Any:
    """Return the anthropic ``content`` for ``items`` (after checking the whole block)."""
    result = ToolResult(
        name="tool", id="toolu_1", content=items, is_error=is_error, structured_content=structured
    )
    block = result.to("anthropic", **options)
    check_anthropic(block)
    assert block["tool_use_id"] == "toolu_1"
    return block["content"]


def text(value: str, **extra: Any) -> dict[str, Any]:
    return {"type": "text", "text": value, **extra}


def image(data: str, mime: str = "image/png") -> dict[str, Any]:
    return {"type": "image", "data": data, "mimeType": mime}


def resource(uri: str = "file:///docs/report.pdf", **fields: Any) -> dict[str, Any]:
    return {"type": "resource", "resource": {"uri": uri, **fields}}


def pdf(uri: str = "file:///docs/report.pdf", data: str = PDF_B64) -> dict[str, Any]:
    return resource(uri, mimeType="application/pdf", blob=data)


def placeholder_block(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


PDF_BLOCK = {
    "type": "document",
    "source": {"type": "base64", "media_type": "application/pdf", "data": PDF_B64},
}
PDF_TEXT = f"[resource] application/pdf <file:///docs/report.pdf> ({len(PDF)} bytes)"


def test_seed_synopsis() -> None:
    result = ToolResult(name="get_weather", id="call_abc", content=[text("Sunny, 22C")])
    assert result.to("anthropic") == {
        "type": "tool_result",
        "tool_use_id": "call_abc",
        "content": [{"type": "text", "text": "Sunny, 22C"}],
    }


def test_text_keeps_only_text_and_cache_control() -> None:
    items = [
        text("a", annotations={"audience": ["user"]}, _meta={"x": 1}),
        text("b", cache_control={"type": "ephemeral"}),
        text("c", cache_control={"type": "ephemeral", "ttl": "1h", "other": 1}),
        text("d", cache_control={"type": "persistent"}),
        text("e", cache_control={"type": "ephemeral", "ttl": "2d"}),
    ]
    assert content(*items) == [
        {"type": "text", "text": "a"},
        {"type": "text", "text": "b", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "c", "cache_control": {"type": "ephemeral", "ttl": "1h"}},
        {"type": "text", "text": "d"},
        {"type": "text", "text": "e", "cache_control": {"type": "ephemeral"}},
    ]


def test_blank_texts_are_dropped() -> None:
    assert content(text(""), text("x"), text(" \n\t")) == [{"type": "text", "text": "x"}]


@pytest.mark.parametrize("items", [[], [text("")], [text("  "), text("\n")]])
def test_nothing_left_is_the_empty_string(items: list[dict[str, Any]]) -> None:
    assert content(*items) == ""


def test_nothing_left_with_structured_content_is_its_json() -> None:
    assert content(structured={"b": [1], "a": "\u00e9"}) == '{"a":"\u00e9","b":[1]}'


@pytest.mark.parametrize("items", [[], [text("")], [text(" "), text("\t")]])
def test_failed_tool_without_output_says_so(items: list[dict[str, Any]]) -> None:
    result = ToolResult(name="tool", id="t", content=items, is_error=True)
    block = result.to("anthropic")
    check_anthropic(block)
    assert block == {
        "type": "tool_result",
        "tool_use_id": "t",
        "content": FAILED_TEXT,
        "is_error": True,
    }


def test_is_error_only_when_true() -> None:
    ok = ToolResult(name="tool", id="t", content=[text("x")]).to("anthropic")
    failed = ToolResult(name="tool", id="t", content=[text("boom")], is_error=True).to("anthropic")
    assert "is_error" not in ok
    assert failed["is_error"] is True
    assert failed["content"] == [{"type": "text", "text": "boom"}]
    structured = ToolResult(
        name="tool", id="t", content=[], structured_content={"e": 1}, is_error=True
    )
    assert structured.to("anthropic")["content"] == '{"e":1}'


# --- images ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "mime"),
    [
        (PNG_B64, "image/png"),
        (JPEG_B64, "image/jpeg"),
        (GIF_B64, "image/gif"),
        (WEBP_B64, "image/webp"),
    ],
)
def test_image_needs_image_input(data: str, mime: str) -> None:
    size = len(data) // 4 * 3 - data.count("=")
    assert content(image(data, mime)) == [placeholder_block(f"[image] {mime} ({size} bytes)")]
    assert content(image(data, mime), image_input=False) == content(image(data, mime))
    assert content(image(data, mime), image_input=True) == [
        {"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}}
    ]


def test_image_payload_is_passed_through_as_the_same_object() -> None:
    data = "".join(PNG_B64)  # a distinct string object
    block = ToolResult(id="call_1", name="tool", content=[image(data)]).to(
        "anthropic", image_input=True
    )
    assert block["content"][0]["source"]["data"] is data


def test_image_resource_is_an_image() -> None:
    item = resource("file:///pics/a.png", mimeType="image/png", blob=PNG_B64)
    assert content(item, image_input=True) == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}}
    ]
    assert content(item) == [
        placeholder_block(f"[resource] image/png <file:///pics/a.png> ({len(PNG)} bytes)")
    ]


def test_mislabelled_image_is_sent_as_what_its_bytes_are() -> None:
    assert content(image(PNG_B64, "image/jpeg"), image_input=True) == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}}
    ]
    assert (
        content(image(JPEG_B64, "image/webp"), image_input=True)[0]["source"]["media_type"]
        == "image/jpeg"
    )


@pytest.mark.parametrize(
    ("data", "mime"),
    [
        (PDF_B64, "image/png"),  # not an image at all
        (b64(b"BM" + b"\x00" * 40), "image/bmp"),  # an image no wire takes
        (b64(b"\x00" * 30), "image/png"),  # garbage
        ("not base64", "image/png"),
    ],
)
def test_image_that_cannot_be_sent_is_a_placeholder(data: str, mime: str) -> None:
    blocks = content(image(data, mime), image_input=True)
    assert len(blocks) == 1
    assert blocks[0]["type"] == "text"
    assert blocks[0]["text"].startswith(f"[image] {mime} (")


def test_whitespace_broken_base64_is_cleaned() -> None:
    broken = "\n".join(PNG_B64[i : i + 10] for i in range(0, len(PNG_B64), 10)) + "\r\n"
    assert content(image(broken), image_input=True) == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}}
    ]


def test_unpadded_base64_is_padded() -> None:
    unpadded = b64(JPEG + b"\x00").rstrip("=")
    blocks = content(image(unpadded, "image/jpeg"), image_input=True)
    assert blocks[0]["source"]["data"] == b64(JPEG + b"\x00")


def test_image_up_to_five_mib_of_base64_is_sent() -> None:
    raw = GIF + b"\x00" * (MAX_IMAGE_BASE64 // 4 * 3 - len(GIF))
    data = b64(raw)
    assert len(data) == MAX_IMAGE_BASE64
    blocks = content(image(data, "image/gif"), image_input=True)
    assert blocks[0]["type"] == "image"
    assert blocks[0]["source"]["data"] is data


def test_oversize_image_is_a_placeholder() -> None:
    raw = PNG + b"\x00" * (MAX_IMAGE_BASE64 // 4 * 3 + 1 - len(PNG))
    data = b64(raw)
    assert len(data) > MAX_IMAGE_BASE64
    blocks = content(image(data), image_input=True)
    assert blocks == [placeholder_block(f"[image] image/png ({len(raw)} bytes)")]


def test_native_base64_image_block() -> None:
    native = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": GIF_B64},
        "cache_control": {"type": "ephemeral"},
    }
    assert content(native, image_input=True) == [
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/gif", "data": GIF_B64},
            "cache_control": {"type": "ephemeral"},
        }
    ]
    assert content(native) == [placeholder_block(f"[image] image/gif ({len(GIF)} bytes)")]


def test_native_url_image_needs_image_input() -> None:
    native = {"type": "image", "source": {"type": "url", "url": "https://x/a.png"}, "extra": 1}
    assert content(native, image_input=True) == [
        {"type": "image", "source": {"type": "url", "url": "https://x/a.png"}}
    ]
    assert content(native) == [placeholder_block("[image] <https://x/a.png>")]


# --- PDFs ---------------------------------------------------------------------------------


def test_pdf_is_a_document_by_default() -> None:
    assert content(pdf()) == [PDF_BLOCK]
    assert content(pdf(), native_pdf=True, image_input=False) == [PDF_BLOCK]


def test_pdf_payload_is_passed_through_as_the_same_object() -> None:
    data = "".join(PDF_B64)
    block = ToolResult(id="call_1", name="tool", content=[pdf(data=data)]).to("anthropic")
    assert block["content"][0]["source"]["data"] is data


@pytest.mark.parametrize("options", [{"native_pdf": False}, {"source_blocks": False}])
def test_pdf_placeholder_without_native_pdf_or_source_blocks(options: dict[str, bool]) -> None:
    assert content(pdf(), **options) == [placeholder_block(PDF_TEXT)]


def test_pdf_whose_bytes_are_no_pdf_is_a_placeholder() -> None:
    assert content(pdf(data=PNG_B64)) == [
        placeholder_block(
            f"[resource] application/pdf <file:///docs/report.pdf> ({len(PNG)} bytes)"
        )
    ]


def test_native_base64_pdf_document_passes_with_cache_control() -> None:
    native = {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": PDF_B64},
        "cache_control": {"type": "ephemeral", "ttl": "5m"},
    }
    assert content(native) == [{**PDF_BLOCK, "cache_control": {"type": "ephemeral", "ttl": "5m"}}]
    assert content(native, native_pdf=False) == [placeholder_block("[document] application/pdf")]


# --- text documents -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "mime", [None, "text/plain", "text/markdown", "application/json", "text/csv"]
)
def test_text_resource_is_a_plain_text_document(mime: str | None) -> None:
    fields: dict[str, Any] = {"text": "body"}
    if mime:
        fields["mimeType"] = mime
    assert content(resource("file:///a", **fields)) == [
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "body"}}
    ]


def test_text_blob_is_a_plain_text_document() -> None:
    item = resource("file:///a.html", mimeType="text/html", blob=b64("<p>h\u00e9</p>".encode()))
    assert content(item) == [
        {
            "type": "document",
            "source": {"type": "text", "media_type": "text/plain", "data": "<p>h\u00e9</p>"},
        }
    ]


def test_blank_text_resources_are_dropped() -> None:
    items = [
        resource("file:///a", text=""),
        resource("file:///b", mimeType="text/plain", blob=b64(b"  ")),
    ]
    assert content(*items) == ""
    assert content(*items, is_error=True) == FAILED_TEXT


def test_source_blocks_false_sends_text_blocks() -> None:
    items = [
        resource("file:///a", mimeType="text/csv", text="a,b"),
        resource("file:///b", text=" "),
    ]
    assert content(*items, source_blocks=False) == [{"type": "text", "text": "a,b"}]


# --- Anthropic-native blocks -------------------------------------------------------------

SEARCH = {
    "type": "search_result",
    "source": "https://example.com/a",
    "title": "A",
    "content": [text("one"), text(" "), text("two", citations=[{"bad": 1}])],
    "citations": {"enabled": True},
    "cache_control": {"type": "ephemeral"},
    "unknown": "dropped",
}
TEXT_DOCUMENT = {
    "type": "document",
    "source": {"type": "text", "media_type": "text/markdown", "data": "# Doc"},
    "title": "Doc",
    "context": "ctx",
    "citations": {"enabled": False},
    "metadata": {"dropped": True},
}
CONTENT_DOCUMENT = {
    "type": "document",
    "source": {
        "type": "content",
        "content": [
            text("p1"),
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64},
            },
        ],
    },
}


def test_search_result_passes_through() -> None:
    assert content(SEARCH) == [
        {
            "type": "search_result",
            "source": "https://example.com/a",
            "title": "A",
            "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}],
            "citations": {"enabled": True},
            "cache_control": {"type": "ephemeral"},
        }
    ]


@pytest.mark.parametrize(
    "broken",
    [
        {"title": ""},
        {"source": ""},
        {"content": [text(" ")]},
        {"content": "not a list"},
    ],
)
def test_incomplete_search_result_is_text(broken: dict[str, Any]) -> None:
    item = {**SEARCH, **broken}
    blocks = content(item)
    assert [b["type"] for b in blocks] == ["text"]
    assert blocks[0]["text"].startswith("[search_result]")


def test_text_document_passes_through_as_text_plain() -> None:
    assert content(TEXT_DOCUMENT) == [
        {
            "type": "document",
            "source": {"type": "text", "media_type": "text/plain", "data": "# Doc"},
            "title": "Doc",
            "context": "ctx",
            "citations": {"enabled": False},
        }
    ]


@pytest.mark.parametrize("blank", ["", "  \n"])
def test_blank_native_text_document_is_dropped(blank: str) -> None:
    item = {
        "type": "document",
        "source": {"type": "text", "media_type": "text/plain", "data": blank},
    }
    assert content(item, text("kept")) == [{"type": "text", "text": "kept"}]
    assert content(item) == ""
    assert content(item, is_error=True) == FAILED_TEXT


def test_content_document_keeps_text_and_images_become_placeholders() -> None:
    assert content(CONTENT_DOCUMENT, image_input=True) == [
        {
            "type": "document",
            "source": {
                "type": "content",
                "content": [
                    {"type": "text", "text": "p1"},
                    {"type": "text", "text": f"[image] image/png ({len(PNG)} bytes)"},
                ],
            },
        }
    ]


def test_url_document_passes_through() -> None:
    item = {"type": "document", "source": {"type": "url", "url": "https://x/a.pdf"}}
    assert content(item) == [item]
    assert content(item, source_blocks=False) == [placeholder_block("[document] <https://x/a.pdf>")]


def test_source_blocks_false_turns_native_blocks_into_their_string_form() -> None:
    assert content(SEARCH, TEXT_DOCUMENT, CONTENT_DOCUMENT, source_blocks=False) == [
        {"type": "text", "text": "[search_result] A <https://example.com/a>\none\ntwo"},
        {"type": "text", "text": "# Doc"},
        {"type": "text", "text": f"p1\n[image] image/png ({len(PNG)} bytes)"},
    ]


def test_source_blocks_false_leaves_images_alone() -> None:
    assert content(image(PNG_B64), source_blocks=False, image_input=True)[0]["type"] == "image"


# --- everything else ----------------------------------------------------------------------


def test_everything_else_is_a_text_placeholder() -> None:
    items = [
        {"type": "resource_link", "uri": "file:///a.txt", "name": "a"},
        {"type": "audio", "data": b64(b"RIFF0000WAVE"), "mimeType": "audio/wav"},
        resource("file:///a.zip", mimeType="application/zip", blob=b64(b"PK\x03\x04")),
        {"type": "hologram"},
    ]
    assert content(*items, image_input=True) == [
        placeholder_block("[resource_link] a <file:///a.txt>"),
        placeholder_block("[audio] audio/wav (12 bytes)"),
        placeholder_block("[resource] application/zip <file:///a.zip> (4 bytes)"),
        placeholder_block("[hologram]"),
    ]


def test_mixed_content_keeps_its_order() -> None:
    items = [text("intro"), image(GIF_B64, "image/gif"), pdf(), resource("file:///n", text="notes")]
    assert [b["type"] for b in content(*items, image_input=True)] == [
        "text",
        "image",
        "document",
        "document",
    ]
    assert [b["type"] for b in content(*items)] == ["text", "text", "document", "document"]
    assert [b["type"] for b in content(*items, source_blocks=False)] == [
        "text",
        "text",
        "text",
        "text",
    ]
