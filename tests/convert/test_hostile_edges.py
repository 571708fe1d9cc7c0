"""Hostile inputs at the converter's edges: each has one rule, tested by its reproducer."""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest
from convert_checks import WIRES
from convert_samples import PNG, b64
from toolwire.convert import InvalidBlock, InvalidOption, InvalidToolResult, ToolResult, UnknownWire

#: the wires whose blocks carry structured content back (the others: its JSON as text)
STRUCTURED_WIRES = ("anthropic", "gemini", "bedrock")


def _nested(depth: int, leaf: object = 1) -> Any:
    value: Any = leaf
    for _ in range(depth):
        value = [value]
    return value


# -- keys equal once their lone surrogates are replaced ---------------------------------


def test_keys_that_differ_only_in_lone_surrogates_are_refused() -> None:
    value = json.loads('{"\\ud800": 1, "\\udfff": 2}')
    with pytest.raises(InvalidToolResult, match="differ only in lone surrogates"):
        ToolResult(structured_content=value)
    literal = json.loads('{"\\ufffd": 1, "\\ud800": 2}')  # the replacement itself, first
    with pytest.raises(InvalidToolResult, match="differ only in lone surrogates"):
        ToolResult(structured_content=literal)
    nested = {"a": [json.loads('{"x\\ud800": 1, "x\\udbff": 2}')]}
    with pytest.raises(InvalidToolResult, match="structured_content"):
        ToolResult(structured_content=nested)
    item = {"type": "text", "text": "t", "_meta": json.loads('{"\\ud800": 1, "\\udfff": 2}')}
    with pytest.raises(InvalidToolResult, match=r"content\[0\]"):
        ToolResult(content=[item])


def test_a_surrogate_key_that_sorts_elsewhere_once_replaced_reads_back_on_every_wire() -> None:
    # "\ud800" sorts before "\ue000"; its replacement U+FFFD sorts after it
    result = ToolResult(
        name="f", id="c", structured_content=json.loads('{"\\ud800": 1, "\\ue000": 2}')
    )
    assert dict(result.structured_content) == {"\ufffd": 1, "\ue000": 2}
    assert result.to("openai")["content"] == '{"\ue000":2,"\ufffd":1}'
    for wire in WIRES:
        block = result.to(wire)
        again = ToolResult.from_wire(wire, block, name="f", id="c")
        assert again.to(wire) == block
        if wire in STRUCTURED_WIRES:
            assert dict(again.structured_content) == {"\ufffd": 1, "\ue000": 2}, wire


# -- the {"result": value} wrapper counts towards the depth limit -----------------------


def test_a_non_object_as_deep_as_the_limit_is_refused_as_its_wrapper_would_be() -> None:
    with pytest.raises(InvalidToolResult, match="sent as"):
        ToolResult(structured_content=_nested(200))
    ToolResult(structured_content={"a": _nested(199)})  # an object: its own 200 levels


@pytest.mark.parametrize("wire", WIRES)
def test_whatever_structured_content_is_accepted_reads_back_on_every_wire(wire: str) -> None:
    for depth in (198, 199, 200, 201):
        for value in (_nested(depth), {"a": _nested(depth - 1)}):
            try:
                result = ToolResult(name="f", id="c", structured_content=value)
            except InvalidToolResult:
                assert depth >= 200
                continue
            block = result.to(wire)
            again = ToolResult.from_wire(wire, block, name="f", id="c")
            assert again.to(wire) == block


# -- bedrock: a second json block that is not JSON --------------------------------------


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), b"bytes", {1j}, {"a": float("nan")}])
def test_a_second_bedrock_json_block_that_is_not_json_is_an_invalid_block(bad: object) -> None:
    block = {"toolResult": {"toolUseId": "c", "content": [{"json": {"x": 1}}, {"json": bad}]}}
    with pytest.raises(InvalidBlock, match="bedrock block: json is not JSON"):
        ToolResult.from_wire("bedrock", block)
    first = {"toolResult": {"toolUseId": "c", "content": [{"json": {"a": float("nan")}}]}}
    with pytest.raises(InvalidBlock, match="bedrock block"):
        ToolResult.from_wire("bedrock", first)


