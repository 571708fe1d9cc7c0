"""URIs: a PDF's filename from its URI, and URL sources.

URL sources: an https ``resource_link`` to an image or a PDF, sent by URL (opt-in).

With ``url_sources=True``, a wire that has a URL form (anthropic, responses,
gemini) sends a ``resource_link`` whose URI is ``https:`` and whose declared
MIME type is an image the wire takes or ``application/pdf`` by URL, under the
same gates as base64 media (``image_input`` for images, ``native_pdf`` for
PDFs). Any other link, and any other scheme, stays the placeholder.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any
from urllib.parse import unquote, urlsplit

from ._items import LINK

__all__ = ["https", "link_kind", "link_reason", "pdf_filename", "pdf_title"]

MAX_FILENAME = 128
DEFAULT_FILENAME = "document.pdf"


def link_kind(item: Any, image_mimes: Collection[str]) -> str | None:
    """Return "image" or "pdf" for a link that has a URL form on the wire, else None."""
    if item.kind != LINK or not https(item.uri):
        return None
    if item.mime in image_mimes:
        return "image"
    return "pdf" if item.mime == "application/pdf" else None


def link_reason(item: Any, options: Any, image_mimes: Collection[str], pdf: bool) -> str | None:
    """Return why a link is not sent by URL (None: it is); ``pdf`` -- PDFs may go here."""
    if not options.url_sources:
        return "url_sources_off"
    if not https(item.uri):
        return "not_https"
    kind = link_kind(item, image_mimes)
    if kind is None:
        return "unsupported_mime"
    if kind == "image":
        return None if options.image_input else "not_read"
    return None if pdf else "not_read"


def https(uri: str) -> bool:
    """Return True for an absolute ``https://host...`` URI without spaces or controls."""
    if uri[:8].lower() != "https://" or any(ch.isspace() or not ch.isprintable() for ch in uri):
        return False
    try:
        return bool(urlsplit(uri).netloc)
    except ValueError:
        return False


def pdf_filename(uri: str, title: str = "") -> str:
    """Return the ``input_file`` filename for a PDF resource URI, or for its ``title``.

    The ``title`` when there is one (an Anthropic ``document`` block's), else the
    percent-decoded last segment of the URI's hierarchical path; ``.pdf``
    appended when missing; ``document.pdf`` for an opaque URI (``urn:``,
    ``data:``) or an empty path. Path separators and control characters are
    removed and the length is bounded.
    """
    if title:
        name = title
    else:
        try:
            parts = urlsplit(uri)
        except ValueError:
            return DEFAULT_FILENAME
        if parts.scheme and not parts.netloc and not parts.path.startswith("/"):
            return DEFAULT_FILENAME  # opaque: urn:, data:, mailto: ...
        name = unquote(parts.path.rsplit("/", 1)[-1])
    name = "".join(ch for ch in name if ch.isprintable() and ch not in "/\\").strip()
    stem = name[:-4] if name.lower().endswith(".pdf") else name
    stem = stem.lstrip(". ")[: MAX_FILENAME - 4].rstrip()  # no hidden or dot-only names
    return stem + ".pdf" if stem else DEFAULT_FILENAME


def pdf_title(filename: str) -> str:
    """Return the title a PDF's ``filename`` stands for: without ``.pdf``; ``""`` for
    ``document.pdf`` (what a PDF without a name or title is sent as) or no name."""
    if not filename or filename == DEFAULT_FILENAME:
        return ""
    return filename[:-4] if filename.lower().endswith(".pdf") else filename
