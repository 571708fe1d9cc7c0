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
- With ``url_sources=True``, an https ``resource_link`` to an image (JPEG, PNG,
  WebP; ``image_input``) or a PDF (``native_pdf``) moves into ``parts`` as
  ``{"fileData": {"mimeType": ..., "fileUri": URL}}``.
- ``is_error`` has no field on this wire and is not sent.
- Envelope: one ``{"role": "user", "parts": [...]}`` content with every part.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .. import _items
from .._items import IMAGE, LINK, PDF, unsent
from .._links import link_reason
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
            # The gates of ``_media`` inline (no call per item); ``reason`` reads
            # ``_media``, and the report's tests hold the two together.
            kind = item.kind
            if (kind == IMAGE and options.image_input and item.mime in IMAGE_MIMES) or (
                kind == PDF and options.native_pdf
            ):
                data, shown = item.native(MAX_BASE64)
            elif kind == LINK and reason(item, options) is None:
                parts.append({"fileData": {"mimeType": item.mime, "fileUri": item.uri}})
                continue
            else:
                kept.append(item.text)
                continue
            if data is not None:
                parts.append({"inlineData": {"mimeType": item.mime, "data": data}})
            else:
                kept.append(shown)
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


def reason(item: Any, options: Options) -> str | None:
    """Return why an image, PDF or link item is not sent natively, or None when it is."""
    if item.kind == LINK:
        return link_reason(item, options, IMAGE_MIMES, options.native_pdf)
    got = _media(item, options)
    return got if isinstance(got, str) else unsent(item, got[0])


def _media(item: Any, options: Options) -> tuple[str | None, str] | str:
    """Return native()'s ``(data, text)`` for an image or PDF the wire would send,
    else why it is not (its payload is then not read)."""
    if item.kind == IMAGE:
        if not options.image_input:
            return "not_read"
        if item.mime not in IMAGE_MIMES:
            return "unsupported_mime"
        return item.native(MAX_BASE64)  # type: ignore[no-any-return]
    if item.kind == PDF:
        if not options.native_pdf:
            return "not_read"
        return item.native(MAX_BASE64)  # type: ignore[no-any-return]
    return "no_form"


def envelope(blocks: list[Any]) -> list[dict[str, Any]]:
    """Return the one user content that carries every ``functionResponse`` part."""
    return [{"role": "user", "parts": blocks}]


WIRE = Wire(
    name="gemini",
    native={"image": True, "pdf": True},
    options=frozenset({"image_input", "native_pdf", "url_sources"}),
    defaults=Options(),
    block=block,
    envelope=envelope,
    reason=reason,
)
