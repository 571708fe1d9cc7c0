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

import re
import zlib

from ._base64 import decode, decode_range

__all__ = ["TAIL", "page_bound", "page_count"]

TAIL = 4096
_SIZE = re.compile(rb"/Size\s+(\d+)")
_STARTXREF = re.compile(rb"startxref\s+(\d+)")
_PAGE = re.compile(rb"/Type\s*/Page(?![^\s()<>\[\]{}/%])")
_OBJSTM = re.compile(rb"/Type\s*/ObjStm")
_STREAM = re.compile(rb"stream\r?\n")
_MAX_INFLATED = 64 * 1024 * 1024  # object streams inflated per PDF: a bound on a hostile one


def page_bound(data: str, size: int) -> int | None:
    """Return the number of objects of a clean base64 PDF of ``size`` bytes, or None."""
    tail = decode_range(data, max(0, size - TAIL), TAIL)
    found = _SIZE.findall(tail)
    if found:
        return int(found[-1])
    xref = _STARTXREF.findall(tail)
    if xref:
        offset = int(xref[-1])
        if 0 <= offset < size:
            found = _SIZE.findall(decode_range(data, offset, TAIL))
            if found:
                return int(found[0])
    return None


def page_count(data: str) -> int:
    """Return the number of page objects of a clean base64 PDF (at least 1).

    Decoded whole (``_base64.decode``: pybase64 where installed).
    """
    try:
        pdf = decode(data)
    except ValueError:  # binascii.Error is one
        return 1
    pages = len(_PAGE.findall(pdf))
    after = 0  # the end of the last stream read: streams never overlap
    budget = _MAX_INFLATED  # for the whole PDF: many small bombs inflate no more than one
    for match in _OBJSTM.finditer(pdf):
        if match.start() < after:
            continue  # a marker inside the stream just read (each byte is scanned once)
        stream = _STREAM.search(pdf, match.end())
        end = -1 if stream is None else pdf.find(b"endstream", stream.end())
        if stream is None or end < 0:
            break  # no later marker has a stream either
        after = end
        try:
            inflated = zlib.decompressobj().decompress(pdf[stream.end() : end], budget)
        except zlib.error:
            continue
        pages += len(_PAGE.findall(inflated))
        budget -= len(inflated)
        if budget <= 0:
            break
    return max(pages, 1)
