"""The responses wire: function_call_output items, part arrays and input_file names."""

from __future__ import annotations

from typing import Any

import pytest
from convert_checks import check_filename, check_responses
from convert_samples import GIF_B64, JPEG_B64, PDF, PDF_B64, PNG, PNG_B64, WEBP_B64, b64
from toolwire.convert import ToolResult


def output(*items: dict[str, Any], structured: Any = None, **options: Any) -> Any:
    result = ToolResult(name="n", id="call_9", content=items, structured_content=structured)
    block = result.to("responses", **options)
    check_responses(block)
    assert set(block) == {"type", "call_id", "output"}
    assert block["type"] == "function_call_output"
    assert block["call_id"] == "call_9"
    return block["output"]


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def image(data: str, mime: str) -> dict[str, Any]:
    return {"type": "image", "data": data, "mimeType": mime}


def pdf(uri: str = "file:///docs/report.pdf", data: str = PDF_B64) -> dict[str, Any]:
    return {
        "type": "resource",
        "resource": {"uri": uri, "mimeType": "application/pdf", "blob": data},
    }


def filename(uri: str) -> str:
    parts = output(pdf(uri), native_pdf=True)
    (file_part,) = [p for p in parts if p["type"] == "input_file"]
    check_filename(file_part["filename"])
    return file_part["filename"]  # type: ignore[no-any-return]


def test_output_is_the_string_without_native_media() -> None:
    items = (text("a"), image(PNG_B64, "image/png"), pdf())
    expected = (
        f"a\n[image] image/png ({len(PNG)} bytes)\n"
        f"[resource] application/pdf <file:///docs/report.pdf> ({len(PDF)} bytes)"
    )
    assert output(*items) == expected
    assert output(text("a"), image_input=True, native_pdf=True) == "a"


@pytest.mark.parametrize(
    ("data", "mime"),
    [
        (PNG_B64, "image/png"),
        (JPEG_B64, "image/jpeg"),
        (GIF_B64, "image/gif"),
        (WEBP_B64, "image/webp"),
    ],
)
def test_image_becomes_input_image_with_a_data_url(data: str, mime: str) -> None:
    assert output(text("see"), image(data, mime), image_input=True) == [
        {"type": "input_text", "text": "see"},
        {"type": "input_image", "image_url": f"data:{mime};base64,{data}"},
    ]


def test_image_resource_and_native_image_become_input_image() -> None:
    items = [
        {
            "type": "resource",
            "resource": {"uri": "file:///a.gif", "mimeType": "image/gif", "blob": GIF_B64},
        },
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}},
    ]
    assert output(*items, image_input=True) == [
        {"type": "input_image", "image_url": f"data:image/gif;base64,{GIF_B64}"},
        {"type": "input_image", "image_url": f"data:image/png;base64,{PNG_B64}"},
    ]


def test_data_url_uses_the_sniffed_type_and_clean_base64() -> None:
    broken = PNG_B64[:10] + "\n  " + PNG_B64[10:]
    assert output(image(broken, "image/webp"), image_input=True) == [
        {"type": "input_image", "image_url": f"data:image/png;base64,{PNG_B64}"}
    ]


def test_pdf_becomes_input_file() -> None:
    assert output(text("report:"), pdf(), native_pdf=True) == [
        {"type": "input_text", "text": "report:"},
        {
            "type": "input_file",
            "file_data": f"data:application/pdf;base64,{PDF_B64}",
            "filename": "report.pdf",
        },
    ]


def test_pdf_needs_native_pdf_and_image_needs_image_input() -> None:
    pdf_text = f"[resource] application/pdf <file:///docs/report.pdf> ({len(PDF)} bytes)"
    image_text = f"[image] image/png ({len(PNG)} bytes)"
    assert output(pdf(), image(PNG_B64, "image/png"), image_input=True) == [
        {"type": "input_text", "text": pdf_text},
        {"type": "input_image", "image_url": f"data:image/png;base64,{PNG_B64}"},
    ]
    assert output(pdf(), image(PNG_B64, "image/png"), native_pdf=True) == [
        {
            "type": "input_file",
            "file_data": f"data:application/pdf;base64,{PDF_B64}",
            "filename": "report.pdf",
        },
        {"type": "input_text", "text": image_text},
    ]
    assert output(pdf(), image(PNG_B64, "image/png")) == f"{pdf_text}\n{image_text}"


def test_parts_follow_content_order_and_drop_blank_texts() -> None:
    items = [
        text(""),
        image(GIF_B64, "image/gif"),
        text("  "),
        {"type": "resource_link", "uri": "file:///x", "name": "x"},
        {"type": "resource", "resource": {"uri": "file:///t", "text": "doc"}},
        text("end"),
    ]
    assert output(*items, image_input=True) == [
        {"type": "input_image", "image_url": f"data:image/gif;base64,{GIF_B64}"},
        {"type": "input_text", "text": "[resource_link] x <file:///x>"},
        {"type": "input_text", "text": "doc"},
        {"type": "input_text", "text": "end"},
    ]


