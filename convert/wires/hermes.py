"""The ``hermes`` wire: Hermes-style ``<tool_response>`` text.

- Block: a string, ``"<TAG>\\n" + JSON + "\\n</TAG>"`` where JSON is the canonical
  ``{"content": STRING, "name": name}`` and TAG the option ``response_tag``
  (default ``tool_response``; an XML name, so it cannot break the framing).
- ``</`` inside the JSON is escaped as ``<\\/`` (the same JSON string), so text
  from the tool cannot close the tag early.
- The content is the string form; no native media form, placeholders only.
- Envelope: one ``{"role": "tool", "content": BLOCK}`` message per result; with the
  option ``call_ids`` (``format_tool_results`` only; an OpenAI-compatible chat
  endpoint, where a tool message needs it) a result with a call id adds
  ``"tool_call_id": ID`` (a result without one goes without the key).

Reading a block back (``read``): one ``<TAG>...</TAG>`` frame with any tag name
(surrounding whitespace allowed), its body a JSON object. ``name`` is the tool
name; a string ``content`` is one text item (none for ``""``), placeholders
included; any other JSON ``content`` is the structured content. A frame that
does not close with the same tag, anything outside it, a body that is not a JSON
object, or a non-string name: ``InvalidBlock``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from .. import _read
from .._options import _TAG, Options
from .._values import canonical_json
from .._wire import Result, Wire
from ..errors import describe


def block(result: Result, options: Options) -> str:
    """Return the tagged response text for ``result``."""
    # "</" is written "<\\/" (the same JSON string) so no text can close the tag early.
    body = canonical_json({"content": result._string, "name": result.name}).replace("</", "<\\/")
    tag = options.response_tag
    return f"<{tag}>\n{body}\n</{tag}>"


def envelope(
    blocks: list[Any], results: Sequence[Result], options: Options
) -> list[dict[str, Any]]:
    """Return one tool message per tagged response (with its call id under ``call_ids``)."""
    if not options.call_ids:
        return [{"role": "tool", "content": text} for text in blocks]
    return [
        {"role": "tool", "tool_call_id": result.id, "content": text}
        if result.id
        else {"role": "tool", "content": text}
        for text, result in zip(blocks, results, strict=True)
    ]


# -- reader: a tagged response back to the fields of a ToolResult --------------------

_OPEN = re.compile(rf"\s*<({_TAG.pattern})>")  # the tag names the writer accepts


def read(block: Any) -> _read.Read:
    """Return what a tagged Hermes response holds.

    :raises InvalidBlock: for text that is not one closed frame of JSON (see above).
    """
    if not isinstance(block, str):
        raise _read.fail("hermes", f"expected a string, not {type(block).__name__}")
    opening = _OPEN.match(block)
    if opening is None:
        raise _read.fail("hermes", f"does not start with a <tag>: {describe(block)}")
    tag = opening.group(1)
    rest = block[opening.end() :].rstrip()
    if not rest.endswith(f"</{tag}>"):
        raise _read.fail("hermes", f"the <{tag}> frame does not close with </{tag}>")
    try:
        body = json.loads(rest[: -len(tag) - 3])
    except (ValueError, RecursionError):
        raise _read.fail("hermes", f"the <{tag}> body is not JSON") from None
    if not isinstance(body, dict):
        raise _read.fail("hermes", f"the <{tag}> body is not a JSON object")
    name = _read.string_field("hermes", body, "name")
    content = body.get("content")
    if content is None or isinstance(content, str):
        return _read.Read(_read.text_content(content or ""), name=name)
    return _read.Read([], structured_content=content, name=name)


WIRE = Wire(
    name="hermes",
    native={},
    options=frozenset({"response_tag", "call_ids"}),
    defaults=Options(),
    block=block,
    envelope=envelope,
    read=read,
    needs_name=True,
)
