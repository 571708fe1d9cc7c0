"""Chat Completions content parts read as the Responses parts that carry the same data URLs.

The converter has no reader for media in the Chat shape (the openai wire's tool
message holds text only), but the Responses wire's ``input_image`` and
``input_file`` parts are the same ``data:`` URLs, so a Chat part is read through
that wire's reader: ``image_url`` -> ``input_image``, ``file`` (``file_data``,
``filename``, ``file_id``) -> ``input_file``, ``text`` -> ``input_text``; any other
part keeps its type, which the reader shows as a placeholder.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["as_responses", "responses_part"]


def as_responses(message: Mapping[str, Any]) -> dict[str, Any]:
    """Return a Chat tool message as the Responses ``function_call_output`` it matches."""
    content = message.get("content")
    output: Any = content
    if type(content) is list:
        output = [responses_part(part) for part in content]
    return {
        "type": "function_call_output",
        "call_id": message.get("tool_call_id") or "",
        "output": output,
    }


def responses_part(part: object) -> dict[str, Any]:
    """Return a Chat content part as the Responses input part of the same payload."""
    if type(part) is not dict:
        return {"type": type(part).__name__}
    kind = part.get("type")
    if kind == "text":
        return {"type": "input_text", "text": part.get("text")}
    if kind == "image_url":
        url = part.get("image_url")
        url = url.get("url") if type(url) is dict else url
        return {"type": "input_image", "image_url": url}
    if kind == "file":
        file = part.get("file")
        if type(file) is dict:
            found = {"type": "input_file"}
            for key in ("file_data", "filename", "file_id"):
                if key in file:
                    found[key] = file[key]
            return found
    return {"type": kind if isinstance(kind, str) and kind else "unknown"}
