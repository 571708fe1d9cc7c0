"""The ``bedrock`` wire: an Amazon Bedrock Converse ``toolResult`` content block.

- Block: ``{"toolResult": {"toolUseId": id, "content": [...], "status": "success"}}``;
  ``status`` is ``"error"`` when the tool failed. The id is passed through
  unchanged: 1 to 64 of ``[a-zA-Z0-9_.:-]`` (``ID_RULE``, botocore's service
  model), any other raises ``InvalidId`` (``ids=IdMap()`` maps it, to ids valid
  under the HTML docs' ``[a-zA-Z0-9_-]`` as well).
- ``text`` items become ``{"text": ...}``; blank ones are dropped (Bedrock
  rejects an empty text block).
- Text resources and ``text/*`` blobs become ``{"text": ...}`` too, not
  ``txt``/``md``/``html``/``csv`` documents: text reaches every model on
  Bedrock, while a document block needs a name and is documented inside a tool
  result for a few model families only.
- Images (PNG, JPEG, GIF, WebP), with ``image_input=True``, at most 3.75 MB
  decoded and 8000 px a side (the Converse docs):
  ``{"image": {"format": "png", "source": {"bytes": DATA}}}``. No request
  limit by default (the registry states a model's own).
- A PDF, with ``native_pdf=True`` and at most 4.5 MB decoded:
  ``{"document": {"format": "pdf", "name": NAME, "source": {"bytes": DATA}}}``.
  ``NAME`` follows Bedrock's rules: only letters and digits, single spaces,
  hyphens, parentheses and square brackets (ASCII), at most 200 characters,
  taken from the title of an Anthropic ``document`` block, else from the
  resource URI's last path segment (without ``.pdf`` either way), accents
  dropped and other characters turned into ``-`` (``document`` when nothing is
  left). Bedrock refuses a request holding two documents of one name: a name
  used before in the block, or (``format_tool_results``) in an earlier block of
  the same call, gets `` (2)``, `` (3)``, ... (the first free one).
- ``DATA`` is the base64 string, passed through as the same object (the JSON
  form of the HTTP API). With ``raw_bytes=True`` it is ``bytes`` for boto3,
  which base64-encodes on its own: exactly one decode per payload.
- Anthropic-native blocks, audio, links and anything else become a text block
  holding their string form (the placeholder, never the payload).
- When no block is left: the structured content as ``{"json": ...}`` (an object;
  another JSON value is wrapped as ``{"result": value}``), else a short text
  saying the tool returned nothing (Bedrock rejects empty text).
- Envelope: one ``{"role": "user", "content": [toolResult blocks]}`` message,
  its document names made unique across its blocks (as above).

Reading a block back (``read``), in either form (base64 strings, or ``bytes``
as boto3 takes them):

- ``toolUseId`` is the call id (missing: ``""``); ``status: "error"`` sets the
  error flag (``"success"`` or none clears it).
- ``{"text": ...}`` is a text item, except the texts written for a result
  without blocks (the no-output text, and the failed-without-output text under
  ``status: "error"``) when they are the only block: no content.
- ``{"json": ...}`` is the structured content as given (a second ``json`` block
  becomes a text item with its canonical JSON).
- ``{"image": {"format", "source": {"bytes"}}}`` is an MCP image of type
  ``image/FORMAT`` (png, jpeg, gif, webp).
- ``{"document": {"format": "pdf", "name", "source": {"bytes"}}}`` is an
  Anthropic ``document`` block (base64) titled ``NAME``, so writing it again on
  any wire names the file the same (the title on anthropic, the filename on
  responses); named ``document`` (the name of a PDF without one) it is an
  embedded blob resource at ``document.pdf``. doc, docx, xls and xlsx are
  embedded blob resources whose URI is the percent-encoded ``NAME.FORMAT``, with
  their MIME types; a txt, md, html or csv document (``bytes`` holding UTF-8, or
  a ``text`` source) is an embedded text resource of its MIME type.
- An image or document by ``s3Location``, an unknown format, a payload that is
  not base64 or bytes, a text document that is not UTF-8, and any other block
  (``video``, ...) become a text item with a placeholder naming it.
- Not an object with a ``toolResult`` object, a non-string id, a ``status`` other
  than ``"success"``/``"error"``, or ``content`` that is not a list of objects:
  ``InvalidBlock``.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Mapping, Sequence
from typing import Any

from .. import _read
from .._budget import own_budget
from .._idrules import IdRule, checker
from .._items import IMAGE, IMAGE_MIMES, PDF, Form, native_media
from .._links import pdf_filename
from .._options import IMAGE_LIMITS, PDF_LIMITS, Options
from .._values import wrapped
from .._wire import Result, Wire
from ..errors import describe

#: Bedrock's documented limits, decoded bytes (MB read as 10**6: the stricter reading).
MAX_IMAGE_BYTES = 3_750_000
MAX_DOCUMENT_BYTES = 4_500_000
MAX_IMAGE_SIDE = 8000
MAX_NAME = 200
DEFAULT_NAME = "document"
EMPTY_TEXT = "The tool returned no output."
EMPTY_ERROR_TEXT = "The tool failed without returning any output."
IMAGE_FORMATS = {mime: mime.split("/", 1)[1] for mime in IMAGE_MIMES}
IMAGE_FORM = Form(mimes=IMAGE_FORMATS, max_bytes=MAX_IMAGE_BYTES, max_side=MAX_IMAGE_SIDE)
PDF_FORM = Form(max_bytes=MAX_DOCUMENT_BYTES)
ID_RULE = IdRule(
    name="bedrock",
    pattern=r"^[a-zA-Z0-9_.:-]{1,64}$",
    max_length=64,
    description=(
        "toolUseId 1-64 letters, digits, _ . : - (botocore's bedrock-runtime service model;"
        " AWS's HTML docs omit . and :, so the id map writes neither)"
    ),
    safe="a-zA-Z0-9_-",
)
_ids_seen, _check_id = checker(ID_RULE, "bedrock")
_NOT_IN_NAME = re.compile(r"[^A-Za-z0-9\s\-()\[\]]+")
_SPACES = re.compile(r"\s+")
_NUMBERED = re.compile(r" \(\d+\)$")  # the suffix ``_unique`` gives a name used before


def reason(item: Any, options: Options) -> str | None:
    """Return why an image or PDF item is not sent natively, or None when it is."""
    return native_media(item, options, IMAGE_FORM, PDF_FORM)[0]


def block(result: Result, options: Options) -> dict[str, Any]:
    """Return the ``toolResult`` content block for ``result``.

    :raises InvalidId: for an id that breaks ``ID_RULE``.
    """
    if result.id not in _ids_seen:
        _check_id(result.id)
    if result._texts is None:  # media: the request limits (``_budget``)
        result = own_budget(WIRE, result, options)
    content: list[dict[str, Any]] = []
    names: set[str] = set()
    for item in result._items:
        text = item.text
        if item.kind in (IMAGE, PDF):
            _, data, text = native_media(item, options, IMAGE_FORM, PDF_FORM)
            if data is not None:
                payload: str | bytes = binascii.a2b_base64(data) if options.raw_bytes else data
                if item.kind == IMAGE:
                    image = {"format": IMAGE_FORMATS[item.mime], "source": {"bytes": payload}}
                    content.append({"image": image})
                else:
                    name = _unique(document_name(item.uri, item.title), names)
                    document = {"format": "pdf", "name": name, "source": {"bytes": payload}}
                    content.append({"document": document})
                continue
        if text.strip():
            content.append({"text": text})
    if not content:
        content.append(_empty(result))
    status = "error" if result.is_error else "success"
    return {"toolResult": {"toolUseId": result.id, "content": content, "status": status}}


def _empty(result: Result) -> dict[str, Any]:
    structured = result._structured[0]
    if structured is not None:
        return {"json": wrapped(structured)}
    return {"text": EMPTY_ERROR_TEXT if result.is_error else EMPTY_TEXT}


def document_name(uri: str, title: str = "") -> str:
    """Return a Bedrock document name for a resource URI, or for a document's ``title``.

    The ``title`` when there is one, else the last path segment, without ``.pdf``
    (as for the responses ``filename``), accents dropped, other characters than
    letters, digits, whitespace, ``-``, ``(``, ``)``, ``[`` and ``]`` turned into
    ``-``, whitespace runs into one space, at most 200 characters; ``document``
    when nothing is left.
    """
    stem = pdf_filename(uri, title)[:-4]
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
        found = _numbered(name, number)
    taken.add(found)
    return found


def _numbered(stem: str, number: int) -> str:
    """Return ``STEM (N)``, the stem cut to keep it within ``MAX_NAME``."""
    suffix = f" ({number})"
    return stem[: MAX_NAME - len(suffix)].rstrip() + suffix


def envelope(
    blocks: list[Any], results: Sequence[Result], options: Options
) -> list[dict[str, Any]]:
    """Return the one user message that carries every ``toolResult`` block.

    Its document names are made unique across the blocks (each block's are already).
    """
    if len(blocks) > 1:
        for result in results:
            if result._texts is None:  # not all plain text: there may be documents
                _unique_across(blocks)
                break
    return [{"role": "user", "content": blocks}]


def _unique_across(blocks: list[Any]) -> None:
    """Rename, in place, each document whose name an earlier block of ``blocks`` used.

    The blocks were just made by ``block`` (their documents are this call's own).
    A renamed document avoids every name of its own block, so it takes no name a
    later document there keeps; a name that already ends in `` (N)`` is numbered
    from its stem (``r (2)`` again becomes ``r (3)``, not ``r (2) (2)``).
    """
    taken: set[str] = set()  # the names of the earlier blocks
    numbers: dict[str, int] = {}  # stem -> the last N tried: every N up to it is taken
    for each in blocks:
        documents = [
            part["document"] for part in each["toolResult"]["content"] if "document" in part
        ]
        if not documents:
            continue
        here = {document["name"] for document in documents}
        for document in documents:
            name = document["name"]
            if name in taken:
                stem = _NUMBERED.sub("", name) or name
                number = numbers.get(stem, 1)
                while name in taken or name in here:
                    number += 1
                    name = _numbered(stem, number)
                numbers[stem] = number
                here.add(name)
                document["name"] = name
        taken |= here


# -- reader: a toolResult block back to the fields of a ToolResult --------------------

#: document formats read as a blob resource, and those read as text, by MIME type
_BLOB_FORMATS = {
    "pdf": "application/pdf",
    "doc": "application/msword",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "xls": "application/vnd.ms-excel",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}
_TEXT_FORMATS = {"txt": "text/plain", "md": "text/markdown", "html": "text/html", "csv": "text/csv"}
_IMAGE_TYPES = {form: mime for mime, form in IMAGE_FORMATS.items()}


def read(block: Any) -> _read.Read:
    """Return what a ``toolResult`` content block holds.

    :raises InvalidBlock: for a block that is not a ``toolResult`` (see above).
    """
    if not isinstance(block, Mapping) or not isinstance(block.get("toolResult"), Mapping):
        raise _read.fail("bedrock", "expected a block with a toolResult object")
    data = block["toolResult"]
    call_id = _read.string_field("bedrock", data, "toolUseId")
    status = data.get("status")
    if status not in (None, "success", "error"):
        raise _read.fail("bedrock", f"status must be 'success' or 'error', not {describe(status)}")
    is_error = status == "error"
    content = data.get("content")
    content = [] if content is None else content
    if not isinstance(content, (list, tuple)) or not all(isinstance(p, Mapping) for p in content):
        raise _read.fail("bedrock", "content must be a list of objects")
    if len(content) == 1 and content[0].get("text") == (
        EMPTY_ERROR_TEXT if is_error else EMPTY_TEXT
    ):
        return _read.Read([], is_error, id=call_id)
    items: list[dict[str, Any]] = []
    structured: Any = None
    for part in content:
        if "json" in part and structured is None and part["json"] is not None:
            structured = part["json"]
        else:
            items.append(_item(part))
    return _read.Read(items, is_error, structured, id=call_id)


def _item(part: Mapping[str, Any]) -> dict[str, Any]:
    """Return the content item of one block inside a ``toolResult``."""
    if isinstance(part.get("text"), str):
        return {"type": "text", "text": part["text"]}
    if "json" in part:
        return {"type": "text", "text": _read.json_text("bedrock", part["json"])}
    for kind in ("image", "document"):
        media = part.get(kind)
        if isinstance(media, Mapping):
            found = _media_item(kind, media)
            if found is not None:
                return found
            form = media.get("format")
            return _read.placeholder_item(kind, form if isinstance(form, str) else "")
    return _read.placeholder_item(next(iter(part), "block"))


def _media_item(kind: str, media: Mapping[str, Any]) -> dict[str, Any] | None:
    source = media.get("source")
    payload = source.get("bytes") if isinstance(source, Mapping) else None
    form = media.get("format")
    if kind == "image":
        mime = _IMAGE_TYPES.get(form) if isinstance(form, str) else None
        if mime is None or not isinstance(payload, (str, bytes, bytearray)):
            return None
        return _read.media_item(mime, payload)
    name = media.get("name")
    name = name if isinstance(name, str) and name else DEFAULT_NAME
    if not isinstance(form, str):
        return None
    if form in _TEXT_FORMATS:
        text = source.get("text") if isinstance(source, Mapping) else None
        if not isinstance(text, str):
            text = _utf8(payload)
        if text is None:
            return None
        uri = _read.name_uri(f"{name}.{form}")
        resource = {"uri": uri, "mimeType": _TEXT_FORMATS[form], "text": text}
        return {"type": "resource", "resource": resource}
    mime = _BLOB_FORMATS.get(form)
    if mime is None or not isinstance(payload, (str, bytes, bytearray)):
        return None
    if form == "pdf":
        title = "" if name == DEFAULT_NAME else name
        return _read.pdf_item(payload, title, uri=_read.name_uri(f"{name}.pdf"))
    return _read.media_item(mime, payload, uri=_read.name_uri(f"{name}.{form}"))


def _utf8(payload: object) -> str | None:
    """Return the UTF-8 text of a text document's bytes (base64 in the JSON form)."""
    try:
        if isinstance(payload, str):
            payload = binascii.a2b_base64(payload, strict_mode=True)
        if isinstance(payload, (bytes, bytearray)):
            return bytes(payload).decode("utf-8")
    except (binascii.Error, ValueError):  # UnicodeDecodeError is a ValueError
        pass
    return None


WIRE = Wire(
    name="bedrock",
    native={"image": True, "pdf": False},
    options=frozenset({"image_input", "native_pdf", "raw_bytes", *IMAGE_LIMITS, *PDF_LIMITS}),
    defaults=Options(),
    block=block,
    envelope=envelope,
    reason=reason,
    read=read,
    id_rule=ID_RULE,
)
