"""ToolResult construction, validation, immutability and equality."""

from __future__ import annotations

from typing import Any

import pytest
from convert_samples import PNG_B64
from toolwire.convert import WIRES, InvalidToolResult, ToolResult


@pytest.mark.parametrize(
    "content",
    [
        "text",
        b"bytes",
        {"type": "text", "text": "a single item, not a list"},
        None,
        42,
    ],
)
def test_content_must_be_a_list(content: Any) -> None:
    with pytest.raises(InvalidToolResult, match="content must be a list"):
        ToolResult(content=content)


@pytest.mark.parametrize("item", ["text", 1, None, ["type", "text"], ("text",)])
def test_items_must_be_objects(item: Any) -> None:
    with pytest.raises(InvalidToolResult, match=r"content\[1\] must be an object"):
        ToolResult(content=[{"type": "text", "text": "ok"}, item])


@pytest.mark.parametrize(
    "item",
    [{}, {"text": "no type"}, {"type": None}, {"type": 3}, {"type": ""}, {"type": ["text"]}],
)
def test_items_must_have_a_string_type(item: Any) -> None:
    with pytest.raises(InvalidToolResult, match=r"content\[0\] has no string 'type'"):
        ToolResult(content=[item])


@pytest.mark.parametrize(
    "bad",
    [{"a": {1, 2}}, object(), {"a": b"bytes"}, {"a": float("nan")}, [float("inf")], -float("inf")],
)
def test_structured_content_must_be_json(bad: Any) -> None:
    with pytest.raises(InvalidToolResult, match="structured_content is not JSON"):
        ToolResult(content=[], structured_content=bad)


@pytest.mark.parametrize(("name", "id_"), [(1, ""), ("", None), (None, "x")])
def test_name_and_id_must_be_strings(name: Any, id_: Any) -> None:
    with pytest.raises(InvalidToolResult):
        ToolResult(name=name, id=id_)


def test_content_may_be_any_iterable_of_items() -> None:
    items = [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    assert ToolResult(content=iter(items)) == ToolResult(content=tuple(items))
    result = ToolResult(id="call_1", content=(i for i in items))
    assert result.to("openai")["content"] == "a\nb"


def test_defaults() -> None:
    result = ToolResult()
    assert (result.name, result.id, result.content, result.is_error) == ("", "", (), False)
    assert result.structured_content is None


def test_result_is_immutable() -> None:
    result = ToolResult(
        name="n",
        id="i",
        content=[{"type": "text", "text": "a", "meta": {"k": [1]}}],
        structured_content={"rows": [1, 2]},
    )
    for attribute in ("name", "id", "is_error", "content", "structured_content", "other"):
        with pytest.raises(AttributeError, match="immutable"):
            setattr(result, attribute, "x")
    with pytest.raises(AttributeError):
        del result.name
    with pytest.raises(TypeError):
        result.content[0]["text"] = "b"  # type: ignore[index]
    with pytest.raises(TypeError):
        result.content[0]["meta"]["k"] = 2  # type: ignore[index]
    with pytest.raises(AttributeError):
        result.content[0]["meta"]["k"].append(2)
    with pytest.raises(TypeError):
        result.structured_content["rows"] = []
    with pytest.raises(AttributeError):
        result.content.append({"type": "text", "text": "c"})  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        hash(result)


def test_result_does_not_share_state_with_its_input() -> None:
    items = [{"type": "text", "text": "before"}]
    structured = {"rows": [1]}
    result = ToolResult(name="t", id="call_1", content=items, structured_content=structured)
    items[0]["text"] = "after"
    items.append({"type": "text", "text": "more"})
    structured["rows"].append(2)
    assert result.to("openai")["content"] == "before"
    assert result.to("gemini")["functionResponse"]["response"] == {"rows": [1]}


@pytest.mark.parametrize("build", ["from_mcp", "constructor"])
def test_mixed_content_is_a_read_only_copy_of_its_input(build: str) -> None:
    """A plain text beside media is kept as its string; content gives it back read-only."""
    items: list[dict[str, Any]] = [
        {"text": "chart below", "type": "text"},
        {"type": "image", "data": PNG_B64, "mimeType": "image/png"},
        {"type": "text", "text": "end"},
    ]
    expected = [dict(item) for item in items]
    if build == "from_mcp":
        result = ToolResult.from_mcp({"content": items}, id="call_1")
    else:
        result = ToolResult(id="call_1", content=items)
    items[0]["text"] = "changed"
    items[1]["mimeType"] = "image/gif"
    items.append({"type": "text", "text": "more"})
    assert result.content == tuple(expected)
    for item in result.content:
        with pytest.raises(TypeError):
            item["text"] = "x"  # type: ignore[index]
    assert result.to("openai")["content"].split("\n") == [
        "chart below",
        f"[image] image/png ({len(PNG_B64) * 3 // 4 - PNG_B64.count('=', -2)} bytes)",
        "end",
    ]
    assert result == ToolResult(id="call_1", content=expected)


@pytest.mark.parametrize("wire", WIRES)
def test_changing_a_block_does_not_change_the_result(wire: str) -> None:
    result = ToolResult(
        name="n",
        id="i",
        content=[
            {"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}},
            {"type": "image", "data": PNG_B64, "mimeType": "image/png"},
            {
                "type": "search_result",
                "source": "s",
                "title": "t",
                "content": [{"type": "text", "text": "x"}],
            },
        ],
        structured_content={"k": {"v": [1]}},
    )
    first = result.to(wire, image_input=True)
    expected = result.to(wire, image_input=True)
    if isinstance(first, dict):
        _scribble(first)
    assert result.to(wire, image_input=True) == expected


def _scribble(value: Any) -> None:
    """Overwrite every mutable container in a block in place."""
    if isinstance(value, dict):
        for key in list(value):
            _scribble(value[key])
            value[key] = "changed"
        value["added"] = True
    elif isinstance(value, list):
        for item in value:
            _scribble(item)
        value.append("added")


def test_equality() -> None:
    def make(**changes: Any) -> ToolResult:
        fields: dict[str, Any] = {
            "name": "n",
            "id": "i",
            "content": [{"type": "text", "text": "a"}],
            "is_error": False,
            "structured_content": {"b": 1, "a": 2},
        }
        fields.update(changes)
        return ToolResult(**fields)

    assert make() == make()
    assert make() == make(structured_content={"a": 2, "b": 1})  # same JSON
    assert make() != make(name="m")
    assert make() != make(id="j")
    assert make() != make(is_error=True)
    assert make() != make(content=[{"type": "text", "text": "b"}])
    assert make() != make(structured_content=None)
    assert make() != "not a result"


def test_is_error_is_a_bool() -> None:
    assert ToolResult(is_error=1).is_error is True  # type: ignore[arg-type]
    assert ToolResult(is_error=0).is_error is False  # type: ignore[arg-type]


def test_repr_shows_no_payload() -> None:
    result = ToolResult(
        name="n", content=[{"type": "image", "data": PNG_B64, "mimeType": "image/png"}]
    )
    text = repr(result)
    assert "ToolResult(name='n'" in text
    assert "<1 items>" in text
    assert PNG_B64[:20] not in text
