"""Property tests: any MCP content array converts on every wire to blocks the SDKs accept."""

from __future__ import annotations

import copy
import json
import re
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest
from convert_checks import (
    WIRES,
    assert_no_payload,
    check_block,
    check_envelope,
    payload_chunks,
    split_hermes,
)
from convert_samples import GIF, JPEG, PDF, PNG, PNG_BIG, WAV, WEBP, WEBP_LOSSY, ZIP, b64
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from toolwire.convert import InvalidOption, InvalidToolResult, ToolResult, format_tool_results
from toolwire.convert.wires import _PLANS

SETTINGS = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

FILES = [PNG, PNG_BIG, JPEG, GIF, WEBP, WEBP_LOSSY, PDF, WAV, ZIP]
MIMES = [
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "image/bmp",
    "application/pdf",
    "application/octet-stream",
    "application/zip",
    "audio/wav",
    "text/plain",
    "text/csv",
    "text/html; charset=utf-8",
    "",
]
URIS = [
    "file:///docs/report.pdf",
    "https://example.com/a.png",
    "HTTPS://example.com/b",
    "http://example.com/c.pdf",
    "https://",
    "file:///docs/My%20Report",
    "https://example.com/a/b.pdf?x=1",
    "urn:uuid:1234",
    "data:application/pdf;base64,JVBERi0=",
    "",
    "file:///docs/a%2F..%00b",
    "s3://bucket/" + "x" * 200,
    "relative/name.PDF",
    "data:application/pdf;base64," + b64(PDF),
    # a data: URL to URL parsers, which remove ASCII tabs and newlines anywhere
    "da\tta:image/png;base64," + b64(PNG),
    "\n D\r\nATA\t:application/pdf;base64," + b64(PDF),
]

texts = st.text(max_size=40) | st.sampled_from(
    ["", " ", "\n\t", "\u00e9\u00e8 \U0001f600", "</tool_response>"]
)


def _whitespace_broken(data: str, cuts: list[int], spaces: list[str]) -> str:
    out = data
    for cut, space in zip(sorted(cuts, reverse=True), spaces, strict=False):
        out = out[:cut] + space + out[cut:]
    return out


@st.composite
def payloads(draw: st.DrawFn, prefer: bytes | None = None) -> Any:
    """A base64 payload: real files, random bytes, broken forms and non-strings."""
    files = st.sampled_from(FILES) | st.binary(max_size=48)
    raw = draw(files if prefer is None else st.just(prefer) | files)
    data = b64(raw)
    form = draw(
        st.sampled_from(["clean", "clean", "unpadded", "spaced", "garbage", "odd", "other"])
    )
    if form == "unpadded":
        return data.rstrip("=")
    if form == "spaced":
        cuts = draw(st.lists(st.integers(0, len(data)), max_size=4))
        spaces = draw(st.lists(st.sampled_from([" ", "\n", "\r\n", "\t"]), min_size=4, max_size=4))
        return _whitespace_broken(data, cuts, spaces)
    if form == "garbage":
        return draw(st.text(max_size=30))
    if form == "odd":
        return data + draw(st.sampled_from(["A", "=", "===", "-_", "\u00e9"]))
    if form == "other":
        return draw(st.sampled_from([None, 12, ["QUJD"], {"x": 1}]))
    return data


def _optional(fields: dict[str, Any], key: str, value: Any, present: bool) -> dict[str, Any]:
    if present:
        fields[key] = value
    return fields


cache_controls = st.sampled_from(
    [None, {"type": "ephemeral"}, {"type": "ephemeral", "ttl": "1h"}, {"type": "other"}, "x"]
)


@st.composite
def text_items(draw: st.DrawFn) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "text", "text": draw(texts)}
    control = draw(cache_controls)
    if control is not None:
        item["cache_control"] = control
    if draw(st.booleans()):
        item["annotations"] = {"audience": ["user"]}
    return item


