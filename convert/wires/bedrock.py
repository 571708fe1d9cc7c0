"""The ``bedrock`` wire: an Amazon Bedrock Converse ``toolResult`` content block.

- Block: ``{"toolResult": {"toolUseId": id, "content": [...], "status": "success"}}``;
  ``status`` is ``"error"`` when the tool failed. The id is passed through
  unchanged (Bedrock wants 1 to 64 of ``[a-zA-Z0-9_.:-]``; the converter cannot
  invent one).
- ``text`` items become ``{"text": ...}``; blank ones are dropped (Bedrock
  rejects an empty text block).
- Text resources and ``text/*`` blobs become ``{"text": ...}`` too, not
  ``txt``/``md``/``html``/``csv`` documents: text reaches every model on
  Bedrock, while a document block needs a name and is documented inside a tool
  result for a few model families only.
- Images (PNG, JPEG, GIF, WebP), with ``image_input=True`` and at most 3.75 MB
  decoded: ``{"image": {"format": "png", "source": {"bytes": DATA}}}``.
- A PDF, with ``native_pdf=True`` and at most 4.5 MB decoded:
  ``{"document": {"format": "pdf", "name": NAME, "source": {"bytes": DATA}}}``.
  ``NAME`` follows Bedrock's rules: only letters and digits, single spaces,
  hyphens, parentheses and square brackets (ASCII), at most 200 characters,
  taken from the resource URI's last path segment, accents dropped and other
  characters turned into ``-`` (``document`` when nothing is left);
  a name used twice in one block gets `` (2)``, `` (3)``, ...
- ``DATA`` is the base64 string, passed through as the same object (the JSON
  form of the HTTP API). With ``raw_bytes=True`` it is ``bytes`` for boto3,
  which base64-encodes on its own: exactly one decode per payload.
- Anthropic-native blocks, audio, links and anything else become a text block
  holding their string form (the placeholder, never the payload).
- When no block is left: the structured content as ``{"json": ...}`` (an object;
  another JSON value is wrapped as ``{"result": value}``), else a short text
  saying the tool returned nothing (Bedrock rejects empty text).
- Envelope: one ``{"role": "user", "content": [toolResult blocks]}`` message.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._base64 import encoded_length
from .._items import IMAGE, IMAGE_MIMES, PDF, unsent
from .._options import Options, Wire
from .._values import thaw
from .responses import pdf_filename

if TYPE_CHECKING:
    from .._result import ToolResult

#: Bedrock's documented limits, decoded bytes (MB read as 10**6: the stricter reading).
MAX_IMAGE_BYTES = 3_750_000
MAX_DOCUMENT_BYTES = 4_500_000
MAX_NAME = 200
DEFAULT_NAME = "document"
EMPTY_TEXT = "The tool returned no output."
EMPTY_ERROR_TEXT = "The tool failed without returning any output."
IMAGE_FORMATS = {mime: mime.split("/", 1)[1] for mime in IMAGE_MIMES}
_NOT_IN_NAME = re.compile(r"[^A-Za-z0-9\s\-()\[\]]+")
_SPACES = re.compile(r"\s+")


def reason(item: Any, options: Options) -> str | None:
    """Return why an image or PDF item is not sent natively, or None when it is."""
    got = _media(item, options)
    return got if isinstance(got, str) else unsent(item, got[0])


def _media(item: Any, options: Options) -> tuple[str | None, str] | str:
    """Return native()'s ``(data, text)`` for an image or PDF the wire would send,
    else why it is not (its payload is then not read)."""
    if item.kind == IMAGE:
        if not options.image_input:
            return "not_read"
        if item.mime not in IMAGE_FORMATS:
            return "unsupported_mime"
        limit = MAX_IMAGE_BYTES
    elif item.kind == PDF:
        if not options.native_pdf:
            return "not_read"
        limit = MAX_DOCUMENT_BYTES
    else:
        return "no_form"
    if item.size > limit:  # the limits are in decoded bytes; the size is known already
        return None, item.text
    return item.native(encoded_length(limit))  # type: ignore[no-any-return]


def block(result: ToolResult, options: Options) -> dict[str, Any]:
    """Return the ``toolResult`` content block for ``result``."""
    content: list[dict[str, Any]] = []
    names: set[str] = set()
    for item in result._items:
        text = item.text
        if item.kind in (IMAGE, PDF) and type(got := _media(item, options)) is tuple:
            data, text = got
            if data is not None:
                payload: str | bytes = binascii.a2b_base64(data) if options.raw_bytes else data
                if item.kind == IMAGE:
                    image = {"format": IMAGE_FORMATS[item.mime], "source": {"bytes": payload}}
                    content.append({"image": image})
                else:
                    name = _unique(document_name(item.uri), names)
                    document = {"format": "pdf", "name": name, "source": {"bytes": payload}}
                    content.append({"document": document})
                continue
        if text.strip():
            content.append({"text": text})
    if not content:
        content.append(_empty(result))
    status = "error" if result.is_error else "success"
    return {"toolResult": {"toolUseId": result.id, "content": content, "status": status}}


def _empty(result: ToolResult) -> dict[str, Any]:
    structured = result._structured[0]
    if structured is not None:
        value = thaw(structured)
        return {"json": value if isinstance(structured, Mapping) else {"result": value}}
    return {"text": EMPTY_ERROR_TEXT if result.is_error else EMPTY_TEXT}


def document_name(uri: str) -> str:
    """Return a Bedrock document name for a resource URI.

    The last path segment without ``.pdf`` (as for the responses ``filename``),
    accents dropped, other characters than letters, digits, whitespace, ``-``, ``(``, ``)``,
    ``[`` and ``]`` turned into ``-``, whitespace runs into one space, at most
    200 characters; ``document`` when nothing is left.
    """
    stem = pdf_filename(uri)[:-4]
    if not stem.isascii():  # keep the letters of "Café" as "Cafe" rather than "Caf-"
        import unicodedata

        stem = "".join(
            ch for ch in unicodedata.normalize("NFKD", stem) if not unicodedata.combining(ch)
        )
    name = _SPACES.sub(" ", _NOT_IN_NAME.sub("-", stem)).strip()[:MAX_NAME].rstrip()
    return name or DEFAULT_NAME


def _unique(name: str, taken: set[str]) -> str:
    """Return ``name``, or ``name (N)`` when it is already used in this block."""
    found, number = name, 1
    while found in taken:
        number += 1
        suffix = f" ({number})"
        found = name[: MAX_NAME - len(suffix)].rstrip() + suffix
    taken.add(found)
    return found


def envelope(blocks: list[Any]) -> list[dict[str, Any]]:
    """Return the one user message that carries every ``toolResult`` block."""
    return [{"role": "user", "content": blocks}]


WIRE = Wire(
    name="bedrock",
    native={"image": True, "pdf": False},
    options=frozenset({"image_input", "native_pdf", "raw_bytes"}),
    defaults=Options(),
    block=block,
    envelope=envelope,
    reason=reason,
)
