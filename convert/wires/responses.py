"""The ``responses`` wire: an OpenAI Responses ``function_call_output`` item.

- ``call_id`` is non-empty and at most 64 characters (``ID_RULE``), else
  ``InvalidId``.
- Block: ``{"type": "function_call_output", "call_id": id, "output": ...}``, no role
  (the same envelope serves Perplexity's Agent API).
- ``output`` is the string form, unless an item goes out natively; then it is a
  list of parts in content order:
  - an image (JPEG, PNG, GIF, WebP), with ``image_input=True``: ``input_image``
    with a ``data:`` URL;
  - a PDF, with ``native_pdf=True``: ``input_file`` with ``file_data`` (a
    ``data:application/pdf;base64,`` URL) and a sanitized ``filename``: the title
    of an Anthropic ``document`` block, else the resource URI's last path segment,
    with ``.pdf`` (``document.pdf`` when neither gives a name);
  - with ``url_sources=True``, an https ``resource_link`` to an image
    (``image_input``) or a PDF (``native_pdf``): ``input_image`` with the URL in
    ``image_url``, or ``input_file`` with ``file_url``;
  - every other item: ``input_text`` with its string form (empty ones dropped).
- A payload over 50 MiB of base64 (the API's request limit) stays a placeholder.
- ``is_error`` has no field on this wire and is not sent.

Reading an item back (``read``): ``call_id`` is the call id (missing: ``""``);
a string ``output`` is one text item (none for ``""``), placeholders included. A
part list is one item per part, in order:

- ``input_text``: a text item;
- ``input_image`` with a base64 ``data:`` URL: an MCP image item; with another
  URL (the form ``url_sources`` writes): a ``resource_link`` to it whose
  ``mimeType`` is the image type the URL's extension names, else ``image/jpeg``;
  with only a ``file_id``: a placeholder;
- ``input_file`` with a base64 ``data:`` URL: an embedded blob resource whose URI
  is the percent-encoded ``filename`` (so writing it again gives the same name);
  a PDF named other than ``document.pdf`` is an Anthropic ``document`` block
  titled with the filename without ``.pdf`` instead, so the name reaches the
  title on anthropic and the document name on bedrock too;
  with a ``file_url``: a ``resource_link`` (``application/pdf``, named by
  ``filename`` if any); with only a ``file_id``: a placeholder;
- any other part: its placeholder.

Not a ``function_call_output``, a non-string id, or an output that is neither a
string nor a list of typed parts: ``InvalidBlock``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .. import _read
from .._budget import own_budget
from .._idrules import IdRule, checker
from .._items import IMAGE, IMAGE_MIMES, LINK, PDF, Form, native_media
from .._links import link_kind, link_reason, pdf_filename, pdf_title
from .._options import IMAGE_LIMITS, PDF_LIMITS, Options
from .._wire import Result, Wire

#: the API's request limit; a request carries the base64, so in base64 symbols
MAX_BASE64 = 50 * 1024 * 1024
#: images (every image type) and PDFs alike
FORM = Form(max_base64=MAX_BASE64)
ID_RULE = IdRule(
    name="responses",
    pattern=r"(?s)^.{1,64}$",
    max_length=64,
    description=(
        "call_id non-empty, at most 64 characters (API errors quoted in"
        " AnswerDotAI/fastllm#45, hermes-agent PR #73538)"
    ),
)
_, _check_id = checker(ID_RULE, "responses")


def block(result: Result, options: Options) -> dict[str, Any]:
    """Return the ``function_call_output`` item for ``result``.

    :raises InvalidId: for an id that breaks ``ID_RULE``.
    """
    if not result.id or len(result.id) > 64:
        _check_id(result.id)
    output: str | list[dict[str, Any]] = result._string
    if (options.image_input or options.native_pdf) and result._texts is None:
        parts = _parts(own_budget(WIRE, result, options), options)  # request limits too
        if parts is not None:
            output = parts
    return {"type": "function_call_output", "call_id": result.id, "output": output}


def _parts(result: Result, options: Options) -> list[dict[str, Any]] | str | None:
    """Return the part list; when no item goes out natively, the string form if a
    payload failed the strict check on the way (its placeholder says so), else None."""
    parts: list[dict[str, Any]] = []
    texts: list[str] = []
    native = changed = False
    for item in result._items:
        kind = item.kind
        text = item.text
        if kind == LINK and reason(item, options) is None:
            if link_kind(item, IMAGE_MIMES) == "image":
                parts.append({"type": "input_image", "image_url": item.uri})
            else:
                parts.append({"type": "input_file", "file_url": item.uri})
            native = True
            continue
        if kind in (IMAGE, PDF):
            _, url, text = native_media(item, options, FORM, FORM, url=True)
            if url is not None:
                native = True
                if kind == IMAGE:
                    parts.append({"type": "input_image", "image_url": url})
                else:
                    parts.append(
                        {
                            "type": "input_file",
                            "file_data": url,
                            "filename": pdf_filename(item.uri, item.title),
                        }
                    )
                continue
        changed = changed or text is not item.text
        texts.append(text)
        if text.strip():
            parts.append({"type": "input_text", "text": text})
    if native:
        return parts
    return "\n".join(texts) if changed else None


def reason(item: Any, options: Options) -> str | None:
    """Return why an image, PDF or link item is not sent natively, or None when it is."""
    if item.kind == LINK:
        return link_reason(item, options, IMAGE_MIMES, options.native_pdf)
    return native_media(item, options, FORM, FORM)[0]


def envelope(
    blocks: list[Any], results: Sequence[Result], options: Options
) -> list[dict[str, Any]]:
    """Return the input items, one ``function_call_output`` per result."""
    return blocks


# -- reader: a function_call_output item back to the fields of a ToolResult ------------


def read(block: Any) -> _read.Read:
    """Return what a ``function_call_output`` item holds.

    :raises InvalidBlock: for an item that is not a ``function_call_output``.
    """
    data = _read.tool_block("responses", block, "type", "function_call_output")
    call_id = _read.string_field("responses", data, "call_id")
    output = data.get("output")
    if output is None or isinstance(output, str):
        return _read.Read(_read.text_content(output or ""), id=call_id)
    parts = _read.block_list("responses", output, "output")
    return _read.Read([_item(part) for part in parts], id=call_id)


def _item(part: Mapping[str, Any]) -> dict[str, Any]:
    kind = part["type"]
    if kind == "input_text" and isinstance(part.get("text"), str):
        return {"type": "text", "text": part["text"]}
    if kind == "input_image":
        url = part.get("image_url")
        found = _read.split_data_url(url)
        if found is not None:
            return _read.media_item(*found)
        if isinstance(url, str) and url and url[:5].lower() != "data:":
            return _read.url_link(url, "image/jpeg")
    elif kind == "input_file":
        name = part.get("filename")
        name = name if isinstance(name, str) else ""
        found = _read.split_data_url(part.get("file_data"))
        if found is not None:
            if found[0].lower() == "application/pdf":
                return _read.pdf_item(found[1], pdf_title(name), uri=_read.name_uri(name))
            return _read.media_item(*found, uri=_read.name_uri(name))
        url = part.get("file_url")
        if isinstance(url, str) and url:
            return _read.url_link(url, "application/pdf", name)
    return _read.placeholder_item(kind)


WIRE = Wire(
    name="responses",
    native={"image": True, "pdf": True},
    options=frozenset({"image_input", "native_pdf", "url_sources", *IMAGE_LIMITS, *PDF_LIMITS}),
    defaults=Options(),
    block=block,
    envelope=envelope,
    reason=reason,
    read=read,
    id_rule=ID_RULE,
)
