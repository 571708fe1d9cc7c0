"""The ``openai`` wire: a Chat Completions ``role: tool`` message.

- Block: ``{"role": "tool", "tool_call_id": id, "content": STRING}``.
- The id is non-empty (``ID_RULE``), else ``InvalidId``; the id map writes at
  most 40 characters (a documented error shows that limit; it may have been
  relaxed, so a longer id is not refused).
- The content is the string form: no native media form exists in a tool
  message, so images and PDFs are placeholders whatever the options say.
- ``is_error`` has no field on this wire and is not sent.
- ``format_tool_results(..., hoist=True)``: images (``image_input``) and PDFs
  (``native_pdf``) follow the tool messages in one user message (``_hoist``):
  ``image_url`` parts (``data:`` URLs; PNG, JPEG, GIF, WebP, at most 20 MB
  decoded) and ``file`` parts for PDFs (``file_data`` data URL and a
  ``filename``; at most 32 MB decoded), each after a ``[attachment N]`` text
  part; ``ToolResult.to`` ignores ``hoist`` and the media options.

Reading a message back (``read``): ``tool_call_id`` is the call id (missing:
``""``); the string content is one text item (none for ``""``), placeholders
included; a list of text parts is one text item per part, any other part its
placeholder. Not a ``role: tool`` message, a non-string id or content that is
neither a string nor a list of typed parts: ``InvalidBlock``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import _read
from .._hoist import MAX_IMAGE_BYTES, MAX_PDF_BYTES, boundary
from .._idrules import IdRule, checker
from .._items import IMAGE, IMAGE_MIMES, Form
from .._links import pdf_filename
from .._options import IMAGE_LIMITS, PDF_LIMITS, Options
from .._wire import Attached, Hoist, Result, Wire

ID_RULE = IdRule(
    name="openai",
    pattern=r"(?s)^.+$",
    max_length=40,
    description=(
        "tool_call_id non-empty; the id map writes at most 40 characters (the limit API"
        " errors showed in vercel/ai#5171, agno#5382, autogen#6377; maybe relaxed since,"
        " so not refused)"
    ),
)
_, _check_id = checker(ID_RULE, "openai")


def block(result: Result, options: Options) -> dict[str, Any]:
    """Return the tool message for ``result``.

    :raises InvalidId: for an empty id.
    """
    if not result.id:
        _check_id(result.id)
    return {"role": "tool", "tool_call_id": result.id, "content": result._string}


def envelope(
    blocks: list[Any], results: Sequence[Result], options: Options
) -> list[dict[str, Any]]:
    """Return the tool messages, one per result."""
    return blocks


def user_message(groups: list[tuple[Result, list[Attached]]]) -> dict[str, Any]:
    """Return the user message of hoisted media (see ``_hoist``)."""
    parts: list[dict[str, Any]] = []
    for result, attached in groups:
        parts.append({"type": "text", "text": boundary(result, attached)})
        for number, item, data in attached:
            parts.append({"type": "text", "text": f"[attachment {number}]"})
            if item.kind == IMAGE:  # data: the data: URL
                parts.append({"type": "image_url", "image_url": {"url": data}})
            else:
                file = {"file_data": data, "filename": pdf_filename(item.uri, item.title)}
                parts.append({"type": "file", "file": file})
    return {"role": "user", "content": parts}


HOIST = Hoist(
    image=Form(mimes=IMAGE_MIMES, max_bytes=MAX_IMAGE_BYTES),
    pdf=Form(max_bytes=MAX_PDF_BYTES),
    as_url=True,
    message=user_message,
)


# -- reader: a tool message back to the fields of a ToolResult ------------------------


def read(block: Any) -> _read.Read:
    """Return what a Chat Completions tool message holds.

    :raises InvalidBlock: for a message that is not ``role: tool`` (see above).
    """
    data = _read.tool_block("openai", block, "role", "tool")
    call_id = _read.string_field("openai", data, "tool_call_id")
    content = data.get("content")
    if content is None or isinstance(content, str):
        return _read.Read(_read.text_content(content or ""), id=call_id)
    items = []
    for part in _read.block_list("openai", content, "content"):
        text = part.get("text")
        if part["type"] == "text" and isinstance(text, str):
            items.append({"type": "text", "text": text})
        else:
            items.append(_read.placeholder_item(part["type"]))
    return _read.Read(items, id=call_id)


WIRE = Wire(
    name="openai",
    native={},
    options=frozenset({"hoist", "image_input", "native_pdf", *IMAGE_LIMITS, *PDF_LIMITS}),
    defaults=Options(),
    block=block,
    envelope=envelope,
    read=read,
    id_rule=ID_RULE,
    hoist=HOIST,
)