@st.composite
def media_items(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["image", "image", "audio"]))
    item = {"type": kind, "data": draw(payloads(draw(st.sampled_from([PNG, JPEG, GIF, WEBP]))))}
    return _optional(item, "mimeType", draw(st.sampled_from(MIMES)), draw(st.booleans()))


@st.composite
def resource_items(draw: st.DrawFn) -> dict[str, Any]:
    resource: dict[str, Any] = {"uri": draw(st.sampled_from(URIS))}
    _optional(resource, "mimeType", draw(st.sampled_from(MIMES)), draw(st.booleans()))
    if draw(st.booleans()):
        resource["text"] = draw(texts)
    elif draw(st.booleans()) and resource.get("mimeType", "").startswith("text/"):
        resource["blob"] = b64(draw(st.text(max_size=30)).encode())
    else:
        resource["blob"] = draw(payloads())
    return {"type": "resource", "resource": resource}


@st.composite
def pdf_items(draw: st.DrawFn) -> dict[str, Any]:
    resource = {
        "uri": draw(st.sampled_from(URIS)),
        "mimeType": "application/pdf",
        "blob": draw(payloads(prefer=PDF)),
    }
    return {"type": "resource", "resource": resource}


@st.composite
def link_items(draw: st.DrawFn) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "resource_link", "uri": draw(st.sampled_from(URIS))}
    _optional(item, "mimeType", draw(st.sampled_from(MIMES)), draw(st.booleans()))
    _optional(item, "name", draw(texts), draw(st.booleans()))
    return _optional(item, "title", draw(texts), draw(st.booleans()))


@st.composite
def document_items(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["text", "content", "content-string", "base64", "url", "bad"]))
    source: Any
    if kind == "text":
        source = {
            "type": "text",
            "media_type": draw(st.sampled_from(["text/plain", "text/csv"])),
            "data": draw(texts),
        }
    elif kind == "content":
        inner = draw(st.lists(text_items() | native_image_items() | st.just("junk"), max_size=3))
        source = {"type": "content", "content": inner}
    elif kind == "content-string":
        source = {"type": "content", "content": draw(texts)}
    elif kind == "base64":
        source = {"type": "base64", "media_type": "application/pdf", "data": draw(payloads(PDF))}
    elif kind == "url":
        source = {"type": "url", "url": draw(st.sampled_from(["https://x/a.pdf", ""]))}
    else:
        source = draw(st.sampled_from([None, "text", {"type": "file", "file_id": "f"}]))
    item: dict[str, Any] = {"type": "document", "source": source}
    _optional(item, "title", draw(texts), draw(st.booleans()))
    _optional(item, "context", draw(texts), draw(st.booleans()))
    _optional(
        item,
        "citations",
        draw(st.sampled_from([{"enabled": True}, {"enabled": "x"}])),
        draw(st.booleans()),
    )
    return _optional(item, "cache_control", draw(cache_controls), draw(st.booleans()))


@st.composite
def native_image_items(draw: st.DrawFn) -> dict[str, Any]:
    if draw(st.booleans()):
        source: Any = {
            "type": "base64",
            "media_type": draw(st.sampled_from(MIMES)),
            "data": draw(payloads()),
        }
    else:
        source = {"type": "url", "url": draw(st.sampled_from(["https://x/a.png", "", None]))}
    item: dict[str, Any] = {"type": "image", "source": source}
    return _optional(item, "cache_control", draw(cache_controls), draw(st.booleans()))


@st.composite
def search_items(draw: st.DrawFn) -> dict[str, Any]:
    inner = text_items() | st.just({"type": "image"}) | st.just({"type": "text", "text": "found"})
    content = draw(st.lists(inner, min_size=1, max_size=3) | st.just("x"))
    content = [{"type": "text", "text": "found"}] if draw(st.booleans()) else content
    item: dict[str, Any] = {"type": "search_result", "content": content}
    _optional(item, "title", draw(st.just("Title") | texts), draw(st.integers(0, 4)) > 0)
    sources = st.just("https://x/s") | st.sampled_from(["", 3])
    _optional(item, "source", draw(sources), draw(st.integers(0, 4)) > 0)
    return _optional(item, "citations", {"enabled": draw(st.booleans())}, draw(st.booleans()))


