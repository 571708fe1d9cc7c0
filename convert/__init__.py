"""Convert MCP tool results into the tool-result blocks of seven LLM wires.

Build a :class:`ToolResult` (directly or with :meth:`ToolResult.from_mcp`), then
call ``result.to(wire, **options)`` for one block, or
:func:`format_tool_results` for the messages to append after the assistant
turn. :meth:`ToolResult.from_wire` reads any wire's block back, and
:func:`convert_tool_results` re-targets blocks from one wire to another.
Images and PDFs go out natively only where the wire has a form for them and the
options say the model reads them; everywhere else a metadata-only placeholder
stands in (never the base64 payload).

This package is pure: standard library only, no I/O.
"""

from __future__ import annotations

from ._api import (
    KINDS,
    NAMED_WIRES,
    WIRES,
    carries_native,
    format_tool_results,
    native_needs_vision,
    report,
    report_call,
    wire_options,
)
from ._budget import AlreadySent
from ._gateway import convert_tool_results
from ._idmap import ID_RULES, NAME_RULES, IdMap
from ._idrules import IdRule
from ._options import ALL_OPTIONS as OPTIONS
from ._options import LIMIT_ORDER as LIMIT_OPTIONS
from ._options import Options
from ._report import OUTCOMES, REASONS, Decision
from ._result import ToolResult
from .errors import (
    ConvertError,
    InvalidBlock,
    InvalidId,
    InvalidOption,
    InvalidToolResult,
    ToolwireError,
    UnknownKind,
    UnknownOption,
    UnknownWire,
)

__all__ = [
    "ID_RULES",
    "KINDS",
    "LIMIT_OPTIONS",
    "NAMED_WIRES",
    "NAME_RULES",
    "OPTIONS",
    "OUTCOMES",
    "REASONS",
    "WIRES",
    "AlreadySent",
    "ConvertError",
    "Decision",
    "IdMap",
    "IdRule",
    "InvalidBlock",
    "InvalidId",
    "InvalidOption",
    "InvalidToolResult",
    "Options",
    "ToolResult",
    "ToolwireError",
    "UnknownKind",
    "UnknownOption",
    "UnknownWire",
    "carries_native",
    "convert_tool_results",
    "format_tool_results",
    "native_needs_vision",
    "report",
    "report_call",
    "wire_options",
]

# Each exported class and function shows its public home (its ``repr``, its
# documentation, pickling by name), not the private module it is written in.
for _name in __all__:
    _value = globals()[_name]
    if isinstance(_value, type) or callable(_value):
        _value.__module__ = __name__
del _name, _value
