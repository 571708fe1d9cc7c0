"""One module per wire; ``TABLE`` maps each wire name to what its module declares."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from .._options import Options, Wire, resolve_options
from ..errors import UnknownWire
from . import anthropic, gemini, hermes, ollama, openai, responses

__all__ = ["TABLE", "plan"]

TABLE: MappingProxyType[str, Wire] = MappingProxyType(
    {
        module.WIRE.name: module.WIRE
        for module in (anthropic, openai, responses, gemini, ollama, hermes)
    }
)

Plan = tuple[Callable[[Any, Options], Any], Options]

#: Stands for an option the caller did not pass (None is not a valid value).
UNSET: Any = None

# (wire, image_input, native_pdf, source_blocks, response_tag) -> (block, options).
# Callers repeat the same few combinations, so a call costs one dictionary lookup.
_PLANS: dict[tuple[object, ...], Plan] = {
    (name, UNSET, UNSET, UNSET, UNSET): (wire.block, wire.defaults) for name, wire in TABLE.items()
}
_PLANS_MAX = 1024


def plan(
    wire: object,
    image_input: object = UNSET,
    native_pdf: object = UNSET,
    source_blocks: object = UNSET,
    response_tag: object = UNSET,
    unknown: Mapping[str, object] | None = None,
) -> Plan:
    """Return the block function of ``wire`` and the options it runs with.

    :raises UnknownWire: for a wire not in ``TABLE``.
    :raises UnknownOption: for an option name no wire knows (in ``unknown``).
    :raises InvalidOption: for an option value it cannot take.
    """
    key = (wire, image_input, native_pdf, source_blocks, response_tag)
    if not unknown:
        try:
            return _PLANS[key]
        except (KeyError, TypeError):
            pass
    spec = TABLE.get(wire) if isinstance(wire, str) else None
    if spec is None:
        raise UnknownWire(wire, TABLE)
    given = dict(unknown or {})
    for name, value in zip(
        ("image_input", "native_pdf", "source_blocks", "response_tag"), key[1:], strict=True
    ):
        if value is not UNSET:
            given[name] = value
    found = (spec.block, resolve_options(spec, given))
    if len(_PLANS) < _PLANS_MAX:  # every value resolved is a bool or a str: hashable
        _PLANS[key] = found
    return found
