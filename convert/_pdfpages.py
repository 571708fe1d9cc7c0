"""A PDF's page count, without a PDF library, and a bound on it that reads only the file's end.

- :func:`page_bound` is O(1): the trailer's ``/Size`` (the number of objects in
  the file, so at least its pages) read from the last ``TAIL`` bytes, or from
  the cross-reference stream ``startxref`` points at (PDF 1.5). None when
  neither is found (a payload that does not end as a PDF does): the budget then
  counts it as one page and does not scan it (a scan is O(payload), and such a
  file is not one a provider reads as a PDF anyway).
- :func:`page_count` is O(payload): the page objects, that is the names
  ``/Type /Page`` not followed by another name character (so not ``/Pages``),
  counted on the decoded bytes, plus those inside object streams
  (``/Type /ObjStm``, Flate-compressed, inflated with ``zlib``). Limits of the
  method: a page object an incremental update replaced is counted twice (more
  pages, never fewer: a request is refused sooner, never rejected); a stream with
  another filter is not read; a file where no page object is found counts as
  one page.

The budget counts pages only when the bounds of the PDFs of a call could pass
``max_pdf_pages`` (see ``_budget``).
"""

from __future__ import annotations

import binascii
import re
import zlib
from typing import Any

__all__ = ["TAIL", "page_bound", "page_count"]

TAIL = 4096
_a2b = binascii.a2b_base64
_SIZE = re.compile(rb"/Size\s+(\d+)")
_STARTXREF = re.compile(rb"startxref\s+(\d+)")
_PAGE = re.compile(rb"/Type\s*/Page(?![^\s()<>\[\]{}/%])")
_OBJSTM = re.compile(rb"/Type\s*/ObjStm")
_STREAM = re.compile(rb"stream\r?\n")
_MAX_INFLATED = 64 * 1024 * 1024  # per object stream: a bound on a hostile one


def _decoded(data: str, start: int, count: int) -> bytes:
    first = max(0, start // 3 * 4)
    last = -(-(start + count) // 3) * 4
    try:
        chunk = _a2b(data[first:last])
    except binascii.Error:
        return b""
    skip = start - first // 4 * 3
    return chunk[skip : skip + count]


def page_bound(data: str, size: int) -> int | None:
    """Return the number of objects of a clean base64 PDF of ``size`` bytes, or None."""
    tail = _decoded(data, max(0, size - TAIL), TAIL)
    found = _SIZE.findall(tail)
    if found:
        return int(found[-1])
    xref = _STARTXREF.findall(tail)
    if xref:
        offset = int(xref[-1])
        if 0 <= offset < size:
            found = _SIZE.findall(_decoded(data, offset, TAIL))
            if found:
                return int(found[0])
    return None


def page_count(data: str) -> int:
    """Return the number of page objects of a clean base64 PDF (at least 1).

    Decoded with ``pybase64`` where the ``speed`` extra installed it (several times
    faster than the standard library on a large payload), else ``binascii``.
    """
    try:
        pdf = _decode()(data)
    except (binascii.Error, ValueError):
        return 1
    pages = len(_PAGE.findall(pdf))
    for match in _OBJSTM.finditer(pdf):
        stream = _STREAM.search(pdf, match.end())
        if stream is None:
            continue
        end = pdf.find(b"endstream", stream.end())
        if end < 0:
            continue
        try:
            inflated = zlib.decompressobj().decompress(pdf[stream.end() : end], _MAX_INFLATED)
        except zlib.error:
            continue
        pages += len(_PAGE.findall(inflated))
    return max(pages, 1)


_decoder: Any = None


def _decode() -> Any:
    """Return the whole-payload decoder: pybase64's if installed, else binascii's (once)."""
    global _decoder
    if _decoder is None:
        try:
            import pybase64
        except ImportError:  # the speed extra is not installed: the standard library alone
            _decoder = _a2b
        else:
            _decoder = pybase64.b64decode
    return _decoder
