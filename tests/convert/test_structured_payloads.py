"""Structured content repeating the content's media payloads (FastMCP's structured output).

No wire sends a payload of the content as text inside the structured content: a
string there that is a payload (or its ``data:`` URL) becomes the item's
placeholder, and the medium goes where the wire carries it natively, once.
"""

from __future__ import annotations

import copy
import importlib.metadata
import json
from typing import Any

import pytest
from convert_samples import PDF_B64, WAV_B64, b64, make_pdf, make_png
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from toolwire.convert import WIRES, ToolResult, format_tool_results
from toolwire.convert.wires import TABLE

mt = pytest.importorskip("mcp.types")
MCP_MAJOR = int(importlib.metadata.version("mcp").split(".")[0])

PNG_B64 = b64(make_png(40, 30))  # another PNG than the samples': its own payload
PDF2_B64 = b64(make_pdf("Structured"))
PNG_TEXT = "[image] image/png ({} bytes)"
#: every payload of the corpus, and the placeholder its item shows
PAYLOADS = (PNG_B64, WAV_B64, PDF_B64)

#: the option sets every wire is converted with (options a wire does not read are ignored)
OPTION_SETS: tuple[dict[str, Any], ...] = (
    {},
    {"image_input": True},
    {"native_pdf": True},
    {"image_input": True, "native_pdf": True},
    {"image_input": True, "native_pdf": True, "audience": True},
)


def _mime(value: str) -> dict[str, str]:
    """The MIME keyword as this mcp version spells it (2.x: snake_case fields)."""
    return {"mime_type" if MCP_MAJOR >= 2 else "mimeType": value}


def _structured(value: Any) -> dict[str, Any]:
    return {"structured_content" if MCP_MAJOR >= 2 else "structuredContent": value}


def _content() -> list[Any]:
    """What a FastMCP tool returning an Image, an Audio and a PDF file puts in ``content``."""
    return [
        mt.TextContent(type="text", text="Rendered."),
        mt.ImageContent(type="image", data=PNG_B64, **_mime("image/png")),
        mt.AudioContent(type="audio", data=WAV_B64, **_mime("audio/wav")),
        mt.EmbeddedResource(
            type="resource",
            resource=mt.BlobResourceContents(
                uri="file:///out/report.pdf", blob=PDF_B64, **_mime("application/pdf")
            ),
        ),
    ]


def _image(data: str, mime: str = "image/png") -> dict[str, Any]:
    """An Image as FastMCP's structured output serializes it."""
    return {"type": "image", "data": data, "mimeType": mime}


#: structuredContent values that repeat the payloads, in the shapes servers send
STRUCTURED: dict[str, Any] = {
    "direct": {"image": PNG_B64, "audio": WAV_B64, "pdf": PDF_B64},
    "fastmcp-wrapper": {"result": [_image(PNG_B64), _image(WAV_B64, "audio/wav")]},
    "wrapper-of-one": {"result": PNG_B64},
    "nested": {
        "page": {"figures": [{"caption": "Fig. 1", "png": PNG_B64}], "meta": {"n": 1}},
        "attachments": [[{"blob": PDF_B64}], {"sound": {"bytes": WAV_B64}}],
    },
    "data-urls": {
        "image_url": f"data:image/png;base64,{PNG_B64}",
        "audio": [f"DATA:audio/wav;BASE64,{WAV_B64}"],
        "pdf": {"href": f"data:application/pdf;base64,{PDF_B64}"},
    },
    "mixed": {
        "text": "Rendered.",
        "items": [PNG_B64, f"data:image/png;base64,{PNG_B64}", 3, None, True],
        "pdf": PDF_B64,
    },
}


def _result(structured: Any) -> ToolResult:
    call = mt.CallToolResult(content=_content(), **_structured(structured))
    return ToolResult.from_mcp(call, name="render", id="call_1")


def _without_structured() -> ToolResult:
    return ToolResult.from_mcp(mt.CallToolResult(content=_content()), name="render", id="call_1")