def test_a_second_bedrock_json_block_reads_as_its_json_text() -> None:
    block = {
        "toolResult": {
            "toolUseId": "c",
            "content": [{"json": {"x": 1}}, {"json": {"b": 2, "a": 1}}],
        }
    }
    result = ToolResult.from_wire("bedrock", block)
    assert result.content[0]["text"] == '{"a":1,"b":2}'


# -- a wrong discriminator is described, bounded, never walked --------------------------

_DEEP = _nested(1000, "x")
_HUGE = "x" * 10_000_000

_DISCRIMINATED: list[tuple[str, Any]] = [
    ("openai", lambda v: {"role": v, "tool_call_id": "c", "content": ""}),
    ("ollama", lambda v: {"role": v, "content": ""}),
    ("anthropic", lambda v: {"type": v, "tool_use_id": "c", "content": ""}),
    ("anthropic", lambda v: {"type": "tool_result", "tool_use_id": "c", "is_error": v}),
    ("responses", lambda v: {"type": v, "call_id": "c", "output": ""}),
    ("bedrock", lambda v: {"toolResult": {"toolUseId": "c", "content": [], "status": v}}),
]


@pytest.mark.parametrize(("wire", "make"), _DISCRIMINATED)
@pytest.mark.parametrize(
    "value", [_DEEP, _HUGE, 10**5000, {"k": _DEEP}], ids=["deep", "huge", "int", "dict"]
)
def test_a_wrong_discriminator_is_described_briefly(wire: str, make: Any, value: object) -> None:
    with pytest.raises(InvalidBlock) as info:
        ToolResult.from_wire(wire, make(value))
    message = str(info.value)
    assert len(message) < 300, message
    assert type(value).__name__ in message or "'xxxx" in message


def test_a_hermes_block_without_a_tag_is_described_briefly() -> None:
    with pytest.raises(InvalidBlock) as info:
        ToolResult.from_wire("hermes", _HUGE)
    assert len(str(info.value)) < 300
    assert "10000000 characters" in str(info.value)


def test_a_wrong_is_error_or_result_type_is_described_briefly() -> None:
    for fields in ({"is_error": _DEEP}, {"result_type": _DEEP}, {"is_error": _HUGE}):
        with pytest.raises(InvalidToolResult) as info:
            ToolResult(**fields)
        assert len(str(info.value)) < 300


# -- a data: URL with a tab or newline in its scheme ------------------------------------

PAYLOAD = b64(PNG)


@pytest.mark.parametrize("scheme", ["da\tta", "d\na\rta", "data\t", "\td\ta\tt\ta", " DA\nTA"])
@pytest.mark.parametrize("wire", WIRES)
def test_a_data_url_with_tabs_or_newlines_never_shows_its_payload(scheme: str, wire: str) -> None:
    uri = f"{scheme}:image/png;base64,{PAYLOAD}"
    items = [
        {"type": "resource_link", "uri": uri, "name": "n"},
        {
            "type": "resource",
            "resource": {"uri": uri, "mimeType": "application/zip", "blob": PAYLOAD},
        },
        {"type": "resource", "resource": {"uri": uri, "text": "t"}},
    ]
    result = ToolResult(name="f", id="c", content=items)
    assert PAYLOAD[:24] not in json.dumps(result.to(wire)), wire
    assert PAYLOAD[:24] not in result._string


