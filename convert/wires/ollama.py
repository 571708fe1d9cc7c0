"""The ``ollama`` wire: a native ``/api/chat`` ``role: tool`` message.

- Block: ``{"role": "tool", "content": STRING, "tool_name": name}``, plus
  ``"tool_call_id": id`` when the id is non-empty (the server accepts it; the
  Python client drops it).
- The name is non-empty (``NAME_RULE``), else ``InvalidId``.
- The content is the string form; no native media form, placeholders only.
- ``format_tool_results(..., hoist=True)``: PNG and JPEG images (``image_input``)
  follow the tool messages in one user message (``_hoist``): one ``content``
  string with the boundary texts and ``images`` with the base64 payloads (PNG
  and JPEG only: what every Ollama vision model loads; at most 20 MB decoded);
  ``ToolResult.to`` ignores ``hoist`` and ``image_input``.

Reading a message back (``read``): ``tool_name`` and ``tool_call_id`` (missing:
``""``); the string content is one text item (none for ``""``), placeholders
included; base64 ``images`` on the message become MCP image items after it.
Not a ``role: tool`` message, or a non-string name, id, content or image:
``InvalidBlock``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import _base64, _read
from .._hoist import MAX_IMAGE_BYTES, boundary
from .._idrules import IdRule, checker
from .._items import Form
from .._options import IMAGE_LIMITS, Options
from .._wire import Attached, Hoist, Result, Wire

NAME_RULE = IdRule(
    name="ollama",
    pattern=r"(?s)^.+$",
    max_length=None,
    description="tool_name non-empty (sent on every tool message)",
)
_, _check_name = checker(NAME_RULE, "ollama", "name")


def block(result: Result, options: Options) -> dict[str, Any]:
    """Return the tool message for ``result``.

    :raises InvalidId: for an empty name.
    """
    if not result.name:
        _check_name(result.name)
    out = {"role": "tool", "content": result._string, "tool_name": result.name}
    if result.id:
        out["tool_call_id"] = result.id
    return out


def envelope(
    blocks: list[Any], results: Sequence[Result], options: Options
) -> list[dict[str, Any]]:
    """Return the tool messages, one per result."""
    return blocks


def user_message(groups: list[tuple[Result, list[Attached]]]) -> dict[str, Any]:
    """Return the user message of hoisted images (see ``_hoist``)."""
    texts = [boundary(result, attached) for result, attached in groups]
    images = [data for _, attached in groups for _, _, data in attached]
    return {"role": "user", "content": "\n".join(texts), "images": images}


HOIST = Hoist(
    image=Form(mimes=frozenset({"image/png", "image/jpeg"}), max_bytes=MAX_IMAGE_BYTES),
    pdf=None,
    as_url=False,
    message=user_message,
)


# -- reader: a tool message back to the fields of a ToolResult ------------------------


def read(block: Any) -> _read.Read:
    """Return what an Ollama tool message holds.

    :raises InvalidBlock: for a message that is not ``role: tool`` (see above).
    """
    data = _read.tool_block("ollama", block, "role", "tool")
    name = _read.string_field("ollama", data, "tool_name")
    call_id = _read.string_field("ollama", data, "tool_call_id")
    items = _read.text_content(_read.string_field("ollama", data, "content"))
    images = data.get("images") or ()
    if not isinstance(images, (list, tuple)):
        raise _read.fail("ollama", "images must be a list of base64 strings")
    for image in images:
        if not isinstance(image, (str, bytes)):
            raise _read.fail("ollama", "images must be a list of base64 strings")
        item = _read.media_item("image/*", image)  # raw bytes are encoded here
        clean = _base64.clean(item["data"])
        item["mimeType"] = (_base64.sniff(clean) if clean else None) or "image/*"
        items.append(item)
    return _read.Read(items, name=name, id=call_id)


WIRE = Wire(
    name="ollama",
    native={},
    options=frozenset({"hoist", "image_input", *IMAGE_LIMITS}),
    defaults=Options(),
    block=block,
    envelope=envelope,
    read=read,
    name_rule=NAME_RULE,
    needs_name=True,
    hoist=HOIST,
)
