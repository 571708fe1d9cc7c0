"""The canonical, immutable ``ToolResult``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from . import _items
from ._values import canonical_json, freeze
from .errors import InvalidToolResult
from .wires import _PLANS, plan

__all__ = ["ToolResult"]


class ToolResult:
    """The result of one tool call, as MCP shapes it, ready for any wire.

    ``content`` is the MCP content array (a list of objects, each with a string
    ``type``); it is validated and parsed once, here, so conversion never fails on
    content: an item a wire cannot carry becomes a metadata-only placeholder.

    :raises InvalidToolResult: when ``content`` is not a list of objects with a
        string ``type``, or ``structured_content`` is not JSON.
    """

    __slots__ = (
        "_content",
        "_items",
        "_string",
        "_structured",
        "_texts",
        "id",
        "is_error",
        "name",
    )

    name: str
    id: str
    is_error: bool
    _content: tuple[Mapping[str, Any], ...]
    _items: tuple[_items.Item, ...]
    _string: str  # the string form, computed once
    _texts: tuple[str, ...] | None  # the non-blank texts when every item is plain text
    _structured: tuple[Any, str | None]  # (frozen structured content, its canonical JSON)

    def __init__(
        self,
        name: str = "",
        id: str = "",
        content: Iterable[Mapping[str, Any]] = (),
        is_error: bool = False,
        structured_content: object = None,
    ) -> None:
        if not isinstance(name, str) or not isinstance(id, str):
            raise InvalidToolResult("name and id must be strings")
        if isinstance(content, (str, bytes, Mapping)) or not isinstance(content, Iterable):
            raise InvalidToolResult(
                f"content must be a list of content items, not {type(content).__name__}"
            )
        frozen = tuple(_freeze_item(item, index) for index, item in enumerate(content))
        items = tuple(_items.parse_item(item) for item in frozen)
        structured_json = None
        if structured_content is not None:
            try:
                structured_json = canonical_json(structured_content)
            except (TypeError, ValueError) as exc:
                raise InvalidToolResult(f"structured_content is not JSON: {exc}") from None
        set_ = object.__setattr__
        set_(self, "name", name)
        set_(self, "id", id)
        set_(self, "is_error", bool(is_error))
        set_(self, "_content", frozen)
        set_(self, "_items", items)
        set_(self, "_structured", (freeze(structured_content), structured_json))
        # The string form; empty content sends the structured content as JSON, or "".
        string = "\n".join(item.text for item in items) if items else structured_json or ""
        set_(self, "_string", string)
        # Fast path for the common all-text result: the non-blank texts, else None.
        plain = all(item.kind == _items.TEXT and item.cache_control is None for item in items)
        set_(self, "_texts", tuple(i.text for i in items if i.text.strip()) if plain else None)

    @classmethod
    def from_mcp(cls, obj: object, *, id: str = "", name: str = "") -> ToolResult:
        """Build a result from an MCP ``CallToolResult``.

        ``obj`` is the camelCase JSON form (a mapping, optionally still wrapped in a
        JSON-RPC response's ``result``) or an ``mcp.types.CallToolResult`` object of
        any major version of the ``mcp`` package (attributes are read duck-typed).

        :raises InvalidToolResult: when ``obj`` is not a tool result.
        """
        data = _as_mapping(obj)
        if data is None:
            raise InvalidToolResult(
                f"expected an MCP CallToolResult (mapping or object), not {type(obj).__name__}"
            )
        if "content" not in data and isinstance(data.get("result"), Mapping):
            data = data["result"]  # a whole JSON-RPC response
        if "content" not in data and "structuredContent" not in data:
            raise InvalidToolResult("an MCP CallToolResult has 'content'; none found")
        content = data.get("content")
        if content is None:
            content = ()
        elif isinstance(content, (list, tuple)):
            content = [_as_mapping(item) or item for item in content]
        return cls(
            name=name,
            id=id,
            content=content,
            is_error=data.get("isError", data.get("is_error")) is True,
            structured_content=data.get("structuredContent", data.get("structured_content")),
        )

    @classmethod
    def from_wire(cls, wire: str, block: object, *, name: str = "", id: str = "") -> ToolResult:
        """Build a result from one tool-result block of ``wire`` (see ``WIRES``).

        The block's content, error flag, structured content, call id and tool name
        become the result; ``name`` and ``id`` fill in what the block does not
        carry (an Anthropic block has no tool name, a Hermes one no id). A block
        may also be a provider SDK object that dumps to that JSON (pydantic).
        What each wire's block becomes is listed in that wire's module.

        :raises UnknownWire: for a wire not in ``WIRES``.
        :raises InvalidBlock: for a block that is not a tool-result block of ``wire``.
        """
        from ._gateway import read_block  # imported here: _gateway imports this module

        return read_block(cls, wire, block, name, id, None)

    @property
    def content(self) -> tuple[Mapping[str, Any], ...]:
        """The MCP content array, read-only."""
        return self._content

    @property
    def structured_content(self) -> Any:
        """The MCP ``structuredContent`` (read-only), or None."""
        return self._structured[0]

    def to(
        self,
        wire: str,
        /,
        *,
        image_input: bool | None = None,
        native_pdf: bool | None = None,
        source_blocks: bool | None = None,
        response_tag: str | None = None,
        **unknown: object,
    ) -> Any:
        """Return this result as one block of ``wire`` (see ``WIRES``).

        Options (keyword-only; None or omitted means the wire's default):
        ``image_input`` -- the model reads images, send them natively where the wire
        can (anthropic, responses, gemini); ``native_pdf`` -- send PDFs natively
        (default True on anthropic, False elsewhere); ``source_blocks`` -- the
        anthropic endpoint takes document/search_result blocks inside a
        tool_result (default True); ``response_tag`` -- the hermes tag (default
        ``tool_response``). Options a wire does not read are ignored; names no
        wire knows are an error.

        :raises UnknownWire: for a wire not in ``WIRES``.
        :raises UnknownOption: for an option name no wire knows.
        :raises InvalidOption: for an option value it cannot take.
        """
        try:  # the hot path: one lookup, no further call
            if unknown:
                raise KeyError
            block, resolved = _PLANS[(wire, image_input, native_pdf, source_blocks, response_tag)]
        except (KeyError, TypeError):
            block, resolved = plan(
                wire, image_input, native_pdf, source_blocks, response_tag, unknown
            )
        return block(self, resolved)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"ToolResult is immutable; cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"ToolResult is immutable; cannot delete {name!r}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ToolResult):
            return NotImplemented
        return (
            self.name == other.name
            and self.id == other.id
            and self.is_error == other.is_error
            and self._content == other._content
            and self._structured[1] == other._structured[1]
        )

    __hash__ = None  # type: ignore[assignment]  # content holds mappings

    def __repr__(self) -> str:
        return (
            f"ToolResult(name={self.name!r}, id={self.id!r}, "
            f"content=<{len(self._content)} items>, is_error={self.is_error!r}, "
            f"structured_content={'<set>' if self._structured[1] else None})"
        )


def _as_mapping(obj: object) -> Mapping[str, Any] | None:
    """Return the camelCase mapping of an MCP object or mapping, else None."""
    if isinstance(obj, Mapping):
        return obj
    dump = getattr(obj, "model_dump", None)
    if callable(dump):  # pydantic models: every mcp version dumps camelCase by alias
        try:
            dumped = dump(by_alias=True, mode="json", exclude_none=True)
        except Exception:
            dumped = None
        if isinstance(dumped, Mapping):
            return dumped
    if hasattr(obj, "__dict__") and not isinstance(obj, type):
        return {_camel(key): _plain(value) for key, value in vars(obj).items()}
    return None


def _plain(value: object) -> object:
    """Return an attribute value with nested plain objects turned into mappings.

    An embedded resource's ``resource`` (and any list of objects) is itself an
    object on an attribute-only result; left as is, it would not be recognised.
    """
    if isinstance(value, (str, bytes, int, float, Mapping)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    mapping = _as_mapping(value)
    return value if mapping is None else mapping


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(word.title() for word in rest)


def _freeze_item(item: object, index: int) -> Mapping[str, Any]:
    mapping = item if isinstance(item, Mapping) else _as_mapping(item)
    if mapping is None:
        raise InvalidToolResult(f"content[{index}] must be an object, not {type(item).__name__}")
    kind = mapping.get("type")
    if not isinstance(kind, str) or not kind:
        raise InvalidToolResult(f"content[{index}] has no string 'type'")
    return freeze(mapping)  # type: ignore[no-any-return]
