"""The compiled helpers (``_speedups.c``) and their pure forms give the same answers.

- ``from_mcp`` with the compiled hot path (``all_text``) and with the pure form in
  ``from_mcp`` on generated MCP results, texts and media: the same result, slot for
  slot and item for item, or the same error.
- ``alphabet`` (every kernel this CPU runs) against the alphabet itself, each
  ASCII symbol at places across blocks, their tails and copied spans; ``data_url``
  against the f-string it stands for.
- No reference is leaked or lost on any branch, and hostile input (a dict key
  whose ``__eq__`` empties the content list mid-read) neither crashes nor differs.

``TOOLWIRE_REQUIRE_SPEEDUPS=1`` (set by ``.ci/run``) turns the skip of an
install without the compiled helpers into a failure.
"""

from __future__ import annotations

import base64
import os
import sys
import threading
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolwire.convert import InvalidToolResult, ToolResult, _base64, _compiled, _items, _result

if os.environ.get("TOOLWIRE_PURE"):
    pytest.skip("TOOLWIRE_PURE is set: the pure forms run alone", allow_module_level=True)
if _compiled.speedups is None:
    if os.environ.get("TOOLWIRE_REQUIRE_SPEEDUPS"):
        pytest.fail(
            "the compiled helpers are not built (TOOLWIRE_REQUIRE_SPEEDUPS=1; is there a C"
            " compiler, and is TOOLWIRE_PURE unset?)",
            pytrace=False,
        )
    pytest.skip(
        "the compiled helpers are not built (no C compiler at install)", allow_module_level=True
    )

speedups: Any = _compiled.speedups
SETTINGS = settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SYMBOLS = set(_base64._SYMBOLS)
FIELDS = ToolResult.__slots__


ITEM_FIELDS = _items.Item.__slots__


def item_slots(item: _items.Item) -> tuple[object, ...]:
    return tuple(getattr(item, field) for field in ITEM_FIELDS)


def outcome(value: object) -> object:
    """What one of the two forms answered, comparable: a result's every slot (its items'
    every slot too)."""
    if type(value) is ToolResult:
        fields = tuple(getattr(value, field) for field in FIELDS if field != "_parsed")
        parsed = value._parsed
        items = None if parsed is None else tuple(item_slots(item) for item in parsed)
        return ("result", fields, items)
    return value


def built(obj: object, id: object, name: object, compiled: bool) -> object:
    """What ``from_mcp`` gives (every slot) or the error it raises, with or without the
    compiled hot path."""
    before = _result._all_text
    _result._all_text = speedups.all_text if compiled else None
    try:
        return outcome(ToolResult.from_mcp(obj, id=id, name=name))  # type: ignore[arg-type]
    except InvalidToolResult as exc:
        return ("error", str(exc))
    finally:
        _result._all_text = before


def same(obj: dict[str, Any], id: object = "", name: object = "") -> object:
    """Assert ``from_mcp`` gives the same with the compiled hot path as with the pure form
    (every slot of the result and of its items, or the same error); return what the
    compiled ``all_text`` itself answered."""
    answer = speedups.all_text(obj, id, name)
    assert built(obj, id, name, True) == built(obj, id, name, False), (obj, id, name)
    if type(answer) is ToolResult:
        if answer._parsed is None:  # all text
            assert answer._source is answer._texts  # one private list, as the pure form
        else:  # media after the texts: each frozen item is the text, or a copy of the item
            assert type(answer._source) is tuple and type(answer._parsed) is tuple
            for raw, frozen in zip(obj["content"], answer._source, strict=True):
                assert frozen is raw["text"] if type(frozen) is str else frozen == raw
    return answer


class Str(str):
    pass


good_texts = st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1)
texts = st.one_of(
    good_texts,
    good_texts,
    good_texts,
    st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=6),
    st.sampled_from(["", " ", "\x1c", "\t\n", "ok", "é", "\ud800", " x "]),
    st.builds(Str, st.sampled_from(["text", "ok"])),
    st.integers(),
    st.none(),
)
kinds = st.one_of(
    st.just("text"),
    st.sampled_from(["image", "resource", "audio", "", "Text"]),
    st.builds(Str, st.just("text")),
    st.none(),
    st.integers(),
)


