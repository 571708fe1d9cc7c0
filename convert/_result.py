"""The canonical, immutable ``ToolResult``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from . import _items, _payloads, _values
from ._idmap import map_pair, prepare_ids
from ._options import as_flag
from ._tasks import is_task, outcome
from ._values import as_mapping
from .errors import InvalidBlock, InvalidToolResult, UnknownWire, describe
from .wires import TABLE, UNHOISTED, flag_plan, plan, read_block

__all__ = ["ToolResult"]

_INPUT_REQUIRED = (
    "an input_required result asks the client for input; answer it and call the tool"
    " again (it is not a tool's output)"
)


class ToolResult:
    """The result of one tool call, as MCP shapes it, ready for any wire.

    Every parameter is keyword-only. ``content`` is the MCP content array (a list
    of objects, each with a string ``type``); it is checked and parsed once,
    here, so conversion never fails on content: an item a wire cannot carry
    becomes a metadata-only placeholder. The result keeps a read-only copy of
    what it was given (strings without lone surrogates), so changing the
    caller's lists or dicts afterwards changes nothing.

    Building is O(1) in any base64 payload: the payload is screened (length,
    padding, first and last symbols), its placeholder size comes from its
    length, and the strict check runs on its first native use (remembered).

    ``result_type`` is MCP's ``resultType`` (2026-07-28; ``"complete"`` when
    absent); it is kept, not sent.

    :raises InvalidToolResult: when ``content`` is not a list of objects with a
        string ``type``, ``structured_content`` is not JSON (or has non-string
        keys), a value nests deeper than ``MAX_DEPTH`` (200) levels or is
        cyclic, ``is_error`` is not a boolean, or a name, id or result type is
        not a string.
    """

    __slots__ = (
        "_given",
        "_parsed",
        "_source",
        "_string",
        "_structured",
        "_texts",
        "id",
        "is_error",
        "name",
        "result_type",
    )

    name: str
    id: str
    is_error: bool
    result_type: str
    # the frozen content: per item its read-only mapping, or the text of a plain text item
    # (``{"type": "text", "text": ...}`` is rebuilt when ``content`` is read)
    _source: Sequence[Any]
    _parsed: tuple[_items.Item, ...] | None  # the items; None until first needed (all-text)
    _string: str  # the string form, computed once
    _texts: Sequence[str] | None  # the non-blank texts when every item is plain text
    # (frozen structured content, its canonical JSON) as given, and as the wires send it:
    # a media payload the content carries replaced by its placeholder (``_payloads``)
    _given: tuple[Any, str | None]
    _structured: tuple[Any, str | None]

    def __new__(
        cls,
        *,
        name: str = "",
        id: str = "",
        content: Iterable[Mapping[str, Any]] = (),
        is_error: bool = False,
        structured_content: object = None,
        result_type: str = "complete",
    ) -> ToolResult:
        if type(name) is not str or type(id) is not str:
            if not isinstance(name, str) or not isinstance(id, str):
                raise InvalidToolResult("name and id must be strings")
            name, id = str(name), str(id)
        if is_error is not True and is_error is not False:
            flag = as_flag(is_error)
            if flag is None:
                raise InvalidToolResult(f"is_error must be true or false, not {describe(is_error)}")
            is_error = flag
        if type(result_type) is not str:
            raise InvalidToolResult(f"result_type must be a string, not {describe(result_type)}")
        return _build(cls, name, id, content, is_error, structured_content, result_type)

    @classmethod
    def from_mcp(cls, obj: object, *, id: str = "", name: str = "") -> ToolResult:
        """Build a result from an MCP ``CallToolResult``.

        ``obj`` is the camelCase JSON form (a mapping, optionally still wrapped in a
        JSON-RPC response's ``result``) or an ``mcp.types.CallToolResult`` object of
        any major version of the ``mcp`` package (attributes are read duck-typed).
        A JSON-RPC error response (``{"error": {"code", "message"}}``) is a failed
        result whose text is ``MCP error CODE: MESSAGE``, as MCP clients show it.
        ``isError`` must be a boolean when present; ``resultType`` (MCP
        2026-07-28) is kept as ``result_type``. An ``input_required`` result
        is not a tool's output (the client answers its input requests and
        calls again), so it is refused.

        MCP tasks (see ``_tasks``): a task handle (``resultType: "task"``,
        2025-11-25's ``{"task": {...}}``) is refused, naming ``tasks/get``; a
        ``tasks/get`` result of a completed task converts its inline ``result``;
        a failed or cancelled task is a failed result (``MCP error ...``); a
        task not settled yet is refused.

        :raises InvalidToolResult: when ``obj`` is not a tool result.
        """
        data: Mapping[str, Any] | None
        if type(obj) is dict:
            data = obj
            # The usual answer: ``content`` alone, or with ``isError`` -- every other
            # field absent, so none is looked up.
            size = len(obj)
            if size < 3 and type(name) is str and type(id) is str:
                content = obj.get("content")
                flag = obj.get("isError") if size == 2 else False
                if type(content) is list and (flag is False or flag is True):
                    return _build(cls, name, id, content, flag, None, "complete")
        else:
            data = as_mapping(obj)
        if data is None:
            raise InvalidToolResult(
                f"expected an MCP CallToolResult (mapping or object), not {type(obj).__name__}"
            )
        if "content" not in data:
            result = data.get("result")
            unwrapped = False
            if isinstance(result, Mapping) and not is_task(data):
                data, unwrapped = result, True  # a whole JSON-RPC response
            if "content" not in data and is_task(data):  # a task handle or tasks/get result
                data = outcome(data)
                unwrapped = False  # a failed or cancelled task answers a JSON-RPC error
            if not unwrapped and (error := rpc_error(data)) is not None:  # a JSON-RPC error
                failed = [{"type": "text", "text": error}]
                return cls(name=name, id=id, content=failed, is_error=True)
            if "content" not in data and "structuredContent" not in data:
                if data.get("resultType") == "input_required":
                    raise InvalidToolResult(_INPUT_REQUIRED)
                raise InvalidToolResult("an MCP CallToolResult has 'content'; none found")
        content = data.get("content")
        if content is None:
            content = ()
        is_error = data.get("isError")
        if is_error is None:  # absent (mcp 1.x objects may dump None for an unset flag)
            is_error = data.get("is_error")
            if is_error is None:
                is_error = False
        result_type = data.get("resultType")
        if result_type is None:
            result_type = "complete"
        elif result_type == "input_required":
            raise InvalidToolResult(_INPUT_REQUIRED)
        elif result_type == "task":
            outcome(data)  # a task handle, with content or not: refused, naming tasks/get
        structured = data.get("structuredContent")
        if structured is None:
            structured = data.get("structured_content")
        if (
            type(name) is not str
            or type(id) is not str
            or (is_error is not True and is_error is not False)
            or type(result_type) is not str
        ):  # the constructor checks (and names what is wrong)
            return cls(
                name=name,
                id=id,
                content=content,
                is_error=is_error,
                structured_content=structured,
                result_type=result_type,
            )
        return _build(cls, name, id, content, is_error, structured, result_type)

    @property
    def _items(self) -> tuple[_items.Item, ...]:
        """The parsed items (built on first use for an all-text result; benign race)."""
        parsed = self._parsed
        if parsed is None:
            parsed = tuple([_items.Item(_items.TEXT, text) for text in self._source])
            object.__setattr__(self, "_parsed", parsed)
        return parsed

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
        return cls._from_block(wire, block, name, id, None)

    @classmethod
    def _from_block(
        cls,
        wire: object,
        block: object,
        name: str,
        id_: str,
        names: Mapping[str, str] | None,
    ) -> ToolResult:
        """Return a result built from ``block`` by the reader ``wire`` declares.

        ``name`` and ``id_`` fill in what the block lacks; then ``names`` (call id ->
        tool name), if given. Built through the public constructor only.
        """
        if not isinstance(name, str) or not isinstance(id_, str):
            if not isinstance(wire, str) or wire not in TABLE:
                raise UnknownWire(wire, TABLE)  # the wire is named first
            raise InvalidToolResult("name and id must be strings")
        fields = read_block(wire, block)
        call_id = fields.id or id_
        if not (name := fields.name or name) and names:
            name = names.get(call_id, "")  # convert_tool_results checked the strings
        try:
            return cls(
                name=name,
                id=call_id,
                content=fields.content,
                is_error=fields.is_error,
                structured_content=fields.structured_content,
            )
        except InvalidToolResult as exc:  # e.g. a response holding a value JSON has no form for
            raise InvalidBlock(f"{wire} block: {exc}") from None

    @property
    def content(self) -> tuple[Mapping[str, Any], ...]:
        """The MCP content array, read-only."""
        return tuple(
            [
                MappingProxyType({"type": "text", "text": raw}) if type(raw) is str else raw
                for raw in self._source
            ]
        )

    @property
    def structured_content(self) -> Any:
        """The MCP ``structuredContent`` (read-only) as given, or None.

        Wires send it with every media payload the content carries replaced by
        that item's placeholder (see ``docs/convert.md``).
        """
        return self._given[0]

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
        ``tool_response``); the provider limits (``max_image_bytes``,
        ``max_images``, ... : ``_options.LIMITS``, docs/limits.md), of which a
        single result keeps its own share. Options a wire does not read are
        ignored; names no wire knows are an error. ``ids=IdMap()`` maps the id and name to ones the
        wire takes; ``id_rule`` (a name in ``ID_RULES``) checks the id under that
        rule as well (see ``_idmap``).

        :raises UnknownWire: for a wire not in ``WIRES``.
        :raises UnknownOption: for an option name no wire knows.
        :raises InvalidOption: for an option value it cannot take.
        :raises InvalidId: for an id or name the wire's rule refuses (``ID_RULES``).
        """
        if (
            source_blocks is None
            and response_tag is None
            and not unknown
            and type(wire) is str
            and (image_input is None or image_input is True or image_input is False)
            and (native_pdf is None or native_pdf is True or native_pdf is False)
        ):  # the usual call: the flags' plan, looked up
            try:
                found = UNHOISTED[wire][image_input][native_pdf]
            except KeyError:
                found = flag_plan(wire, image_input, native_pdf, None)
            return found[0](self, found[1])
        if not unknown:
            block, resolved = plan(wire, image_input, native_pdf, source_blocks, response_tag)
            return block(self, resolved)
        ids = unknown.pop("ids", None)
        id_rule = unknown.pop("id_rule", None)
        block, resolved = plan(wire, image_input, native_pdf, source_blocks, response_tag, unknown)
        if ids is None and id_rule is None:
            return block(self, resolved)
        # ``ids`` / ``id_rule``: the id and name mapped or checked for the wire (``_idmap``)
        idmap, rule = prepare_ids(ids, id_rule)
        call_id, name = map_pair(wire, self.id, self.name, idmap, rule)
        return block(self._renamed(call_id, name), resolved)

    def _renamed(self, id_: str, name: str) -> ToolResult:
        """Return this result with another id and name (itself when both are equal)."""
        if id_ == self.id and name == self.name:
            return self
        copy: Any = object.__new__(type(self))
        set_ = object.__setattr__
        for slot in ToolResult.__slots__:
            set_(copy, slot, getattr(self, slot))
        set_(copy, "id", id_)
        set_(copy, "name", name)
        return copy  # type: ignore[no-any-return]

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
            and self.result_type == other.result_type
            and self.content == other.content
            and self._given[1] == other._given[1]
        )

    __hash__ = None  # type: ignore[assignment]  # content holds mappings

    def __repr__(self) -> str:
        return (
            f"ToolResult(name={self.name!r}, id={self.id!r}, "
            f"content=<{len(self._source)} items>, is_error={self.is_error!r}, "
            f"structured_content={'<set>' if self._given[1] else None})"
        )