# -- option values equal (and hash-equal) to a flag -------------------------------------


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("value", [Decimal(1), Decimal(0), Fraction(1), 1 + 0j])
def test_an_equal_hash_option_value_is_refused_before_and_after_its_equal(
    wire: str, value: object
) -> None:
    result = ToolResult(name="f", id="c", content=[{"type": "text", "text": "t"}])
    for _ in range(2):
        with pytest.raises(InvalidOption):
            result.to(wire, image_input=value)
        result.to(wire, image_input=bool(value == 1))


# -- names and formats a block carries back -----------------------------------------------

_PDF_B64 = "JVBERi0="  # "%PDF-"


@pytest.mark.parametrize("form", [[], {}, ["pdf"], 3, None])
def test_a_bedrock_document_format_that_is_not_a_string_reads_as_its_placeholder(
    form: object,
) -> None:
    block = {
        "toolResult": {
            "toolUseId": "c1",
            "content": [{"document": {"format": form, "name": "a", "source": {"bytes": _PDF_B64}}}],
        }
    }
    result = ToolResult.from_wire("bedrock", block)
    [item] = result.content
    assert item["type"] == "text" and item["text"].startswith("[document]")
    assert _PDF_B64 not in item["text"]


@pytest.mark.parametrize("form", ["pdf", "txt", "csv"])
def test_a_bedrock_document_name_with_a_lone_surrogate_reads_back_replaced(form: str) -> None:
    name = json.loads('"report\\ud800"')
    source = {"bytes": _PDF_B64 if form == "pdf" else b64(b"a,b\n")}
    block = {
        "toolResult": {
            "toolUseId": "c1",
            "content": [{"document": {"format": form, "name": name, "source": source}}],
        }
    }
    [item] = ToolResult.from_wire("bedrock", block).content
    if item["type"] == "document":  # a named PDF keeps its title
        assert item["title"] == "report\ufffd"
    else:
        assert item["resource"]["uri"] == f"report%EF%BF%BD.{form}"
    json.dumps(item, default=dict).encode("utf-8")  # every string of it can be sent


@pytest.mark.parametrize("mime", ["application/pdf", "image/png"])
def test_a_responses_file_name_with_a_lone_surrogate_reads_back_replaced(mime: str) -> None:
    data = _PDF_B64 if mime == "application/pdf" else b64(PNG)
    part = {
        "type": "input_file",
        "filename": json.loads('"scan\\udfff.bin"'),
        "file_data": f"data:{mime};base64,{data}",
    }
    block = {"type": "function_call_output", "call_id": "c1", "output": [part]}
    [item] = ToolResult.from_wire("responses", block).content
    json.dumps(item, default=dict).encode("utf-8")  # every string of it can be sent
    if mime == "image/png":  # an image item holds no name
        assert item["type"] == "image" and item["data"] == data
    else:
        assert item["type"] == "document" and item["title"] == "scan\ufffd.bin"


# -- a bad value of any size is described, never printed whole ---------------------------


@pytest.mark.parametrize(
    "value", [-(10**5000), "w" * 10**6, _nested(5000)], ids=["huge int", "long string", "deep list"]
)
def test_a_bad_value_of_any_size_is_described_in_one_short_line(value: object) -> None:
    from toolwire.convert import format_tool_results, wire_options

    result = ToolResult(id="c1", name="tool")
    calls = {
        "wire": lambda: wire_options(value),  # type: ignore[arg-type]
        "flag": lambda: result.to("anthropic", image_input=value),  # type: ignore[arg-type]
        "limit": lambda: result.to("anthropic", max_images=value),
        "tag": lambda: result.to("hermes", response_tag=value),  # type: ignore[arg-type]
        "id_rule": lambda: result.to("openai", id_rule=value),
        "already_sent": lambda: format_tool_results(
            "anthropic",
            [result],
            already_sent={"images": value},  # type: ignore[dict-item]
        ),
    }
    for name, call in calls.items():
        with pytest.raises((InvalidOption, UnknownWire)) as raised:
            call()
        message = str(raised.value)
        assert len(message) < 400 and "\n" not in message, (name, message[:200])
