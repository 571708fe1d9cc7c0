"""The challenge a probe asks the model to read back, and the media that carry it.

The code is six characters from an alphabet without look-alikes: no O/0/Q/D, I/1/L,
S/5, B/8, Z/2, G/6, U/V, and no 3 or 9 (OCR takes them for S and O), so neither a
model nor an OCR check misreads one character for another. The PNG is drawn with
Pillow, large and black on white; the PDF is one page written by hand with a standard
Type 1 font, so its text extracts.
"""

from __future__ import annotations

import io
import secrets

from ..errors import InvalidInput

__all__ = ["ALPHABET", "LENGTH", "check_challenge", "new_challenge", "render_pdf", "render_png"]

ALPHABET = "ACEFHJKMNPRTWXY47"
LENGTH = 6


def new_challenge() -> str:
    """Return a fresh random code of ``LENGTH`` characters from ``ALPHABET``."""
    return "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))


def check_challenge(code: str) -> str:
    """Return ``code`` in upper case when it is a valid challenge.

    :raises InvalidInput: unless it is six characters of ``ALPHABET`` (any case).
    """
    upper = code.upper()
    if len(upper) != LENGTH or any(ch not in ALPHABET for ch in upper):
        raise InvalidInput(
            f"invalid challenge {code!r}: {LENGTH} characters from {ALPHABET} (no look-alikes)"
        )
    return upper


def render_png(code: str) -> bytes:
    """Return a PNG showing ``code`` in large, bold black letters on white."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default(size=72)  # Pillow's bundled scalable font
    stroke = 2  # a little bold: thin strokes are what OCR misreads
    left, top, right, bottom = (round(v) for v in font.getbbox(code, stroke_width=stroke))
    margin = 40
    image = Image.new("L", (right - left + 2 * margin, bottom - top + 2 * margin), 255)
    ImageDraw.Draw(image).text(
        (margin - left, margin - top), code, fill=0, font=font, stroke_width=stroke, stroke_fill=0
    )
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def render_pdf(code: str) -> bytes:
    """Return a one-page PDF (A4) whose only text is the code, in 48-point Helvetica."""
    text = f"The code is {code}"
    stream = f"BT /F1 48 Tf 60 520 Td ({text}) Tj ET".encode("ascii")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)
