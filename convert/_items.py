"""Parse MCP content items once into the internal items every wire serializes.

A ``ToolResult`` is parsed when it is built; the wires then only read these
items. Each item knows its string form (the text it contributes to the string
wires) already, so no wire recomputes a placeholder.

Item kinds:

- ``TEXT``: an MCP ``text`` item.
- ``DOCUMENT``: text a tool returned as a resource (embedded text resource, or a
  ``text/*`` blob decoded as UTF-8).
- ``IMAGE``: a base64 image whose leading bytes are JPEG, PNG, GIF or WebP (an MCP
  ``image`` item, a resource whose blob is an image, or an Anthropic-native
  base64 image block). A declared image MIME that the bytes contradict is
  corrected to what the bytes are; bytes that are no known image make it ``OTHER``.
- ``PDF``: a base64 blob declared ``application/pdf`` whose bytes start ``%PDF-``.
- ``NATIVE``: an Anthropic-native block kept as a block (``document``,
  ``search_result``, an image given by URL).
- ``OTHER``: everything else -- audio, other blobs, unknown item types, broken
  payloads. Only its placeholder goes anywhere.
- ``LINK``: an MCP ``resource_link``, with its URI (as given) and declared MIME
  type kept. Its placeholder goes everywhere, unless the option ``url_sources``
  sends an https image or PDF by URL.

How a wire reads an item:

- ``kind`` (one of the constants), ``text`` (its string form: the text, or the
  metadata-only placeholder), ``mime``, ``uri``, ``size`` (decoded bytes, from
  the length), ``cache_control``, ``block`` (NATIVE), ``title`` (a PDF's, from an
  Anthropic ``document`` block: the name bedrock and responses give the file).
- ``raw`` is an IMAGE or PDF payload *as given*: it has passed only the O(1)
  screen of :func:`_base64.screen` and must never be sent as it is. A wire that
  would send it calls ``item.native(limit)``, which returns ``(data, "")`` with
  the clean base64 (the same object when the payload was clean; the strict
  check runs on the first call and is remembered, races are benign: the check
  is pure), or ``(None, text)`` with the placeholder to send instead (over the
  limit, or ``... (invalid base64)`` when the strict check failed).
  ``item.native(limit, url=True)`` gives the payload as a ``data:`` URL instead
  (the MIME type for an image, ``application/pdf`` for a PDF).
  :func:`unsent` turns what ``native`` gave into the reason the wires'
  ``reason`` functions and the report give (``too_large``, ``invalid_base64``).
- A wire declares, per media kind, a :class:`Form`: the MIME types it takes
  and its size limit, in the unit the provider documents it in.
  :func:`native_media` is the one gate every wire (and hoisting) decides
  with: the option that lets the model read the kind, the MIME type, the
  limit, then ``native``; it gives the reason, the payload and the text.
- ``reason``: why an ``OTHER`` item is a placeholder (a key of the report's
  ``REASONS``: ``invalid_base64``, ``no_form``, ``unsupported_mime``,
  ``malformed``, ``unknown_type``), set where the item is made; ``""`` for the
  other kinds.
- :func:`placeholder` is the one writer of a placeholder's text.
- Nothing else about an item changes after it is built; a wire never decodes.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any

from . import _base64, _values
from ._imagesize import image_size
from ._pdfpages import page_bound, page_count

if TYPE_CHECKING:
    from ._options import Options

__all__ = [
    "DOCUMENT",
    "IMAGE",
    "IMAGE_MIMES",
    "LINK",
    "NATIVE",
    "OTHER",
    "PDF",
    "TEXT",
    "Form",
    "Item",
    "blob",
    "native_media",
    "normal_mime",
    "parse_item",
    "placeholder",
    "plain_texts",
    "unsent",
]

TEXT, DOCUMENT, IMAGE, PDF, NATIVE, OTHER, LINK = range(7)

#: The image types every wire with a native image form takes (gemini: not GIF).
IMAGE_MIMES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
_OCTET_STREAM = "application/octet-stream"
# What URL parsers skip before a scheme: C0 controls and space (and Unicode spaces).
_LEADING = (
    "".join(map(chr, range(0x21)))
    + "".join(
        chr(code) for code in (0x85, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F)
    )
    + "\u205f\u3000\ufeff"
)
# What URL parsers remove anywhere in a URL: ASCII tab and newlines.
_TAB_NEWLINE = str.maketrans("", "", "\t\n\r")


_UNCHECKED: Any = object()  # the strict base64 check has not run yet
# the reasons an OTHER item is a placeholder, as the report names them
INVALID = "invalid_base64"
MALFORMED = "malformed"
_UNSUPPORTED = "unsupported_mime"
_BLOBS = frozenset({"image", "resource"})  # item types that carry a payload of any type


class Item:
    """One parsed content item (internal; see the module docstring for kinds)."""

    __slots__ = (
        "_clean",
        "_extent",
        "block",
        "cache_control",
        "declared",
        "kind",
        "mime",
        "raw",
        "reason",
        "size",
        "tag",
        "text",
        "title",
        "uri",
    )

    def __init__(
        self,
        kind: int,
        text: str,
        raw: str = "",
        mime: str = "",
        uri: str = "",
        size: int = 0,
        cache_control: dict[str, Any] | None = None,
        block: dict[str, Any] | None = None,
        tag: str = "",
        declared: str = "",
        reason: str = "",
        title: str = "",
    ) -> None:
        self.kind = kind
        self.text = text  # the string form of this item
        self.raw = raw  # the payload as given, screened only (IMAGE, PDF)
        self._clean: str | None = _UNCHECKED  # the strict check's result, once run
        self._extent: Any = _UNCHECKED  # pixels (IMAGE) or pages (PDF), once read
        self.tag = tag  # the item type a placeholder names (IMAGE, PDF)
        self.declared = declared  # the MIME type the item declared (IMAGE, PDF)
        self.mime = mime
        self.uri = uri
        self.size = size  # decoded bytes (IMAGE, PDF)
        self.cache_control = cache_control
        self.block = block  # Anthropic block to pass through (NATIVE)
        self.reason = reason  # why an OTHER item is a placeholder (see the module docstring)
        self.title = title  # the title an Anthropic document block gave a PDF ("": none)

    def native(self, limit: int, url: bool = False) -> tuple[str | None, str]:
        """Return ``(clean base64, "")`` to send, or ``(None, placeholder)`` instead.

        ``limit`` bounds the payload's base64 length (as given, and once clean).
        ``url``: give the clean base64 as a ``data:`` URL (the image's MIME type,
        ``application/pdf`` for a PDF).
        """
        raw = self.raw
        if len(raw) > limit:
            return None, self.text
        data = self._clean
        if data is _UNCHECKED:
            data = self._clean = _base64.clean(raw, url)
        if data is None:
            return None, placeholder(self.tag, self.declared, self.uri, invalid=True)
        if len(data) > limit:
            return None, self.text
        if url:
            return _base64.data_url(self._url_mime(), data), ""
        return data, ""

    def _url_mime(self) -> str:
        """The MIME type of this payload's ``data:`` URL (IMAGE or PDF)."""
        return self.mime if self.kind == IMAGE else "application/pdf"

    def pixels(self) -> tuple[int, int] | None:
        """Return ``(width, height)`` from an image's header, or None when unknown.

        Read once the strict check has passed (from the clean base64), and remembered;
        None before that, for a PDF, and for a header that cannot be read.
        """
        found = self._extent
        if found is not _UNCHECKED:
            return found  # type: ignore[no-any-return]
        data = self._clean
        if self.kind != IMAGE or data is None or data is _UNCHECKED:
            return None
        found = self._extent = image_size(data, self.mime)
        return found

    def pages(self, exact: bool) -> int | None:
        """Return a PDF's page count (``exact``), or an O(1) bound on it (None: none found).

        Read once the strict check has passed; the count is remembered. See ``_pdfpages``.
        """
        data = self._clean
        if self.kind != PDF or data is None or data is _UNCHECKED:
            return None
        if not exact:
            return page_bound(data, self.size)
        found = self._extent
        if found is _UNCHECKED:
            found = self._extent = page_count(data)
        return found  # type: ignore[no-any-return]

    @property
    def invalid(self) -> bool:
        """True once the strict check has run and failed (``native`` then sends nothing)."""
        return self._clean is None


