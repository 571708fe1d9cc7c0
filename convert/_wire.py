"""What a wire reads of a result (:class:`Result`), and what a wire module declares (:class:`Wire`).

The bottom of the converter's upper half: the wire modules, the audience and
hoisting rules and the report read results through :class:`Result` only, so
none of them imports ``ToolResult`` (which sits above them and calls down).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, Protocol

from ._idrules import IdRule
from ._items import Form, Item
from ._options import Options
from ._read import Read

__all__ = ["Hoist", "Result", "Source", "View", "Wire"]


class Result(Protocol):
    """A result as a wire's block reads it (``ToolResult``, or a view of one)."""

    @property
    def name(self) -> str: ...
    @property
    def id(self) -> str: ...
    @property
    def is_error(self) -> bool: ...
    @property
    def _items(self) -> tuple[Item, ...]: ...  # the parsed items
    @property
    def _string(self) -> str: ...  # the string form
    @property
    def _texts(self) -> Sequence[str] | None: ...  # non-blank texts when all is plain text
    @property
    def _structured(self) -> tuple[Any, str | None]: ...  # (frozen value, canonical JSON) to send


class Source(Result, Protocol):
    """A result with its frozen content (``ToolResult``): what the audience rule reads."""

    @property
    def _source(self) -> Sequence[Mapping[str, Any] | str]: ...  # 1:1 with ``_items``
    @property
    def _parsed(self) -> tuple[Item, ...] | None: ...  # None: all plain text, unparsed


class View:
    """A result seen with its items, string form or texts replaced: the one home of what
    every view keeps of the result it views (name, id, error flag, structured content).
    It reads like a ``ToolResult`` to a wire (:class:`Result`)."""

    __slots__ = ("_items", "_string", "_structured", "_texts", "id", "is_error", "name")

    def __init__(
        self,
        result: Result,
        items: tuple[Item, ...],
        string: str,
        texts: Sequence[str] | None,
    ) -> None:
        self.name = result.name
        self.id = result.id
        self.is_error = result.is_error
        self._structured = result._structured
        self._items = items
        self._string = string
        self._texts = texts


#: One hoisted medium: (its attachment number, the item, the payload or data: URL).
Attached = tuple[int, Item, str]


class Hoist(NamedTuple):
    """How a wire whose tool message has no media form carries media in a user turn."""

    #: the image form of the user turn
    image: Form
    #: the PDF form of the user turn (None: PDFs are not hoisted)
    pdf: Form | None
    #: payloads go as ``data:`` URLs (else as base64)
    as_url: bool
    #: the user message, from (result, its attachments) per result with attachments
    message: Callable[[list[tuple[Result, list[Attached]]]], dict[str, Any]]


class Wire(NamedTuple):
    """What a wire module declares: its facts, its options and its serializers."""

    name: str
    #: media kind -> whether its native form reaches only an ``image_input`` model;
    #: a kind missing here has no native form on the wire.
    native: Mapping[str, bool]
    #: option names this wire reads; other known options are ignored
    options: frozenset[str]
    defaults: Options
    block: Callable[[Result, Options], Any]
    #: the messages of the blocks, from (blocks, the results 1:1 with them, options)
    envelope: Callable[[list[Any], Sequence[Result], Options], list[dict[str, Any]]]
    #: why an image or PDF item does not go out natively (None: it does); wires
    #: without a native form leave it None. Read by the block and by the report.
    reason: Callable[[Any, Options], str | None] | None = None
    #: reads one block of this wire back (``ToolResult.from_wire``); None: not readable
    read: Callable[[Any], Read] | None = None
    #: the rule every call id sent on this wire keeps (None: no rule; see ``_idrules``)
    id_rule: IdRule | None = None
    #: the rule every tool name sent on this wire keeps (None: no rule, or no name sent)
    name_rule: IdRule | None = None
    #: the block names the tool: a result needs a name to be sent here
    needs_name: bool = False
    #: Anthropic-native blocks (``document``, ``search_result``, an image by URL) pass
    #: through as blocks (elsewhere their text goes)
    native_blocks: bool = False
    #: the structured content, when there is one, is sent instead of the items' text
    structured_replaces_text: bool = False
    #: media in one user turn after the tool messages (``hoist=True``); None: never
    hoist: Hoist | None = None
