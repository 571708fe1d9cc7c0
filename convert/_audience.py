"""MCP audiences: which content items are meant for the model.

MCP content may carry ``annotations.audience``, a list of ``"user"`` and/or
``"assistant"``. An item whose audience is given and lacks ``"assistant"`` is
for the person, not the model. By default every item is kept (as the seed
does); with the option ``audience=True`` such items are left out of the
model-facing block, and the string form is rebuilt from the items that stay.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._items import plain_texts
from ._wire import Result, Source, View

__all__ = ["AudienceView", "for_model", "for_the_model"]


def for_model(raw: Mapping[str, Any]) -> bool:
    """Return False when the item's ``annotations.audience`` is a list without "assistant"."""
    annotations = raw.get("annotations")
    if not isinstance(annotations, Mapping):
        return True
    audience = annotations.get("audience")
    if not isinstance(audience, (list, tuple)):
        return True
    return "assistant" in audience


class AudienceView(View):
    """A result seen without its user-only items."""

    __slots__ = ()

    def __init__(self, result: Source, keep: tuple[bool, ...]) -> None:
        items = tuple(item for item, k in zip(result._items, keep, strict=True) if k)
        string = "\n".join(item.text for item in items) if items else result._structured[1] or ""
        super().__init__(result, items, string, plain_texts(items))


def for_the_model(result: Source) -> Result:
    """Return ``result`` itself when every item is for the model, else a view without the rest."""
    if result._texts is not None and result._parsed is None:  # all plain text, unparsed
        return result
    # the frozen items, 1:1 with ``_items``; a plain text (a string) has no annotations
    keep = tuple(isinstance(raw, str) or for_model(raw) for raw in result._source)
    if all(keep):
        return result
    return AudienceView(result, keep)