def plain_texts(items: tuple[Item, ...]) -> tuple[str, ...] | None:
    """Return the texts a result of ``items`` sends as plain text (``ToolResult._texts``):
    the non-blank ones when every item is a text without ``cache_control``, else None."""
    for item in items:
        if item.kind != TEXT or item.cache_control is not None:
            return None
    return tuple([item.text for item in items if item.text and not item.text.isspace()])


def unsent(item: Item, data: str | None) -> str | None:
    """Return why ``item.native(...)`` gave ``data`` None: ``"invalid_base64"`` or
    ``"too_large"``; None when ``data`` is the payload to send."""
    if data is not None:
        return None
    return "invalid_base64" if item.invalid else "too_large"


class Form:
    """A wire's native form for one media kind: the MIME types it takes and its limits.

    The size limit is given in the unit the provider documents: ``max_base64`` (symbols
    of base64, as a request limit counts them) or ``max_bytes`` (decoded bytes,
    converted here once into the base64 length :meth:`Item.native` bounds).
    ``mimes`` None: every type an item of the kind can have. ``max_side``: the
    largest width or height in pixels (images; None: no limit). The options
    ``max_image_bytes``/``max_pdf_bytes`` and ``max_image_side`` replace these
    limits when given; ``image_mimes`` narrows ``mimes``.
    """

    __slots__ = ("max_base64", "max_bytes", "max_side", "mimes")

    def __init__(
        self,
        *,
        mimes: Collection[str] | None = None,
        max_base64: int | None = None,
        max_bytes: int | None = None,
        max_side: int | None = None,
    ) -> None:
        if max_bytes is not None and max_base64 is None:
            max_base64 = _base64.encoded_length(max_bytes)
        elif max_base64 is None or max_bytes is not None:
            raise ValueError("a Form takes exactly one of max_base64 and max_bytes")
        self.mimes = mimes
        self.max_bytes = max_bytes
        self.max_base64: int = max_base64
        self.max_side = max_side

    @property
    def decoded_limit(self) -> int:
        """The size limit in decoded bytes (what ``max_image_bytes`` replaces)."""
        if self.max_bytes is not None:
            return self.max_bytes
        return self.max_base64 // 4 * 3


