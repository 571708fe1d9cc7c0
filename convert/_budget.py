"""The request budget: how many images, PDF pages and PDF bytes one request may carry.

A provider counts some limits over the whole request, not per item: Anthropic
takes at most ``max_images`` images, ``max_pdf_pages`` PDF pages and
``max_pdf_request_bytes`` PDF bytes per request, and when a request holds more
than ``many_images`` images, each must be at most ``many_images_max_side``
pixels a side (an API rejects such a request; it does not downscale). The
budget makes every medium that would break one of these a placeholder, so the
request is never one the API rejects.

- What counts: the media that would go natively (or, with ``hoist``, into the
  user turn) after every per-item rule (the option, the MIME type, the size,
  ``max_image_side``, the base64 check), in call order: results in the order
  given, items in content order. Items left out by ``audience`` do not count. An
  image given by URL (``url_sources``, an Anthropic-native image block) counts as
  an image of unknown size; a PDF by URL is not counted (its pages and bytes are
  unknown). ``already_sent`` (:class:`AlreadySent`) adds what the rest of the
  conversation holds.
- First come, first served: ``max_images`` keeps the first images up to the
  limit. Then the ``many_images`` rule, when the request would hold more than
  ``many_images`` images: every image at most ``many_images_max_side`` a side
  (or of unknown size) stays, and of the larger ones only the first that keep the
  total at ``many_images`` or under; the rest become placeholders (reason
  ``many_images_max_side``). Only images of the call are judged: an image
  already sent that breaks the rule is the history's.
- PDFs, in turn: one that would pass ``max_pdf_request_bytes`` or
  ``max_pdf_pages`` (with what went before it) is a placeholder, and the next one
  is tried (a smaller one may still fit). Pages are counted (``_pdfpages``) only
  when the O(1) bounds of the call's PDFs could pass the limit; a payload without
  a trailer (it does not end as a PDF does) counts as one page, unscanned.
- The reason a placeholder gives is the limit's name (``max_images``,
  ``many_images_max_side``, ``max_pdf_pages``, ``max_pdf_request_bytes``); its
  text is the item's ordinary placeholder (metadata only).

``ToolResult.to`` and ``report`` apply the budget of the one result;
``format_tool_results`` and ``report_call`` that of the whole call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from ._audience import for_model
from ._hoist import hoist_reason
from ._items import IMAGE, LINK, NATIVE, OTHER, PDF, Item
from ._options import Options
from ._wire import Source, View, Wire
from .errors import InvalidOption, describe

__all__ = ["AlreadySent", "BudgetView", "already_sent", "applies", "own_budget", "within_budget"]


class AlreadySent(NamedTuple):
    """What the rest of the request (the conversation before this call) already holds."""

    images: int = 0
    pdf_pages: int = 0
    #: decoded bytes
    pdf_bytes: int = 0

    @classmethod
    def of(cls, value: object) -> AlreadySent:
        """Return ``value`` (None, an ``AlreadySent`` or a mapping of its fields) checked,
        as ``already_sent=`` takes it (None: nothing sent).

        :raises InvalidOption: for another type, an unknown key, or a count that is not
            a whole number of at least 0.
        """
        return already_sent(value)


NOTHING_SENT = AlreadySent()
_TEXT = "text"  # stands for an item of a view without ``_source`` (counted by its kind)
_NONE: Mapping[int, str] = {}


def already_sent(value: object) -> AlreadySent:
    """Return ``value`` (None, an :class:`AlreadySent` or a mapping of its fields) checked.

    :raises InvalidOption: for another type, an unknown key, or a count that is not
        a whole number of at least 0.
    """
    if value is None:
        return NOTHING_SENT
    if isinstance(value, AlreadySent):
        fields: Mapping[str, object] = value._asdict()
    elif isinstance(value, Mapping):
        fields = value
    else:
        raise InvalidOption(
            "already_sent must be a mapping such as {'images': 3, 'pdf_pages': 40,"
            f" 'pdf_bytes': 1000000}} or an AlreadySent, not {type(value).__name__}"
        )
    counts: dict[str, int] = {}
    for key, count in fields.items():
        if key not in AlreadySent._fields:
            known = ", ".join(AlreadySent._fields)
            raise InvalidOption(f"already_sent has no field {key!r} (known: {known})")
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise InvalidOption(
                f"already_sent[{key!r}] must be a whole number of at least 0, not {describe(count)}"
            )
        counts[key] = int(count)
    return AlreadySent(**counts)


def applies(wire: Wire, options: Options) -> bool:
    """Return True when a request limit could make a medium a placeholder on ``wire``."""
    if wire.reason is None and (wire.hoist is None or not options.hoist):
        return False
    images = options.max_images is not None or (
        options.many_images is not None and options.many_images_max_side is not None
    )
    pdfs = options.max_pdf_pages is not None or options.max_pdf_request_bytes is not None
    return (images and options.image_input) or (pdfs and options.native_pdf)


class BudgetView(View):
    """A result with the media past a request limit as placeholders (a :class:`Source`:
    the audience rule may still read it)."""

    __slots__ = ("_parsed", "_source")

    def __init__(self, result: Source, denied: Mapping[int, str]) -> None:
        items = list(result._items)
        for index, why in denied.items():
            item = items[index]
            items[index] = Item(OTHER, item.text, "", item.mime, item.uri, item.size, reason=why)
        # a placeholder's text is the item's string form: the string form stays
        super().__init__(result, tuple(items), result._string, result._texts)
        self._parsed = self._items
        # an audience view has none: its items are those for the model already
        self._source = getattr(result, "_source", None) or (_TEXT,) * len(result._items)


_MEDIA = frozenset({IMAGE, PDF, LINK, NATIVE})  # the kinds that may count


def own_budget(wire: Wire, result: Any, options: Options) -> Any:
    """Return ``result`` under the budget of the one result (``ToolResult.to``), called by
    a wire's block on a result with media; a :class:`BudgetView` (the call's budget
    already applied by ``format_tool_results``) is returned as it is."""
    if type(result) is BudgetView or not applies(wire, options):
        return result
    return within_budget(wire, (result,), options)[0]


class _Medium(NamedTuple):
    number: int  # the result's, in the call
    at: int  # the item's, in the result
    item: Item


def _route(wire: Wire, item: Item, raw: object, options: Options, hoisting: bool) -> str | None:
    """Return "image" or "pdf" for a medium that would go out (counted), else None."""
    if options.audience and not isinstance(raw, str) and not for_model(raw):  # type: ignore[arg-type]
        return None
    kind = item.kind
    if kind in (IMAGE, PDF):
        if hoisting:
            why = hoist_reason(wire, item, options)
        else:
            why = wire.reason(item, options) if wire.reason is not None else "no_form"
        if why is not None:
            return None
        return "image" if kind == IMAGE else "pdf"
    if hoisting:
        return None
    if kind == LINK and wire.reason is not None and wire.reason(item, options) is None:
        return "image" if item.mime.startswith("image/") else None  # a PDF by URL: unknown
    if kind == NATIVE and wire.native_blocks and options.image_input:
        return "image" if item.block is not None and item.block["type"] == "image" else None
    return None


def within_budget(
    wire: Wire,
    results: Sequence[Source],
    options: Options,
    sent: AlreadySent = NOTHING_SENT,
    hoisting: bool = False,
) -> list[Any]:
    """Return ``results`` with each result that holds media as a :class:`BudgetView`: the
    media past a request limit are placeholders there, and a block that meets the view
    does not count it again (``own_budget``). Plain-text results are returned as they are,
    and so is every result when no limit can be reached (``_roomy``: nothing to deny).

    ``hoisting``: media go into the user turn (``format_tool_results`` with ``hoist``).
    """
    if _roomy(results, options, sent):
        return list(results)  # no limit can be reached: nothing to deny, no payload read
    images: list[_Medium] = []
    pdfs: list[_Medium] = []
    for number, result in enumerate(results):
        if result._texts is not None:
            continue  # plain text only
        items = result._items
        source = getattr(result, "_source", None) or (_TEXT,) * len(items)
        for index, (raw, item) in enumerate(zip(source, items, strict=True)):
            if item.kind not in _MEDIA:
                continue
            route = _route(wire, item, raw, options, hoisting)
            if route == "image":
                images.append(_Medium(number, index, item))
            elif route == "pdf":
                pdfs.append(_Medium(number, index, item))
    denied: dict[int, dict[int, str]] = {}
    if images and options.image_input:
        _images(images, options, sent, denied)
    if pdfs and options.native_pdf:
        _pdfs(pdfs, options, sent, denied)
    return [
        BudgetView(result, denied.get(number, _NONE)) if result._texts is None else result
        for number, result in enumerate(results)
    ]


def _roomy(results: Sequence[Source], options: Options, sent: AlreadySent) -> bool:
    """Return True when no request limit can make a medium of ``results`` a placeholder.

    Read from the items' kinds alone, before any payload: every image, link and
    native block counts as an image (at least as many as would go), and a PDF
    whose pages or bytes a limit counts is left to the full count.
    """
    images = 0
    for result in results:
        if result._texts is not None:
            continue  # plain text only
        for item in result._items:
            kind = item.kind
            if kind == PDF:
                if options.native_pdf and (
                    options.max_pdf_pages is not None or options.max_pdf_request_bytes is not None
                ):
                    return False
            elif kind in _MEDIA:
                images += 1
    if not images or not options.image_input:
        return True
    total = sent.images + images
    if options.max_images is not None and total > options.max_images:
        return False
    many = options.many_images
    return many is None or options.many_images_max_side is None or total <= many


def _deny(denied: dict[int, dict[int, str]], medium: _Medium, why: str) -> None:
    denied.setdefault(medium.number, {})[medium.at] = why


def _images(
    images: list[_Medium], options: Options, sent: AlreadySent, denied: dict[int, dict[int, str]]
) -> None:
    if options.max_images is not None:
        room = max(0, options.max_images - sent.images)
        for medium in images[room:]:
            _deny(denied, medium, "max_images")
        images = images[:room]
    many, side = options.many_images, options.many_images_max_side
    if many is None or side is None or sent.images + len(images) <= many:
        return
    large = []
    for medium in images:
        pixels = medium.item.pixels()
        if pixels is not None and max(pixels) > side:
            large.append(medium)
    # the small ones all stay; large ones only while the total stays within ``many``
    room = max(0, many - sent.images - (len(images) - len(large)))
    for medium in large[room:]:
        _deny(denied, medium, "many_images_max_side")


def _pdfs(
    pdfs: list[_Medium], options: Options, sent: AlreadySent, denied: dict[int, dict[int, str]]
) -> None:
    max_pages, max_bytes = options.max_pdf_pages, options.max_pdf_request_bytes
    pages_left = None if max_pages is None else max_pages - sent.pdf_pages
    bytes_left = None if max_bytes is None else max_bytes - sent.pdf_bytes
    exact = False
    if pages_left is not None:  # count pages only when the bounds could pass the limit
        bound = 0
        for medium in pdfs:
            found = medium.item.pages(exact=False)
            bound += 1 if found is None else found  # no trailer: one page (``_pdfpages``)
        exact = bound > pages_left
    for medium in pdfs:
        item = medium.item
        if bytes_left is not None and item.size > bytes_left:
            _deny(denied, medium, "max_pdf_request_bytes")
            continue
        pages = 0
        if pages_left is not None and exact:
            pages = (item.pages(exact=True) or 1) if item.pages(exact=False) is not None else 1
            if pages > pages_left:
                _deny(denied, medium, "max_pdf_pages")
                continue
            pages_left -= pages
        if bytes_left is not None:
            bytes_left -= item.size
