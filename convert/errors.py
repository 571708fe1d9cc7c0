"""Exceptions raised by ``toolwire.convert``.

Every exception also inherits the builtin a caller would naturally catch::

    ToolwireError                                   base of every toolwire error
    └── ConvertError                                base of this package's errors
        ├── UnknownWire(ConvertError, ValueError)       wire name not in WIRES
        ├── UnknownKind(ConvertError, ValueError)       media kind not "image"/"pdf"
        ├── UnknownOption(ConvertError, TypeError)      option no wire knows
        ├── InvalidOption(ConvertError, ValueError)     known option, unusable value
        ├── InvalidToolResult(ConvertError, ValueError) content that is not an MCP
        │   │                                           content array, non-JSON or
        │   │                                           too deep values, a non-boolean
        │   │                                           is_error, an input_required result
        │   └── InvalidId                               a call id or tool name the target
        │                                               API rejects (``ID_RULES``), or one
        │                                               an ``IdMap`` cannot map or reverse
        └── InvalidBlock(ConvertError, ValueError)      a wire block that cannot be
                                                        read back (``from_wire``)

Conversion itself never raises on *content*: once a ``ToolResult`` exists, any item
a wire cannot carry (unknown type, broken base64, mismatched MIME, oversize) goes
out as a metadata-only placeholder. Reading a wire's block back
(``ToolResult.from_wire``) raises ``InvalidBlock`` for a block that is not of that
wire; what a readable block holds but no wire can carry becomes a placeholder.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "ConvertError",
    "InvalidBlock",
    "InvalidId",
    "InvalidOption",
    "InvalidToolResult",
    "ToolwireError",
    "UnknownKind",
    "UnknownOption",
    "UnknownWire",
]


#: How many characters of a string :func:`describe` shows.
SHOWN = 80
_BIG = 10**SHOWN


def describe(value: object) -> str:
    """Return a short description of any value for an error message, in O(1).

    None, booleans, small numbers and the first ``SHOWN`` characters of a
    string are shown as ``repr`` shows them; anything else by its type name
    (and length): never walked, so neither deep nor huge values cost anything.
    """
    kind = type(value)
    if value is None or kind is bool or kind is float:
        return repr(value)
    if kind is int:
        return repr(value) if -_BIG < value < _BIG else "a large int"
    if isinstance(value, str):
        if len(value) <= SHOWN:
            return repr(str(value))
        return f"{str(value)[:SHOWN]!r}... ({len(value)} characters)"
    try:
        size = len(value)  # type: ignore[arg-type]
    except Exception:
        return kind.__name__
    return f"{kind.__name__} of length {size}"


class ToolwireError(Exception):
    """Base class of every error raised by toolwire."""


class ConvertError(ToolwireError):
    """Base class of the errors raised by ``toolwire.convert``."""


class UnknownWire(ConvertError, ValueError):
    """A wire name that is not one of ``WIRES``."""

    def __init__(self, wire: object, valid: Iterable[str]) -> None:
        valid = sorted(valid)
        hint = _closest(wire, valid)
        super().__init__(f"unknown wire {describe(wire)}{hint}; valid wires: {', '.join(valid)}")
        self.wire = wire


class UnknownKind(ConvertError, ValueError):
    """A media kind other than ``"image"`` or ``"pdf"``."""

    def __init__(self, kind: object) -> None:
        super().__init__(f"unknown media kind {describe(kind)}; valid kinds: image, pdf")
        self.kind = kind


class UnknownOption(ConvertError, TypeError):
    """An option name that no wire knows (most likely a misspelling)."""

    def __init__(self, name: str, valid: Iterable[str]) -> None:
        valid = sorted(valid)
        hint = _closest(name, valid)
        super().__init__(f"unknown option {name!r}{hint}; options: {', '.join(valid)}")
        self.option = name


class InvalidOption(ConvertError, ValueError):
    """A known option given a value it cannot take."""


class InvalidToolResult(ConvertError, ValueError):
    """Input that is not an MCP tool result (content not a list of typed objects, values
    nested deeper than 200 levels or cyclic, ``is_error`` not a boolean, ...)."""


class InvalidId(InvalidToolResult):
    """A call id or tool name that breaks the target API's rule (see ``ID_RULES``), or
    one an ``IdMap`` cannot map (empty) or reverse (never mapped)."""

    def __init__(
        self, message: str, *, wire: str = "", value: str = "", rule: str = "", kind: str = "id"
    ) -> None:
        super().__init__(message)
        self.wire = wire
        self.value = value
        self.rule = rule
        self.kind = kind


class InvalidBlock(ConvertError, ValueError):
    """A block that is not a tool-result block of the wire it is read as."""


def _closest(word: object, choices: list[str]) -> str:
    if not isinstance(word, str):
        return ""
    import difflib  # only on the error path: keeps ``import toolwire.convert`` cheap

    match = difflib.get_close_matches(word, choices, n=1)
    return f" (did you mean {match[0]!r}?)" if match else ""
