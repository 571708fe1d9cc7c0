"""Base64 payload rules shared by every wire.

Two levels of checking, so that a payload nobody sends costs nothing:

- :func:`screen` is O(1): it looks at the length, the padding, the first 16
  and the last 4 symbols (the final quantum must be canonical: no set trailing
  bits). It runs when a ``ToolResult`` is built and gives the placeholder its
  size from the length alone. Only a payload with whitespace at its head or
  tail (a line-wrapped payload) is cleaned in full there.
- :func:`clean` is the strict check, O(payload) without decoding: every symbol
  in the alphabet (``bytes.translate`` over 64 KB chunks, so memory stays
  flat), whitespace stripped, padding added. It runs on the first native use of
  a payload and is remembered by the item.

The conversion paths pass the cleaned string through as the same object, or
copy it once into a ``data:`` URL.
"""

from __future__ import annotations

import binascii

__all__ = ["clean", "data_url", "decoded_size", "encoded_length", "look", "screen", "sniff"]

_SYMBOLS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_ALPHABET = _SYMBOLS.encode("ascii")
_VALUE = {symbol: value for value, symbol in enumerate(_SYMBOLS)}
_WHITESPACE = " \n\r\t\f\v"
_WHITESPACE_BYTES = _WHITESPACE.encode("ascii")
_DROP_WHITESPACE = dict.fromkeys(map(ord, _WHITESPACE))
_CHUNK = 64 * 1024

# Leading bytes of the media kinds a wire can carry natively, by their first three
# (WebP, ``RIFF....WEBP``, is checked apart: its signature has a gap).
_SIGNATURES = {
    b"\x89PN": ((b"\x89PNG\r\n\x1a\n",), "image/png"),
    b"\xff\xd8\xff": ((b"\xff\xd8\xff",), "image/jpeg"),
    b"GIF": ((b"GIF87a", b"GIF89a"), "image/gif"),
    b"%PD": ((b"%PDF-",), "application/pdf"),
}


def _core(data: str) -> int | None:
    """Return the number of symbols before the padding, or None when the shape is wrong.

    Checks the length, the padding and that the final quantum is canonical (the
    bits a short final quantum leaves over are zero), all in O(1).
    """
    size = len(data)
    pads = 2 if data.endswith("==") else 1 if data.endswith("=") else 0
    core = size - pads
    rest = core % 4
    if rest == 1 or (pads and (rest == 0 or rest + pads > 4)):
        return None
    if rest:
        value = _VALUE.get(data[core - 1])
        if value is None or value & (0x0F if rest == 2 else 0x03):
            return None
    return core


def _in_alphabet(symbols: str) -> bool:
    return not symbols.encode("ascii").translate(None, _ALPHABET)


def screen(data: object) -> int | None:
    """Return the decoded size of a payload that looks like base64, else None (O(1)).

    A payload that passes may still hold a bad symbol in its middle; that is
    found by :func:`clean` when the payload is about to be sent. Whitespace
    inside a payload is counted out exactly when it makes the length no
    multiple of four or sits in the first 16 or last 4 symbols (the payload is
    then cleaned here); otherwise the size counts it as symbols.
    """
    if not isinstance(data, str) or not data.isascii():
        return None
    head, tail = data[:16], data[-4:]
    core = _core(data)
    if (
        core is None
        or not _in_alphabet(head[: min(16, core)])
        or not _in_alphabet(tail.rstrip("="))
    ):
        # A wrong shape or symbol at an end: broken, or whitespace inside (a
        # line-wrapped payload). Rare: check it all, once.
        if any(ws in head or ws in tail for ws in _WHITESPACE) or core is None:
            cleaned = clean(data)
            return None if cleaned is None else decoded_size(cleaned)
        return None
    return core * 3 // 4


def clean(data: object) -> str | None:
    """Return ``data`` as padded base64 without whitespace, or None if it is not base64.

    Strict: every symbol must be in the alphabet and the final quantum canonical.
    The original object is returned unchanged when it is already clean, so a
    well-formed payload is never copied.
    """
    if not isinstance(data, str) or not data.isascii():
        return None
    core = _core(data)
    end = len(data) if core is None else core
    for start in range(0, end, _CHUNK):
        left = data[start : min(start + _CHUNK, end)].encode("ascii").translate(None, _ALPHABET)
        if left:
            if left.translate(None, _WHITESPACE_BYTES + b"=") or not left.translate(None, b"="):
                return None  # a symbol outside the alphabet, or padding inside
            stripped = data.translate(_DROP_WHITESPACE)
            return clean(stripped) if stripped else None
    if core is None:
        return None
    missing = -len(data) % 4  # padding left out (accepted, and added back)
    return data + "=" * missing if missing else data


def decoded_size(data: str) -> int:
    """Return the number of bytes a clean ``data`` decodes to, without decoding it."""
    size = len(data) // 4 * 3
    if data.endswith("=="):
        return size - 2
    if data.endswith("="):
        return size - 1
    return size


def encoded_length(size: int) -> int:
    """Return the length of the padded base64 of ``size`` bytes (a byte limit in symbols)."""
    return -(-size // 3) * 4


def sniff(data: str) -> str | None:
    """Return the MIME type the first bytes of a payload announce, if known."""
    head64 = data[:16]
    if not _in_alphabet(head64.rstrip("=")):  # a line-wrapped payload: skip whitespace
        head64 = data[:96].translate(_DROP_WHITESPACE)[:16]
    try:
        head = binascii.a2b_base64(head64)
    except binascii.Error:
        return None
    return _magic(head)


def _magic(head: bytes) -> str | None:
    """Return the MIME type the leading bytes ``head`` announce, if known."""
    known = _SIGNATURES.get(head[:3])
    if known is not None:
        return known[1] if head.startswith(known[0]) else None
    return "image/webp" if head[:4] == b"RIFF" and head[8:12] == b"WEBP" else None


def look(data: object) -> tuple[int | None, str | None]:
    """Return ``(screen(data), sniff(data))``, the sniff None when the screen fails (O(1)).

    The usual payload (at least 20 symbols, no whitespace or padding in its first
    16) gets one strict decode of those 16 symbols, which checks their alphabet
    and gives the leading bytes; the rest of the screen is :func:`screen`'s.
    Anything else takes :func:`screen` and :func:`sniff` as they are.
    """
    if type(data) is str and data.isascii() and len(data) >= 20:
        head64 = data[:16]
        if "=" not in head64:
            try:
                head = binascii.a2b_base64(head64, strict_mode=True)
            except binascii.Error:
                head = b""
            if head:
                core = _core(data)
                if core is not None and _in_alphabet(data[-4:].rstrip("=")):
                    return core * 3 // 4, _magic(head)
    size = screen(data)
    return size, None if size is None else sniff(data)  # type: ignore[arg-type]


def data_url(mime: str, data: str) -> str:
    """Return a ``data:`` URL for a clean payload (the one copy of it a wire makes)."""
    return f"data:{mime};base64,{data}"
