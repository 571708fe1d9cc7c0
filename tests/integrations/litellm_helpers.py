"""What the LiteLLM tests share: the payloads, the conversations, the hoisting model."""

from __future__ import annotations

import base64
from typing import Any

#: the model that hoists (hoist_media and pdf_input claimed in the test registry)
HOISTING = "gpt-4o-ignorer"

# A real 1x1 PNG and a small PDF; their base64 must never reach a model as text.
PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
        "0000000d4944415478da63f8cfc0f01f0005fe02fe0de6a3ab0000000049454e44ae426082"
    )
).decode()
PDF = base64.b64encode(b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n").decode()


def media_parts() -> list[dict[str, Any]]:
    return [
        {"type": "text", "text": "the screen and the report"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
        {
            "type": "file",
            "file": {"file_data": f"data:application/pdf;base64,{PDF}", "filename": "r.pdf"},
        },
    ]


def conversation(*call_ids: str, media: bool = True) -> list[dict[str, Any]]:
    """Return a conversation: one assistant turn calling tools, then their results."""
    names = ["bash", "read_file"]
    calls = [
        {"id": call_id, "type": "function", "function": {"name": names[i % 2], "arguments": "{}"}}
        for i, call_id in enumerate(call_ids)
    ]
    results = [
        {
            "role": "tool",
            "tool_call_id": call_id,
            "content": media_parts() if media and i == 0 else f"output {i}",
        }
        for i, call_id in enumerate(call_ids)
    ]
    return [
        {"role": "user", "content": "look at the screen"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        *results,
    ]
