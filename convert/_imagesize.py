"""An image's width and height from its header, read from the base64 without decoding it all.

No image decoder: only the bytes the header needs are decoded (a few quanta of
base64 at the offsets the format says), so the cost does not grow with the
payload (JPEG: one short read per segment up to the frame header, bounded).

- PNG: the ``IHDR`` chunk (bytes 16-23, big-endian width and height).
- GIF: the logical screen (bytes 6-9, little-endian); a frame larger than the
  screen is not looked for.
- WebP: ``VP8 `` (the key frame's 14-bit sizes), ``VP8L`` (the 14-bit sizes
  minus one after the signature byte) and ``VP8X`` (the 24-bit canvas sizes minus one).
- JPEG: the segments are walked from the start to the first start-of-frame marker
  (``SOF0``-``SOF15`` but ``DHT``, ``JPG`` and ``DAC``), at most
  ``MAX_SEGMENTS`` of them; a standalone marker (``RST``, ``TEM``) has no length.

A header that cannot be read (truncated, another format, a JPEG with its frame
after ``MAX_SEGMENTS`` segments) gives None: the size is unknown, and the side
limits do not apply to the image.
"""

from __future__ import annotations

from ._base64 import decode_range

__all__ = ["MAX_SEGMENTS", "image_size"]

MAX_SEGMENTS = 256
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
_STANDALONE = frozenset({0x01, *range(0xD0, 0xD8)})


def image_size(data: str, mime: str) -> tuple[int, int] | None:
    """Return ``(width, height)`` of a clean base64 image of type ``mime``, or None."""
    if mime == "image/png":
        head = decode_range(data, 12, 12)
        if len(head) == 12 and head[:4] == b"IHDR":
            return int.from_bytes(head[4:8], "big"), int.from_bytes(head[8:12], "big")
        return None
    if mime == "image/gif":
        head = decode_range(data, 6, 4)
        if len(head) == 4:
            return int.from_bytes(head[:2], "little"), int.from_bytes(head[2:], "little")
        return None
    if mime == "image/webp":
        return _webp(decode_range(data, 12, 18))
    if mime == "image/jpeg":
        return _jpeg(data)
    return None


def _webp(head: bytes) -> tuple[int, int] | None:
    """The size from the first chunk of a WebP (``head``: its bytes 12 to 29)."""
    if len(head) < 18:
        return None
    chunk, body = head[:4], head[8:]
    if chunk == b"VP8 " and body[3:6] == b"\x9d\x01\x2a":
        width = int.from_bytes(body[6:8], "little") & 0x3FFF
        height = int.from_bytes(body[8:10], "little") & 0x3FFF
        return width, height
    if chunk == b"VP8L" and body[0] == 0x2F:
        bits = int.from_bytes(body[1:5], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":
        width = int.from_bytes(body[4:7], "little") + 1
        height = int.from_bytes(body[7:10], "little") + 1
        return width, height
    return None


def _jpeg(data: str) -> tuple[int, int] | None:
    """The size in the first start-of-frame segment of a JPEG."""
    at = 2  # after SOI
    for _ in range(MAX_SEGMENTS):
        head = decode_range(data, at, 9)
        if len(head) < 2 or head[0] != 0xFF:
            return None
        marker = head[1]
        if marker == 0xFF:  # a fill byte before the marker
            at += 1
            continue
        if marker in _STANDALONE:
            at += 2
            continue
        if len(head) < 4:
            return None
        if marker in _SOF:
            if len(head) < 9:
                return None
            height = int.from_bytes(head[5:7], "big")
            width = int.from_bytes(head[7:9], "big")
            return width, height
        if marker in (0xD9, 0xDA):  # end of image, or the scan: no frame header before it
            return None
        at += 2 + int.from_bytes(head[2:4], "big")
    return None