unknown_items = st.builds(
    lambda kind, extra: {"type": kind, **extra},
    st.text(min_size=1, max_size=12)
    | st.sampled_from(["video", "tool_use", "text", "image", "resource"]),
    st.dictionaries(
        st.sampled_from(["data", "text", "uri", "source"]), st.none() | texts, max_size=2
    ),
)

audiences = st.sampled_from([["user"], ["assistant"], ["user", "assistant"], [], "user", None])


def _with_audience(item: dict[str, Any], audience: Any) -> dict[str, Any]:
    if audience is not None and item.get("type") != "text":
        return {**item, "annotations": {"audience": audience}}
    return item


plain_items = st.one_of(
    text_items(),
    media_items(),
    resource_items(),
    pdf_items(),
    link_items(),
    document_items(),
    native_image_items(),
    search_items(),
    unknown_items,
)
items = st.builds(_with_audience, plain_items, audiences)

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | texts
)
#: keys a JSON object may hold that are hostile somewhere: lone surrogates (no
#: UTF-8 body carries them; replaced by U+FFFD, which may then sort elsewhere),
#: the replacement itself, the wrapper a non-object goes under, markup
hostile_keys = st.sampled_from(
    ["\ud800", "\udfff", "x\udbff", "\ufffd", "\ue000", "result", "</tool_response>", "", " "]
)
keys = texts | hostile_keys


def _replaced(text: str) -> str:
    """Return ``text`` with its lone surrogates replaced by U+FFFD (as a UTF-8 body holds it)."""
    return re.sub("[\ud800-\udfff]", "\ufffd", text)


def _objects(values: st.SearchStrategy[Any], max_size: int) -> st.SearchStrategy[dict[str, Any]]:
    """JSON objects whose keys stay distinct once their surrogates are replaced."""
    pairs = st.lists(
        st.tuples(keys, values), max_size=max_size, unique_by=lambda p: _replaced(p[0])
    )
    return pairs.map(dict)


json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=3) | _objects(children, 3),
    max_leaves=8,
)
structured = st.none() | _objects(json_values, 4) | json_values

options = st.fixed_dictionaries(
    {},
    optional={
        "image_input": st.booleans(),
        "native_pdf": st.booleans(),
        "source_blocks": st.booleans(),
        "response_tag": st.sampled_from(["tool_response", "fn_response", "r.v-1"]),
        "raw_bytes": st.booleans(),
        "url_sources": st.booleans(),
        "audience": st.booleans(),
    },
)

results = st.fixed_dictionaries(
    {
        # names and ids every wire takes (those it refuses: test_ids)
        "name": st.sampled_from(["get_weather", "n_2"]),
        "id": st.sampled_from(["call_1", "toolu_01"]),
        "content": st.lists(items, max_size=6),
        "is_error": st.booleans(),
        "structured_content": structured,
    }
)