def rpc_error(data: Mapping[str, Any]) -> str | None:
    """Return the text of a JSON-RPC error response (``{"error": {"code", "message"}}``)
    as MCP clients show it (``MCP error -32602: Unknown tool``), else None."""
    error = data.get("error")
    if "result" in data or not isinstance(error, Mapping):
        return None
    if "code" not in error and "message" not in error:
        return None
    code, message = error.get("code"), error.get("message")
    head = "MCP error" if code is None else f"MCP error {code}"
    return head if message is None else f"{head}: {message}"


class _Building(ToolResult):
    """A ``ToolResult`` whose fields can still be set: plain slot stores, then the
    object becomes a ``ToolResult`` (same layout) and is immutable from then on."""

    __slots__ = ()
    # Both, so that the type's attribute slot is the generic one again (fast stores).
    __setattr__ = object.__setattr__  # type: ignore[assignment]
    __delattr__ = object.__delattr__


_NO_STRUCTURED: tuple[Any, str | None] = (None, None)
_new = object.__new__
_MIMES = _items._MIMES  # normal_mime's cache, read first inline


def _build(
    cls: type[ToolResult],
    name: str,
    id: str,
    content: object,
    is_error: bool,
    structured: object,
    result_type: str,
) -> ToolResult:
    """Return a new result; the arguments' scalar types are already checked."""
    if type(content) is not list and type(content) is not tuple:
        if isinstance(content, (str, bytes, Mapping)) or not isinstance(content, Iterable):
            raise InvalidToolResult(
                f"content must be a list of content items, not {type(content).__name__}"
            )
        content = list(content)
    # The one parse of a content array. A plain text item -- ``{"type": "text", "text":
    # str}`` and nothing else, the item most results are made of -- is written here
    # alone: its frozen form is its string (lone surrogates replaced), and while every
    # item is one, no item is parsed at all (``_parsed`` None, made on first use).
    strings: list[str] = []  # the string form of each item
    items: list[_items.Item] | None = None  # None while every item is a plain text
    # the frozen items: ``strings`` itself while every item is a plain text (each is
    # its own frozen form), their own list from the first other item on
    frozen_items: list[Mapping[str, Any] | str] = strings  # type: ignore[assignment]
    blank = False
    for raw in content:
        if (
            type(raw) is dict
            and len(raw) == 2
            and raw.get("type") == "text"
            and type(text := raw.get("text")) is str
        ):  # a plain text item
            if not text.isascii():
                text = _values.text(text)
            if not text or text.isspace():
                blank = True
            strings.append(text)
            if items is not None:
                frozen_items.append(text)
                items.append(_items.Item(_items.TEXT, text))
            continue
        if items is None:
            items = [_items.Item(_items.TEXT, text) for text in strings]
            frozen_items = list(strings)
        plain_item = _plain_item(raw) if type(raw) is dict else None
        frozen_item: Mapping[str, Any] | str
        if plain_item is None:
            frozen_item = _freeze_item(raw, len(strings))  # its index
            item = _items.parse_item(frozen_item)
        else:
            frozen_item, item = plain_item
        frozen_items.append(frozen_item)
        items.append(item)
        strings.append(item.text)
    source: Sequence[Mapping[str, Any] | str]
    parsed: tuple[_items.Item, ...] | None
    plain: Sequence[str] | None
    if items is None:  # all plain text: private lists, never changed after this
        source, parsed = strings, None
        plain = [text for text in strings if text and not text.isspace()] if blank else strings
    else:
        source = tuple(frozen_items)
        parsed = tuple(items)
        plain = _items.plain_texts(parsed)
    string = "\n".join(strings)
    if structured is None:
        given = sent = _NO_STRUCTURED
    else:
        given = sent = _values.structured(structured)
        if not source:
            string = given[1]  # empty content: the string form is the structured JSON
        elif parsed is not None:  # items other than plain text: payloads may repeat
            sent = _payloads.cleaned(given, _payloads.stand_ins(source, parsed))
    if cls is ToolResult:
        self: Any = _new(_Building)
        self.name = name if name.isascii() else _values.text(name)
        self.id = id if id.isascii() else _values.text(id)
        self.is_error = is_error
        self.result_type = result_type
        self._source = source
        self._parsed = parsed
        self._string = string
        self._texts = plain
        self._structured = sent
        self._given = given
        self.__class__ = ToolResult
        return self  # type: ignore[no-any-return]
    self = object.__new__(cls)  # a subclass: the same fields, set the slow way
    set_ = object.__setattr__
    set_(self, "name", _values.text(name))
    set_(self, "id", _values.text(id))
    set_(self, "is_error", is_error)
    set_(self, "result_type", result_type)
    set_(self, "_source", source)
    set_(self, "_parsed", parsed)
    set_(self, "_string", string)
    set_(self, "_texts", plain)
    set_(self, "_structured", sent)
    set_(self, "_given", given)
    return self  # type: ignore[no-any-return]