def native_media(
    item: Item, options: Options, image: Form | None, pdf: Form | None, url: bool = False
) -> tuple[str | None, str | None, str]:
    """Return ``(reason, data, text)`` for an item on a wire with these forms
    (``image``/``pdf`` None: the wire has no form for the kind).

    ``reason`` None: ``data`` is the clean base64 to send (its ``data:`` URL with
    ``url``, see :meth:`Item.native`). Else ``reason`` says
    why not and ``text`` is what to send instead. ``no_form``, ``not_read`` (the
    kind's option is off) and ``unsupported_mime`` (the form's types, narrowed by
    ``image_mimes``) read no payload; over a byte limit (``max_bytes``, or the
    ``max_image_bytes``/``max_pdf_bytes`` option) is known from the size alone;
    then ``item.native`` (``too_large``, ``invalid_base64``); then, for an image,
    its sides from its header (``max_image_side``: the option, else the form's).
    """
    kind = item.kind
    if kind == IMAGE:
        read, form, given = options.image_input, image, options.max_image_bytes
    elif kind == PDF:
        read, form, given = options.native_pdf, pdf, options.max_pdf_bytes
    else:
        return "no_form", None, item.text
    if form is None:
        return "no_form", None, item.text
    if not read:
        return "not_read", None, item.text
    if form.mimes is not None and item.mime not in form.mimes:
        return "unsupported_mime", None, item.text
    if kind == IMAGE and options.image_mimes is not None and item.mime not in options.image_mimes:
        return "unsupported_mime", None, item.text
    if given is None:
        if form.max_bytes is not None and item.size > form.max_bytes:
            return unsent(item, None), None, item.text
        limit = form.max_base64
    else:
        if item.size > given:
            return unsent(item, None), None, item.text
        limit = _base64.encoded_length(given)
    if kind == IMAGE:
        data, text = item.native(limit, url)
        side = options.max_image_side
        if side is None:
            side = form.max_side
        if side is not None and data is not None:
            found = item.pixels()
            if found is not None and max(found) > side:
                return "max_image_side", None, item.text
        return unsent(item, data), data, text
    data, text = item.native(limit, url)
    return unsent(item, data), data, text