def _outputs(result: ToolResult, wire: str, options: dict[str, Any]) -> list[str]:
    """Every serialized form of ``result`` on ``wire``: its block, and its messages
    (with media hoisted into a user turn where the wire can)."""
    outputs = [json.dumps(result.to(wire, **options))]
    outputs.append(json.dumps(format_tool_results(wire, [result], **options)))
    if TABLE[wire].hoist is not None:
        outputs.append(json.dumps(format_tool_results(wire, [result], hoist=True, **options)))
    return outputs


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(o) or "defaults")
@pytest.mark.parametrize("shape", sorted(STRUCTURED))
@pytest.mark.parametrize("wire", WIRES)
def test_a_payload_goes_only_where_the_wire_carries_it_natively(
    wire: str, shape: str, options: dict[str, Any]
) -> None:
    result = _result(STRUCTURED[shape])
    # where the medium goes natively: the same content without structured content
    plain = _outputs(_without_structured(), wire, options)
    for sent, expected in zip(_outputs(result, wire, options), plain, strict=True):
        for payload in PAYLOADS:
            native = expected.count(payload)
            assert native <= 1
            assert sent.count(payload) == native, (wire, shape, payload[:12])


def test_native_media_go_once_and_placeholders_stand_in_for_them() -> None:
    result = _result(STRUCTURED["nested"])
    part = result.to("gemini", image_input=True, native_pdf=True)["functionResponse"]
    png, pdf = (item.text for item in result._items[1::2])
    assert png == PNG_TEXT.format(len(make_png(40, 30)))
    assert pdf.startswith("[resource] application/pdf <file:///out/report.pdf> (")
    audio = result._items[2].text
    assert part["response"] == {
        "page": {"figures": [{"caption": "Fig. 1", "png": png}], "meta": {"n": 1}},
        "attachments": [[{"blob": pdf}], {"sound": {"bytes": audio}}],
    }
    assert [p["inlineData"]["data"] for p in part["parts"]] == [PNG_B64, PDF_B64]


def test_without_image_input_the_model_reads_the_placeholder_not_the_base64() -> None:
    result = _result(STRUCTURED["wrapper-of-one"])
    block = result.to("gemini")
    assert block["functionResponse"]["response"] == {"result": result._items[1].text}
    assert "parts" not in block["functionResponse"]


@pytest.mark.parametrize("wire", WIRES)
def test_content_left_empty_by_the_audience_sends_placeholders(wire: str) -> None:
    """Only the user reads the image: the structured content (sent in its place) names it."""
    content = [
        {
            "type": "image",
            "data": PNG_B64,
            "mimeType": "image/png",
            "annotations": {"audience": ["user"]},
        }
    ]
    result = ToolResult(name="render", id="call_1", content=content, structured_content=PNG_B64)
    out = json.dumps(result.to(wire, audience=True, image_input=True))
    assert PNG_B64 not in out
    if wire != "gemini-interactions":  # its structured form is objects only: "" is sent
        assert "[image] image/png (" in out


def test_the_given_structured_content_stays_as_given() -> None:
    given = copy.deepcopy(STRUCTURED["mixed"])
    result = _result(given)
    assert given == STRUCTURED["mixed"]  # the caller's value is not changed
    assert result.structured_content["items"][0] == PNG_B64
    assert result == _result(STRUCTURED["mixed"])
    assert result != ToolResult.from_wire("gemini", result.to("gemini", image_input=True))


def test_a_gemini_block_reads_back_as_what_it_carries() -> None:
    """from_wire gives the cleaned value the block holds and the media from its parts."""
    result = _result(STRUCTURED["direct"])
    block = result.to("gemini", image_input=True, native_pdf=True)
    back = ToolResult.from_wire("gemini", block)
    assert back.structured_content == block["functionResponse"]["response"]
    assert back.structured_content["image"] == result._items[1].text
    assert [item.get("mimeType") for item in back.content] == ["image/png", None]
    # and it converts again without any base64 as text
    again = json.dumps(back.to("gemini"))
    assert all(payload not in again for payload in PAYLOADS)


UNCHANGED: dict[str, Any] = {
    "no payload": {"temperature": 22, "unit": "C", "tags": ["a", "b"]},
    "a prefix of a payload": {"data": PNG_B64[:-4]},
    "another payload": {"data": PDF2_B64, "url": f"data:application/pdf;base64,{PDF2_B64}"},
    "the payload as a key": {PNG_B64: 1},
    "the payload inside a longer text": {"text": f"see {PNG_B64}"},
    "a data: URL without base64": {"url": f"data:image/png,{PNG_B64}"},
}


@pytest.mark.parametrize("shape", sorted(UNCHANGED))
def test_structured_content_without_a_repeated_payload_is_sent_as_given(shape: str) -> None:
    result = _result(UNCHANGED[shape])
    assert result._structured is result._given
    block = result.to("gemini", image_input=True)
    assert block["functionResponse"]["response"] == UNCHANGED[shape]


