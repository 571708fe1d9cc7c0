"""The canonical, immutable ``ToolResult``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from . import _base64, _items, _values
from ._compiled import speedups
from ._options import as_flag
from ._values import canonical_json
from .errors import InvalidToolResult
from .wires import _DEFAULT_PLANS, _PLANS, plan

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
    _structured: tuple[Any, str | None]  # (frozen structured content, its canonical JSON)

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
                raise InvalidToolResult(f"is_error must be true or false, not {is_error!r}")
            is_error = flag
        if type(result_type) is not str:
            raise InvalidToolResult(f"result_type must be a string, not {result_type!r}")
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

        :raises InvalidToolResult: when ``obj`` is not a tool result.
        """
        if type(obj) is dict and cls is ToolResult:
            if _all_text is not None:  # compiled (see ``_speedups``): the same answers
                done = _all_text(obj, id, name)
                if done is not None:
                    if type(done) is not list:
                        return done  # type: ignore[return-value]  # a ToolResult
                    # media after the texts that it left to Python: parse from there
                    return _mixed(name, id, obj.get("isError", False), obj["content"], done)
            else:
                # The hot path: a plain result of ASCII texts, {"content": [...]} with at
                # most "isError" beside it. Anything else takes the general path below.
                count = len(obj)
                is_error = (
                    obj.get("isError", _ABSENT) if count == 2 else False if count == 1 else None
                )
                content = obj.get("content")
                if (
                    (is_error is False or is_error is True)
                    and type(content) is list
                    and type(id) is str
                    and type(name) is str
                    and id.isascii()
                    and name.isascii()
                ):
                    texts: list[str] = []
                    for item in content:
                        if type(item) is not dict or len(item) != 2:
                            break
                        text = item.get("text")
                        if (
                            type(text) is not str
                            or item.get("type") != "text"
                            or not text.isascii()
                            or not text
                            or text.isspace()
                        ):
                            break
                        texts.append(text)
                    else:
                        self: Any = _new(_Building)
                        self.name = name
                        self.id = id
                        self.is_error = is_error
                        self.result_type = "complete"
                        self._source = self._texts = texts  # private, never changed
                        self._parsed = None
                        self._string = "\n".join(texts)
                        self._structured = _NO_STRUCTURED
                        self.__class__ = ToolResult
                        return self  # type: ignore[no-any-return]
                    if type(item) is dict and item.get("type") != "text":
                        # Media or other items, the same envelope: parse them all in one pass
                        # (no all-text pass again), no structured content, no result type.
                        return _mixed(name, id, is_error, content, texts)
                    return _build(cls, name, id, content, is_error, None, "complete")
        data = obj if type(obj) is dict else _as_mapping(obj)
        if data is None:
            raise InvalidToolResult(
                f"expected an MCP CallToolResult (mapping or object), not {type(obj).__name__}"
            )
        if "content" not in data:
            result = data.get("result")
            if isinstance(result, Mapping):
                data = result  # a whole JSON-RPC response
            elif (error := rpc_error(data)) is not None:  # a JSON-RPC error response
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
        from ._gateway import read_block  # imported here: _gateway imports this module

        return read_block(cls, wire, block, name, id, None)

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
        wire knows are an error. ``ids=IdMap()`` maps the id and name to ones the
        wire takes; ``id_rule`` (a name in ``ID_RULES``) checks the id under that
        rule as well (see ``_idmap``).

        :raises UnknownWire: for a wire not in ``WIRES``.
        :raises UnknownOption: for an option name no wire knows.
        :raises InvalidOption: for an option value it cannot take.
        :raises InvalidId: for an id or name the wire's rule refuses (``ID_RULES``).
        """
        try:  # the hot path: one lookup, no further call
            if unknown:
                raise KeyError
            if (
                image_input is None
                and native_pdf is None
                and source_blocks is None
                and response_tag is None
            ):
                block, resolved = _DEFAULT_PLANS[wire]
            else:
                block, resolved = _PLANS[
                    (wire, image_input, native_pdf, source_blocks, response_tag)
                ]
        except (KeyError, TypeError):
            if "ids" in unknown or "id_rule" in unknown:  # see ``_idmap``
                from ._idmap import to_with_ids

                return to_with_ids(
                    self, wire, image_input, native_pdf, source_blocks, response_tag, unknown
                )
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
            and self.result_type == other.result_type
            and self.content == other.content
            and self._structured[1] == other._structured[1]
        )

    __hash__ = None  # type: ignore[assignment]  # content holds mappings

    def __repr__(self) -> str:
        return (
            f"ToolResult(name={self.name!r}, id={self.id!r}, "
            f"content=<{len(self._source)} items>, is_error={self.is_error!r}, "
            f"structured_content={'<set>' if self._structured[1] else None})"
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


class _Building(ToolResult):
    """A ``ToolResult`` whose fields can still be set: plain slot stores, then the
    object becomes a ``ToolResult`` (same layout) and is immutable from then on."""

    __slots__ = ()
    # Both, so that the type's attribute slot is the generic one again (fast stores).
    __setattr__ = object.__setattr__  # type: ignore[assignment]
    __delattr__ = object.__delattr__


_NO_STRUCTURED: tuple[Any, str | None] = (None, None)
_MIMES = _items._MIMES  # normal_mime's cache, read first inline
_ABSENT: Any = object()
_new = object.__new__


#: ``from_mcp``'s hot path, compiled (``_speedups.all_text``), or None: the pure form in
#: ``from_mcp`` runs. For an MCP result of plain ASCII texts (``{"content": [...]}`` with
#: at most a boolean ``isError``, ASCII ``id`` and ``name``, every item a text neither
#: empty nor blank) it gives the finished result; past such texts, the finished result
#: too where every other item is one ``_plain_item`` takes, else the texts (``from_mcp``
#: parses the rest); anything else, None (the general path). The tests hold ``from_mcp``
#: through it to ``from_mcp`` without it.
_all_text: Callable[[dict[str, Any], object, object], ToolResult | list[str] | None] | None = None
if speedups is not None:  # the compiled form (see ``_compiled``)
    speedups.bind(ToolResult, "complete", _NO_STRUCTURED)
    # media items after the texts too: what ``_plain_item`` takes, as it builds them
    speedups.bind_items(
        _items.Item,
        (_items.TEXT, _items.IMAGE, _items.PDF, _items.OTHER),
        _items._UNCHECKED,
        _items.IMAGE_MIMES,
        _items._MIMES,
        _items.normal_mime,
        _base64._HEADS,
        _base64._head,
        _base64._BAD,
        _items.shown_uri,
    )
    _all_text = speedups.all_text


def _mixed(name: str, id: str, is_error: bool, content: list[Any], texts: list[str]) -> ToolResult:
    """Return the result of a plain envelope whose content is ``texts`` (checked plain
    texts), then media or other items: parsed in one pass from the first of those."""
    self: Any = _new(_Building)
    self.name = name
    self.id = id
    self.is_error = is_error
    self.result_type = "complete"
    self._source, self._parsed, self._string, self._texts = _parse(content, texts)
    self._structured = _NO_STRUCTURED
    self.__class__ = ToolResult
    return self  # type: ignore[no-any-return]


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
    # One pass for the common all-text content: plain {"type": "text", "text": str} items.
    texts: list[str] = []
    blank = False
    for item in content:
        if type(item) is not dict or len(item) != 2 or item.get("type") != "text":
            break
        text = item.get("text")
        if type(text) is not str:
            break
        if not text.isascii():
            text = _values.text(text)
        if not text or text.isspace():
            blank = True
        texts.append(text)
    else:
        # Private lists, never changed after this (cheaper than tuples to build).
        source: Sequence[Any] = texts
        parsed = None
        string = "\n".join(texts)
        plain: Sequence[str] | None = (
            [text for text in texts if not text.isspace() and text] if blank else texts
        )
        texts = None  # type: ignore[assignment]  # marks the fast path as taken
    if texts is not None:  # anything else: freeze each item, then parse it
        source, parsed, string, plain = _parse(content)
    if structured is None:
        structured_pair = _NO_STRUCTURED
    else:
        frozen = _values.freeze(structured, "structured_content", string_keys=True)
        try:
            encoded = _values.text(canonical_json(structured))
        except (TypeError, ValueError) as exc:
            raise InvalidToolResult(f"structured_content is not JSON: {exc}") from None
        structured_pair = (frozen, encoded)
        if not source:
            string = encoded  # empty content: the string form is the structured JSON
    if cls is ToolResult:
        self: Any = object.__new__(_Building)
        self.name = name if name.isascii() else _values.text(name)
        self.id = id if id.isascii() else _values.text(id)
        self.is_error = is_error
        self.result_type = result_type
        self._source = source
        self._parsed = parsed
        self._string = string
        self._texts = plain
        self._structured = structured_pair
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
    set_(self, "_structured", structured_pair)
    return self  # type: ignore[no-any-return]


def _parse(
    content: Sequence[Any],
    texts: list[str] | None = None,
) -> tuple[tuple[Mapping[str, Any] | str, ...], tuple[_items.Item, ...], str, Sequence[str] | None]:
    """Return the frozen items, the parsed items, the string form and the plain texts
    (None unless every item is text without ``cache_control``) of ``content``.

    ``texts``: the plain ASCII texts (neither empty nor blank) ``content`` starts
    with, already checked by the caller; each is its own frozen form.
    """
    frozen_items: list[Mapping[str, Any] | str] = []
    items = []
    strings = []
    start = 0
    if texts:
        frozen_items += texts
        strings += texts
        for text in texts:
            items.append(_items.Item(_items.TEXT, text))
        start = len(texts)
        content = content[start:]
    every_text = True
    for index, raw in enumerate(content, start):
        plain_item = _plain_item(raw) if type(raw) is dict else None
        frozen_item: Mapping[str, Any] | str
        if plain_item is None:
            frozen_item = _freeze_item(raw, index)
            item = _items.parse_item(frozen_item)
        else:
            frozen_item, item = plain_item
        frozen_items.append(frozen_item)
        items.append(item)
        strings.append(item.text)
        if every_text and (item.kind != _items.TEXT or item.cache_control is not None):
            every_text = False
    plain = tuple([text for text in strings if text.strip()]) if every_text else None
    return tuple(frozen_items), tuple(items), "\n".join(strings), plain


def _plain_item(raw: dict[str, Any]) -> tuple[Mapping[str, Any] | str, _items.Item] | None:
    """Return the frozen and the parsed form of the MCP items most results hold, or None.

    Those are a ``text``, an ``image`` or ``audio`` (``data``, ``mimeType``), or
    a blob ``resource`` (``uri``, ``mimeType``, ``blob``), with ASCII strings
    and no other field: a copy of the dict is already frozen (strings are
    immutable), so one copy and no walk, and a text's frozen form is its string
    (see ``ToolResult._source``); anything else gives None.
    """
    kind = raw.get("type")
    if kind == "text":
        text = raw.get("text")
        if len(raw) == 2 and type(text) is str and text.isascii():
            return text, _items.Item(_items.TEXT, text)  # the text stands for its item
    elif kind == "image" or kind == "audio":
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
    mapping = item if type(item) is dict or isinstance(item, Mapping) else _as_mapping(item)
    if mapping is None:
        raise InvalidToolResult(f"content[{index}] must be an object, not {type(item).__name__}")
    kind = mapping.get("type")
    if not kind or (type(kind) is not str and not isinstance(kind, str)):
        raise InvalidToolResult(f"content[{index}] has no string 'type'")
    return _values.freeze(mapping, index)  # type: ignore[no-any-return]