def placeholder(
    kind: str, mime: str = "", uri: str = "", size: int | None = None, invalid: bool = False
) -> str:
    """Return the metadata-only text that stands in for an item:
    ``[kind] mime <uri> (N bytes)``, or ``[kind] mime <uri> (invalid base64)`` for a
    payload that is not base64 (``invalid``; its size is then not shown)."""
    if mime and size is not None and not invalid:  # the usual media placeholders, in one step
        if not uri:
            return f"[{kind}] {mime} ({size} bytes)"
        return f"[{kind}] {mime} <{shown_uri(uri)}> ({size} bytes)"
    parts = [f"[{kind}]"]
    if mime:
        parts.append(mime)
    if uri:
        parts.append(f"<{shown_uri(uri)}>")
    if invalid:
        parts.append("(invalid base64)")
    elif size is not None:
        parts.append(f"({size} bytes)")
    return " ".join(parts)


def shown_uri(uri: str) -> str:
    """Return ``uri`` as a placeholder shows it: a ``data:`` URI without its payload.

    A ``data:`` URI carries the content itself (often the very base64 the
    placeholder stands in for), so only its media type part is shown. It is
    recognised as URL parsers do: after leading controls and spaces, and with
    ASCII tabs and newlines removed wherever they are (``"da\\tta:..."`` is a
    ``data:`` URL too).
    """
    stripped = uri.lstrip(_LEADING)
    if "\t" in stripped or "\n" in stripped or "\r" in stripped:
        stripped = stripped.translate(_TAB_NEWLINE)
    if stripped[:5].lower() != "data:":
        return uri
    head, comma, _ = stripped.partition(",")
    return f"{head},..." if comma else head


def parse_item(raw: Mapping[str, Any]) -> Item:
    """Return the internal item for one MCP (or Anthropic-native) content item."""
    kind = raw["type"]
    if kind == "text":
        text = raw.get("text")
        if type(text) is not str and not isinstance(text, str):
            return Item(OTHER, placeholder("text"), reason=MALFORMED)
        control = raw.get("cache_control")
        if control is None:
            return Item(TEXT, text)
        return Item(TEXT, text, "", "", "", 0, _cache_control(control))
    if kind in ("image", "audio"):
        if "source" in raw and kind == "image":
            return _native_image(raw["source"], raw.get("cache_control"))
        return blob(kind, raw.get("data"), _mime(raw), "")
    if kind == "resource":
        return _resource(raw.get("resource"))
    if kind == "resource_link":
        name = _string(raw.get("name")) or _string(raw.get("title"))
        given = _string(raw.get("uri"))
        uri = shown_uri(given)
        text = f"[resource_link] {name} <{uri}>" if name else f"[resource_link] <{uri}>"
        return Item(LINK, text, uri=given, mime=_mime(raw))
    if kind == "document":
        return _native_document(raw)
    if kind == "search_result":
        return _search_result(raw)
    return _unknown(kind, raw)


def _unknown(kind: str, raw: Mapping[str, Any]) -> Item:
    """Return the placeholder of an item type nobody knows, naming what it declares."""
    mime = _mime(raw)
    uri = shown_uri(_string(raw.get("uri")))
    size = _base64.screen(raw.get("data", raw.get("blob")))
    return Item(OTHER, placeholder(kind, mime, uri, size), reason="unknown_type")


_MIMES: dict[str, str] = {}  # declared MIME type -> normalised (the same few recur)
_MIMES_MAX = 256
_ABSENT: Any = object()


