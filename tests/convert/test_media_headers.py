"""Image sides from headers and PDF page counts, against real files (Pillow's, and ``file``)."""

from __future__ import annotations

import base64
import io
import shutil
import subprocess
import zlib

import pytest
from convert_samples import JPEG, PDF, PNG, WEBP, WEBP_LOSSY, b64
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image
from toolwire.convert._imagesize import MAX_SEGMENTS, image_size
from toolwire.convert._pdfpages import page_bound, page_count

SIZES = [(1, 1), (64, 48), (17, 3000), (8001, 2), (16383, 1)]
FORMATS = [
    ("PNG", "image/png", {}),
    ("JPEG", "image/jpeg", {}),
    ("JPEG", "image/jpeg", {"progressive": True}),
    ("JPEG", "image/jpeg", {"exif": b"Exif\x00\x00" + b"y" * 30000}),  # a long APP1 first
    ("GIF", "image/gif", {}),
    ("WEBP", "image/webp", {"lossless": True}),  # VP8L
    ("WEBP", "image/webp", {"quality": 50}),  # VP8
    ("WEBP", "image/webp", {"exif": b"Exif\x00\x00" + b"x" * 64}),  # VP8X
]


def encoded(width: int, height: int, fmt: str, **save: object) -> bytes:
    out = io.BytesIO()
    Image.new("RGB" if fmt != "GIF" else "P", (width, height)).save(out, fmt, **save)
    return out.getvalue()


@pytest.mark.parametrize(("fmt", "mime", "save"), FORMATS)
@pytest.mark.parametrize("size", SIZES)
def test_the_header_gives_the_size_pillow_wrote(
    fmt: str, mime: str, save: dict[str, object], size: tuple[int, int]
) -> None:
    if fmt == "WEBP" and max(size) > 16383:
        pytest.skip("WebP is at most 16383 px a side")
    raw = encoded(*size, fmt, **save)
    assert image_size(b64(raw), mime) == size
    assert Image.open(io.BytesIO(raw)).size == size  # what a decoder reads


@pytest.mark.skipif(shutil.which("file") is None, reason="the file command is not installed")
@pytest.mark.parametrize(("fmt", "mime"), [("PNG", "image/png"), ("GIF", "image/gif")])
def test_the_size_is_what_file_reads(fmt: str, mime: str) -> None:
    raw = encoded(321, 123, fmt)
    shown = subprocess.run(["file", "-"], input=raw, capture_output=True, check=True).stdout
    assert b"321 x 123" in shown
    assert image_size(b64(raw), mime) == (321, 123)


def test_the_samples_hand_made_headers() -> None:
    assert image_size(b64(PNG), "image/png") == (1, 1)
    assert image_size(b64(JPEG), "image/jpeg") == Image.open(io.BytesIO(JPEG)).size
    assert image_size(b64(WEBP), "image/webp") == (1, 1)
    assert image_size(b64(WEBP_LOSSY), "image/webp") == (1, 1)


@pytest.mark.parametrize(
    ("raw", "mime"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00", "image/png"),  # cut before IHDR
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDX" + b"\x00" * 8, "image/png"),
        (b"GIF89a\x01", "image/gif"),
        (b"RIFF\x00\x00\x00\x00WEBPVP8Z" + b"\x00" * 18, "image/webp"),
        (b"\xff\xd8\xff\xda\x00\x08", "image/jpeg"),  # the scan before any frame
        (b"\xff\xd8\xff\xe0\x00\x10", "image/jpeg"),  # cut inside a segment
        (b"\xff\xd8\x00\x00", "image/jpeg"),  # not a marker
        (PNG, "image/jpeg"),  # the wrong format
        (PNG, "image/bmp"),
    ],
)
def test_an_unreadable_header_is_none(raw: bytes, mime: str) -> None:
    assert image_size(b64(raw), mime) is None


def test_a_jpeg_frame_after_too_many_segments_is_unknown() -> None:
    comment = b"\xff\xfe\x00\x03x"  # a 1-byte COM segment
    frame = b"\xff\xc0\x00\x0b\x08\x00\x02\x00\x03\x01\x01\x11\x00"
    near = b"\xff\xd8" + comment * (MAX_SEGMENTS - 1) + frame
    far = b"\xff\xd8" + comment * MAX_SEGMENTS + frame
    assert image_size(b64(near), "image/jpeg") == (3, 2)
    assert image_size(b64(far), "image/jpeg") is None


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=64), st.sampled_from(["image/png", "image/jpeg", "image/gif",
                                                "image/webp"]))  # fmt: skip
