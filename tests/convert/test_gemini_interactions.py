"""The gemini-interactions wire: Interactions API ``function_result`` steps, both ways.

Blocks are checked against the Google Gen AI SDK's own Interactions types
(``google.genai.interactions``) by ``convert_checks``; the shared property, id,
reverse and SDK tests run this wire too. Here: its own rules, one by one.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from convert_checks import (
    assert_no_payload,
    check_block,
    check_envelope,
    gint,
    native_payloads,
)
from convert_samples import GIF, JPEG, PDF, PNG, WEBP, b64
from toolwire.convert import (
    WIRES,
    IdMap,
    InvalidBlock,
    InvalidId,
    ToolResult,
    carries_native,
    convert_tool_results,
    format_tool_results,
    native_needs_vision,
    report,
    wire_options,
)

WIRE = "gemini-interactions"
PNG_B64, JPEG_B64, WEBP_B64, GIF_B64, PDF_B64 = map(b64, (PNG, JPEG, WEBP, GIF, PDF))


def _image(data: str, mime: str = "image/png") -> dict[str, Any]:
    return {"type": "image", "data": data, "mimeType": mime}


def _pdf(uri: str = "file:///r/q3.pdf") -> dict[str, Any]:
    return {
        "type": "resource",
        "resource": {"uri": uri, "mimeType": "application/pdf", "blob": PDF_B64},
    }


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


MEDIA = ToolResult(
    name="read_image",
    id="abc123",
    content=[_text("Additional context..."), _image(PNG_B64), _pdf(), _image(GIF_B64, "image/gif")],
)


# --- the step ------------------------------------------------------------------------


def test_a_text_result_is_one_step_with_the_string_form() -> None:
    result = ToolResult(name="get_weather", id="call_1", content=[_text("Sunny"), _text("22 C")])
    block = result.to(WIRE)
    assert block == {
        "type": "function_result",
        "call_id": "call_1",
        "name": "get_weather",
        "result": "Sunny\n22 C",
    }
    assert block["result"] == result.to("openai")["content"]  # the string form every wire uses
    check_block(WIRE, block)


def test_is_error_is_sent_only_when_the_tool_failed() -> None:
    failed = ToolResult(name="f", id="c", content=[_text("boom")], is_error=True)
    assert failed.to(WIRE)["is_error"] is True
    assert "is_error" not in ToolResult(name="f", id="c", content=[_text("ok")]).to(WIRE)
    check_block(WIRE, failed.to(WIRE))
    sdk = gint.FunctionResultStep.model_validate(failed.to(WIRE))
    assert sdk.is_error is True and sdk.result == "boom"


def test_the_name_is_optional_and_held_to_geminis_rule_when_given() -> None:
    block = ToolResult(id="c", content=[_text("x")]).to(WIRE)
    assert "name" not in block
    check_block(WIRE, block)
    with pytest.raises(InvalidId, match=r"^gemini-interactions wire: tool name '9lives'") as caught:
        ToolResult(name="9lives", id="c").to(WIRE)
    assert (caught.value.kind, caught.value.rule) == ("name", WIRE)
    ids = IdMap()
    mapped = ToolResult(name="9lives", id="c").to(WIRE, ids=ids)
    assert mapped["name"] != "9lives" and ids.original_name(WIRE, mapped["name"]) == "9lives"
    check_block(WIRE, mapped)
    # an empty name stays none sent under a map too (nothing to pair)
    assert "name" not in ToolResult(id="c").to(WIRE, ids=IdMap())
    assert IdMap().name(WIRE, "") == ""  # the rule takes no name: it maps to itself
    with pytest.raises(InvalidId, match="an empty tool name cannot be mapped"):
        IdMap().name("gemini", "")  # where a name is required, still refused


def test_an_empty_call_id_is_refused_with_the_fix() -> None:
    result = ToolResult(name="get_weather", content=[_text("Sunny")])
    for call in (
        lambda: result.to(WIRE),
        lambda: format_tool_results(WIRE, [result]),
        lambda: result.to(WIRE, image_input=True, audience=True),
    ):
        with pytest.raises(InvalidId) as caught:
            call()
        message = str(caught.value)
        assert message.startswith("gemini-interactions wire: call_id is required")
        assert "function_call" in message and "ToolResult(id=...)" in message
        assert (caught.value.wire, caught.value.kind, caught.value.value) == (WIRE, "id", "")
    with pytest.raises(InvalidId, match="an empty call id cannot be mapped"):
        result.to(WIRE, ids=IdMap())  # a map cannot make one up either


def test_ids_go_out_unchanged_and_the_map_keeps_a_valid_one() -> None:
    for id_ in ("functions.bash:0", "any id \u00e9 | at all", "x" * 500):
        assert ToolResult(id=id_).to(WIRE)["call_id"] == id_
        assert ToolResult(id=id_).to(WIRE, ids=IdMap())["call_id"] == id_


# --- result: structured, items, string ------------------------------------------------


def test_structured_content_without_content_is_the_object_itself() -> None:
    result = ToolResult(id="c", structured_content={"temp": 22, "sky": ["clear", None]})
    block = result.to(WIRE)
    assert block["result"] == {"temp": 22, "sky": ["clear", None]}
    check_block(WIRE, block)
    assert ToolResult(id="c", structured_content={}).to(WIRE)["result"] == {}


def test_structured_content_beside_content_goes_as_the_string_form() -> None:
    result = ToolResult(id="c", content=[_text('{"temp":22}')], structured_content={"temp": 22})
    assert result.to(WIRE)["result"] == '{"temp":22}'


def test_structured_content_that_is_not_an_object_is_its_json_string() -> None:
    result = ToolResult(id="c", structured_content=[1, 2])
    assert result.to(WIRE)["result"] == "[1,2]"
    check_block(WIRE, result.to(WIRE))


def test_items_left_out_for_the_user_leave_the_structured_object() -> None:
    hidden = {**_text("for you"), "annotations": {"audience": ["user"]}}
    result = ToolResult(id="c", content=[hidden], structured_content={"a": 1})
    assert result.to(WIRE)["result"] == "for you"
    assert result.to(WIRE, audience=True)["result"] == {"a": 1}


def test_images_ride_inside_the_result_for_a_model_that_reads_them() -> None:
    block = MEDIA.to(WIRE, image_input=True)
    assert block == {
        "type": "function_result",
        "call_id": "abc123",
        "name": "read_image",
        "result": [
            {"type": "text", "text": "Additional context..."},
            {"type": "image", "data": PNG_B64, "mime_type": "image/png"},
            {
                "type": "text",
                "text": f"[resource] application/pdf <file:///r/q3.pdf> ({len(PDF)} bytes)",
            },
            {"type": "text", "text": f"[image] image/gif ({len(GIF)} bytes)"},
        ],
    }
    check_block(WIRE, block)
    assert_no_payload(WIRE, block, [PDF_B64, GIF_B64])
    sdk = gint.FunctionResultStep.model_validate(block)
    assert isinstance(sdk.result, list) and isinstance(sdk.result[1], gint.ImageContent)


@pytest.mark.parametrize(("data", "mime"), [(JPEG_B64, "image/jpeg"), (WEBP_B64, "image/webp")])
def test_jpeg_and_webp_go_natively(data: str, mime: str) -> None:
    block = ToolResult(id="c", content=[_image(data, mime)]).to(WIRE, image_input=True)
    assert block["result"] == [{"type": "image", "data": data, "mime_type": mime}]
    check_block(WIRE, block)


def test_without_image_input_every_medium_is_a_placeholder() -> None:
    block = MEDIA.to(WIRE)
    assert isinstance(block["result"], str)
    assert f"[image] image/png ({len(PNG)} bytes)" in block["result"]
    assert_no_payload(WIRE, block, [PNG_B64, PDF_B64, GIF_B64])
    assert MEDIA.to(WIRE, native_pdf=True) == block  # no PDF form: the option is not read


def test_a_pdf_never_goes_natively() -> None:
    result = ToolResult(id="c", content=[_pdf()])
    for options in ({}, {"image_input": True}, {"image_input": True, "native_pdf": True}):
        block = result.to(WIRE, **options)
        assert (
            block["result"] == f"[resource] application/pdf <file:///r/q3.pdf> ({len(PDF)} bytes)"
        )
        assert native_payloads(WIRE, block) == []
    assert not carries_native(WIRE, "pdf")
    assert carries_native(WIRE, "image") and native_needs_vision(WIRE, "image")
    assert wire_options(WIRE) == {
        "image_input",
        "max_image_bytes",
        "max_image_side",
        "max_images",
        "many_images",
        "many_images_max_side",
        "image_mimes",
    }


def test_an_image_over_the_limit_or_broken_stays_a_placeholder() -> None:
    big = b64(PNG + b"\0" * (15 * 1024 * 1024 + 1))  # over 20 MiB of base64
    broken = "iVBORw0KGgo" + "!" * 20 + "AAAA"
    result = ToolResult(id="c", content=[_text("see"), _image(big), _image(broken)])
    block = result.to(WIRE, image_input=True)
    assert isinstance(block["result"], str)  # nothing went natively
    lines = block["result"].split("\n")
    assert lines[0] == "see" and lines[1].startswith("[image] image/png (")
    assert lines[2].endswith("(invalid base64)")
    assert_no_payload(WIRE, block, [big, broken])
    check_block(WIRE, block)
    assert [d.reason for d in report(WIRE, result, image_input=True)] == [
        None,
        "too_large",
        "invalid_base64",
    ]


def test_empty_texts_are_dropped_from_the_item_list() -> None:
    result = ToolResult(id="c", content=[_text(""), _text("  "), _image(PNG_B64), _text("end")])
    assert result.to(WIRE, image_input=True)["result"] == [
        {"type": "image", "data": PNG_B64, "mime_type": "image/png"},
        {"type": "text", "text": "end"},
    ]


def test_the_report_says_why_each_item_went_as_it_did() -> None:
    link = {"type": "resource_link", "uri": "https://x/a.png", "name": "a", "mimeType": "image/png"}
    result = ToolResult(id="c", content=[*MEDIA.content, link])
    assert [(d.outcome, d.reason) for d in report(WIRE, result, image_input=True)] == [
        ("text", None),
        ("native", None),
        ("placeholder", "no_form"),
        ("placeholder", "unsupported_mime"),
        ("placeholder", "no_form"),  # no URL form on this wire
    ]
    assert report(WIRE, result)[1].reason == "not_read"


def test_the_envelope_is_the_interaction_input_steps() -> None:
    other = ToolResult(name="get_weather", id="call_2", content=[_text("Sunny")], is_error=True)
    steps = format_tool_results(WIRE, [MEDIA, other], image_input=True)
    assert steps == [MEDIA.to(WIRE, image_input=True), other.to(WIRE, image_input=True)]
    check_envelope(WIRE, steps, 2)
    assert format_tool_results(WIRE, []) == []


def test_the_wire_is_registered_under_one_spelling() -> None:
    assert WIRE in WIRES and "gemini_interactions" not in WIRES


# --- reading back ----------------------------------------------------------------------


def test_round_trip_keeps_texts_images_error_flag_name_and_id() -> None:
    result = ToolResult(
        name="shoot",
        id="fc_9",
        content=[
            _text("three views"),
            _image(PNG_B64),
            _image(JPEG_B64, "image/jpeg"),
            _image(WEBP_B64, "image/webp"),
        ],
        is_error=True,
    )
    block = result.to(WIRE, image_input=True)
    again = ToolResult.from_wire(WIRE, block)
    assert again == result
    assert again.to(WIRE, image_input=True) == block
    assert ToolResult.from_wire(WIRE, json.loads(json.dumps(block))) == result
    structured = ToolResult(name="n", id="c", structured_content={"a": [1, {"b": None}]})
    assert ToolResult.from_wire(WIRE, structured.to(WIRE)) == structured


def test_a_string_result_reads_as_one_text_item_placeholders_included() -> None:
    block = MEDIA.to(WIRE)
    again = ToolResult.from_wire(WIRE, block)
    assert again.content == ({"type": "text", "text": block["result"]},)
    assert (again.name, again.id, again.is_error) == ("read_image", "abc123", False)
    empty = ToolResult.from_wire(WIRE, {"type": "function_result", "call_id": "c", "result": ""})
    assert empty.content == ()


def test_an_sdk_step_reads_like_its_json() -> None:
    block = MEDIA.to(WIRE, image_input=True)
    step = gint.FunctionResultStep.model_validate(block)
    assert ToolResult.from_wire(WIRE, step) == ToolResult.from_wire(WIRE, block)


def test_items_the_writer_never_sends_read_as_what_they_hold() -> None:
    block = {
        "type": "function_result",
        "call_id": "c",
        "name": "n",
        "signature": "opaque",
        "result": [
            {"type": "image", "uri": "https://x/y.webp", "mime_type": "image/webp"},
            {"type": "document", "data": PDF_B64, "mime_type": "application/pdf"},
            {"type": "image", "data": PNG_B64},  # no mime_type: not placed
            {"type": "video", "uri": "https://x/v.mp4"},
        ],
    }
    content = [dict(item) for item in ToolResult.from_wire(WIRE, block).content]
    assert content[0] == {
        "type": "resource_link",
        "uri": "https://x/y.webp",
        "mimeType": "image/webp",
    }
    assert content[1] == {
        "type": "resource",
        "resource": {"uri": "", "mimeType": "application/pdf", "blob": PDF_B64},
    }
    assert content[2]["type"] == content[3]["type"] == "text"
    assert PNG_B64 not in content[2]["text"] and content[3]["text"].startswith("[video]")


@pytest.mark.parametrize(
    ("block", "message"),
    [
        (
            {"type": "function_call", "call_id": "c", "result": "x"},
            "expected type 'function_result'",
        ),
        ({"type": "function_result", "call_id": 7, "result": "x"}, "call_id must be a string"),
        ({"type": "function_result", "call_id": "c", "name": 1, "result": "x"}, "name must be"),
        ({"type": "function_result", "call_id": "c", "is_error": "yes", "result": ""}, "is_error"),
        ({"type": "function_result", "call_id": "c", "result": 5}, "string, an object or a list"),
        ({"type": "function_result", "call_id": "c", "result": ["x"]}, "result[0]"),
        ("function_result", "expected an object"),
    ],
)
def test_what_is_not_a_function_result_is_refused(block: Any, message: str) -> None:
    with pytest.raises(InvalidBlock, match=r"^gemini-interactions block: .*" + re.escape(message)):
        ToolResult.from_wire(WIRE, block)


# --- the gateway -------------------------------------------------------------------------


@pytest.mark.parametrize("source", [w for w in WIRES if w != WIRE])
def test_every_wire_re_targets_to_interactions_and_back(source: str) -> None:
    result = ToolResult(
        name="read_image", id="call_7", content=[_text("look"), _image(PNG_B64)], is_error=True
    )
    options = {"image_input": True, "native_pdf": True}
    blocks = format_tool_results(source, [result], **options)
    if source in ("anthropic", "bedrock"):
        blocks = blocks[0]["content"]
    elif source == "gemini":
        blocks = blocks[0]["parts"]
    elif source == "hermes":
        blocks = [message["content"] for message in blocks]
    if source == "hermes":  # a hermes block carries no id: nothing to pair the step with
        with pytest.raises(InvalidId, match="an empty call id cannot be mapped"):
            convert_tool_results(source, WIRE, blocks, ids=IdMap(), image_input=True)
        return
    steps = convert_tool_results(
        source, WIRE, blocks, names={"call_7": "read_image"}, ids=IdMap(), image_input=True
    )
    check_envelope(WIRE, steps, 1)
    (step,) = steps
    assert (step["name"], step["call_id"]) == ("read_image", "call_7")
    # the flag goes on where the source carried it (the others have no field for it)
    assert step.get("is_error", False) is (source in ("anthropic", "bedrock"))
    if native_payloads(source, blocks[0]):  # what the source carried natively, kept
        assert native_payloads(WIRE, step) == [("image/png", PNG_B64)]
    else:
        assert native_payloads(WIRE, step) == []  # none invented from a placeholder
    back = convert_tool_results(WIRE, source, steps, **options)
    assert back == format_tool_results(source, [result], **options)  # and back, as it was


def test_a_gateway_from_interactions_keeps_what_each_target_carries() -> None:
    step = MEDIA.to(WIRE, image_input=True)
    (anthropic,) = convert_tool_results(WIRE, "anthropic", [step], image_input=True)
    sources = [b.get("source") for b in anthropic["content"][0]["content"]]
    assert {"type": "base64", "media_type": "image/png", "data": PNG_B64} in sources
    (gemini,) = convert_tool_results(WIRE, "gemini", [step], image_input=True)
    call = gemini["parts"][0]["functionResponse"]
    assert call["name"] == "read_image" and call["id"] == "abc123"
    assert call["parts"] == [{"inlineData": {"mimeType": "image/png", "data": PNG_B64}}]
    (openai,) = convert_tool_results(WIRE, "openai", [step])
    assert openai["tool_call_id"] == "abc123" and PNG_B64 not in openai["content"]
    # back to itself, ids unchanged (they went back to the provider that minted them)
    assert convert_tool_results(WIRE, WIRE, [step], image_input=True, ids=IdMap()) == [step]
