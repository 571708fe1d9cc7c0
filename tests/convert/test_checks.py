"""The strict SDK checks must be able to fail: known-bad blocks are rejected."""

from __future__ import annotations

import copy
import json
from typing import Any, Literal, NotRequired, Required, TypedDict

import pytest
from convert_checks import (
    SchemaError,
    anthropic_types,
    assert_no_payload,
    check_anthropic,
    check_block,
    check_envelope,
    check_filename,
    check_gemini,
    check_hermes,
    check_ollama,
    check_openai,
    check_responses,
    check_typed,
    openai_chat,
    validate_gemini_part,
)
from convert_samples import GIF_B64, PDF_B64, PNG_B64
from toolwire.convert import ToolResult


class _Inner(TypedDict):
    kind: Literal["a", "b"]
    count: int


class _Outer(TypedDict, total=False):
    name: Required[str]
    flag: bool
    inner: _Inner
    items: list[_Inner]
    extra: NotRequired[dict[str, int]]


GOOD_OUTER: dict[str, Any] = {
    "name": "x",
    "flag": True,
    "inner": {"kind": "a", "count": 1},
    "items": [{"kind": "b", "count": 2}],
    "extra": {"k": 3},
}


def test_check_typed_accepts_a_good_value() -> None:
    check_typed(GOOD_OUTER, _Outer)
    check_typed({"name": "only the required key"}, _Outer)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda v: v.pop("name"), "missing required key 'name'"),
        (lambda v: v.update(surprise=1), r"unknown keys \['surprise'\]"),
        (lambda v: v["inner"].update(kind="c"), "is not one of"),
        (lambda v: v["inner"].update(count=True), "expected an integer"),
        (lambda v: v.update(flag=1), "expected a boolean"),
        (lambda v: v["items"][0].pop("count"), "missing required key 'count'"),
        (lambda v: v["items"].append({"kind": "a", "count": 1, "x": 0}), "unknown keys"),
        (lambda v: v.update(items={"kind": "a", "count": 1}), "expected a list"),
        (lambda v: v.update(extra={"k": "3"}), "expected an integer"),
        (lambda v: v.update(name=None), "expected a string"),
    ],
)
def test_check_typed_rejects(change: Any, message: str) -> None:
    value = copy.deepcopy(GOOD_OUTER)
    change(value)
    with pytest.raises(SchemaError, match=message):
        check_typed(value, _Outer)


def test_check_typed_refuses_annotations_it_does_not_know() -> None:
    with pytest.raises(TypeError):
        check_typed(1, complex)


