"""Media payloads a result's structured content repeats, replaced by their placeholders.

An MCP server may put the base64 of an image (or of audio, or of a blob
resource) in ``structuredContent`` as well as in ``content``: FastMCP does so
whenever a tool's return annotation turns structured output on. A wire that
sends the structured content would then send the payload as JSON text (the
model reads thousands of tokens of base64), or twice (once natively, once as
text). So the structured content every wire sends is the *cleaned* value:

- A string anywhere in it (an object's value or an array's element, at any
  depth; keys are left alone) that is exactly a payload some content item
  carries, or that payload's ``data:`` URL (``data:<mime>;base64,<payload>``,
  any MIME type, the scheme in any case), is replaced by that item's
  placeholder text, the same text the item shows where it is not sent
  natively (``[image] image/png (3012 bytes)``). The media themselves go where
  the wire carries them, once.
- The payloads are those of ``image`` and ``audio`` items (``data``),
  embedded resources with a ``blob``, Anthropic-native base64 image and
  document sources, and items of unknown types with ``data`` or ``blob``;
  valid base64 or not, empty strings excepted. A ``text/*`` blob (sent as its
  decoded text) is named by the placeholder its blob would have.
- Nothing is computed for a result without structured content or without an
  item of those kinds; a value with nothing to replace is kept as the same
  object. The replacement depends on the result alone (never on options), so
  it runs once, when the result is built.

``ToolResult.structured_content`` stays the value the caller gave; reading a
block back (``from_wire``) gives the cleaned value the block carries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from . import _base64, _items, _values

__all__ = ["cleaned", "stand_ins"]

#: payload length -> ((payload, its placeholder), ...): a string is compared with a
#: payload only when their lengths match
StandIns = dict[int, tuple[tuple[str, str], ...]]


def stand_ins(source: Sequence[Mapping[str, Any] | str], items: Sequence[_items.Item]) -> StandIns:
    """Return the payloads the content carries with the placeholder standing in for each.

    ``source`` is the frozen content, 1:1 with the parsed ``items``.
    """
    found: dict[int, list[tuple[str, str]]] = {}
    for raw, item in zip(source, items, strict=True):
        if isinstance(raw, str) or item.kind in (_items.TEXT, _items.NATIVE, _items.LINK):
            continue
        payload = _payload(raw)
        if not payload:
            continue
        text = item.text
        if item.kind == _items.DOCUMENT:  # a text/* blob is sent as its text: name the blob
            text = _items.placeholder("resource", item.mime, item.uri, _base64.screen(payload))
        pairs = found.setdefault(len(payload), [])
        if all(known != payload for known, _ in pairs):  # the first item's placeholder wins
            pairs.append((payload, text))
    return {size: tuple(pairs) for size, pairs in found.items()}


def _payload(raw: Mapping[str, Any]) -> str | None:
    """Return the base64 payload a frozen content item carries, if any."""
    kind = raw.get("type")
    if kind == "resource":
        resource = raw.get("resource")
        data = resource.get("blob") if isinstance(resource, Mapping) else None
    elif kind in ("image", "document") and isinstance(raw.get("source"), Mapping):
        source = raw["source"]  # an Anthropic-native block
        data = source.get("data") if source.get("type") == "base64" else None
    else:
        data = raw.get("data", raw.get("blob"))
    return data if type(data) is str else None


def cleaned(pair: tuple[Any, str | None], found: StandIns) -> tuple[Any, str | None]:
    """Return the structured ``pair`` (frozen value, canonical JSON) with every payload
    of ``found`` replaced by its placeholder; ``pair`` itself when none occurs."""
    if not found:
        return pair
    value = _replaced(pair[0], found)
    if value is pair[0]:
        return pair
    return value, _values.canonical_json(_values.thaw(value))


def _replaced(value: Any, found: StandIns) -> Any:
    """Return ``value`` (frozen) with payloads replaced; the same object when none is."""
    kind = type(value)
    if kind is str:
        return _stand_in(value, found)
    if kind is MappingProxyType:
        changed: dict[str, Any] | None = None
        for key, item in value.items():
            new = _replaced(item, found)
            if new is not item:
                if changed is None:
                    changed = dict(value)
                changed[key] = new
        return value if changed is None else MappingProxyType(changed)
    if kind is tuple:
        items = [_replaced(item, found) for item in value]
        if all(new is old for new, old in zip(items, value, strict=True)):
            return value
        return tuple(items)
    return value


def _stand_in(text: str, found: StandIns) -> str:
    """Return the placeholder for ``text`` when it is a payload or its ``data:`` URL."""
    pairs = found.get(len(text))
    if pairs is not None:
        for payload, placeholder in pairs:
            if text == payload:
                return placeholder
    if text[:5].lower() == "data:":
        comma = text.find(",")
        if comma >= 12 and text[comma - 7 : comma].lower() == ";base64":  # data:;base64,
            pairs = found.get(len(text) - comma - 1)
            if pairs is not None:
                for payload, placeholder in pairs:
                    if text.endswith(payload):
                        return placeholder
    return text