def _surrogate_free(value: Any) -> Any:
    """Return a JSON value with lone surrogates replaced in every key and string."""
    if isinstance(value, dict):
        return {_replaced(key): _surrogate_free(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_surrogate_free(item) for item in value]
    return _replaced(value) if isinstance(value, str) else value


def _payloads_in(value: Any) -> list[str]:
    """Return every string in ``value`` that sits where a base64 payload goes
    (a ``data:`` URI's included)."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("data", "blob") and isinstance(item, str):
                found.append(item)
            elif key == "uri" and isinstance(item, str) and ";base64," in item:
                found.append(item.partition(";base64,")[2])
            else:
                found.extend(_payloads_in(item))
    elif isinstance(value, list):
        for item in value:
            found.extend(_payloads_in(item))
    return found


def _shown_in(value: Any) -> list[str]:
    """Return the strings of ``value`` outside payload places (meant to show as text)."""
    if isinstance(value, dict):
        return [
            s
            for key, item in value.items()
            if key not in ("data", "blob", "uri")
            for s in _shown_in(item)
        ]
    if isinstance(value, list):
        return [s for item in value for s in _shown_in(item)]
    return [value] if isinstance(value, str) else []


def _without_text_blobs(content: list[Any]) -> list[str]:
    """Payloads of the input, less text/* blobs (whose decoded text is meant to show)
    and less a drawn string that also stands in the input as text (a title equal to a
    garbage "payload" shows because it is the title)."""
    payloads_ = []
    for item in content:
        resource = item.get("resource") if isinstance(item, dict) else None
        if isinstance(resource, dict) and str(resource.get("mimeType", "")).startswith("text/"):
            continue
        payloads_.extend(_payloads_in(item))
    shown = _shown_in(content)
    return [
        payload
        for payload in payloads_
        if not any(chunk in text for chunk in payload_chunks(payload) for text in shown)
    ]


@SETTINGS
@given(fields=results, opts=options)
def test_every_wire_emits_valid_blocks(fields: dict[str, Any], opts: dict[str, Any]) -> None:
    result = ToolResult(**fields)
    again = ToolResult(**json.loads(json.dumps(fields)))
    payloads_ = _without_text_blobs(fields["content"])
    for wire in WIRES:
        block = result.to(wire, **opts)
        check_block(wire, block, opts)
        assert_no_payload(wire, block, payloads_)
        assert result.to(wire, **opts) == block
        assert again.to(wire, **opts) == block
        check_envelope(wire, format_tool_results(wire, [result, again], **opts), 2, opts)


def _scramble(value: Any) -> None:
    """Empty every dict and list inside ``value`` (a caller editing what it was given)."""
    if isinstance(value, dict):
        children = list(value.values())
        value.clear()
    elif isinstance(value, list):
        children = list(value)
        value.clear()
    else:
        return
    for child in children:
        _scramble(child)


@SETTINGS
@given(fields=results, opts=options)
def test_no_wire_mutates_what_it_is_given_or_shares_what_it_returns(
    fields: dict[str, Any], opts: dict[str, Any]
) -> None:
    given_fields = copy.deepcopy(fields)
    result = ToolResult(**given_fields)
    for wire in WIRES:
        block = result.to(wire, **opts)
        expected = copy.deepcopy(block)
        _scramble(block)  # the caller edits the block it got: the next one is the same
        assert result.to(wire, **opts) == expected
        again = result.to(wire, **opts)
        ToolResult.from_wire(wire, again, id=result.id, name=result.name)
        assert again == expected  # reading a block back leaves it as it was
    assert given_fields == fields  # nor is the MCP input touched


@SETTINGS
@given(fields=results)
def test_string_wires_agree_on_the_string_form(fields: dict[str, Any]) -> None:
    result = ToolResult(**fields)
    string = result.to("openai")["content"]
    assert result.to("ollama")["content"] == string
    assert split_hermes(result.to("hermes"))["content"] == string
    assert result.to("responses")["output"] == string
    if fields["structured_content"] is None:
        assert result.to("gemini")["functionResponse"]["response"] == {"result": string}
    if not fields["content"]:
        expected = (
            ""
            if fields["structured_content"] is None
            else json.dumps(
                _surrogate_free(fields["structured_content"]),
                sort_keys=True,
                separators=(",", ":"),
                ensure_ascii=False,
            )
        )
        assert string == expected
    else:
        assert string.count("\n") >= len(fields["content"]) - 1


@SETTINGS
@given(fields=results)
def test_native_media_only_where_asked(fields: dict[str, Any]) -> None:
    result = ToolResult(**fields)
    plain = {"image_input": False, "native_pdf": False}
    assert isinstance(result.to("responses", **plain)["output"], str)
    assert "parts" not in result.to("gemini", **plain)["functionResponse"]
    anthropic = json.dumps(result.to("anthropic", image_input=False, native_pdf=False))
    assert '"type": "base64"' not in anthropic
    for wire in ("openai", "ollama", "hermes"):
        assert result.to(wire, image_input=True, native_pdf=True) == result.to(wire)


# -- hostile structured content: keys equal once replaced, depth at the limit -------------

loose_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(keys, children, max_size=3),
    max_leaves=8,
)


def _nested(depth: int, leaf: Any) -> Any:
    for _ in range(depth):
        leaf = [leaf]
    return leaf


deep_values = st.builds(_nested, st.integers(195, 201), loose_values) | st.builds(
    lambda depth, leaf: {"a": _nested(depth, leaf)}, st.integers(195, 201), loose_values
)


def _collides(value: Any) -> bool:
    """True when some object in ``value`` has two keys equal once surrogates are replaced."""
    if isinstance(value, dict):
        if len({_replaced(key) for key in value}) < len(value):
            return True
        return any(_collides(item) for item in value.values())
    return isinstance(value, list) and any(_collides(item) for item in value)


def _depth(value: Any) -> int:
    """How many objects and arrays deep ``value`` nests (iteratively: it may be deep)."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            level += 1
            deepest = max(deepest, level)
            stack.extend(
                (child, level) for child in (item.values() if isinstance(item, dict) else item)
            )
    return deepest


@SETTINGS
@given(value=loose_values | st.dictionaries(keys, loose_values, max_size=4) | deep_values)
@example(value={"result": ""})
@example(value={"result": "sunny"})
def test_structured_content_is_refused_or_reads_back_on_every_wire(value: Any) -> None:
    # a non-object is sent as {"result": value} where a wire takes objects only
    too_deep = _depth(value) + (0 if isinstance(value, dict) else 1) > 200
    try:
        result = ToolResult(name="f", id="c", structured_content=value)
    except InvalidToolResult as exc:
        assert too_deep or _collides(value), exc
        return
    assert not too_deep and not _collides(value)
    for wire in WIRES:
        block = result.to(wire)
        again = ToolResult.from_wire(wire, block, name="f", id="c")
        assert again.to(wire) == block
        if wire == "gemini" and _is_text_response(value):
            # gemini's text form is this very object: it reads back as its string (the
            # wire's documented reading), the one JSON a read-back cannot tell apart
            assert again.to("openai")["content"] == value["result"]
        elif isinstance(value, dict):  # the same JSON, whatever the wire (else: the wrapper's)
            assert again.to("openai") == result.to("openai")


def _is_text_response(value: Any) -> bool:
    """True for ``{"result": STRING}``, gemini's text ``response`` (see its reader)."""
    return isinstance(value, dict) and set(value) == {"result"} and isinstance(value["result"], str)


# -- option values equal (and hash-equal) to a flag, with the plan cache cold and warm ----

FLAGS = ["image_input", "native_pdf", "source_blocks", "raw_bytes", "url_sources", "audience"]
#: values equal to 0 or 1 whose hash is that of False or True; only numbers that
#: are bool, int or float are flags
equal_hash_values = st.sampled_from(
    [Decimal(1), Decimal(0), Fraction(1), Fraction(0), 1.0, 0.0, 1 + 0j, 0j, 1, 0, True, False]
)


@SETTINGS
@given(
    wire=st.sampled_from(WIRES),
    name=st.sampled_from(FLAGS),
    value=equal_hash_values,
    warm=st.booleans(),
    fields=results,
)
def test_an_option_value_is_checked_the_same_with_the_plan_cache_cold_or_warm(
    wire: str, name: str, value: Any, warm: bool, fields: dict[str, Any]
) -> None:
    result = ToolResult(**fields)
    flag = bool(value == 1)
    if warm:
        result.to(wire, **{name: flag})  # the equal value's plan is cached
        format_tool_results(wire, [result], **{name: flag})
    else:
        _PLANS.clear()
    if type(value) in (bool, int, float):
        assert result.to(wire, **{name: value}) == result.to(wire, **{name: flag})
        assert format_tool_results(wire, [result], **{name: value}) == format_tool_results(
            wire, [result], **{name: flag}
        )
    else:
        with pytest.raises(InvalidOption):
            result.to(wire, **{name: value})
        with pytest.raises(InvalidOption):
            format_tool_results(wire, [result], **{name: value})
