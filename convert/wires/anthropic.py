"""The ``anthropic`` wire: a Messages API ``tool_result`` block.

- Block: ``{"type": "tool_result", "tool_use_id": id, "content": BLOCKS or STRING}``,
  plus ``"is_error": true`` only when the tool failed.
- ``text`` keeps only its text (and ``cache_control``); empty or whitespace-only
  text is dropped (the API rejects it).
- Images (JPEG, PNG, GIF, WebP) become base64 ``image`` blocks only with
  ``image_input=True`` and at most 5 MiB of base64; otherwise the placeholder.
- A PDF becomes a base64 ``document`` block unless ``native_pdf=False`` or
  ``source_blocks=False``; otherwise the placeholder. At most 32 MiB of base64.
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
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._items import DOCUMENT, IMAGE, IMAGE_MIMES, LINK, NATIVE, PDF, TEXT, unsent
from .._links import link_kind, link_reason
from .._options import Options, Wire
from .._values import thaw

if TYPE_CHECKING:
    from .._result import ToolResult

#: Anthropic's documented limit for one image: 5 MB of base64.
MAX_IMAGE_BASE64 = 5 * 1024 * 1024
#: Anthropic's request limit is 32 MB; a larger PDF could never be sent.
MAX_PDF_BASE64 = 32 * 1024 * 1024
EMPTY_ERROR_TEXT = "The tool failed without returning any output."


def block(result: ToolResult, options: Options) -> dict[str, Any]:
    """Return the ``tool_result`` block for ``result``."""
    texts = result._texts
    if texts:  # all plain text: nothing depends on the options (a loop beats a comprehension)
        texts_out: list[dict[str, Any]] = []
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
    blocks: list[dict[str, Any]] = []
    for item in result._items:
        kind = item.kind
        # The gates of ``_media`` inline (this is the hot path of a native payload);
        # ``reason`` reads ``_media``, and the report's tests hold the two together.
        if kind == IMAGE and options.image_input:
            data, shown = item.native(MAX_IMAGE_BASE64)
        elif kind == PDF and options.native_pdf and options.source_blocks:
            data, shown = item.native(MAX_PDF_BASE64)
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
    if item.kind == LINK:
        return link_reason(item, options, IMAGE_MIMES, options.native_pdf and options.source_blocks)
    got = _media(item, options)
    return got if isinstance(got, str) else unsent(item, got[0])


def _media(item: Any, options: Options) -> tuple[str | None, str] | str:
    """Return native()'s ``(data, text)`` for an image or PDF the wire would send,
    else why it is not (its payload is then not read)."""
    if item.kind == IMAGE:
        if not options.image_input:
            return "not_read"
        return item.native(MAX_IMAGE_BASE64)  # type: ignore[no-any-return]
    if item.kind == PDF:
        if not options.native_pdf:
            return "not_read"
        if not options.source_blocks:
            return "no_form"  # this endpoint takes no document block in a tool_result
        return item.native(MAX_PDF_BASE64)  # type: ignore[no-any-return]
    return "no_form"


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


def envelope(blocks: list[Any]) -> list[dict[str, Any]]:
    """Return the one user message that carries every ``tool_result`` block."""
    return [{"role": "user", "content": blocks}]


WIRE = Wire(
    name="anthropic",
    native={"image": True, "pdf": False},
    options=frozenset({"image_input", "native_pdf", "source_blocks", "url_sources"}),
    defaults=Options(image_input=False, native_pdf=True, source_blocks=True),
    block=block,
    envelope=envelope,
    reason=reason,
)
