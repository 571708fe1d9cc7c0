"""The ``anthropic`` wire: a Messages API ``tool_result`` block.

- The id (``tool_use_id``) is non-empty, of ``[a-zA-Z0-9_-]`` only (``ID_RULE``);
  any other raises ``InvalidId`` (``ids=IdMap()`` maps it).
- Block: ``{"type": "tool_result", "tool_use_id": id, "content": BLOCKS or STRING}``,
  plus ``"is_error": true`` only when the tool failed.
- ``text`` keeps only its text (and ``cache_control``); empty or whitespace-only
  text is dropped (the API rejects it).
- Images (JPEG, PNG, GIF, WebP) become base64 ``image`` blocks only with
  ``image_input=True``, at most 10 MB of base64 (10485760 symbols, 7864320
  bytes decoded: the first-party API's rejection text, "image exceeds 10 MB
  maximum: ... > 10485760 bytes", probes of 2026-09; Bedrock and Vertex keep 5 MB,
  which their engines state as ``max_image_bytes``) and at most 8000 px a side;
  otherwise the placeholder.
- Request limits (``_budget``; the registry states them per model): at most 100
  images (``max_images``: 100 on 200k-context models, 600 on the others -- the
  stricter one, since a placeholder costs an image while a rejected request
  costs the turn), and over 20 images each at most 2000 px a side
  (``many_images``/``many_images_max_side``: rejected, not downscaled, API
  errors in claude-code#24630, #49537); PDFs at most 100 pages
  (``max_pdf_pages``: 600, or 100 under a 1M-token context window) and 32 MB of
  base64 per request (``max_pdf_request_bytes``, 25165824 bytes decoded).
- A PDF becomes a base64 ``document`` block unless ``native_pdf=False`` or
  ``source_blocks=False``; otherwise the placeholder. At most 32 MiB of base64.
  A PDF that came as a titled ``document`` block keeps its ``title``.
- Text resources and ``text/*`` blobs become ``document`` blocks with a text
  source, always labelled ``text/plain`` (the only text type the API takes).
- Anthropic-native ``document`` and ``search_result`` blocks pass through; an
  image given by URL passes through only with ``image_input=True``.
- ``source_blocks=False`` (endpoints that reject source blocks inside a
  tool_result): no ``document`` or ``search_result``; text documents become text
  blocks, PDFs placeholders.
- With ``url_sources=True``, an https ``resource_link`` to an image (with
  ``image_input=True``) or a PDF (with ``native_pdf`` and ``source_blocks``)
  becomes an ``image``/``document`` block with a ``url`` source.
- Everything else becomes a text block holding its placeholder.
- When no block is left, ``content`` is the string form (``""`` or the
  structured content as JSON); a failed tool with no output says so in text,
  since the API rejects an empty error result.

Reading a block back (``read``):

- ``tool_use_id`` is the call id (missing: ``""``); ``is_error`` the error flag.
- String content is one text item, except the forms toolwire writes for a result
  without blocks: ``""`` (no content), the failed-without-output text under
  ``is_error``, and canonical JSON, which is read back as the structured content.
- ``text`` blocks become MCP text items (keeping ``cache_control``); base64
  ``image`` blocks MCP image items (an image with ``cache_control`` stays an
  Anthropic image block); a base64 PDF ``document`` with nothing but its
  source an embedded blob resource (so a wire without a document form shows
  its size, as for an image); other ``document`` blocks (a title, a text
  source, ...) and ``search_result`` blocks stay as they are (the
  Anthropic-native items a ``ToolResult`` takes).
- An ``image`` or ``document`` with only a ``url`` source (the form
  ``url_sources`` writes) becomes a ``resource_link`` to the URL: a document is
  ``application/pdf`` (the only type the API takes by URL), an image the type
  the URL's extension names, else ``image/jpeg``. With any other field
  (``cache_control``, ``title``, ``citations``) it stays the native block.
- Any other block type becomes a text item with its placeholder (``[type]``).
- Not a ``tool_result``, a non-string id, a non-boolean ``is_error``, or content
  that is neither a string nor a list of typed objects: ``InvalidBlock``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .. import _read
from .._budget import own_budget
from .._idrules import IdRule, checker
from .._items import DOCUMENT, IMAGE, IMAGE_MIMES, LINK, NATIVE, PDF, TEXT, Form, native_media
from .._links import link_kind, link_reason
from .._options import IMAGE_LIMITS, PDF_LIMITS, Options
from .._values import thaw
from .._wire import Result, Wire

#: The first-party limit for one image: 10 MB of base64 (the API counts base64).
MAX_IMAGE_BASE64 = 10 * 1024 * 1024
#: the largest width or height of an image, in pixels
MAX_IMAGE_SIDE = 8000
#: Anthropic's request limit is 32 MB; a larger PDF could never be sent. A request
#: carries the base64, so the limit is in base64 symbols too.
MAX_PDF_BASE64 = 32 * 1024 * 1024
#: every image type (no MIME check: any IMAGE item is one the API takes)
IMAGE_FORM = Form(max_base64=MAX_IMAGE_BASE64, max_side=MAX_IMAGE_SIDE)
PDF_FORM = Form(max_base64=MAX_PDF_BASE64)
#: request limits (see the module docstring)
MAX_IMAGES = 100
MANY_IMAGES = 20
MANY_IMAGES_MAX_SIDE = 2000
MAX_PDF_PAGES = 100
EMPTY_ERROR_TEXT = "The tool failed without returning any output."
ID_RULE = IdRule(
    name="anthropic",
    pattern=r"^[a-zA-Z0-9_-]+$",
    max_length=None,
    description=(
        "tool_use_id non-empty, letters, digits, _ and - (API errors quoted in"
        " CommandCodeAI/command-code#323, BlockRunAI/ClawRouter#17); no maximum seen"
    ),
    safe="a-zA-Z0-9_-",
)
_ids_seen, _check_id = checker(ID_RULE, "anthropic")


def block(result: Result, options: Options) -> dict[str, Any]:
    """Return the ``tool_result`` block for ``result``.

    :raises InvalidId: for an id that breaks ``ID_RULE``.
    """
    if result.id not in _ids_seen:
        _check_id(result.id)
    texts = result._texts
    if texts:  # all plain text: nothing depends on the options (a loop beats a comprehension)
        texts_out: list[dict[str, Any]]
        if len(texts) == 1:  # the usual tool output: one text
            texts_out = [{"type": "text", "text": texts[0]}]
        else:
            texts_out = []
            for text in texts:
                texts_out.append({"type": "text", "text": text})
        fast: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": result.id,
            "content": texts_out,
        }
        if result.is_error:
            fast["is_error"] = True
        return fast
    result = own_budget(WIRE, result, options)  # media: the request limits (``_budget``)
    blocks: list[dict[str, Any]] = []
    for item in result._items:
        kind = item.kind
        if kind == TEXT and item.cache_control is None:  # ``_block``'s text, inline
            text = item.text
            if text and not text.isspace():
                blocks.append({"type": "text", "text": text})
            continue
        if kind in (IMAGE, PDF):  # the gate of ``reason``
            if kind == PDF and not options.source_blocks:
                blocks.append({"type": "text", "text": item.text})  # its placeholder
                continue
            data, shown = native_media(item, options, IMAGE_FORM, PDF_FORM)[1:]
        elif kind == LINK and reason(item, options) is None:
            native_kind = "image" if link_kind(item, IMAGE_MIMES) == "image" else "document"
            blocks.append({"type": native_kind, "source": {"type": "url", "url": item.uri}})
            continue
        else:
            if (fallback := _block(item, options)) is not None:
                blocks.append(fallback)
            continue
        if data is None:
            blocks.append({"type": "text", "text": shown})
            continue
        native: dict[str, Any] = {
            "type": "image" if kind == IMAGE else "document",
            "source": {"type": "base64", "media_type": item.mime, "data": data},
        }
        if item.title:  # a PDF's, from a document block
            native["title"] = item.title
        if item.cache_control is not None:
            native["cache_control"] = dict(item.cache_control)
        blocks.append(native)
    content: list[dict[str, Any]] | str = blocks
    if not blocks:  # nothing but blank text: the structured content as JSON, or ""
        content = result._structured[1] or ""
        if result.is_error and not content:
            content = EMPTY_ERROR_TEXT
    out: dict[str, Any] = {"type": "tool_result", "tool_use_id": result.id, "content": content}
    if result.is_error:
        out["is_error"] = True
    return out


def reason(item: Any, options: Options) -> str | None:
    """Return why an image, PDF or link item is not sent natively, or None when it is."""
    kind = item.kind
    if kind == LINK:
        return link_reason(item, options, IMAGE_MIMES, options.native_pdf and options.source_blocks)
    if kind == PDF and options.native_pdf and not options.source_blocks:
        return "no_form"  # this endpoint takes no document block in a tool_result
    return native_media(item, options, IMAGE_FORM, PDF_FORM)[0]


def _block(item: Any, options: Options) -> dict[str, Any] | None:
    """Return the block of an item the loop above does not send natively."""
    kind = item.kind
    if kind == TEXT:
        if not item.text.strip():
            return None
        if item.cache_control is None:
            return {"type": "text", "text": item.text}
        return {"type": "text", "text": item.text, "cache_control": dict(item.cache_control)}
    if kind == DOCUMENT:
        if not item.text.strip():
            return None
        if options.source_blocks:
            source = {"type": "text", "media_type": "text/plain", "data": item.text}
            return {"type": "document", "source": source}
    elif kind == NATIVE:
        if item.block["type"] == "image":
            if options.image_input:
                return thaw(item.block)  # type: ignore[no-any-return]
        elif options.source_blocks:
            return thaw(item.block)  # type: ignore[no-any-return]
    if not item.text.strip():
        return None
    return {"type": "text", "text": item.text}


def envelope(
    blocks: list[Any], results: Sequence[Result], options: Options
) -> list[dict[str, Any]]:
    """Return the one user message that carries every ``tool_result`` block."""
    return [{"role": "user", "content": blocks}]


# -- reader: a tool_result block back to the fields of a ToolResult --------------------


def read(block: Any) -> _read.Read:
    """Return what an Anthropic ``tool_result`` block holds.

    :raises InvalidBlock: for a block that is not a ``tool_result`` (see above).
    """
    data = _read.tool_block("anthropic", block, "type", "tool_result")
    call_id = _read.string_field("anthropic", data, "tool_use_id")
    is_error = _read.flag("anthropic", data, "is_error")
    content = data.get("content")
    if content is None or isinstance(content, str):
        text = content or ""
        if is_error and text == EMPTY_ERROR_TEXT:
            return _read.Read([], True, id=call_id)
        value = _read.canonical_value(text)
        if value is not _read.NOT_JSON:
            return _read.Read([], is_error, value, id=call_id)
        return _read.Read(_read.text_content(text), is_error, id=call_id)
    items = [_item(part) for part in _read.block_list("anthropic", content, "content")]
    return _read.Read(items, is_error, id=call_id)


def _item(part: Mapping[str, Any]) -> dict[str, Any]:
    """Return the content item of one block inside a ``tool_result``."""
    kind = part["type"]
    if kind == "text":
        text = part.get("text")
        if not isinstance(text, str):
            return _read.placeholder_item("text")
        item: dict[str, Any] = {"type": "text", "text": text}
        if part.get("cache_control") is not None:
            item["cache_control"] = part["cache_control"]
        return item
    if kind == "image":
        source = part.get("source")
        if not isinstance(source, Mapping) or source.get("type") not in ("base64", "url"):
            return _read.placeholder_item("image")
        if source["type"] == "base64" and part.get("cache_control") is None:
            mime = source.get("media_type")
            return _read.media_item(mime if isinstance(mime, str) else "", source.get("data"))
    if kind in ("image", "document") and (link := _url_source(part)) is not None:
        return link
    if kind == "document" and set(part) == {"type", "source"}:
        source = part["source"]
        if (
            isinstance(source, Mapping)
            and source.get("type") == "base64"
            and source.get("media_type") == "application/pdf"
        ):
            return _read.pdf_item(source.get("data"))
    if kind in ("image", "document", "search_result"):
        return dict(part)  # with cache_control, a title, citations...: the native block
    return _read.placeholder_item(kind)


def _url_source(part: Mapping[str, Any]) -> dict[str, Any] | None:
    """Return the ``resource_link`` of a bare URL image or document (the ``url_sources``
    form: ``type`` and ``source`` only), else None."""
    source = part["source"] if isinstance(part.get("source"), Mapping) else {}
    url = source.get("url")
    if set(part) != {"type", "source"} or source.get("type") != "url" or not isinstance(url, str):
        return None
    image = part["type"] == "image"
    return _read.url_link(url, "image/jpeg" if image else "application/pdf")


WIRE = Wire(
    name="anthropic",
    native={"image": True, "pdf": False},
    options=frozenset(
        {"image_input", "native_pdf", "source_blocks", "url_sources", *IMAGE_LIMITS, *PDF_LIMITS}
    ),
    defaults=Options(
        image_input=False,
        native_pdf=True,
        source_blocks=True,
        max_images=MAX_IMAGES,
        many_images=MANY_IMAGES,
        many_images_max_side=MANY_IMAGES_MAX_SIDE,
        max_pdf_pages=MAX_PDF_PAGES,
        max_pdf_request_bytes=PDF_FORM.decoded_limit,
    ),
    block=block,
    envelope=envelope,
    reason=reason,
    read=read,
    id_rule=ID_RULE,
    native_blocks=True,
)