def test_any_bytes_give_a_size_or_none_and_never_raise(raw: bytes, mime: str) -> None:
    found = image_size(b64(raw), mime)
    assert found is None or (len(found) == 2 and min(found) >= 0)


def pillow_pdf(pages: int) -> bytes:
    out = io.BytesIO()
    sheets = [Image.new("RGB", (10, 10)) for _ in range(pages)]
    sheets[0].save(out, "PDF", save_all=True, append_images=sheets[1:])
    return out.getvalue()


@pytest.mark.parametrize("pages", [1, 2, 7, 150])
def test_pages_of_real_pdfs(pages: int) -> None:
    raw = pillow_pdf(pages)
    assert page_count(b64(raw)) == pages
    bound = page_bound(b64(raw), len(raw))
    assert bound is not None and bound >= pages


def test_the_samples_pdf_has_one_page_and_its_trailer_bounds_it() -> None:
    assert page_count(b64(PDF)) == 1
    assert page_bound(b64(PDF), len(PDF)) == 6  # /Size 6: five objects and the free one


def object_stream_pdf(pages: int) -> bytes:
    """A PDF 1.5 whose page objects sit in a Flate-compressed object stream."""
    kids = " ".join(f"{n + 3} 0 R" for n in range(pages))
    inside = b" ".join(
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >>" for _ in range(pages)
    )
    packed = zlib.compress(inside)
    return (
        b"%PDF-1.5\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
        + f"2 0 obj\n<< /Type /Pages /Kids [{kids}] /Count {pages} >>\nendobj\n".encode()
        + f"9 0 obj\n<< /Type /ObjStm /N {pages} /First 0 /Filter /FlateDecode"
        f" /Length {len(packed)} >>\nstream\n".encode()
        + packed
        + b"\nendstream\nendobj\ntrailer\n<< /Size 10 /Root 1 0 R >>\n%%EOF\n"
    )


def test_pages_inside_object_streams_are_counted() -> None:
    raw = object_stream_pdf(4)
    assert raw.count(b"/Type /Page ") == 0  # none visible without inflating
    assert page_count(b64(raw)) == 4
    assert page_bound(b64(raw), len(raw)) == 10


def test_the_bound_follows_startxref_to_a_cross_reference_stream() -> None:
    body = b"%PDF-1.5\n" + b"%" + b"x" * 5000 + b"\n"
    xref_at = len(body)
    xref = b"7 0 obj\n<< /Type /XRef /Size 42 /W [1 2 1] /Length 4 >>\nstream\n" + b"\0" * 4000
    tail = b"\nendstream\nendobj\nstartxref\n" + str(xref_at).encode() + b"\n%%EOF\n"
    raw = body + xref + tail
    assert page_bound(b64(raw), len(raw)) == 42


def test_a_pdf_without_a_trailer_has_no_bound_and_counts_at_least_one_page() -> None:
    raw = b"%PDF-1.7\n%" + bytes(range(256)) * 40 + b"\n%%EOF\n"
    assert page_bound(b64(raw), len(raw)) is None
    assert page_count(b64(raw)) == 1


def test_pages_are_not_pages_nodes() -> None:
    raw = b"%PDF-1.4\n<< /Type /Pages /Count 2 >> << /Type/Page >> << /Type /Page/Parent 1 0 R >>"
    assert page_count(base64.b64encode(raw).decode()) == 2


def test_a_hostile_pdf_is_read_in_one_pass_within_one_inflation_budget() -> None:
    # a stream marker after marker and no endstream: each byte is scanned once, not once
    # per marker (which would never end on a payload of many megabytes)
    markers = b"%PDF-1.5\n" + b"<< /Type /ObjStm >>\nstream\n" * 200_000
    assert page_count(b64(markers)) == 1
    # many small zlib bombs: together they inflate no more than the one budget
    bomb = zlib.compress(b"\0" * (16 * 1024 * 1024) + b"<< /Type /Page >>")
    stream = b"<< /Type /ObjStm >>\nstream\n" + bomb + b"\nendstream\n"
    pages = page_count(b64(b"%PDF-1.5\n" + stream * 8))
    assert 1 <= pages < 8  # the streams past the budget are not inflated
    assert page_count(b64(b"%PDF-1.5\n" + stream * 3)) == 3  # within it, all are read
