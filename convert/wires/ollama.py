"""The ``ollama`` wire: a native ``/api/chat`` ``role: tool`` message.

- Block: ``{"role": "tool", "content": STRING, "tool_name": name}``, plus
  ``"tool_call_id": id`` when the id is non-empty (the server accepts it; the
  Python client drops it).
- The content is the string form; no native media form, placeholders only.
- ``format_tool_results(..., hoist=True)``: PNG and JPEG images (``image_input``)
  follow the tool messages in one user message's ``images`` (``_hoist``);
  ``ToolResult.to`` ignores ``hoist`` and ``image_input``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._options import Options, Wire

if TYPE_CHECKING:
    from .._result import ToolResult


def block(result: ToolResult, options: Options) -> dict[str, Any]:
    """Return the tool message for ``result``."""
    out = {"role": "tool", "content": result._string, "tool_name": result.name}
    if result.id:
        out["tool_call_id"] = result.id
    return out


def envelope(blocks: list[Any]) -> list[dict[str, Any]]:
    """Return the tool messages, one per result."""
    return blocks


WIRE = Wire(
    name="ollama",
    native={},
    options=frozenset({"hoist", "image_input"}),
    defaults=Options(),
    block=block,
    envelope=envelope,
)