HEADS = [
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
    b"\xff\xd8\xff\xe0\x00\x10JFIF\x00",
    b"%PDF-1.7\n%\xe2\xe3\xcf\xd3",
    b"GIF89a\x01\x00\x01\x00",
    b"RIFF\x00\x00\x00\x00WEBPVP8 ",
    b"plain bytes here",
]
MIMES = [
    "application/pdf",
    "application/pdf",
    "image/png",
    "IMAGE/PNG; x=1",
    "image/jpeg",
    "application/pdf",
    "text/plain",
    "image/gif",
    "",
    "application/octet-stream",
    "audio/wav",
    "Application/PDF",
]
URIS = ["file:///r/report.pdf", "", "data:application/pdf;base64,JVBERi0x", "  DATA:x,y", "x"]


@st.composite
def payloads(draw: st.DrawFn) -> str:
    """Base64 as MCP servers send it, and broken at either end now and then."""
    raw = draw(st.sampled_from(HEADS)) + draw(st.binary(min_size=0, max_size=40))
    data = base64.b64encode(raw).decode("ascii")
    how = draw(
        st.sampled_from(
            ["keep"] * 6 + ["short", "unpadded", "bad tail", "bad head", "spare bits", "space"]
        )
    )
    if how == "short":
        return data[: draw(st.integers(0, 19))]
    if how == "unpadded":
        return data.rstrip("=") or data
    if how == "bad tail":
        return data[:-1] + draw(st.sampled_from("!=-_ A"))
    if how == "bad head":
        return draw(st.sampled_from("!=-_ ")) + data[1:]
    if how == "spare bits" and data.endswith("="):
        core = data.rstrip("=")
        return core[:-1] + "B" + data[len(core) :] if core[-1] == "A" else data
    if how == "space":
        return data[:4] + " " + data[5:]
    return data


@st.composite
def media(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["image", "image", "audio", "resource", "resource"]))
    data, mime = draw(payloads()), draw(st.sampled_from(MIMES))
    if kind == "resource":
        resource = {"uri": draw(st.sampled_from(URIS)), "mimeType": mime, "blob": data}
        if draw(st.integers(0, 9)) == 0:
            resource["text"] = "extra"
        return {"type": "resource", "resource": resource}
    item: dict[str, Any] = {"type": kind, "data": data, "mimeType": mime}
    if draw(st.integers(0, 9)) == 0:
        item["annotations"] = {"audience": ["user"]}
    return item


@st.composite
def items(draw: st.DrawFn) -> object:
    shape = draw(
        st.sampled_from(["text"] * 8 + ["media"] * 2 + ["other", "extra", "missing", "odd"])
    )
    if shape == "media":
        return draw(media())
    if shape == "text":
        return {"type": "text", "text": draw(texts)}
    if shape == "other":
        return {"type": draw(kinds), "text": draw(texts)}
    if shape == "extra":
        return {"type": draw(kinds), "text": draw(texts), "annotations": {}}
    if shape == "missing":
        return draw(st.sampled_from([{"type": "text"}, {"text": "ok"}, {}]))
    return draw(st.sampled_from(["text", ["type", "text"], None, 3]))


@st.composite
def envelopes(draw: st.DrawFn) -> dict[str, Any]:
    content = draw(
        st.one_of(
            st.lists(items(), max_size=5),
            st.lists(items(), max_size=5),
            st.lists(items(), max_size=5),
            st.sampled_from([(), None, "text", {"type": "text"}]),
        )
    )
    obj: dict[str, Any] = {"content": content}
    extra = draw(st.sampled_from(["none"] * 3 + ["error"] * 3 + ["bad error", "other", "drop"]))
    if extra == "error":
        obj["isError"] = draw(st.booleans())
    elif extra == "bad error":
        obj["isError"] = draw(st.sampled_from([1, 0, None, "true"]))
    elif extra == "other":
        obj["structuredContent"] = {"a": 1}
    elif extra == "drop":
        del obj["content"]
        obj["isError"] = False
    return obj


ids = st.sampled_from(["", "call_1", "", "call_1", "", "call_1", "é", Str("c"), 7])


@SETTINGS
@given(envelopes(), ids, ids)
def test_from_mcp_is_the_same_with_it_and_without(
    obj: dict[str, Any], id: object, name: object
) -> None:
    answer = same(obj, id, name)
    assert answer is None or type(answer) in (ToolResult, list)


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.builds(lambda t: {"type": "text", "text": t}, good_texts), max_size=2),
    st.lists(
        st.one_of(media(), media(), st.builds(lambda t: {"type": "text", "text": t}, texts)),
        min_size=1,
        max_size=4,
    ),
    st.booleans(),
)
def test_media_after_texts_agree(leading: list[Any], rest: list[Any], failed: bool) -> None:
    if rest[0].get("type") == "text":
        rest.insert(0, {"type": "image", "data": "iVBORw0KGgoAAAANSUhEUgAA", "mimeType": ""})
    same({"content": leading + rest, "isError": failed}, "call_1", "tool")


