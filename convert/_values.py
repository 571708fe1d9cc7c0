"""JSON values: canonical encoding, deep freezing and thawing."""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

__all__ = ["canonical_json", "freeze", "thaw"]


def canonical_json(value: object) -> str:
    """Return ``value`` as canonical JSON: sorted keys, no spaces, UTF-8 kept as is.

    :raises ValueError: for NaN or an infinity, which JSON has no form for.
    :raises TypeError: for a value that is not JSON.
    """
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def freeze(value: object) -> Any:
    """Return a read-only deep copy: mappings become mapping proxies, lists tuples."""
    if isinstance(value, Mapping):
        return MappingProxyType({key: freeze(item) for key, item in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(freeze(item) for item in value)
    return value


def thaw(value: Any) -> Any:
    """Return a plain, mutable deep copy of a frozen value (mappings and sequences)."""
    if isinstance(value, Mapping):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(item) for item in value]
    return value
