"""Rules shared by the wire readers (``ToolResult.from_wire``).

A reader turns one block of its wire into a :class:`Read`: the MCP content items,
the error flag, the structured content, and the tool name and call id the block
carries. It never invents media: a string stays text, whatever it says (a
placeholder toolwire wrote, ``[image] image/png (N bytes)``, comes back as that
text), and only a payload or a URL the block itself holds becomes an image or a
file. What a reader cannot place becomes a text item holding a placeholder;
a block that is not of the wire at all raises :class:`InvalidBlock`.
"""

from __future__ import annotations

import binascii
import json
from collections.abc import Mapping
from typing import Any, NamedTuple
from urllib.parse import quote

from ._items import placeholder
from ._values import canonical_json, text
from .errors import InvalidBlock, describe

__all__ = [
    "NOT_JSON",
    "Read",
    "block_list",
    "canonical_value",
    "fail",
    "flag",
    "json_text",
    "media_item",
    "pdf_item",
    "placeholder_item",
    "split_data_url",
    "standard_base64",
    "string_field",
    "text_content",
    "tool_block",
    "url_link",
]


class Read(NamedTuple):
    """What one wire block holds, ready for the ``ToolResult`` constructor."""

    content: list[dict[str, Any]]
    is_error: bool = False
    structured_content: object = None
    name: str = ""
    id: str = ""


#: Returned by :func:`canonical_value` for a string that is not canonical JSON.
NOT_JSON: Any = object()


def fail(wire: str, message: str) -> InvalidBlock:
    """Return the error for a block of ``wire`` that cannot be read."""
    return InvalidBlock(f"{wire} block: {message}")


def tool_block(wire: str, block: object, key: str, value: str) -> Mapping[str, Any]:
    """Return ``block`` as a mapping whose ``key`` is ``value``.

    :raises InvalidBlock: for anything else (most often a block of another wire).
    """
    if not isinstance(block, Mapping):
        raise fail(wire, f"expected an object, not {type(block).__name__}")
    if block.get(key) != value:
        raise fail(wire, f"expected {key} {value!r}, not {describe(block.get(key))}")
    return block


def string_field(wire: str, block: Mapping[str, Any], key: str) -> str:
    """Return a string field; missing or null reads as ``""``.

    :raises InvalidBlock: when the field holds something other than a string.
    """
    value = block.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise fail(wire, f"{key} must be a string, not {type(value).__name__}")
    return value


def flag(wire: str, block: Mapping[str, Any], key: str) -> bool:
    """Return a boolean field; missing or null reads as False.

    :raises InvalidBlock: when the field holds something other than a boolean.
    """
    value = block.get(key)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise fail(wire, f"{key} must be true or false, not {describe(value)}")
    return value


def block_list(wire: str, value: object, where: str) -> list[Mapping[str, Any]]:
    """Return a list of typed objects (each a mapping with a string ``type``).

    :raises InvalidBlock: for a non-list or an entry that is not a typed object.
    """
    if not isinstance(value, (list, tuple)):
        raise fail(wire, f"{where} must be a string or a list, not {type(value).__name__}")
    for index, entry in enumerate(value):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("type"), str):
            raise fail(wire, f"{where}[{index}] is not an object with a string type")
    return list(value)


def json_text(wire: str, value: object) -> str:
    """Return a JSON value a block holds as canonical JSON text.

    :raises InvalidBlock: for a value JSON has no form for (NaN, bytes, ...).
    """
    try:
        return canonical_json(value)
    except (TypeError, ValueError, RecursionError) as exc:
        raise fail(wire, f"json is not JSON: {describe(str(exc))}") from None


def text_content(text: str) -> list[dict[str, Any]]:
    """Return the content of a string a wire carried: one text item, none for ``""``."""
    return [{"type": "text", "text": text}] if text else []


def placeholder_item(kind: str, mime: str = "", uri: str = "") -> dict[str, Any]:
    """Return a text item standing in for something no MCP item can hold."""
    return {"type": "text", "text": placeholder(kind, mime, uri)}


