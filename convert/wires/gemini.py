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
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .. import _items
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
    if (options.image_input or options.native_pdf) and result._texts is None:
        kept: list[str] = []
        for item in result._items:
            data, unsent = _native(item, options)
            if data is not None:
                parts.append({"inlineData": {"mimeType": item.mime, "data": data}})
            else:
                kept.append(unsent)
        if parts or kept != [item.text for item in result._items]:
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


def _native(item: Any, options: Options) -> tuple[str | None, str]:
    """Return ``(data, "")`` for an item sent natively, else ``(None, its text)``."""
    if item.kind == IMAGE:
        if options.image_input and item.mime in IMAGE_MIMES:
            return item.native(MAX_BASE64)  # type: ignore[no-any-return]
    elif item.kind == PDF and options.native_pdf:
        return item.native(MAX_BASE64)  # type: ignore[no-any-return]
    return None, item.text


def envelope(blocks: list[Any]) -> list[dict[str, Any]]:
    """Return the one user content that carries every ``functionResponse`` part."""
    return [{"role": "user", "parts": blocks}]


WIRE = Wire(
    name="gemini",
    native={"image": True, "pdf": True},
    options=frozenset({"image_input", "native_pdf"}),
    defaults=Options(),
    block=block,
    envelope=envelope,
)
