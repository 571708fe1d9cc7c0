"""What the rest of a Chat request sends the provider: its images and PDF bytes.

A provider counts its request limits (``max_images``, ``max_pdf_request_bytes``,
...) over the whole request it receives, not over the tool results alone. The
converter counts the media of the tool messages itself, as one call; this module
counts those of the request's other messages, which toolwire does not rewrite, as
LiteLLM sends them (checked against LiteLLM 1.110's request bodies):

- ``user`` messages: every ``image_url`` part is one image, by ``data:`` URL or by
  link (the provider receives it either way); a ``file`` part is read by the
  converter's own reader (``_parts``): a PDF adds its decoded bytes, an image
  counts as one image.
- ``assistant`` messages: only on a wire where LiteLLM sends their media
  (``ASSISTANT_MEDIA``: gemini, as ``inline_data`` parts of the model turn). On
  anthropic LiteLLM drops them, on bedrock it fails before sending the request, and
  the OpenAI API refuses them.
- ``system`` and ``developer`` messages, tool messages (the converter's), and
  messages that are not plain dicts (SDK objects) are not counted.
- Not counted, as the converter's own budget does not count them either: a PDF by
  ``file_id`` or by link (its size is unknown here), and a ``file`` part whose
  payload is not valid base64 (the provider rejects it anyway).
- PDF pages are not counted: the converter exposes no page counter (its budget
  counts the pages of the tool results' PDFs). Nor are image sides read:
  ``AlreadySent`` holds a count, and the ``many_images`` rule judges only the
  call's own images.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolwire.convert import AlreadySent, ToolResult, ToolwireError, report

from ._parts import responses_part

__all__ = ["ASSISTANT_MEDIA", "already_sent"]

#: The wires on which LiteLLM sends an assistant message's image and file parts.
ASSISTANT_MEDIA = frozenset({"gemini"})
_PDF = "application/pdf"
#: A wire with no media form: its report reads each item's type, MIME type and
#: decoded size, and checks or decodes no payload.
_READER = "hermes"


def already_sent(messages: Sequence[Any], wire: str) -> AlreadySent:
    """Return the images and PDF bytes the request's messages other than tool messages
    send on ``wire`` (see the module's rules)."""
    images = pdf_bytes = 0
    assistant = wire in ASSISTANT_MEDIA
    for message in messages:
        if type(message) is not dict:
            continue
        role = message.get("role")
        if role != "user" and (role != "assistant" or not assistant):
            continue
        content = message.get("content")
        if type(content) is not list:
            continue
        files = []
        for part in content:
            if type(part) is not dict:
                continue
            kind = part.get("type")
            if kind == "image_url":
                images += 1
            elif kind == "file":
                files.append(responses_part(part))
        if files:
            more_images, more_bytes = _files(files)
            images += more_images
            pdf_bytes += more_bytes
    return AlreadySent(images=images, pdf_bytes=pdf_bytes)


def _files(parts: list[dict[str, Any]]) -> tuple[int, int]:
    """Return (images, PDF bytes) of Responses ``input_file`` parts."""
    block = {"type": "function_call_output", "call_id": "-", "output": parts}
    try:
        decisions = report(_READER, ToolResult.from_wire("responses", block))
    except ToolwireError:  # parts the reader refuses: the provider is sent nothing it reads
        return 0, 0
    images = pdf_bytes = 0
    for decision in decisions:
        if decision.type == "image" and decision.mime:
            images += 1
        elif decision.mime == _PDF:
            pdf_bytes += decision.size
    return images, pdf_bytes