def media_item(mime: str, data: object, uri: str = "") -> dict[str, Any]:
    """Return the MCP item of a base64 payload: an image, audio, or a blob resource.

    Bytes are encoded as base64 (google-genai and ollama objects hold bytes). The
    payload is not checked here: ``ToolResult`` validates it once, and a broken one
    goes out as its placeholder.
    """
    if isinstance(data, (bytes, bytearray)):
        data = binascii.b2a_base64(data, newline=False).decode("ascii")
    kind = mime.split("/", 1)[0].lower()
    if kind in ("image", "audio"):
        return {"type": kind, "data": data, "mimeType": mime}
    return {"type": "resource", "resource": {"uri": uri, "mimeType": mime, "blob": data}}


def name_uri(name: str) -> str:
    """Return the URI of a file a block names: the name percent-encoded, lone
    surrogates (which ``json.loads`` lets through) replaced first, as no URI holds them."""
    return quote(text(name), safe="")


def pdf_item(data: object, title: str = "", uri: str = "") -> dict[str, Any]:
    """Return the item of a base64 (or bytes) PDF a block names.

    With a ``title``: an Anthropic ``document`` block carrying it (the one content
    item with a title, so writing it again names the file as it was named); else
    an embedded blob resource at ``uri``. Either way a wire without a document
    form shows its size, as for images.
    """
    if not title:
        return media_item("application/pdf", data, uri)
    if isinstance(data, (bytes, bytearray)):
        data = binascii.b2a_base64(data, newline=False).decode("ascii")
    source = {"type": "base64", "media_type": "application/pdf", "data": data}
    return {"type": "document", "source": source, "title": title}


#: MIME types named by a URL path's extension, for a URL source that states none.
_EXTENSIONS = {
    "pdf": "application/pdf",
    "png": "image/png",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
}


def url_link(url: str, default_mime: str, name: str = "") -> dict[str, Any]:
    """Return the MCP ``resource_link`` of a URL source (an image or a file by URL).

    Its ``mimeType`` is the one the URL path's extension names (``.png``,
    ``.jpg``/``.jpeg``, ``.gif``, ``.webp``, ``.pdf``), else ``default_mime``: the
    block says what kind of thing the URL is, not always its exact type.
    """
    path = url.split("?", 1)[0].split("#", 1)[0]
    tail = path.rsplit("/", 1)[-1]
    extension = tail.rsplit(".", 1)[-1].lower() if "." in tail else ""
    mime = _EXTENSIONS.get(extension, default_mime)
    if mime.split("/", 1)[0] != default_mime.split("/", 1)[0]:
        mime = default_mime  # an image URL named .pdf stays an image, and so on
    link: dict[str, Any] = {"type": "resource_link", "uri": url, "mimeType": mime}
    return {**link, "name": name} if name else link


def standard_base64(data: object) -> object:
    """Return URL-safe base64 (``-``, ``_``) in the standard alphabet; anything else as is.

    google-genai dumps bytes URL-safe; the API and every other wire take standard
    base64. Only a payload holding ``-`` or ``_`` is copied.
    """
    if isinstance(data, str) and ("-" in data or "_" in data):
        return data.translate(_URL_SAFE)
    return data


_URL_SAFE = str.maketrans("-_", "+/")


def split_data_url(url: object) -> tuple[str, str] | None:
    """Return (MIME type, base64 payload) of a ``data:MIME;base64,...`` URL, else None."""
    if not isinstance(url, str) or url[:5].lower() != "data:":
        return None
    head, comma, data = url[5:].partition(",")
    mime, _, params = head.partition(";")
    if not comma or "base64" not in params.lower().split(";"):
        return None
    return mime.strip() or "application/octet-stream", data


def canonical_value(text: str) -> Any:
    """Return the value of ``text`` if it is canonical JSON (not null), else ``NOT_JSON``.

    toolwire writes structured content as canonical JSON where a wire takes only a
    string; exactly that form is read back as the value.
    """
    if not text or text[0] not in '{["-0123456789tf':
        return NOT_JSON
    try:
        value = json.loads(text)
        same = canonical_json(value) == text
    except (ValueError, RecursionError):
        return NOT_JSON
    return value if same and value is not None else NOT_JSON