@pytest.mark.parametrize("wire", WIRES)
def test_a_payload_no_content_item_carries_is_structured_content_like_any_string(
    wire: str,
) -> None:
    link = [{"type": "resource_link", "uri": "https://example.com/a.png", "name": "a.png"}]
    for content in ([], link):
        result = ToolResult(name="render", id="c", content=content, structured_content=[PNG_B64])
        assert result._structured is result._given
        if not content or wire == "gemini":  # where the structured content is sent
            assert PNG_B64 in json.dumps(result.to(wire))


def test_every_media_item_kind_is_named() -> None:
    """Unknown item types, Anthropic-native sources and text blobs have payloads too."""
    text_blob = b64(b"hello, world")
    content = [
        {"type": "video", "data": PNG_B64[:40], "mimeType": "video/mp4"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}},
        {
            "type": "resource",
            "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "blob": text_blob},
        },
    ]
    structured = {"v": PNG_B64[:40], "i": PNG_B64, "t": text_blob}
    result = ToolResult(name="render", content=content, structured_content=structured)
    sent = result.to("gemini")["functionResponse"]["response"]
    assert sent == {
        "v": "[video] video/mp4 (30 bytes)",
        "i": result._items[1].text,
        "t": "[resource] text/plain <file:///a.txt> (12 bytes)",
    }


# -- properties -----------------------------------------------------------------------

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
PNG_HEAD = make_png()[:16]


@st.composite
def _items(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Media items with distinct random payloads (an image, audio, blob resources)."""
    kinds = draw(st.lists(st.sampled_from(["image", "audio", "pdf", "blob"]), min_size=1))
    items = []
    for index, kind in enumerate(kinds):
        body = bytes([index]) + draw(st.binary(min_size=3, max_size=64))
        if kind == "image":
            items.append({"type": "image", "data": b64(PNG_HEAD + body), "mimeType": "image/png"})
        elif kind == "audio":
            items.append({"type": "audio", "data": b64(body), "mimeType": "audio/wav"})
        else:
            mime = "application/pdf" if kind == "pdf" else "application/octet-stream"
            data = b64(b"%PDF-" + body) if kind == "pdf" else b64(body)
            resource = {"uri": f"file:///{index}", "mimeType": mime, "blob": data}
            items.append({"type": "resource", "resource": resource})
    return items


def _payload(item: dict[str, Any]) -> str:
    return str(item["data"] if "data" in item else item["resource"]["blob"])


def _json_with(payloads: list[str]) -> st.SearchStrategy[Any]:
    """JSON values holding the payloads (as they are, or as data: URLs) among other values."""
    leaf = st.one_of(
        st.sampled_from(payloads),
        st.sampled_from(payloads).map(lambda p: f"data:image/png;base64,{p}"),
        st.text(max_size=8),
        st.integers(),
        st.none(),
    )
    return st.recursive(
        leaf,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=4), inner, max_size=4)
        ),
        max_leaves=12,
    )


@st.composite
def _cases(draw: st.DrawFn) -> tuple[list[dict[str, Any]], Any]:
    items = draw(_items())
    payloads = [_payload(item) for item in items]
    assume(not any(a in b for a in payloads for b in payloads if a is not b))
    return items, draw(_json_with(payloads))


@SETTINGS
@given(_cases())
def test_no_payload_survives_in_the_structured_content_sent(
    case: tuple[list[dict[str, Any]], Any],
) -> None:
    items, structured = case
    result = ToolResult(name="f", id="c", content=items, structured_content=structured)
    sent = result._structured[1] or ""
    for item in items:
        assert _payload(item) not in sent
    for item in result._items:  # no placeholder holds a payload
        assert all(_payload(raw) not in item.text for raw in items)


@SETTINGS
@given(_cases())
def test_cleaning_is_deterministic_and_changes_no_input(
    case: tuple[list[dict[str, Any]], Any],
) -> None:
    items, structured = case
    given_items, given_structured = copy.deepcopy(items), copy.deepcopy(structured)
    first = ToolResult(name="f", id="c", content=items, structured_content=structured)
    second = ToolResult(name="f", id="c", content=items, structured_content=structured)
    assert first._structured == second._structured
    assert (items, structured) == (given_items, given_structured)
    assert first.structured_content == ToolResult(structured_content=structured).structured_content
    for wire in WIRES:
        options = {"image_input": True, "native_pdf": True}
        assert json.dumps(first.to(wire, **options)) == json.dumps(second.to(wire, **options))
    assert (items, structured) == (given_items, given_structured)