def _anthropic(content: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": "t1", "content": content, **extra}


def test_sdk_types_are_really_walked() -> None:
    # The same structures the converter emits, checked against the SDK's own TypedDicts.
    check_typed(_anthropic([{"type": "text", "text": "hi"}]), anthropic_types.ToolResultBlockParam)
    check_typed(
        {"role": "tool", "tool_call_id": "c", "content": "x"},
        openai_chat.ChatCompletionToolMessageParam,
    )
    with pytest.raises(SchemaError, match="unknown keys"):
        check_typed(
            _anthropic([{"type": "text", "text": "hi", "bogus": 1}]),
            anthropic_types.ToolResultBlockParam,
        )


ANTHROPIC_BAD = {
    "unknown key in a text block": _anthropic([{"type": "text", "text": "x", "mime": "y"}]),
    "empty text block": _anthropic([{"type": "text", "text": ""}]),
    "whitespace text block": _anthropic([{"type": "text", "text": " \n"}]),
    "text document not text/plain": _anthropic(
        [{"type": "document", "source": {"type": "text", "media_type": "text/csv", "data": "a"}}]
    ),
    "empty text document": _anthropic(
        [{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": " "}}]
    ),
    "is_error false sent": _anthropic("x", is_error=False),
    "is_error with empty content": _anthropic("", is_error=True),
    "empty block list": _anthropic([]),
    "missing tool_use_id": {"type": "tool_result", "content": "x"},
    "image of a bad type": _anthropic(
        [{"type": "image", "source": {"type": "base64", "media_type": "image/bmp", "data": "Qk0="}}]
    ),
    "image whose bytes contradict its type": _anthropic(
        [
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": GIF_B64},
            }
        ]
    ),
    "image with whitespace in base64": _anthropic(
        [
            {
                "type": "image",
                "source": {
                    "type": "base64",
                    "media_type": "image/png",
                    "data": PNG_B64[:8] + "\n" + PNG_B64[8:],
                },
            }
        ]
    ),
    "pdf document with broken base64": _anthropic(
        [
            {
                "type": "document",
                "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBE*i0="},
            }
        ]
    ),
    "search result without title": _anthropic(
        [{"type": "search_result", "source": "s", "content": [{"type": "text", "text": "t"}]}]
    ),
}


@pytest.mark.parametrize("block", ANTHROPIC_BAD.values(), ids=list(ANTHROPIC_BAD))
def test_check_anthropic_rejects(block: dict[str, Any]) -> None:
    with pytest.raises(SchemaError):
        check_anthropic(block)


def _responses(output: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": "c", "output": output, **extra}


RESPONSES_BAD = {
    "role on an input item": _responses("x", role="tool"),
    "wrong type": {"type": "function_call_result", "call_id": "c", "output": "x"},
    "unknown part type": _responses([{"type": "output_text", "text": "x"}]),
    "image url not a data url": _responses(
        [{"type": "input_image", "image_url": "https://x/a.png"}]
    ),
    "image data url with wrong type": _responses(
        [{"type": "input_image", "image_url": f"data:image/gif;base64,{PNG_B64}"}]
    ),
    "file without pdf bytes": _responses(
        [
            {
                "type": "input_file",
                "file_data": f"data:application/pdf;base64,{PNG_B64}",
                "filename": "a.pdf",
            }
        ]
    ),
    "file name with a slash": _responses(
        [
            {
                "type": "input_file",
                "file_data": f"data:application/pdf;base64,{PDF_B64}",
                "filename": "a/b.pdf",
            }
        ]
    ),
    "parts without native media": _responses([{"type": "input_text", "text": "x"}]),
    "empty input_text": _responses(
        [
            {"type": "input_text", "text": ""},
            {"type": "input_image", "image_url": f"data:image/png;base64,{PNG_B64}"},
        ]
    ),
}


@pytest.mark.parametrize("block", RESPONSES_BAD.values(), ids=list(RESPONSES_BAD))
def test_check_responses_rejects(block: dict[str, Any]) -> None:
    with pytest.raises(SchemaError):
        check_responses(block)


@pytest.mark.parametrize(
    "block",
    [
        {"role": "tool", "tool_call_id": "c", "content": "x", "name": "n"},
        {"role": "tool", "tool_call_id": "c"},
        {"role": "tool", "tool_call_id": 3, "content": "x"},
        {"role": "assistant", "tool_call_id": "c", "content": "x"},
        {"role": "tool", "tool_call_id": "c", "content": [{"type": "text", "text": "x"}]},
    ],
)
def test_check_openai_rejects(block: dict[str, Any]) -> None:
    with pytest.raises(SchemaError):
        check_openai(block)


def _gemini(**call: Any) -> dict[str, Any]:
    return {"functionResponse": {"name": "n", "response": {"result": "x"}, **call}}


@pytest.mark.parametrize(
    "block",
    [
        _gemini(bogus=1),
        _gemini(response="a string"),
        _gemini(response=[1, 2]),
        _gemini(id=""),
        _gemini(parts=[]),
        _gemini(parts=[{"inlineData": {"mimeType": "image/gif", "data": GIF_B64}}]),
        _gemini(parts=[{"inlineData": {"mimeType": "image/png", "data": PDF_B64}}]),
        _gemini(parts=[{"inlineData": {"mimeType": "image/png", "data": PNG_B64, "x": 1}}]),
        _gemini(parts=[{"inline_data": {"mimeType": "image/png", "data": PNG_B64}}]),
        {"functionResponse": {"name": "n", "response": {}}, "text": "x"},
    ],
)
def test_check_gemini_rejects(block: dict[str, Any]) -> None:
    with pytest.raises(SchemaError):
        check_gemini(block)


@pytest.mark.parametrize(
    "block",
    [
        {"role": "tool", "content": "x", "tool_name": "n", "tool_call_id": ""},
        {"role": "tool", "content": "x", "tool_name": "n", "call_id": "c"},
        {"role": "tool", "content": 1, "tool_name": "n"},
        {"role": "tool", "content": "x"},
    ],
)
def test_check_ollama_rejects(block: dict[str, Any]) -> None:
    with pytest.raises(SchemaError):
        check_ollama(block)


@pytest.mark.parametrize(
    "block",
    [
        '<tool_response>\n{"name":"n","content":"x"}\n</tool_response>',  # keys not sorted
        '<tool_response>\n{"content": "x","name":"n"}\n</tool_response>',  # spaces
        '<tool_response>\n{"content":"\\u00e9","name":"n"}\n</tool_response>',  # escaped
        '<tool_response>\n{"content":"</tool_response>","name":"n"}\n</tool_response>',
        '<tool_response>{"content":"x","name":"n"}</tool_response>',
        '<fn_response>\n{"content":"x","name":"n"}\n</fn_response>',
        '<tool_response>\n{"content":"x"}\n</tool_response>',
    ],
)
def test_check_hermes_rejects(block: str) -> None:
    with pytest.raises(SchemaError):
        check_hermes(block)


def test_check_hermes_accepts_the_canonical_form() -> None:
    check_hermes('<tool_response>\n{"content":"é <\\/x>","name":"n"}\n</tool_response>')


@pytest.mark.parametrize(
    "name",
    ["", ".pdf", "a.txt", "a\x00.pdf", "a\\b.pdf", " a.pdf", ".hidden.pdf", "x" * 126 + ".pdf"],
)
def test_check_filename_rejects(name: str) -> None:
    with pytest.raises(SchemaError):
        check_filename(name)


def test_assert_no_payload_finds_a_leak() -> None:
    block = {"role": "tool", "tool_call_id": "c", "content": f"before {PNG_B64[30:80]} after"}
    with pytest.raises(SchemaError, match="leaked"):
        assert_no_payload("openai", block, [PNG_B64])
    assert_no_payload("openai", {"role": "tool", "tool_call_id": "c", "content": "ok"}, [PNG_B64])


def test_check_envelope_rejects_a_wrong_arity() -> None:
    block = {"type": "tool_result", "tool_use_id": "t", "content": "x"}
    with pytest.raises(SchemaError):
        check_envelope("anthropic", [{"role": "user", "content": [block]}], 2)
    with pytest.raises(SchemaError):
        check_envelope("anthropic", [{"role": "assistant", "content": [block]}], 1)
    with pytest.raises(SchemaError):
        check_envelope("openai", [], 1)


@pytest.mark.parametrize(
    "part",
    [
        {"functionResponse": {"name": "n", "response": {}, "unknownField": 1}},
        {"functionResponse": {"name": "n", "response": {}}, "extra": True},
        {
            "functionResponse": {
                "name": "n",
                "response": {},
                "parts": [{"inlineData": {"data": "", "x": 1}}],
            }
        },
        {"functionResponse": {"name": "n", "response": "not an object"}},
    ],
)
def test_google_genai_itself_rejects_unknown_keys_and_bad_types(part: dict[str, Any]) -> None:
    with pytest.raises(SchemaError, match="google-genai rejects"):
        validate_gemini_part(part)


@pytest.mark.parametrize("wire", ["anthropic", "responses", "gemini"])
def test_a_url_source_with_an_upper_case_scheme_is_checked_as_a_url(wire: str) -> None:
    """URL schemes are case-insensitive: ``HTTPS://`` is a URL source like ``https://``."""
    link = {"type": "resource_link", "uri": "HTTPS://example.com/b", "name": "b"}
    result = ToolResult(id="call_1", name="t", content=[{**link, "mimeType": "image/png"}])
    options = {"image_input": True, "url_sources": True}
    block = result.to(wire, **options)
    assert "HTTPS://example.com/b" in json.dumps(block)  # sent by URL, as given
    check_block(wire, block, options)
