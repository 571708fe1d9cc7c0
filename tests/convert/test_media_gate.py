"""The one media gate (``Form``, ``native_media``) and the inline copies of it.

anthropic and gemini test ``native_media``'s gate inline in ``block`` (their hot
path). Here every input class of that gate -- each option combination, each
media kind, a MIME type a wire refuses, a payload over the limit, one broken in
its middle -- is tried on every wire with a native form: the block sends a
payload natively exactly when ``reason`` (the report) says it does.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from convert_samples import GIF, PDF, PNG, b64
from toolwire.convert import ToolResult, report
from toolwire.convert._base64 import encoded_length
from toolwire.convert._items import Form
from toolwire.convert.wires import anthropic, bedrock, gemini, responses

# every test under both strict-check methods (see conftest.py)
pytestmark = pytest.mark.usefixtures("strict_check")

WIRES = {"anthropic": anthropic, "gemini": gemini, "responses": responses, "bedrock": bedrock}
LIMITS = {  # the largest payload of each wire, in base64 symbols
    "anthropic": max(anthropic.MAX_IMAGE_BASE64, anthropic.MAX_PDF_BASE64),
    "gemini": gemini.MAX_BASE64,
    "responses": responses.MAX_BASE64,
    "bedrock": encoded_length(max(bedrock.MAX_IMAGE_BYTES, bedrock.MAX_DOCUMENT_BYTES)),
}


def _broken_inside(data: str) -> str:
    middle = len(data) // 2
    return data[:middle] + "!" + data[middle + 1 :]


def _padded(head: bytes, symbols: int) -> str:
    """Return base64 of ``head`` and zeros, at least ``symbols`` long."""
    return b64(head + b"\0" * max(0, symbols * 3 // 4 + 3 - len(head)))


def _image(data: str, mime: str = "image/png") -> dict[str, Any]:
    return {"type": "image", "data": data, "mimeType": mime}


def _pdf(blob: str) -> dict[str, Any]:
    resource = {"uri": "file:///r.pdf", "mimeType": "application/pdf", "blob": blob}
    return {"type": "resource", "resource": resource}


def _items(wire: str) -> dict[str, dict[str, Any]]:
    over = LIMITS[wire] + 4
    return {
        "png": _image(b64(PNG + b"\0" * 64)),
        "gif": _image(b64(GIF + b"\0" * 64), "image/gif"),
        "pdf": _pdf(b64(PDF)),
        "png broken": _image(_broken_inside(b64(PNG + b"\0" * 64))),
        "pdf broken": _pdf(_broken_inside(b64(PDF + b"\0" * 64))),
        "png over": _image(_padded(PNG, over)),
        "pdf over": _pdf(_padded(PDF, over)),
    }


def _sent(wire: str, block: Any) -> int:
    """Count the base64 payloads a block carries natively."""
    if wire == "anthropic":
        content = block["content"] if isinstance(block["content"], list) else []
        return sum(1 for part in content if part.get("source", {}).get("type") == "base64")
    if wire == "gemini":
        return sum(1 for part in block["functionResponse"].get("parts", []) if "inlineData" in part)
    if wire == "responses":
        output = block["output"] if isinstance(block["output"], list) else []
        return sum(1 for part in output if part["type"] in ("input_image", "input_file"))
    content = block["toolResult"]["content"]
    return sum(1 for part in content if "image" in part or "document" in part)


OPTIONS = [
    dict(zip(("image_input", "native_pdf", "source_blocks"), flags, strict=True))
    for flags in itertools.product((False, True), repeat=3)
]


@pytest.mark.parametrize("wire", WIRES)
def test_the_block_sends_natively_exactly_what_reason_allows(wire: str) -> None:
    seen_reasons: set[str | None] = set()
    for (name, item), options in itertools.product(_items(wire).items(), OPTIONS):
        # a fresh result each time: the strict check's outcome is remembered per item
        decisions = report(wire, ToolResult(name="n", id="c", content=[item]), **options)
        block = ToolResult(name="n", id="c", content=[item]).to(wire, **options)
        allowed = decisions[0].reason is None
        assert _sent(wire, block) == int(allowed), (name, options, decisions[0].reason)
        seen_reasons.add(decisions[0].reason)
    # every class of the gate was reached, so the agreement above covers each of them
    expected = {None, "not_read", "too_large", "invalid_base64"}
    expected |= {"unsupported_mime"} if wire == "gemini" else set()
    expected |= {"no_form"} if wire == "anthropic" else set()
    assert seen_reasons == expected


def test_a_byte_limit_becomes_the_base64_length_once() -> None:
    form = Form(max_bytes=4_500_000)
    assert (form.max_bytes, form.max_base64) == (4_500_000, 6_000_000)
    assert Form(max_bytes=20_000_000).max_base64 == encoded_length(20_000_000) == 26_666_668
    assert Form(max_base64=5 * 1024 * 1024).max_bytes is None
    with pytest.raises(ValueError, match="exactly one"):
        Form()
    with pytest.raises(ValueError, match="exactly one"):
        Form(max_base64=8, max_bytes=6)


def test_the_inline_gates_read_the_forms_the_reasons_read() -> None:
    # anthropic's forms check no MIME and no decoded bytes: base64 limits and a side
    for form in (anthropic.IMAGE_FORM, anthropic.PDF_FORM):
        assert form.mimes is None and form.max_bytes is None
    assert anthropic.IMAGE_FORM.max_base64 == 10 * 1024 * 1024  # first-party 10 MB of base64
    assert anthropic.IMAGE_FORM.max_side == 8000
    # gemini's checks the image MIME set and one base64 limit for both kinds
    assert gemini.IMAGE_FORM.mimes is gemini.IMAGE_MIMES
    assert gemini.PDF_FORM.mimes is None
    for form in (gemini.IMAGE_FORM, gemini.PDF_FORM):
        assert form.max_bytes is None and form.max_base64 == gemini.MAX_BASE64
