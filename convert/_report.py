"""The decision report: per content item, what a wire got and why.

``toolwire.convert.report(wire, result, **options)`` runs the same rules the wire's block does
(each wire's ``reason`` function, the hoisting rule, the audience rule) and
returns one :class:`Decision` per MCP content item, so a UI can say "image not
shown to the model: the model does not read it". It never builds the block.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import _items
from ._audience import for_model
from ._hoist import hoist_reason
from ._options import Options
from ._wire import Source, Wire

__all__ = ["OUTCOMES", "REASONS", "Decision", "decide"]

_TEXT_ITEM: Mapping[str, Any] = {"type": "text"}  # what the report reads of a plain text

#: What happened to an item.
OUTCOMES = ("native", "text", "placeholder", "hoisted", "left_out", "replaced")

#: Why an item did not go natively (reason code -> the words a UI can show).
REASONS: Mapping[str, str] = {
    "no_form": "the wire has no form for it",
    "not_read": "the model does not read it",
    # set by the registry's resolver, never by the converter: nothing says what it reads
    "unknown_model": "the model is not recorded and no rule names it",
    # set by the registry's resolver, which knows the claims: what would change the outcome
    "hoist_off": (
        "the tool message has no form for it; a hoist_media claim on the model would send"
        " it in a user turn"
    ),
    "not_in_tool_result": (
        "the model reads it in a user turn, but not inside a tool result on this wire"
        " (on gemini: Gemini 3 and later)"
    ),
    "too_large": "over the provider's size limit",
    "max_image_side": "wider or taller than the provider takes (max_image_side)",
    "max_images": "past the number of images a request may hold (max_images)",
    "many_images_max_side": (
        "larger than a request with many images may hold (many_images, many_images_max_side)"
    ),
    "max_pdf_pages": "past the PDF pages a request may hold (max_pdf_pages)",
    "max_pdf_request_bytes": "past the PDF bytes a request may hold (max_pdf_request_bytes)",
    "invalid_base64": "its payload is not valid base64",
    "unsupported_mime": "its MIME type (or its bytes) has no form here",
    "url_sources_off": "links go by URL only with url_sources",
    "not_https": "only an https link goes by URL",
    "unknown_type": "an item type the converter does not know",
    "malformed": "the item lacks the fields its type needs",
    "audience": "it is meant for the user (annotations.audience)",
    "structured_content": "the structured content is sent instead",
}


class Decision:
    """What one content item became on a wire (read-only)."""

    __slots__ = ("index", "mime", "outcome", "reason", "size", "type")
    _FIELDS = ("index", "type", "outcome", "reason", "mime", "size")

    index: int
    #: the MCP item type (``text``, ``image``, ``resource``, ``resource_link``, ...)
    type: str
    #: one of ``OUTCOMES``
    outcome: str
    #: a key of ``REASONS`` for a placeholder, a left-out or replaced item; else None
    reason: str | None
    mime: str
    #: decoded bytes of a payload (0 when there is none)
    size: int

    def __init__(
        self, index: int, type: str, outcome: str, reason: str | None, mime: str, size: int
    ) -> None:
        # a plain class, not a dataclass: ``import toolwire.convert`` stays cheap
        for name, value in zip(
            self._FIELDS, (index, type, outcome, reason, mime, size), strict=True
        ):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Decision is read-only; cannot set {name!r}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Decision):
            return NotImplemented
        return self.as_tuple() == other.as_tuple()

    def __hash__(self) -> int:
        return hash(self.as_tuple())

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._FIELDS)
        return f"Decision({fields})"

    def as_tuple(self) -> tuple[int, str, str, str | None, str, int]:
        """Return (index, type, outcome, reason, mime, size)."""
        return (self.index, self.type, self.outcome, self.reason, self.mime, self.size)

    @property
    def message(self) -> str:
        """Return one line a UI can show, e.g. ``image not shown to the model: ...``."""
        what = self.type if not self.mime else f"{self.type} ({self.mime})"
        if self.outcome in ("native", "text", "hoisted"):
            how = {"native": "natively", "text": "as text", "hoisted": "in a user turn"}
            return f"{what} sent {how[self.outcome]}"
        because = REASONS.get(self.reason or "", self.reason or "")
        if self.outcome == "placeholder":
            return f"{what} not shown to the model (a placeholder instead): {because}"
        return f"{what} left out: {because}"

    def as_dict(self) -> dict[str, Any]:
        """Return the decision as JSON-ready data (with its message)."""
        return {**dict(zip(self._FIELDS, self.as_tuple(), strict=True)), "message": self.message}


def decide(wire: Wire, result: Source, options: Options) -> tuple[Decision, ...]:
    """Return one decision per content item of ``result`` on ``wire`` with ``options``."""
    replaced = wire.structured_replaces_text and result._structured[0] is not None
    out = []
    # ``_source`` and ``_items`` are aligned 1:1 (an all-text result builds both per text)
    for index, (frozen, item) in enumerate(zip(result._source, result._items, strict=True)):
        raw = _TEXT_ITEM if isinstance(frozen, str) else frozen  # a plain text is its string
        outcome, reason = _decide(wire, raw, item, options)
        if replaced and outcome in ("text", "placeholder"):
            outcome, reason = "replaced", "structured_content"
        mime = item.mime if item.kind != _items.NATIVE else ""
        out.append(Decision(index, raw["type"], outcome, reason, mime, item.size))
    return tuple(out)


def _decide(
    wire: Wire, raw: Mapping[str, Any], item: Any, options: Options
) -> tuple[str, str | None]:
    if options.audience and not for_model(raw):
        return "left_out", "audience"
    kind = item.kind
    if kind in (_items.TEXT, _items.DOCUMENT):
        return "text", None
    if kind == _items.NATIVE:
        return _native_block(wire, item, options)
    if kind in (_items.IMAGE, _items.PDF, _items.LINK):
        if options.hoist and wire.hoist is not None and kind != _items.LINK:
            why = hoist_reason(wire, item, options)
            return ("hoisted", None) if why is None else ("placeholder", why)
        if wire.reason is None:
            return "placeholder", "no_form"
        why = wire.reason(item, options)
        return ("native", None) if why is None else ("placeholder", why)
    return "placeholder", item.reason


def _native_block(wire: Wire, item: Any, options: Options) -> tuple[str, str | None]:
    """An Anthropic-native block: passed through where the wire takes them, else its text."""
    is_image = item.block["type"] == "image"
    if wire.native_blocks:
        if options.image_input if is_image else options.source_blocks:
            return "native", None
        return ("placeholder", "not_read") if is_image else ("text", None)
    return ("placeholder", "no_form") if is_image else ("text", None)
