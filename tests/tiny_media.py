"""The smallest real media the tests send: a 1x1 PNG and a tiny PDF, as base64."""

from __future__ import annotations

import base64

#: a real 1x1 PNG (its signature and header as a decoder reads them)
PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
        "0000000d4944415478da63f8cfc0f01f0005fe02fe0de6a3ab0000000049454e44ae426082"
    )
).decode()
#: a tiny PDF: a header, one object and a trailer
PDF = base64.b64encode(b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n").decode()
