"""The deferred strict base64 check on bedrock, hoisting, URL sources, audiences and the report.

A payload broken only in its middle passes the O(1) screen when a result is
built; the strict check runs where a wire would send it. The block and
``report`` must agree on it, and nothing may read a payload that is not sent.
"""

from __future__ import annotations

import binascii
from typing import Any

import pytest
from convert_samples import GIF_B64, PDF, PDF_B64, PNG, PNG_B64
from toolwire.convert import WIRES, ToolResult, _base64, format_tool_results, report
from toolwire.convert._audience import for_the_model

NATIVE = {"image_input": True, "native_pdf": True}
# every test under both strict-check methods (see conftest.py)
pytestmark = pytest.mark.usefixtures("strict_check")
INVALID_IMAGE = "[image] image/png (invalid base64)"
INVALID_PDF = "[resource] application/pdf <file:///docs/r.pdf> (invalid base64)"


def broken_inside(data: str) -> str:
    """Return ``data`` with a symbol outside the alphabet in its middle (ends intact)."""
    middle = len(data) // 2
    return data[:middle] + "!" + data[middle + 1 :]


def image(data: str, mime: str = "image/png") -> dict[str, Any]:
    return {"type": "image", "data": data, "mimeType": mime}


def pdf(blob: str) -> dict[str, Any]:
    resource = {"uri": "file:///docs/r.pdf", "mimeType": "application/pdf", "blob": blob}
    return {"type": "resource", "resource": resource}


BROKEN = ToolResult(
    name="shot",
    id="c1",
    content=[
        {"type": "text", "text": "t"},
        image(broken_inside(PNG_B64)),
        pdf(broken_inside(PDF_B64)),
    ],
)


@pytest.fixture
def clean_calls(monkeypatch: pytest.MonkeyPatch, strict_check: str) -> list[object]:
    """Record every payload the strict check (of the method under test) reads."""
    calls: list[object] = []
    real = _base64.clean

    def counting(data: object, copied: bool = False) -> str | None:
        calls.append(data)
        return real(data, copied)

    monkeypatch.setattr(_base64, "clean", counting)
    return calls


def _fresh_broken() -> ToolResult:
    return ToolResult(name=BROKEN.name, id=BROKEN.id, content=list(BROKEN.content))


@pytest.mark.parametrize("first", ["report", "block"])
def test_the_report_and_the_native_blocks_agree_on_a_payload_broken_inside(first: str) -> None:
    for wire in ("anthropic", "responses", "gemini", "bedrock"):
        result = _fresh_broken()  # the strict check has not run yet
        if first == "report":
            decisions = report(wire, result, **NATIVE)
            block = result.to(wire, **NATIVE)
        else:
            block = result.to(wire, **NATIVE)
            decisions = report(wire, result, **NATIVE)
        assert [(d.outcome, d.reason) for d in decisions] == [
            ("text", None),
            ("placeholder", "invalid_base64"),
            ("placeholder", "invalid_base64"),
        ], wire
        texts = _texts(wire, block)
        assert texts == ["t", INVALID_IMAGE, INVALID_PDF], wire


def _texts(wire: str, block: Any) -> list[str]:
    """Return the texts a block carries, in order (no native part expected)."""
    if wire == "anthropic":
        assert all(part["type"] == "text" for part in block["content"])
        return [part["text"] for part in block["content"]]
    if wire == "responses":
        assert isinstance(block["output"], str)
        return list(block["output"].split("\n"))
    if wire == "gemini":
        assert "parts" not in block["functionResponse"]
        return list(block["functionResponse"]["response"]["result"].split("\n"))
    content = block["toolResult"]["content"]
    assert all(set(part) == {"text"} for part in content)
    return [part["text"] for part in content]


def test_bedrock_raw_bytes_never_decodes_a_payload_that_fails(monkeypatch: Any) -> None:
    decoded: list[object] = []
    real = binascii.a2b_base64

    def counting(data: Any) -> bytes:
        decoded.append(data)
        return real(data)

    result = _fresh_broken()  # building sniffs 16 symbols per payload: not counted
    good = ToolResult(id="call_1", name="tool", content=[image(PNG_B64), pdf(PDF_B64)])
    monkeypatch.setattr(binascii, "a2b_base64", counting)
    block = result.to("bedrock", raw_bytes=True, **NATIVE)
    assert [part["text"] for part in block["toolResult"]["content"]] == [
        "t",
        INVALID_IMAGE,
        INVALID_PDF,
    ]
    assert decoded == []
    content = good.to("bedrock", raw_bytes=True, **NATIVE)["toolResult"]["content"]
    assert content[0]["image"]["source"]["bytes"] == PNG
    assert content[1]["document"]["source"]["bytes"] == PDF
    assert decoded == [PNG_B64, PDF_B64]  # exactly one decode each, of the clean string


