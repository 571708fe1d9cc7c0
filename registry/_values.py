"""A claim's value by its capability's kind: the one home of checking, parsing and showing it.

``bool`` claims are true or false; ``int`` claims are limits, a whole number from 1 to
``INT_MAX`` (bytes are decoded bytes); ``mimes`` claims are a non-empty, sorted list of
distinct lowercase MIME types (a tuple in records). Importable without the database
layer: the CLI parses ``--value`` here.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import TypeAlias

from toolwire.convert.errors import describe

from .errors import InvalidInput

__all__ = [
    "INT_MAX",
    "ClaimValue",
    "check_value",
    "json_value",
    "parse_value",
    "show_value",
    "stored",
]

#: What a claim holds: a flag, a limit, or MIME types.
ClaimValue: TypeAlias = bool | int | tuple[str, ...]

#: The largest limit a claim may hold (the largest integer JSON readers keep exact).
INT_MAX = 2**53 - 1
_TOKEN = r"[a-z0-9][a-z0-9!#$&^_.+-]{0,126}"
MIME_RE = re.compile(rf"{_TOKEN}/{_TOKEN}")


def json_value(value: object) -> object:
    """Return a claim value (or a converter option) JSON-ready: MIME types as a list."""
    return list(value) if isinstance(value, tuple) else value


def check_value(kind: str, value: object, capability: str = "claim") -> ClaimValue:
    """Return ``value`` checked (and normalised) for a capability of ``kind``.

    MIME types are lowercased, sorted and made distinct; a list becomes a tuple.

    :raises InvalidInput: for a value of another kind, an int out of range, an empty
        list or a string that does not look like a MIME type.
    """
    if kind == "bool":
        if isinstance(value, bool):
            return value
        raise InvalidInput(f"invalid {capability} value {describe(value)}: must be true or false")
    if kind == "int":
        if type(value) is int and 1 <= value <= INT_MAX:
            return value
        raise InvalidInput(
            f"invalid {capability} value {describe(value)}: must be a whole number, 1 to {INT_MAX}"
        )
    if kind == "mimes":
        return _mimes(value, capability)
    raise InvalidInput(f"invalid {capability} value {describe(value)}: unknown value kind {kind!r}")


def _mimes(value: object, capability: str) -> tuple[str, ...]:
    what = f"invalid {capability} value {describe(value)}"
    if isinstance(value, (str, bytes)) or not isinstance(value, Collection):
        raise InvalidInput(f"{what}: must be a list of MIME types such as image/png")
    found: set[str] = set()
    for item in value:
        if not isinstance(item, str) or not MIME_RE.fullmatch(item.lower()):
            raise InvalidInput(f"{what}: {describe(item)} is not a MIME type such as image/png")
        found.add(item.lower())
    if not found:
        raise InvalidInput(f"{what}: must name at least one MIME type")
    return tuple(sorted(found))


def parse_value(kind: str, text: str, capability: str = "claim") -> ClaimValue:
    """Return the value a command line spells: ``true``/``false``, ``600``, ``a/b,c/d``.

    :raises InvalidInput: for text that is not a value of ``kind``.
    """
    spelled = text.strip()
    if kind == "bool":
        flags = {"true": True, "false": False}
        if spelled.lower() not in flags:
            raise InvalidInput(
                f"invalid {capability} value {describe(text)}: must be true or false"
            )
        return flags[spelled.lower()]
    if kind == "int":
        digits = spelled.replace("_", "")
        if not digits.isascii() or not digits.isdigit():
            shown = describe(text)
            raise InvalidInput(
                f"invalid {capability} value {shown}: must be a whole number, 1 to {INT_MAX}"
            )
        return check_value(kind, int(digits), capability)
    if kind == "mimes":
        items = [item.strip() for item in spelled.split(",")]
        return check_value(kind, [item for item in items if item], capability)
    return check_value(kind, text, capability)


def show_value(value: object) -> str:
    """Return a claim value as text: ``true``, ``600``, ``image/jpeg,image/png``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):
        return ",".join(str(item) for item in value)
    return str(value)


def stored(value: object) -> tuple[bool | None, object]:
    """Return a claim value as its two columns: ``value`` (a flag) and ``value_json``.

    A tuple of MIME types stays a tuple (hashable for bulk inserts); JSON writes it as a list.
    """
    if value is None or isinstance(value, bool):
        return value, None
    return None, value
