"""The shortcuts of building a result give exactly what the general path gives.

The content loop (``_build``) takes a plain text item as its string and
parses nothing while every item is one, takes plain image, audio and
blob-resource items with one copy (``_plain_item``), and payloads get one look
at their head (``_base64.look``) instead of a screen and a sniff. Each is
checked here against the general path it stands for, on generated inputs that
sit on both sides of every condition a shortcut tests.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest
from convert_samples import GIF_B64, PDF_B64, PNG_B64
from hypothesis import given, settings
from hypothesis import strategies as st
from toolwire.convert import WIRES, InvalidId, ToolResult, _base64, _items, format_tool_results
from toolwire.convert._result import _freeze_item, _plain_item
from toolwire.convert.wires import flag_plans, plan

JPEG_HEAD = base64.b64encode(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01").decode()
WEBP_HEAD = base64.b64encode(b"RIFF\x24\x00\x00\x00WEBPVP8 ").decode()
HEADS = [PNG_B64[:24], PDF_B64[:24], GIF_B64[:24], JPEG_HEAD, WEBP_HEAD, "AAAAAAAAAAAA"]
SYMBOLS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

# Payload-like strings: a known head or none, a body of symbols with the odd
# whitespace, padding or foreign character, and any ending.
payloads = st.builds(
    lambda head, body, end: head + body + end,
    st.sampled_from(["", *HEADS]),
    st.text(alphabet=SYMBOLS + "=\n \t-_é", max_size=40),
    st.sampled_from(["", "=", "==", "===", "A=", "Ag==", "AB==", "AAE=", "AAA=", "\n", " =="]),
)


def _slots(item: _items.Item) -> dict[str, object]:
    return {name: getattr(item, name) for name in _items.Item.__slots__}


@settings(max_examples=2000, deadline=None)
@given(payloads)
def test_one_look_is_the_screen_and_the_sniff(data: str) -> None:
    size = _base64.screen(data)
    assert _base64.look(data) == (size, None if size is None else _base64.sniff(data))


@settings(max_examples=1000, deadline=None)
@given(payloads)
def test_a_head_seen_before_gives_the_same_look(data: str) -> None:
    _base64._HEADS.clear()  # never full here, so the first look keeps the head
    first = _base64.look(data)  # decodes the head (and keeps its sniff)
    assert _base64.look(data) == first  # reads the head's sniff from the table
    size = _base64.screen(data)
    assert first == (size, None if size is None else _base64.sniff(data))


def test_the_table_of_heads_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_base64, "_HEADS", {})
    for number in range(_base64._HEADS_MAX + 10):
        head = base64.b64encode(number.to_bytes(12, "big")).decode()
        assert _base64.look(head + "AAAA") == (15, None)
    assert len(_base64._HEADS) == _base64._HEADS_MAX
    assert _base64.look(PNG_B64) == (_base64.screen(PNG_B64), "image/png")  # past the bound


def test_a_media_placeholder_is_the_one_placeholder_writes() -> None:
    for kind, data, mime, uri in [
        ("image", PNG_B64, "image/png", ""),
        ("resource", PDF_B64, "application/pdf", ""),
        ("resource", PDF_B64, "application/pdf", "file:///r.pdf"),
    ]:
        item = _items.blob(kind, data, mime, uri)
        assert item.text == _items.placeholder(kind, mime, uri, item.size)


def test_one_look_at_real_payloads() -> None:
    for data, mime in [(PNG_B64, "image/png"), (PDF_B64, "application/pdf")]:
        assert _base64.look(data) == (_base64.screen(data), mime)
    assert _base64.look(PNG_B64[:-4] + "AB==") == (None, None)  # set trailing bits
    assert _base64.look(None) == (None, None)


strings = st.one_of(st.text(max_size=12), st.sampled_from(["", " ", "\n", "é", "\ud800"]))
mimes = st.sampled_from(
    ["image/png", "IMAGE/PNG; q=1", "image/jpeg", "image/gif", "application/pdf", "text/plain", ""]
)
plain_items = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": strings}),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["image", "audio"]), "data": payloads, "mimeType": mimes}
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("resource"),
            "resource": st.fixed_dictionaries(
                {
                    "uri": st.sampled_from(["file:///a.pdf", "data:x,y", "é"]),
                    "mimeType": mimes,
                    "blob": payloads,
                }
            ),
        }
    ),
)
# The same items with one more field, or a value of another type: never a shortcut.
other_items = st.one_of(
    plain_items.map(lambda item: {**item, "annotations": {"audience": ["user"]}}),
    plain_items.map(lambda item: {**item, "mimeType": 3} if "mimeType" in item else item),
)


@settings(max_examples=1000, deadline=None)
@given(st.one_of(plain_items, other_items))
def test_a_plain_item_is_frozen_and_parsed_as_the_general_path_does(raw: dict[str, Any]) -> None:
    frozen = _freeze_item(raw, 0)
    expected = _items.parse_item(frozen)
    built = ToolResult(content=[raw])
    source, parsed = built._source, built._parsed
    got_frozen = source[0]
    got = _items.Item(_items.TEXT, got_frozen) if parsed is None else parsed[0]
    if type(got_frozen) is str:  # a plain text stands for its item (ToolResult._source)
        assert frozen == {"type": "text", "text": got_frozen}
    else:
        assert dict(got_frozen) == dict(frozen)
        assert list(got_frozen) == list(frozen)  # the same key order
    assert _slots(got) == _slots(expected)


def test_the_shortcut_takes_the_usual_items() -> None:
    for text in ("ok", "é", "\ud800"):  # plain texts: their strings, nothing parsed
        built = ToolResult(content=[{"type": "text", "text": text}])
        assert built._parsed is None
        assert list(built._source) == [text.replace("\ud800", "\ufffd")]
    assert _plain_item({"type": "image", "data": PNG_B64, "mimeType": "image/png"}) is not None
    resource = {"uri": "file:///r.pdf", "mimeType": "application/pdf", "blob": PDF_B64}
    assert _plain_item({"type": "resource", "resource": resource}) is not None
    assert _plain_item({"type": "text", "text": "ok"}) is None  # the loop's own


contents = st.lists(st.one_of(plain_items, other_items), max_size=4)
flags = st.sampled_from([None, True, False, "true", 1])


@settings(max_examples=500, deadline=None)
@given(contents, flags, st.sampled_from(["", "call_1", "é"]), st.booleans())
def test_from_mcp_gives_the_result_the_constructor_gives(
    content: list[dict[str, Any]], flag: object, call_id: str, extra: bool
) -> None:
    message: dict[str, Any] = {"content": content}
    if flag is not None:
        message["isError"] = flag
    if extra:
        message["_meta"] = {"k": "v"}
    try:
        expected = ToolResult(content=content, is_error=flag or False, id=call_id, name="t")
    except Exception as exc:
        try:
            ToolResult.from_mcp(message, id=call_id, name="t")
        except Exception as again:
            assert type(again) is type(exc)
            return
        raise AssertionError(f"from_mcp took what the constructor refused ({exc})") from None
    got = ToolResult.from_mcp(message, id=call_id, name="t")
    assert got == expected
    assert [_slots(item) for item in got._items] == [_slots(item) for item in expected._items]
    for wire in WIRES:
        for native in (False, True):
            options = {"image_input": native, "native_pdf": native}
            try:
                block = expected.to(wire, **options)
            except InvalidId:  # an id the wire refuses: refused alike
                with pytest.raises(InvalidId):
                    got.to(wire, **options)
                continue
            assert got.to(wire, **options) == block


def test_a_result_from_the_shortcut_is_a_copy() -> None:
    content = [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]
    message = {"content": content, "isError": False}
    result = ToolResult.from_mcp(message, id="c", name="tool")
    content[0]["text"] = "changed"
    content.append({"type": "text", "text": "three"})
    message["isError"] = True
    assert result.to("openai")["content"] == "one\ntwo"
    assert [dict(item) for item in result.content] == [
        {"type": "text", "text": "one"},
        {"type": "text", "text": "two"},
    ]
    assert result.is_error is False


FLAG_VALUES = [None, True, False, 1, 0, "yes", 1.0]


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from([*WIRES, "nope", "ANTHROPIC"]),
    st.sampled_from(FLAG_VALUES),
    st.sampled_from(FLAG_VALUES),
    st.sampled_from(FLAG_VALUES),
)
def test_the_flag_table_gives_what_the_plan_gives(
    wire: str, image_input: Any, native_pdf: Any, hoist: Any
) -> None:
    """A call with the flags alone, looked up in ``FLAG_PLANS``, runs the plan ``plan``
    resolves and answers as it does; a flag that is not None, True or False, or a wire
    that is not one, is never stored (at most every wire times three values each)."""
    result = ToolResult(name="t", id="call_1", content=[{"type": "text", "text": "x"}])
    try:
        expected = plan(wire, image_input, native_pdf, hoist=hoist)
    except Exception as error:
        with pytest.raises(type(error)):
            format_tool_results(
                wire, [result], image_input=image_input, native_pdf=native_pdf, hoist=hoist
            )
        if hoist is None:
            with pytest.raises(type(error)):
                result.to(wire, image_input=image_input, native_pdf=native_pdf)
    else:
        sent = format_tool_results(
            wire, [result], image_input=image_input, native_pdf=native_pdf, hoist=hoist
        )
        assert sent == format_tool_results(wire, [result], **dict(expected[1]._asdict()))
        if hoist is None:
            assert result.to(wire, image_input=image_input, native_pdf=native_pdf) == (
                expected[0](result, expected[1])
            )
    flags = (None, True, False)
    kept = flag_plans()
    for key, (block, options, _) in kept:
        assert key[0] in WIRES and all(any(v is f for f in flags) for v in key[1:]), key
        assert (block, options) == plan(key[0], key[1], key[2], hoist=key[3])
    assert len(kept) <= len(WIRES) * 27