def _plain_item(raw: dict[str, Any]) -> tuple[Mapping[str, Any] | str, _items.Item] | None:
    """Return the frozen and the parsed form of the MCP items most results hold, or None.

    Those are an ``image`` or ``audio`` (``data``, ``mimeType``), or a blob
    ``resource`` (``uri``, ``mimeType``, ``blob``), with ASCII strings and no
    other field: a copy of the dict is already frozen (strings are immutable),
    so one copy and no walk; anything else gives None (a plain text is
    ``_build``'s own).
    """
    kind = raw.get("type")
    if kind == "image" or kind == "audio":
        data = raw.get("data")
        mime = raw.get("mimeType")
        if (
            len(raw) == 3
            and type(data) is str
            and type(mime) is str
            and data.isascii()
            and mime.isascii()
        ):
            normal = _MIMES.get(mime) or _items.normal_mime(mime)
            return MappingProxyType(raw.copy()), _items.blob(kind, data, normal, "")
    elif kind == "resource" and len(raw) == 2:
        resource = raw.get("resource")
        if type(resource) is dict and len(resource) == 3:
            data = resource.get("blob")
            mime = resource.get("mimeType")
            uri = resource.get("uri")
            if (
                type(data) is str
                and type(mime) is str
                and type(uri) is str
                and data.isascii()
                and mime.isascii()
                and uri.isascii()
            ):
                normal = _MIMES.get(mime) or _items.normal_mime(mime)
                item = _items.blob("resource", data, normal, uri)
                frozen = raw.copy()
                frozen["resource"] = MappingProxyType(resource.copy())
                return MappingProxyType(frozen), item
    return None


def _freeze_item(item: object, index: int) -> Mapping[str, Any]:
    mapping = item if type(item) is dict or isinstance(item, Mapping) else as_mapping(item)
    if mapping is None:
        raise InvalidToolResult(f"content[{index}] must be an object, not {type(item).__name__}")
    kind = mapping.get("type")
    if not kind or (type(kind) is not str and not isinstance(kind, str)):
        raise InvalidToolResult(f"content[{index}] has no string 'type'")
    return _values.freeze(mapping, index)  # type: ignore[no-any-return]
