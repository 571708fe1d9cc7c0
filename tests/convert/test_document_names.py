"""Names of PDFs: unique across a Bedrock call, and a document's title kept across wires.

Bedrock refuses a request holding two documents of one name; an Anthropic
``document`` block's ``title`` is the name bedrock and responses give the file,
and reading those wires back gives the title again.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from convert_checks import check_block, check_envelope
from convert_samples import PDF, PDF_B64, PNG_B64
from hypothesis import given, settings
from hypothesis import strategies as st
from toolwire.convert import ToolResult, convert_tool_results, format_tool_results

NATIVE = {"image_input": True, "native_pdf": True}
#: Bedrock's document name: letters, digits, single spaces, - ( ) [ ], 1 to 200 characters
NAME_RULE = re.compile(r"[A-Za-z0-9()\[\]-]+(?: [A-Za-z0-9()\[\]-]+)*")


def _pdf(uri: str) -> dict[str, Any]:
    return {
        "type": "resource",
        "resource": {"uri": uri, "mimeType": "application/pdf", "blob": PDF_B64},
    }


def _titled(title: str | None) -> dict[str, Any]:
    block: dict[str, Any] = {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": PDF_B64},
    }
    if title is not None:
        block["title"] = title
    return block


def _result(call_id: str, *items: dict[str, Any]) -> ToolResult:
    return ToolResult(name="fetch", id=call_id, content=list(items))


def _names(messages: list[Any]) -> list[list[str]]:
    """Return the document names of each toolResult block of a bedrock message."""
    return [
        [part["document"]["name"] for part in block["toolResult"]["content"] if "document" in part]
        for block in messages[0]["content"]
    ]


# -- unique across a call --------------------------------------------------------------


def test_two_results_with_the_same_file_get_distinct_names() -> None:
    results = [_result(f"tooluse_{n}", _pdf("file:///tmp/report.pdf")) for n in (1, 2)]
    messages = format_tool_results("bedrock", results, **NATIVE)
    check_envelope("bedrock", messages, 2, NATIVE)
    assert _names(messages) == [["report"], ["report (2)"]]
    # each block alone still carries the plain name: only a shared call needs more
    assert [_names([{"content": [r.to("bedrock", **NATIVE)]}]) for r in results] == [
        [["report"]],
        [["report"]],
    ]


def test_a_renamed_document_takes_no_name_its_own_block_keeps() -> None:
    first = _result("tooluse_1", _pdf("a.pdf"), _pdf("a.pdf"))
    second = _result("tooluse_2", _pdf("a.pdf"), _pdf("a%20(2).pdf"), _pdf("b.pdf"))
    messages = format_tool_results("bedrock", [first, second], **NATIVE)
    check_envelope("bedrock", messages, 2, NATIVE)
    assert _names(messages) == [["a", "a (2)"], ["a (3)", "a (4)", "b"]]


def test_a_long_name_stays_within_200_characters() -> None:
    long = "x" * 300
    results = [_result(f"tooluse_{n}", _pdf(f"{long}.pdf")) for n in (1, 2, 3)]
    names = [
        n for block in _names(format_tool_results("bedrock", results, **NATIVE)) for n in block
    ]
    assert len(set(names)) == 3 and all(len(n) <= 200 for n in names)
    assert names[1] == "x" * 124 + " (2)"  # the name is bounded as the responses filename


def test_the_gateway_makes_names_unique_across_its_blocks() -> None:
    block = _result("tooluse_1", _pdf("report.pdf")).to("bedrock", **NATIVE)
    other = {"toolResult": {**block["toolResult"], "toolUseId": "tooluse_2"}}
    messages = convert_tool_results("bedrock", "bedrock", [block, other], **NATIVE)
    assert _names(messages) == [["report"], ["report (2)"]]
    assert _names([{"content": [block, other]}]) == [["report"], ["report"]]  # inputs untouched


def test_the_names_are_the_same_on_every_call() -> None:
    results = [_result(f"tooluse_{n}", _pdf("r.pdf"), _pdf("r.pdf")) for n in range(4)]
    once = format_tool_results("bedrock", results, **NATIVE)
    assert format_tool_results("bedrock", results, **NATIVE) == once
    assert _names(once) == [
        ["r", "r (2)"],
        ["r (3)", "r (4)"],
        ["r (5)", "r (6)"],
        ["r (7)", "r (8)"],
    ]


SEGMENTS = st.sampled_from(["a", "a (2)", "report", "Q3 report", "x" * 210, "Café", "%20", ""])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(SEGMENTS, max_size=4), min_size=1, max_size=5))
def test_every_name_of_a_call_is_distinct_and_valid(segments: list[list[str]]) -> None:
    results = [
        _result(f"tooluse_{n}", *[_pdf(f"file:///d/{s}.pdf") for s in each])
        for n, each in enumerate(segments)
    ]
    messages = format_tool_results("bedrock", results, **NATIVE)
    check_envelope("bedrock", messages, len(results), NATIVE)
    names = [name for block in _names(messages) for name in block]
    assert len(names) == len(set(names)) == sum(map(len, segments))
    assert all(NAME_RULE.fullmatch(name) and len(name) <= 200 for name in names)
    # a document whose name no earlier block used goes out as its block alone writes it
    earlier: set[str] = set()
    for result, sent in zip(results, _names(messages), strict=True):
        alone = _names([{"content": [result.to("bedrock", **NATIVE)]}])[0]
        for plain, name in zip(alone, sent, strict=True):
            assert name == plain or plain in earlier
        earlier.update(sent)


# -- titles ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "name", "filename"),
    [
        ("Q3 report", "Q3 report", "Q3 report.pdf"),
        ("Q3 report.pdf", "Q3 report", "Q3 report.pdf"),
        ("Café  résumé: draft [v2]", "Cafe resume- draft [v2]", "Café  résumé: draft [v2].pdf"),
        ("a/b\\c", "abc", "abc.pdf"),
        ("....", "document", "document.pdf"),
    ],
)
def test_a_title_names_the_file_on_bedrock_and_responses(
    title: str, name: str, filename: str
) -> None:
    result = _result("tooluse_1", _titled(title))
    bedrock = result.to("bedrock", **NATIVE)
    check_block("bedrock", bedrock, NATIVE)
    assert bedrock["toolResult"]["content"][0]["document"]["name"] == name
    responses = result.to("responses", **NATIVE)
    check_block("responses", responses, NATIVE)
    assert responses["output"][0]["filename"] == filename
    anthropic = result.to("anthropic")
    assert anthropic["content"][0]["title"] == title  # kept on its own wire
    hoisted = format_tool_results("openai", [result], native_pdf=True, hoist=True)
    assert hoisted[1]["content"][2]["file"]["filename"] == filename


def test_without_a_title_the_uri_still_names_the_file() -> None:
    for item in (_titled(None), _titled("   ")):
        result = _result("tooluse_1", item)
        assert (
            result.to("bedrock", **NATIVE)["toolResult"]["content"][0]["document"]["name"]
            == "document"
        )
        assert result.to("responses", **NATIVE)["output"][0]["filename"] == "document.pdf"
        assert "title" not in result.to("anthropic")["content"][0]


@pytest.mark.parametrize("wire", ["bedrock", "responses"])
@pytest.mark.parametrize("raw_bytes", [False, True])
def test_the_title_reads_back(wire: str, raw_bytes: bool) -> None:
    sent = _result("tooluse_1", _titled("Q3 report")).to(wire, **NATIVE, raw_bytes=raw_bytes)
    back = ToolResult.from_wire(wire, sent)
    assert back.to("anthropic")["content"][0] == _titled("Q3 report")
    assert back.to(wire, **NATIVE, raw_bytes=raw_bytes) == sent
    other = "responses" if wire == "bedrock" else "bedrock"
    again = ToolResult.from_wire(other, back.to(other, **NATIVE))
    assert again.to("anthropic")["content"][0]["title"] == "Q3 report"


@pytest.mark.parametrize("wire", ["bedrock", "responses"])
def test_a_pdf_sent_without_a_name_reads_back_without_a_title(wire: str) -> None:
    sent = _result("tooluse_1", _pdf("urn:x")).to(wire, **NATIVE)
    back = ToolResult.from_wire(wire, sent)
    assert back.content[0]["type"] == "resource"
    assert "title" not in back.to("anthropic")["content"][0]


# -- a document read back shows its name and size where it cannot go ---------------------


@pytest.mark.parametrize("title", [None, "Q3 report"])
def test_a_read_back_anthropic_document_shows_its_size(title: str | None) -> None:
    block = {"type": "tool_result", "tool_use_id": "toolu_1", "content": [_titled(title)]}
    back = ToolResult.from_wire("anthropic", block)
    assert back.to("anthropic") == block  # the very block
    text = back.to("openai")["content"]
    shown = (
        "[resource] application/pdf" if title is None else f"[document] application/pdf <{title}>"
    )
    assert text == f"{shown} ({len(PDF)} bytes)"


@pytest.mark.parametrize("wire", ["bedrock", "responses"])
def test_a_read_back_named_pdf_shows_its_name_and_size(wire: str) -> None:
    sent = _result("tooluse_1", _pdf("file:///r/Q3.pdf")).to(wire, **NATIVE)
    back = ToolResult.from_wire(wire, sent, name="fetch")
    expected = f"[document] application/pdf <Q3> ({len(PDF)} bytes)"
    assert back.to("openai")["content"] == expected
    assert back.to("gemini")["functionResponse"]["response"]["result"] == expected
    image = ToolResult.from_wire(
        "anthropic",
        {
            "type": "tool_result",
            "tool_use_id": "t",
            "content": [
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64},
                }
            ],
        },
    )
    assert image.to("openai")["content"].endswith(" bytes)")  # as an image's does
