"""The ``gemini`` wire: a ``functionResponse`` part (v1beta, camelCase JSON).

- Block: ``{"functionResponse": {"name": name, "id": id, "response": {...}}}``;
  ``id`` is omitted when empty. The name is required: a letter or ``_``, then up
  to 63 of ``[A-Za-z0-9_.:-]`` (``NAME_RULE``), else ``InvalidId``; ids have no
  rule (and carry thought signatures: never rewrite one going back to Gemini).
- ``response`` is ``{"result": STRING}``, or the structured content itself
  whenever there is one (wrapped as ``{"result": value}`` when it is not an
  object: the API takes only an object there).
- Native media moves out of the string into ``functionResponse.parts``
  as ``{"inlineData": {"mimeType": ..., "data": ...}}``: an image (JPEG, PNG,
  WebP; no GIF) with ``image_input=True``, a PDF with ``native_pdf=True``.
  Documented for Gemini 3 and later. At most 20 MiB of base64 per part (the
  API's inline request limit); larger payloads stay placeholders. The MIME types
  are the v1beta discovery document's for ``functionResponse.parts`` ("If an
  unsupported MIME type is provided, an error will be returned"). No request
  limit by default: Gemini's 1000 pages are per PDF, not per request (an engine
  states its own ``max_pdf_pages``).
- With ``url_sources=True``, an https ``resource_link`` to an image (JPEG, PNG,
  WebP; ``image_input``) or a PDF (``native_pdf``) moves into ``parts`` as
  ``{"fileData": {"mimeType": ..., "fileUri": URL}}``.
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

from collections.abc import Mapping, Sequence
from typing import Any

from .. import _items, _read
from .._budget import own_budget
from .._idrules import IdRule, checker
from .._items import IMAGE, LINK, PDF, Form, native_media
from .._links import link_reason
from .._options import IMAGE_LIMITS, PDF_LIMITS, Options
from .._values import WRAPPER, wrapped
from .._wire import Result, Wire

#: the API's inline request limit; a request carries the base64, so in base64 symbols
MAX_BASE64 = 20 * 1024 * 1024
IMAGE_MIMES = _items.IMAGE_MIMES - {"image/gif"}
IMAGE_FORM = Form(mimes=IMAGE_MIMES, max_base64=MAX_BASE64)
PDF_FORM = Form(max_base64=MAX_BASE64)
NAME_RULE = IdRule(
    name="gemini",
    pattern=r"^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$",
    max_length=64,
    description=(
        "functionResponse.name required: a letter or _, then up to 63 letters, digits,"
        " _ . : - (API error quoted in kaitranntt/ccs#25)"
    ),
    safe="A-Za-z0-9_.:-",
    first="A-Za-z_",
)
_names_seen, _check_name = checker(NAME_RULE, "gemini", "name")


def block(result: Result, options: Options) -> dict[str, Any]:
    """Return the ``functionResponse`` part for ``result``.

    :raises InvalidId: for a name that breaks ``NAME_RULE``.
    """
    if result.name not in _names_seen:
        _check_name(result.name)
    string = result._string
    parts: list[dict[str, Any]] = []
    if (options.image_input or options.native_pdf) and result._texts is None:
        result = own_budget(WIRE, result, options)  # the request limits (``_budget``)
        kept: list[str] = []
        for item in result._items:
            kind = item.kind
            if kind in (IMAGE, PDF):  # the gate of ``reason``
                data, shown = native_media(item, options, IMAGE_FORM, PDF_FORM)[1:]
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
        response: dict[str, Any] = {WRAPPER: string}
    else:
        response = wrapped(structured)
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
    return native_media(item, options, IMAGE_FORM, PDF_FORM)[0]


def envelope(
    blocks: list[Any], results: Sequence[Result], options: Options
) -> list[dict[str, Any]]:
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
    if response is not None and set(response) == {WRAPPER} and isinstance(response[WRAPPER], str):
        items = _read.text_content(response[WRAPPER])
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
    options=frozenset({"image_input", "native_pdf", "url_sources", *IMAGE_LIMITS, *PDF_LIMITS}),
    defaults=Options(),
    block=block,
    envelope=envelope,
    reason=reason,
    read=read,
    name_rule=NAME_RULE,
    needs_name=True,
    structured_replaces_text=True,
)
