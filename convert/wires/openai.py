"""The ``openai`` wire: a Chat Completions ``role: tool`` message.

- Block: ``{"role": "tool", "tool_call_id": id, "content": STRING}``.
- The content is the string form: no native media form exists in a tool
  message, so images and PDFs are placeholders whatever the options say.
- ``is_error`` has no field on this wire and is not sent.
- ``format_tool_results(..., hoist=True)``: images (``image_input``) and PDFs
  (``native_pdf``) follow the tool messages in one user message (``_hoist``);
  ``ToolResult.to`` ignores ``hoist`` and the media options.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._options import Options, Wire

if TYPE_CHECKING:
    from .._result import ToolResult


def block(result: ToolResult, options: Options) -> dict[str, Any]:
    """Return the tool message for ``result``."""
    return {"role": "tool", "tool_call_id": result.id, "content": result._string}


def envelope(blocks: list[Any]) -> list[dict[str, Any]]:
    """Return the tool messages, one per result."""
    return blocks


WIRE = Wire(
    name="openai",
    native={},
    options=frozenset({"hoist", "image_input", "native_pdf"}),
    defaults=Options(),
    block=block,
    envelope=envelope,
)
