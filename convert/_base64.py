"""Base64 payload rules shared by every wire.

Everything here is O(1) in the payload except :func:`clean`, which runs once per
blob when a ``ToolResult`` is built (a whitespace scan and one regular-expression
match, no decoding). The conversion paths then pass the cleaned string through
as the same object, or copy it once into a ``data:`` URL.
"""

from __future__ import annotations

import binascii
import re

__all__ = ["clean", "data_url", "decoded_size", "sniff"]

_ALPHABET = re.compile(r"[A-Za-z0-9+/]*={0,2}")
_WHITESPACE = (" ", "\n", "\r", "\t", "\f", "\v")
_DROP_WHITESPACE = dict.fromkeys(map(ord, _WHITESPACE))

# Leading bytes of the media kinds a wire can carry natively.
_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"%PDF-", "application/pdf"),
)


def clean(data: object) -> str | None:
    """Return ``data`` as padded base64 without whitespace, or None if it is not base64.

    The original object is returned unchanged when it is already clean, so a
    well-formed payload is never copied.
    """
    if not isinstance(data, str) or not data.isascii():
        return None
    if any(ws in data for ws in _WHITESPACE):
        data = data.translate(_DROP_WHITESPACE)
    remainder = len(data) % 4
    if remainder == 1:
        return None
    if remainder:
        data += "=" * (4 - remainder)
    if _ALPHABET.fullmatch(data) is None:
        return None
    return data


def decoded_size(data: str) -> int:
    """Return the number of bytes ``data`` decodes to, without decoding it."""
    size = len(data) // 4 * 3
    if data.endswith("=="):
        return size - 2
    if data.endswith("="):
        return size - 1
    return size


def sniff(data: str) -> str | None:
    """Return the MIME type the first bytes of a clean payload announce, if known."""
    try:
        head = binascii.a2b_base64(data[:16])
    except binascii.Error:
        return None
    for magic, mime in _SIGNATURES:
        if head.startswith(magic):
            return mime
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def data_url(mime: str, data: str) -> str:
    """Return a ``data:`` URL for a clean payload (the one copy of it a wire makes)."""
    return f"data:{mime};base64,{data}"
