"""The ``gemini`` wire: a ``functionResponse`` part (v1beta, camelCase JSON).

- Block: ``{"functionResponse": {"name": name, "id": id, "response": {...}}}``;
  ``id`` is omitted when empty.
- ``response`` is ``{"result": STRING}``, or the structured content itself
  whenever there is one (wrapped as ``{"result": value}`` when it is not an
  object: the API takes only an object there).
- Native media moves out of the string into ``functionResponse.parts``
  as ``{"inlineData": {"mimeType": ..., "data": ...}}``: an image (JPEG, PNG,
  WebP; no GIF) with ``image_input=True``, a PDF with ``native_pdf=True``.
  Documented for Gemini 3 and later. At most 20 MiB of base64 per part (the
  API's inline request limit); larger payloads stay placeholders.
- ``is_error`` has no field on this wire and is not sent.
- Envelope: one ``{"role": "user", "parts": [...]}`` content with every part.

Reading a part back (``read``): ``name`` and ``id`` (missing: ``""``); a
``response`` that is exactly ``{"result": STRING}`` is that string as one text
item (none for ``""``), placeholders included; any other object (``{}``
included; a missing ``response`` is no content) is the structured content
(gemini has no error flag: ``{"error": ...}`` is structured content too).
``parts``: ``inlineData`` becomes an MCP image, audio or blob
resource item by its ``mimeType`` (after the text; URL-safe base64, as
google-genai dumps bytes, is read as standard base64), ``fileData`` a
``resource_link``, anything else its placeholder. Not a ``functionResponse``
part, a non-string name or id, or a ``response`` that is not an object:
``InvalidBlock``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .. import _items, _read
from .._items import IMAGE, PDF
from .._options import Options, Wire
from .._values import thaw

if TYPE_CHECKING:
    from .._result import ToolResult

MAX_BASE64 = 20 * 1024 * 1024
IMAGE_MIMES = _items.IMAGE_MIMES - {"image/gif"}


def block(result: ToolResult, options: Options) -> dict[str, Any]:
    """Return the ``functionResponse`` part for ``result``."""
    string = result._string
    parts: list[dict[str, Any]] = []
    if options.image_input or options.native_pdf:
        kept: list[str] = []
        for item in result._items:
            if _native(item, options):
                parts.append({"inlineData": {"mimeType": item.mime, "data": item.data}})
            else:
                kept.append(item.text)
        if parts:
            string = "\n".join(kept)
    structured = result._structured[0]
    if structured is None:
        response: dict[str, Any] = {"result": string}
    elif isinstance(structured, Mapping):
        response = thaw(structured)
    else:
        response = {"result": thaw(structured)}
    call: dict[str, Any] = {"name": result.name}
    if result.id:
        call["id"] = result.id
    call["response"] = response
    if parts:
        call["parts"] = parts
    return {"functionResponse": call}


def _native(item: Any, options: Options) -> bool:
    if item.kind == IMAGE:
        return options.image_input and item.mime in IMAGE_MIMES and len(item.data) <= MAX_BASE64
    if item.kind == PDF:
        return options.native_pdf and len(item.data) <= MAX_BASE64
    return False


def envelope(blocks: list[Any]) -> list[dict[str, Any]]:
    """Return the one user content that carries every ``functionResponse`` part."""
    return [{"role": "user", "parts": blocks}]


# -- reader: a functionResponse part back to the fields of a ToolResult ---------------


def read(block: Any) -> _read.Read:
    """Return what a ``functionResponse`` part holds.

    :raises InvalidBlock: for a part that is not a ``functionResponse`` (see above).
    """
    if not isinstance(block, Mapping) or not isinstance(block.get("functionResponse"), Mapping):
        raise _read.fail("gemini", "expected a part with a functionResponse object")
    call = block["functionResponse"]
    name = _read.string_field("gemini", call, "name")
    call_id = _read.string_field("gemini", call, "id")
    response = call.get("response")
    if response is not None and not isinstance(response, Mapping):
        raise _read.fail("gemini", f"response must be an object, not {type(response).__name__}")
    items: list[dict[str, Any]] = []
    structured = None
    if response is not None and set(response) == {"result"} and isinstance(response["result"], str):
        items = _read.text_content(response["result"])
    elif response is not None:
        structured = response  # {} included: toolwire writes an empty object as itself
    parts = call.get("parts") or ()
    if not isinstance(parts, (list, tuple)):
        raise _read.fail("gemini", "parts must be a list")
    items.extend(_part(part) for part in parts)
    return _read.Read(items, structured_content=structured, name=name, id=call_id)


def _part(part: object) -> dict[str, Any]:
    inline = part.get("inlineData") if isinstance(part, Mapping) else None
    if isinstance(inline, Mapping):
        mime = inline.get("mimeType")
        name = inline.get("displayName")
        uri = name if isinstance(name, str) else ""
        data = _read.standard_base64(inline.get("data"))
        return _read.media_item(mime if isinstance(mime, str) else "", data, uri)
    linked = part.get("fileData") if isinstance(part, Mapping) else None
    if isinstance(linked, Mapping) and isinstance(linked.get("fileUri"), str):
        link: dict[str, Any] = {"type": "resource_link", "uri": linked["fileUri"]}
        if isinstance(linked.get("mimeType"), str):
            link["mimeType"] = linked["mimeType"]
        name = linked.get("displayName")
        return {**link, "name": name} if isinstance(name, str) and name else link
    return _read.placeholder_item("part")


WIRE = Wire(
    name="gemini",
    native={"image": True, "pdf": True},
    options=frozenset({"image_input", "native_pdf"}),
    defaults=Options(),
    block=block,
    envelope=envelope,
    read=read,
)