def test_unusable_media_stays_text_in_the_part_list() -> None:
    items = [image(PNG_B64, "image/png"), image("%%%", "image/png"), pdf(data=PNG_B64)]
    assert output(*items, image_input=True, native_pdf=True) == [
        {"type": "input_image", "image_url": f"data:image/png;base64,{PNG_B64}"},
        {"type": "input_text", "text": "[image] image/png (invalid base64)"},
        {
            "type": "input_text",
            "text": f"[resource] application/pdf <file:///docs/report.pdf> ({len(PNG)} bytes)",
        },
    ]


def test_native_pdf_document_becomes_input_file_named_document_pdf() -> None:
    item = {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": PDF_B64},
    }
    assert output(item, native_pdf=True) == [
        {
            "type": "input_file",
            "file_data": f"data:application/pdf;base64,{PDF_B64}",
            "filename": "document.pdf",
        }
    ]


def test_structured_content_does_not_replace_a_part_list() -> None:
    parts = output(text("x"), image(PNG_B64, "image/png"), structured={"k": 1}, image_input=True)
    assert [p["type"] for p in parts] == ["input_text", "input_image"]
    assert output(structured={"k": 1}, image_input=True) == '{"k":1}'


def test_is_error_is_not_sent() -> None:
    block = ToolResult(id="c", content=[text("boom")], is_error=True).to("responses")
    assert block == {"type": "function_call_output", "call_id": "c", "output": "boom"}


# --- filenames --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("uri", "expected"),
    [
        ("file:///docs/report.pdf", "report.pdf"),
        ("file:///docs/report", "report.pdf"),
        ("file:///docs/Report.PDF", "Report.pdf"),
        ("file:///docs/My%20Report%202024.pdf", "My Report 2024.pdf"),
        ("file:///docs/%C3%BCbersicht.pdf", "\u00fcbersicht.pdf"),
        ("https://example.com/files/q3.pdf?download=1#page=2", "q3.pdf"),
        ("https://example.com/files/q3", "q3.pdf"),
        ("s3://bucket/key/annual.report", "annual.report.pdf"),
        ("report.pdf", "report.pdf"),
        ("/abs/path/x.pdf", "x.pdf"),
        ("urn:isbn:0451450523", "document.pdf"),
        ("data:application/pdf;base64,JVBERi0=", "document.pdf"),
        ("mailto:someone@example.com", "document.pdf"),
        ("", "document.pdf"),
        ("file:///", "document.pdf"),
        ("https://example.com", "document.pdf"),
        ("https://example.com/dir/", "document.pdf"),
        ("file:///docs/.pdf", "document.pdf"),
        ("file:///docs/..pdf", "document.pdf"),
        ("file:///docs/.hidden", "hidden.pdf"),
    ],
)
def test_filename(uri: str, expected: str) -> None:
    assert filename(uri) == expected


@pytest.mark.parametrize(
    "uri",
    [
        "file:///docs/a%2Fb.pdf",  # an encoded slash
        "file:///docs/a%5Cb.pdf",  # an encoded backslash
        "file:///docs/..%2F..%2Fetc%2Fpasswd",
        "file:///docs/%2E%2E",
        "file:///docs/evil%00name.pdf",
        "file:///docs/line%0Abreak%0D.pdf",
        "file:///docs/tab%09and%1Bescape.pdf",
        "file:///docs/%20%20spaced%20%20",
        "file:///docs/" + "x" * 500 + ".pdf",
        "file:///docs/" + "%C3%A9" * 300,
        "file:///docs/%FF%FE.pdf",
        "file:///docs/%E2%80%AEfdp.exe",  # right-to-left override
    ],
)
def test_filename_is_sanitized(uri: str) -> None:
    name = filename(uri)
    assert "/" not in name
    assert "\\" not in name
    assert all(ch.isprintable() for ch in name)
    assert len(name) <= 128
    assert name.endswith(".pdf")


def test_filename_details() -> None:
    assert filename("file:///docs/a%2Fb.pdf") == "ab.pdf"
    assert filename("file:///docs/evil%00name.pdf") == "evilname.pdf"
    assert filename("file:///docs/%20%20spaced%20%20") == "spaced.pdf"
    assert filename("file:///docs/%2E%2E") == "document.pdf"
    long_name = filename("file:///docs/" + "x" * 500 + ".pdf")
    assert long_name == "x" * 124 + ".pdf"


def test_filename_of_a_data_uri_pdf_with_big_payload() -> None:
    uri = "data:application/pdf;base64," + b64(PDF)
    assert filename(uri) == "document.pdf"
