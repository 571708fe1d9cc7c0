"""JSON values: canonical encoding, deep freezing (bounded, surrogate-free) and thawing."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from .errors import InvalidToolResult, describe

__all__ = [
    "MAX_DEPTH",
    "WRAPPER",
    "as_mapping",
    "canonical_json",
    "freeze",
    "structured",
    "text",
    "thaw",
    "wrapped",
]

#: How deep a value may nest (objects and arrays). Deeper values -- and cyclic
#: ones, which are infinitely deep -- are refused with ``InvalidToolResult``.
MAX_DEPTH = 200
_SURROGATE = re.compile("[\ud800-\udfff]")
#: The key a structured value that is not an object goes under where a wire's
#: field takes objects only (gemini ``response``, bedrock ``json``).
WRAPPER = "result"


def canonical_json(value: object) -> str:
    """Return ``value`` as canonical JSON: sorted keys, no spaces, UTF-8 kept as is.

    :raises ValueError: for NaN or an infinity, which JSON has no form for.
    :raises TypeError: for a value that is not JSON.
    """
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def text(value: str) -> str:
    """Return ``value`` with every lone surrogate replaced by U+FFFD (O(1) when ASCII).

    ``json.loads`` lets lone surrogates through (``"\\ud800"``); no UTF-8 request
    body can carry them, so they are replaced once, when a result is built.
    """
    if value.isascii():
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", value)
    return value


def structured(value: object) -> tuple[Any, str]:
    """Return the frozen form and the canonical JSON of a ``structuredContent`` value.

    The one home of what structured content may be: JSON with string keys, no
    two keys that are equal once lone surrogates are replaced, and at most
    ``MAX_DEPTH`` levels *as sent*: a value that is not an object goes out as
    ``{WRAPPER: value}`` (:func:`wrapped`) on some wires, so it is measured in
    that form, and a block toolwire wrote always reads back. The canonical JSON
    is that of the frozen value (keys sorted after their surrogates are
    replaced), so every wire carries the same value.

    :raises InvalidToolResult: for anything else.
    """
    where = "structured_content"
    if isinstance(value, Mapping):
        frozen = freeze(value, where, string_keys=True)
    else:
        where = f"structured_content (sent as {{{WRAPPER!r}: value}})"
        frozen = freeze({WRAPPER: value}, where, string_keys=True)[WRAPPER]
    try:
        raw = canonical_json(value)
    except (TypeError, ValueError) as exc:
        raise InvalidToolResult(f"structured_content is not JSON: {exc}") from None
    encoded = text(raw)
    if encoded is not raw:  # a surrogate was replaced: its key may sort elsewhere now
        encoded = canonical_json(thaw(frozen))
    return frozen, encoded


def wrapped(frozen: Any) -> dict[str, Any]:
    """Return a frozen structured value as a plain object: itself, or ``{WRAPPER: value}``."""
    return thaw(frozen) if isinstance(frozen, Mapping) else {WRAPPER: thaw(frozen)}


def freeze(value: object, where: str | int = "value", string_keys: bool = False) -> Any:
    """Return a read-only deep copy: mappings become mapping proxies, lists tuples.

    ``where`` names the value in an error: a description, or the index of a
    content item (``content[N]``, formatted only when there is an error).

    Strings lose their lone surrogates, keys too; two keys that become equal so
    are refused rather than merged. With ``string_keys``, a mapping key that is
    not a string is refused (JSON objects have string keys only).

    :raises InvalidToolResult: for a value nested deeper than ``MAX_DEPTH`` (or
        cyclic), keys equal once their surrogates are replaced, or a non-string
        key where ``string_keys`` asks for strings.
    """
    return _freeze(value, where, string_keys, MAX_DEPTH)


_SCALARS = frozenset({int, float, bool, type(None)})


def _deep(where: str | int) -> InvalidToolResult:
    return InvalidToolResult(f"{_place(where)} nests deeper than {MAX_DEPTH} levels (or is cyclic)")


def _place(where: str | int) -> str:
    return f"content[{where}]" if type(where) is int else str(where)


def _freeze(value: Any, where: str | int, string_keys: bool, depth: int) -> Any:
    kind = type(value)
    if kind is dict:
        pass
    elif kind is str:
        return text(value)
    elif kind in _SCALARS:
        return value
    if kind is dict or isinstance(value, Mapping):
        if not depth:
            raise _deep(where)
        out = {}
        for key, item in value.items():
            if type(key) is str:
                if not key.isascii():
                    # keys are unique, so a key already there was made by a replacement
                    key = text(key)
                    if key in out:
                        raise InvalidToolResult(
                            f"{_place(where)} has two keys that differ only in lone"
                            f" surrogates (both {describe(key)} once replaced)"
                        )
            elif string_keys:
                raise InvalidToolResult(
                    f"{_place(where)} has a key that is not a string: {describe(key)}"
                )
            if type(item) is str:  # leaves inline: most values are strings
                out[key] = item if item.isascii() else text(item)
            elif type(item) in _SCALARS:
                out[key] = item
            else:
                out[key] = _freeze(item, where, string_keys, depth - 1)
        return MappingProxyType(out)
    if kind is list or kind is tuple or isinstance(value, (list, tuple)):
        if not depth:
            raise _deep(where)
        return tuple([_freeze(item, where, string_keys, depth - 1) for item in value])
    if isinstance(value, str):  # a str subclass: keep a plain string
        return text(str(value))
    return value


def thaw(value: Any) -> Any:
    """Return a plain, mutable deep copy of a frozen value (mappings and sequences)."""
    if isinstance(value, Mapping):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(item) for item in value]
    return value


def as_mapping(obj: object) -> Mapping[str, Any] | None:
    """Return the camelCase mapping of an object or mapping (an SDK's pydantic model, an
    ``mcp`` object, a plain object's attributes), else None."""
    if isinstance(obj, Mapping):
        return obj
    dump = getattr(obj, "model_dump", None)
    if callable(dump):  # pydantic models: every mcp version dumps camelCase by alias
        try:
            dumped = dump(by_alias=True, mode="json", exclude_none=True)
        except Exception:
            dumped = None
        if isinstance(dumped, Mapping):
            return dumped
    if hasattr(obj, "__dict__") and not isinstance(obj, type):
        return {_camel(key): _plain(value) for key, value in vars(obj).items()}
    return None


def _plain(value: object) -> object:
    """Return an attribute value with nested plain objects turned into mappings.

    An embedded resource's ``resource`` (and any list of objects) is itself an
    object on an attribute-only result; left as is, it would not be recognised.
    """
    if isinstance(value, (str, bytes, int, float, Mapping)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    mapping = as_mapping(value)
    return value if mapping is None else mapping


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(word.title() for word in rest)
