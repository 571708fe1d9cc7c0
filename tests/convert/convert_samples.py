"""Small, real media files built in code, and their base64 forms.

Each file is tiny and well formed (a 1x1 PNG with valid CRCs, an 8x8 grey
baseline JPEG, a 1x1 GIF, 1x1 lossless and lossy WebPs, a one-page PDF with a
correct xref table), so the converter's magic-byte sniffing sees real headers.
"""

from __future__ import annotations

import base64
import struct
import zlib


def b64(data: bytes) -> str:
    """Return standard, padded base64 text for ``data``."""
    return base64.b64encode(data).decode("ascii")


def _png_chunk(kind: bytes, body: bytes) -> bytes:
    crc = zlib.crc32(kind + body) & 0xFFFFFFFF
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)


def make_png(width: int = 1, height: int = 1) -> bytes:
    """Return an RGBA PNG of transparent pixels."""
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    rows = b"".join(b"\x00" + b"\x00" * 4 * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", zlib.compress(rows))
        + _png_chunk(b"IEND", b"")
    )


def make_jpeg() -> bytes:
    """Return an 8x8 mid-grey baseline JPEG (one component, one all-zero block)."""
    soi = b"\xff\xd8"
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    dqt = b"\xff\xdb" + struct.pack(">H", 67) + b"\x00" + b"\x01" * 64
    sof0 = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, 8, 8, 1) + b"\x01\x11\x00"
    # One-code Huffman tables: DC category 0 and the AC end-of-block, each coded "0".
    counts = b"\x01" + b"\x00" * 15
    dht_dc = b"\xff\xc4" + struct.pack(">H", 20) + b"\x00" + counts + b"\x00"
    dht_ac = b"\xff\xc4" + struct.pack(">H", 20) + b"\x10" + counts + b"\x00"
    sos = b"\xff\xda" + struct.pack(">HB", 8, 1) + b"\x01\x00" + b"\x00\x3f\x00"
    scan = b"\x3f"  # bits 0 (DC diff 0) 0 (EOB), padded with ones
    return soi + app0 + dqt + sof0 + dht_dc + dht_ac + sos + scan + b"\xff\xd9"


def make_gif() -> bytes:
    """Return a 1x1 GIF89a."""
    return (
        b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff"
        b"!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"
    )


def _riff_webp(chunk: bytes, body: bytes) -> bytes:
    payload = chunk + struct.pack("<I", len(body)) + body + (b"\x00" if len(body) % 2 else b"")
    return b"RIFF" + struct.pack("<I", 4 + len(payload)) + b"WEBP" + payload


def make_webp_lossless() -> bytes:
    """Return a 1x1 lossless WebP (VP8L)."""
    return _riff_webp(b"VP8L", bytes.fromhex("2f00000010071011118888fe07"))


def make_webp_lossy() -> bytes:
    """Return a 1x1 lossy WebP (VP8)."""
    return _riff_webp(b"VP8 ", bytes.fromhex("3001009d012a010001000ec0fe25a400037000000000"))


def make_pdf(text: str = "Hello") -> bytes:
    """Return a one-page PDF with ``text`` on it and a correct xref table."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\n".encode()
    out += f"startxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


PNG = make_png()
PNG_BIG = make_png(4, 3)
JPEG = make_jpeg()
GIF = make_gif()
WEBP = make_webp_lossless()
WEBP_LOSSY = make_webp_lossy()
PDF = make_pdf()
WAV = (
    b"RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00@\x1f\x00\x00"
    b"@\x1f\x00\x00\x01\x00\x08\x00data\x00\x00\x00\x00"
)
ZIP = b"PK\x03\x04" + b"\x00" * 26

#: MIME type -> bytes of a real file of that type.
IMAGES = {
    "image/png": PNG,
    "image/jpeg": JPEG,
    "image/gif": GIF,
    "image/webp": WEBP,
}

PNG_B64 = b64(PNG)
JPEG_B64 = b64(JPEG)
GIF_B64 = b64(GIF)
WEBP_B64 = b64(WEBP)
PDF_B64 = b64(PDF)
WAV_B64 = b64(WAV)

#: magic prefix -> MIME type, as the tests sniff it (independently of the converter).
MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"%PDF-", "application/pdf"),
)


def sniff(data: bytes) -> str | None:
    """Return the MIME type the leading bytes of ``data`` announce, if any."""
    for magic, mime in MAGIC:
        if data.startswith(magic):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None