def test_the_usual_answers() -> None:
    one = same({"content": [{"type": "text", "text": "ok"}]}, "call_1", "tool")
    assert type(one) is ToolResult and one.content == ({"type": "text", "text": "ok"},)
    assert (one.id, one.name, one.is_error, one.result_type) == (
        "call_1",
        "tool",
        False,
        "complete",
    )
    two = same(
        {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "isError": True}
    )
    assert type(two) is ToolResult and two._string == "a\nb" and two.is_error is True
    image = {"type": "image", "data": "QUJD", "mimeType": "image/png"}
    assert same({"content": [{"type": "text", "text": "a"}, image]}) == ["a"]
    assert same({"content": [image]}) == []
    for broken in (
        {"content": [{"type": "text", "text": " "}]},  # blank
        {"content": [{"type": "text", "text": "é"}]},  # not ASCII
        {"content": [{"type": "text", "text": "a", "x": 1}]},
        {"content": ({"type": "text", "text": "a"},)},
        {"content": [], "isError": 1},
        {"content": [], "meta": {}},
    ):
        assert same(broken) is None
    with pytest.raises(AttributeError):
        one.name = "x"  # built in C, immutable as any other
    pdf = base64.b64encode(HEADS[2] + bytes(100)).decode("ascii")
    png = base64.b64encode(HEADS[0] + bytes(100)).decode("ascii")
    lead = {"type": "text", "text": "see"}
    for uri in ("file:///r/report.pdf", " data:application/pdf;base64,JVBE", ""):
        resource = {"uri": uri, "mimeType": "application/pdf", "blob": pdf}
        both = same({"content": [lead, {"type": "resource", "resource": resource}]})
        assert type(both) is ToolResult and both._items[1].kind == _items.PDF
        assert "JVBE" not in both._string
    for mime, kind in (
        ("image/jpeg", _items.IMAGE),
        ("text/plain", _items.IMAGE),
    ):  # the bytes decide
        shot = same({"content": [lead, {"type": "image", "data": png, "mimeType": mime}]})
        assert type(shot) is ToolResult and shot._items[1].kind == kind
        assert shot._items[1].text.endswith("image/png (116 bytes)")
    sound = same({"content": [lead, {"type": "audio", "data": png, "mimeType": "audio/wav"}]})
    assert type(sound) is ToolResult and sound._items[1].kind == _items.OTHER


def test_a_result_built_in_c_is_a_whole_toolresult() -> None:
    built = speedups.all_text({"content": [{"type": "text", "text": "ok"}]}, "call_1", "")
    pure = ToolResult(id="call_1", content=[{"type": "text", "text": "ok"}])
    assert type(built) is ToolResult and built == pure and repr(built) == repr(pure)
    assert built.to("openai") == pure.to("openai")


def test_no_reference_is_leaked_or_lost() -> None:
    text = "".join(["leak", "check"])  # a string of its own
    cases = [
        {"content": [{"type": "text", "text": text}]},  # a result
        {"content": [{"type": "text", "text": text}, {"type": "image"}]},  # the leading texts
        {"content": [{"type": "text", "text": text}, {"type": "text", "text": " "}]},  # None
        {"content": [{"type": "text", "text": text}, 3]},
        {"content": [{"type": "text", "text": text, "x": 1}]},
    ]
    for obj in cases:
        content = obj["content"]
        counts = (sys.getrefcount(text), sys.getrefcount(content), sys.getrefcount(content[0]))
        for _ in range(1000):
            speedups.all_text(obj, "call_1", "tool")
        assert (
            sys.getrefcount(text),
            sys.getrefcount(content),
            sys.getrefcount(content[0]),
        ) == counts
    png = base64.b64encode(HEADS[0] + bytes(30)).decode("ascii")
    image = {"type": "image", "data": png, "mimeType": "image/png"}
    resource = {"type": "resource", "resource": {"uri": "file:///a", "mimeType": "", "blob": png}}
    for rest in ([image], [image, resource], [image, {"type": "text", "text": text}], [image, 3]):
        obj = {"content": [{"type": "text", "text": text}, *rest]}
        counts = (sys.getrefcount(text), sys.getrefcount(png), sys.getrefcount(image))
        for _ in range(1000):
            speedups.all_text(obj, "call_1", "tool")
        after = (sys.getrefcount(text), sys.getrefcount(png), sys.getrefcount(image))
        assert after == counts, rest
    kept = [speedups.all_text(cases[0], "call_1", "tool") for _ in range(100)]
    assert sys.getrefcount(text) >= 100  # held by each result's list
    del kept