def _mime(raw: Mapping[str, Any]) -> str:
    """Return the declared MIME type, lower-cased and without parameters (``; charset=``)."""
    mime = raw.get("mimeType", _ABSENT)
    if mime is _ABSENT:
        mime = raw.get("mime_type")
    if type(mime) is not str:
        return mime.split(";", 1)[0].strip().lower() if isinstance(mime, str) else ""
    return normal_mime(mime)


def normal_mime(mime: str) -> str:
    """Return a declared MIME type lower-cased and without parameters (``; charset=``)."""
    normal = _MIMES.get(mime)
    if normal is None:
        normal = mime.split(";", 1)[0].strip().lower()
        if len(_MIMES) < _MIMES_MAX:
            _MIMES[mime] = normal
    return normal


def _string(value: object) -> str:
    return value if isinstance(value, str) else ""


def _cache_control(value: object) -> dict[str, Any] | None:
    if isinstance(value, Mapping) and value.get("type") == "ephemeral":
        control: dict[str, Any] = {"type": "ephemeral"}
        if value.get("ttl") in ("5m", "1h"):
            control["ttl"] = value["ttl"]
        return control
    return None


def _resource(resource: object) -> Item:
    if not isinstance(resource, Mapping):
        return Item(OTHER, placeholder("resource"), reason=MALFORMED)
    uri = _string(resource.get("uri"))
    mime = _mime(resource)
    text = resource.get("text")
    if isinstance(text, str):
        return Item(DOCUMENT, text, mime=mime, uri=uri)
    return blob("resource", resource.get("blob"), mime, uri)


def blob(kind: str, raw_data: object, mime: str, uri: str) -> Item:
    """Return the item of a base64 payload, classified by its declared MIME type
    (normalised) and its leading bytes (O(1)); ``kind`` is the item type it came as."""
    size, sniffed = _base64.look(raw_data)
    shown = mime or _OCTET_STREAM
    if size is None:
        return Item(OTHER, placeholder(kind, shown, uri, invalid=True), reason=INVALID)
    data: str = raw_data  # type: ignore[assignment]  # screened: a str
    if kind == "resource" and mime.startswith("text/"):
        cleaned = _base64.clean(data)  # the text is sent: decode it (the one decode)
        if cleaned is None:
            return Item(OTHER, placeholder(kind, shown, uri, invalid=True), reason=INVALID)
        import binascii

        text = _values.text(binascii.a2b_base64(cleaned).decode("utf-8", errors="replace"))
        return Item(DOCUMENT, text, mime=mime, uri=uri)
    item_kind = OTHER
    if kind == "image" or (kind == "resource" and mime.startswith("image/")):
        if sniffed in IMAGE_MIMES:
            # The bytes decide: providers check them, and a wrong label is a 400.
            item_kind, mime = IMAGE, sniffed
    elif kind != "audio" and mime == "application/pdf" and sniffed == "application/pdf":
        item_kind = PDF
    if item_kind == OTHER:
        # audio has no form anywhere; an image or resource whose type (or bytes) none
        # takes; a payload where its item type has none (a document block's)
        why = "no_form" if kind == "audio" else _UNSUPPORTED if kind in _BLOBS else MALFORMED
        text = placeholder(kind, shown, uri, size)
        return Item(OTHER, text, "", shown, uri, size, None, None, "", "", why)
    text = placeholder(kind, mime, uri, size)
    return Item(item_kind, text, data, mime, uri, size, None, None, kind, shown)


def _native_image(source: object, cache_control: object) -> Item:
    if isinstance(source, Mapping):
        if source.get("type") == "base64":
            item = blob("image", source.get("data"), _string(source.get("media_type")), "")
            item.cache_control = _cache_control(cache_control)
            return item
        url = source.get("url")
        if source.get("type") == "url" and isinstance(url, str) and url:
            block: dict[str, Any] = {"type": "image", "source": {"type": "url", "url": url}}
            _add_cache_control(block, cache_control)
            return Item(NATIVE, placeholder("image", "", url), uri=url, block=block)
    return Item(OTHER, placeholder("image"), reason=MALFORMED)


