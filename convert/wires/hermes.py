"""The ``hermes`` wire: Hermes-style ``<tool_response>`` text.

- Block: a string, ``"<TAG>\\n" + JSON + "\\n</TAG>"`` where JSON is the canonical
  ``{"content": STRING, "name": name}`` and TAG the option ``response_tag``
  (default ``tool_response``; an XML name, so it cannot break the framing).
- ``</`` inside the JSON is escaped as ``<\\/`` (the same JSON string), so text
  from the tool cannot close the tag early.
- The content is the string form; no native media form, placeholders only.
- Envelope: one ``{"role": "tool", "content": BLOCK}`` message per result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._options import Options, Wire
from .._values import canonical_json

if TYPE_CHECKING:
    from .._result import ToolResult


def block(result: ToolResult, options: Options) -> str:
    """Return the tagged response text for ``result``."""
    # "</" is written "<\\/" (the same JSON string) so no text can close the tag early.
    body = canonical_json({"content": result._string, "name": result.name}).replace("</", "<\\/")
    tag = options.response_tag
    return f"<{tag}>\n{body}\n</{tag}>"


def envelope(blocks: list[Any]) -> list[dict[str, Any]]:
    """Return one tool message per tagged response."""
    return [{"role": "tool", "content": text} for text in blocks]


WIRE = Wire(
    name="hermes",
    native={},
    options=frozenset({"response_tag"}),
    defaults=Options(),
    block=block,
    envelope=envelope,
)