def test_hostile_keys_neither_crash_nor_differ() -> None:
    content: list[Any] = []

    class Clears:
        """A key that hashes as "type" and empties the content list when compared."""

        def __hash__(self) -> int:
            return hash("type")

        def __eq__(self, other: object) -> bool:
            content.clear()
            return False

    def make() -> dict[str, Any]:
        content[:] = [{Clears(): 1, "type": "text"}, {"type": "text", "text": "b"}]
        return {"content": content}

    compiled, pure = built(make(), "", "", True), built(make(), "", "", False)
    assert compiled == pure


def test_bind_refuses_a_class_without_those_slots() -> None:
    class Other:
        __slots__ = ("name",)

    with pytest.raises((TypeError, AttributeError)):
        speedups.bind(Other, "complete", (None, None))
    # still bound to ToolResult: a refused bind changes nothing
    assert type(speedups.all_text({"content": []}, "", "")) is ToolResult


# --- the alphabet check --------------------------------------------------------------


def test_every_kernel_knows_every_ascii_symbol_at_every_place() -> None:
    kernels = speedups.kernels()
    assert kernels[0] == 0 and 3 in kernels
    base = "QUJD" * 1100
    for kernel in kernels:
        for size in (0, 1, 31, 32, 33, 127, 128, 129, 255, 4095, 4096, 4097, 4224):
            data = base[:size]
            assert speedups.alphabet(data, size, kernel) is True
            places = {0, size - 1, size // 2} | set(range(max(0, size - 130), size, 7))
            for place in sorted(p for p in places if 0 <= p < size):
                for code in range(128):
                    changed = data[:place] + chr(code) + data[place + 1 :]
                    expected = chr(code) in SYMBOLS
                    assert speedups.alphabet(changed, size, kernel) is expected, (
                        kernel,
                        size,
                        place,
                        code,
                    )
                    assert speedups.alphabet(changed, place, kernel) is True  # before it: fine


def test_alphabet_bounds_and_strings_that_are_not_ascii() -> None:
    assert speedups.alphabet("QUJD!", 4) is True
    assert speedups.alphabet("QUJD!", 99) is False  # the end is clamped to the length
    assert speedups.alphabet("QUJD!", -3) is True
    assert speedups.alphabet("QUJDé", 4) is False  # not ASCII: never clean here
    with pytest.raises(ValueError, match="no kernel 9"):
        speedups.alphabet("QUJD", 4, 9)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=9000), st.integers(0, 9100), st.sampled_from("!=-_ \n\x00A"))
def test_data_url_is_the_string_it_stands_for(raw: bytes, at: int, what: str) -> None:
    data = base64.b64encode(raw).decode("ascii")
    if data:
        at %= len(data)
        data = data[:at] + what + data[at + 1 :]
    end = len(data.rstrip("="))
    expected = all(symbol in SYMBOLS for symbol in data[:end])
    url = speedups.data_url("data:application/pdf;base64,", data, end)
    assert (url == f"data:application/pdf;base64,{data}") if expected else url is None
    assert speedups.alphabet(data, end) is expected


def test_data_url_refuses_what_is_not_ascii() -> None:
    assert speedups.data_url("data:é;base64,", "QUJD", 4) is None
    assert speedups.data_url("data:x;base64,", "QUJDé", 4) is None


def test_large_payloads_from_threads() -> None:
    """The check lets other threads run; each thread still gets its own right answer."""
    payloads = [base64.b64encode(os.urandom(3 * 1024 * 1024 + n)).decode("ascii") for n in range(4)]
    broken = payloads[0][:5_000_000] + "*" + payloads[0][5_000_001:]
    answers: dict[int, object] = {}

    def run(index: int, data: str) -> None:
        answers[index] = speedups.data_url("data:x;base64,", data, len(data.rstrip("=")))

    threads = [threading.Thread(target=run, args=(i, p)) for i, p in enumerate([*payloads, broken])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for index, data in enumerate(payloads):
        assert answers[index] == "data:x;base64," + data
    assert answers[len(payloads)] is None