def _native_document(raw: Mapping[str, Any]) -> Item:
    """Keep a well-formed Anthropic document block; its string form is its text."""
    source = raw.get("source")
    if not isinstance(source, Mapping):
        return Item(OTHER, placeholder("document"), reason=MALFORMED)
    stype = source.get("type")
    out_source: dict[str, Any]
    if stype == "text" and isinstance(source.get("data"), str):
        text = source["data"]
        if not text.strip():
            return Item(TEXT, text)  # an empty text document is rejected: drop it as text
        out_source = {"type": "text", "media_type": "text/plain", "data": text}
    elif stype == "content" and isinstance(source.get("content"), (str, list, tuple)):
        inner = source["content"]
        if isinstance(inner, str):
            inner = [{"type": "text", "text": inner}]
        parts = [_inner_part(part) for part in inner]
        text = "\n".join(p.text for p in parts)
        # Inner images become their placeholder: the wire's image gating cannot reach them.
        blocks = [{"type": "text", "text": p.text} for p in parts if p.text.strip()]
        if not blocks:
            return Item(TEXT, text)
        out_source = {"type": "content", "content": blocks}
    elif stype == "base64" and source.get("media_type") == "application/pdf":
        item = blob("document", source.get("data"), "application/pdf", "")
        if item.kind != PDF:
            return item
        title = raw.get("title")
        if isinstance(title, str) and title.strip():
            # a title names the file on the wires that take a name (bedrock, responses),
            # and such a block is what a reader gives back for a named PDF: its name and
            # size show, as a resource's URI and size do
            item.title = title
            item.text = placeholder("document", "application/pdf", title, item.size)
        else:
            item.text = placeholder("document", "application/pdf")
        item.cache_control = _cache_control(raw.get("cache_control"))
        return item
    elif stype == "url" and isinstance(source.get("url"), str) and source["url"]:
        text = placeholder("document", "", source["url"])
        out_source = {"type": "url", "url": source["url"]}
    else:
        return Item(OTHER, placeholder("document"), reason=MALFORMED)
    block: dict[str, Any] = {"type": "document", "source": out_source}
    for key in ("title", "context"):
        if isinstance(raw.get(key), str) and raw[key]:
            block[key] = raw[key]
    citations = raw.get("citations")
    if isinstance(citations, Mapping) and isinstance(citations.get("enabled"), bool):
        block["citations"] = {"enabled": citations["enabled"]}
    _add_cache_control(block, raw.get("cache_control"))
    return Item(NATIVE, text, block=block)


def _inner_part(part: object) -> Item:
    if isinstance(part, Mapping) and isinstance(part.get("type"), str):
        return parse_item(part)
    return Item(OTHER, placeholder("unknown"), reason="unknown_type")


def _search_result(raw: Mapping[str, Any]) -> Item:
    title = _string(raw.get("title"))
    source = _string(raw.get("source"))
    content = raw.get("content")
    texts: list[str] = []
    if isinstance(content, (list, tuple)):
        for part in content:
            if isinstance(part, Mapping) and part.get("type") == "text":
                text = part.get("text")
                if isinstance(text, str) and text.strip():
                    texts.append(text)
    string_form = "\n".join([f"[search_result] {title} <{shown_uri(source)}>", *texts])
    if not (title and source and texts):
        # Anthropic requires a title, a source and non-empty text content.
        return Item(OTHER, string_form, reason=MALFORMED)
    block: dict[str, Any] = {
        "type": "search_result",
        "source": source,
        "title": title,
        "content": [{"type": "text", "text": t} for t in texts],
    }
    citations = raw.get("citations")
    if isinstance(citations, Mapping) and isinstance(citations.get("enabled"), bool):
        block["citations"] = {"enabled": citations["enabled"]}
    _add_cache_control(block, raw.get("cache_control"))
    return Item(NATIVE, string_form, block=block)


def _add_cache_control(block: dict[str, Any], value: object) -> None:
    control = _cache_control(value)
    if control is not None:
        block["cache_control"] = control
