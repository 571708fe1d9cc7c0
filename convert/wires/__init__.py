"""One module per wire; ``TABLE`` maps each wire name to what its module declares."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from .._audience import for_the_model
from .._options import ALL_OPTIONS, Options, Wire, resolve_options
from ..errors import UnknownWire
from . import anthropic, bedrock, gemini, gemini_interactions, hermes, ollama, openai, responses

__all__ = ["TABLE", "plan"]

TABLE: MappingProxyType[str, Wire] = MappingProxyType(
    {
        module.WIRE.name: module.WIRE
        for module in (
            anthropic,
            openai,
            responses,
            gemini,
            ollama,
            hermes,
            bedrock,
            gemini_interactions,
        )
    }
)

Plan = tuple[Callable[[Any, Options], Any], Options]

#: Stands for an option the caller did not pass (None is not a valid value).
UNSET: Any = None

# wire -> (block, options) when no option is given, the usual call (a string key is
# the cheapest lookup); and (wire, image_input, native_pdf, source_blocks,
# response_tag) -> (block, options): callers repeat the same few combinations, so a
# call costs one dictionary lookup.
_DEFAULT_PLANS: dict[object, Plan] = {
    name: (wire.block, wire.defaults) for name, wire in TABLE.items()
}
_PLANS: dict[tuple[object, ...], Plan] = {
    (name, UNSET, UNSET, UNSET, UNSET): found for name, found in _DEFAULT_PLANS.items()
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
    key: tuple[object, ...] = (wire, image_input, native_pdf, source_blocks, response_tag)
    if unknown and unknown.keys() <= ALL_OPTIONS:
        # The newer options arrive here by name: part of the key, so still one lookup.
        key = (*key, *sorted(unknown.items()))
    if not unknown or len(key) > 5:
        try:
            return _PLANS[key]
        except (KeyError, TypeError):
            pass
    spec = TABLE.get(wire) if isinstance(wire, str) else None
    if spec is None:
        raise UnknownWire(wire, TABLE)
    given = dict(unknown or {})
    for name, value in zip(
        ("image_input", "native_pdf", "source_blocks", "response_tag"), key[1:5], strict=True
    ):
        if value is not UNSET:
            given[name] = value
    options = resolve_options(spec, given)
    found = (_audience_block(spec.block) if options.audience else spec.block, options)
    # every value resolved is a bool or a str: hashable
    if len(_PLANS) < _PLANS_MAX and (not unknown or len(key) > 5):
        _PLANS[key] = found
    return found


def _audience_block(block: Callable[[Any, Options], Any]) -> Callable[[Any, Options], Any]:
    """Return ``block`` run on the result without its user-only items (``audience=True``)."""

    def audience_block(result: Any, options: Options) -> Any:
        return block(for_the_model(result), options)

    return audience_block