@pytest.mark.parametrize("wire", ["openai", "ollama"])
def test_a_medium_that_fails_the_check_is_not_hoisted(wire: str) -> None:
    result = _fresh_broken()
    messages = format_tool_results(wire, [result], hoist=True, **NATIVE)
    assert len(messages) == 1  # nothing hoisted: no user message
    # ollama hoists no PDF: the PDF keeps its plain placeholder, its payload never read
    plain_pdf = f"[resource] application/pdf <file:///docs/r.pdf> ({len(PDF)} bytes)"
    shown = f"{INVALID_IMAGE}\n{INVALID_PDF if wire == 'openai' else plain_pdf}"
    assert messages[0]["content"] == f"t\n{shown}"
    decisions = report(wire, result, hoist=True, **NATIVE)
    assert decisions[1].as_tuple()[2:4] == ("placeholder", "invalid_base64")
    assert decisions[2].as_tuple()[2:4] == (
        ("placeholder", "invalid_base64") if wire == "openai" else ("placeholder", "no_form")
    )


def test_hoisting_sends_the_clean_payload_itself() -> None:
    result = ToolResult(name="n", id="c", content=[image(PNG_B64)])
    messages = format_tool_results("ollama", [result], hoist=True, image_input=True)
    assert messages[1]["images"][0] is PNG_B64
    messages = format_tool_results("openai", [result], hoist=True, image_input=True)
    url = messages[1]["content"][2]["image_url"]["url"]
    assert url == "data:image/png;base64," + PNG_B64


def test_no_payload_is_read_where_nothing_is_sent_natively(clean_calls: list[object]) -> None:
    result = ToolResult(
        id="call_1",
        name="tool",
        content=[image(PNG_B64), image(GIF_B64, "image/gif"), pdf(PDF_B64)],
    )
    for wire in WIRES:
        format_tool_results(wire, [result])  # the defaults: no native media off anthropic
        report(wire, result)
    for wire in ("openai", "ollama", "hermes"):
        format_tool_results(wire, [result], **NATIVE)  # no hoist: no native form
        report(wire, result, **NATIVE)
    format_tool_results("openai", [result], hoist=True)  # hoist, but no medium is read
    format_tool_results("bedrock", [result], raw_bytes=True)
    assert clean_calls == [PDF_B64]  # anthropic's PDF (on by default), once: remembered
    clean_calls.clear()
    fresh = ToolResult(
        id="call_1",
        name="tool",
        content=[image(PNG_B64), image(GIF_B64, "image/gif"), pdf(PDF_B64)],
    )
    format_tool_results("ollama", [fresh], hoist=True, **NATIVE)
    report("ollama", fresh, hoist=True, **NATIVE)
    assert clean_calls == [PNG_B64]  # ollama hoists PNG only (no GIF, no PDF); remembered


def test_audience_on_an_all_text_result_is_the_result_itself() -> None:
    result = ToolResult(
        id="call_1",
        name="tool",
        content=[{"type": "text", "text": "a"}, {"type": "text", "text": ""}],
    )
    assert for_the_model(result) is result
    for wire in WIRES:
        assert result.to(wire, audience=True) == result.to(wire)
        decisions = report(wire, result, audience=True)
        assert [(d.index, d.outcome) for d in decisions] == [(0, "text"), (1, "text")]


def test_audience_filters_text_items_outside_the_fast_path() -> None:
    user_only = {"type": "text", "text": "for you", "annotations": {"audience": ["user"]}}
    result = ToolResult(
        id="call_1", name="tool", content=[{"type": "text", "text": "for the model"}, user_only]
    )
    assert result._texts is not None  # every item is text, but not all are plain
    assert result.to("openai", audience=True)["content"] == "for the model"
    assert result.to("openai")["content"] == "for the model\nfor you"
    decisions = report("anthropic", result, audience=True)
    assert [(d.outcome, d.reason) for d in decisions] == [("text", None), ("left_out", "audience")]
    block = result.to("anthropic", audience=True)
    assert block["content"] == [{"type": "text", "text": "for the model"}]


def test_the_report_of_an_all_text_result_is_aligned_with_its_content() -> None:
    result = ToolResult.from_mcp(
        {"content": [{"type": "text", "text": str(n)} for n in range(5)]}, id="call_1", name="tool"
    )
    assert result._parsed is None  # the fast path: items not built yet
    decisions = report("gemini", result)
    assert [d.index for d in decisions] == list(range(5))
    assert all(d.type == "text" and d.outcome == "text" for d in decisions)
