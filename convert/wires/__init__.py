"""One module per wire; ``TABLE`` maps each wire name to what its module declares.

Beside the table, the two ways in: :func:`plan` (a wire's block function and the
options it runs with, cached by one key) and :func:`read_block` (one block of a
wire back to what it holds).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from types import MappingProxyType
from typing import Any, cast

from .._audience import for_the_model
from .._budget import applies
from .._options import ALL_OPTIONS, Options, resolve_options
from .._read import Read
from .._values import as_mapping
from .._wire import Result, Source, Wire
from ..errors import InvalidBlock, UnknownWire
from . import anthropic, bedrock, gemini, gemini_interactions, hermes, ollama, openai, responses

__all__ = ["FLAG_PLANS", "TABLE", "UNHOISTED", "flag_plan", "flag_plans", "plan", "read_block"]

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

# key (see ``plan``) -> (block, options): callers repeat the same few combinations
_PLANS: dict[tuple[object, ...], Plan] = {}
_PLANS_MAX = 1024
_KEYED = frozenset({type(None), bool, str})  # the types a cached key holds
#: and, for the other options (keyed with their type), int and MIME collections
_KEYED_OTHER = frozenset({type(None), bool, str, int, list, tuple, set, frozenset})


def plan(
    wire: object,
    image_input: object = UNSET,
    native_pdf: object = UNSET,
    source_blocks: object = UNSET,
    response_tag: object = UNSET,
    unknown: Mapping[str, object] | None = None,
    *,
    hoist: object = UNSET,
) -> Plan:
    """Return the block function of ``wire`` and the options it runs with.

    The one home of the plan cache's key: ``(wire, image_input, native_pdf,
    source_blocks, response_tag, hoist)``, then the other options by name (sorted),
    each as ``(name, type, value)``. Only a key of None, bool and str values (and,
    for the other options, int values and MIME collections of str) is cached: a
    value of another type is resolved (and checked) on every call, never looked
    up, as a value equal to a cached one (``Decimal(1) == True``, with the same
    hash) would otherwise find that one's plan without being checked; the type in
    the key keeps ``True`` and ``1`` apart.

    :raises UnknownWire: for a wire not in ``TABLE``.
    :raises UnknownOption: for an option name no wire knows (in ``unknown``).
    :raises InvalidOption: for an option value it cannot take.
    """
    keyed = _KEYED
    key: tuple[object, ...] | None = None
    if (
        type(wire) is str
        # None, True and False by identity (the usual values, and the quickest test)
        and (image_input is None or image_input is True or image_input is False)
        and (native_pdf is None or native_pdf is True or native_pdf is False)
        and (source_blocks is None or source_blocks is True or source_blocks is False)
        and (response_tag is None or type(response_tag) in keyed)
        and (hoist is None or type(hoist) in keyed)
    ) or (
        type(wire) is str
        and type(image_input) in keyed
        and type(native_pdf) in keyed
        and type(source_blocks) in keyed
        and type(response_tag) in keyed
        and type(hoist) in keyed
    ):
        if not unknown:
            key = (wire, image_input, native_pdf, source_blocks, response_tag, hoist)
        elif unknown.keys() <= ALL_OPTIONS:
            others = _keyed(unknown)
            if others is not None:
                key = (wire, image_input, native_pdf, source_blocks, response_tag, hoist, *others)
        if key is not None:
            found = _PLANS.get(key)
            if found is not None:
                return found
    spec = TABLE.get(wire) if isinstance(wire, str) else None
    if spec is None:
        raise UnknownWire(wire, TABLE)
    given = dict(unknown or {})
    for name, value in (
        ("image_input", image_input),
        ("native_pdf", native_pdf),
        ("source_blocks", source_blocks),
        ("response_tag", response_tag),
        ("hoist", hoist),
    ):
        if value is not UNSET:
            given[name] = value
    options = resolve_options(spec.options, spec.defaults, given)
    plan_ = (_audience_block(spec.block) if options.audience else spec.block, options)
    if key is not None and len(_PLANS) < _PLANS_MAX:
        _PLANS[key] = plan_
    return plan_


def _keyed(options: Mapping[str, object]) -> tuple[tuple[object, ...], ...] | None:
    """Return the cache key of the options beyond the first five, or None (not cached)."""
    keyed = _KEYED_OTHER
    out = []
    for name, value in sorted(options.items()):
        kind = type(value)
        if kind not in keyed:
            return None
        if kind is list or kind is tuple or kind is set or kind is frozenset:
            if not all(type(each) is str for each in value):  # type: ignore[attr-defined]
                return None
            value = frozenset(cast("Collection[str]", value))
            kind = frozenset  # of exact strings: a list and a tuple of them are one value
        out.append((name, kind, value))
    return tuple(out)


def _audience_block(block: Callable[[Result, Options], Any]) -> Callable[[Source, Options], Any]:
    """Return ``block`` run on the result without its user-only items (``audience=True``)."""

    def audience_block(result: Source, options: Options) -> Any:
        return block(for_the_model(result), options)

    return audience_block


#: The usual calls, read inline by ``ToolResult.to`` and ``format_tool_results``: no
#: option but the flags given, each flag None (not given), True or False:
#: ``FLAG_PLANS[hoist][wire][image_input][native_pdf] -> (block, options, budget)``,
#: ``budget`` True when a request limit could make a medium a placeholder
#: (``_budget.applies``). A dict per flag, not one keyed by a tuple: four lookups of
#: keys whose hashes are ready cost less than building, hashing and comparing a tuple
#: (about 390 instructions fewer a call). Filled by :func:`flag_plan` on a miss (at
#: most 216 plans). Look up only an exact ``str`` wire and flags that are None, True
#: or False by identity: ``1 == True`` would find True's plan unchecked.
FlagPlan = tuple[Callable[[Any, Options], Any], Options, bool]
FLAG_PLANS: dict[object, dict[str, dict[object, dict[object, FlagPlan]]]] = {
    None: {},
    True: {},
    False: {},
}
#: ``FLAG_PLANS[None]``: the plans of ``ToolResult.to``, which takes no ``hoist``
UNHOISTED = FLAG_PLANS[None]


def flag_plan(wire: str, image_input: object, native_pdf: object, hoist: object) -> FlagPlan:
    """Return and keep the ``FLAG_PLANS`` entry of these flags (each None, True or False).

    :raises UnknownWire: for a wire not in ``TABLE`` (nothing is kept).
    """
    block, options = plan(wire, image_input, native_pdf, hoist=hoist)
    found = (block, options, applies(TABLE[wire], options))
    by_image = FLAG_PLANS[hoist].setdefault(wire, {})
    by_image.setdefault(image_input, {})[native_pdf] = found
    return found


def flag_plans() -> list[tuple[tuple[str, object, object, object], FlagPlan]]:
    """Return every kept ``FLAG_PLANS`` entry as ``((wire, image_input, native_pdf,
    hoist), plan)``."""
    return [
        ((wire, image_input, native_pdf, hoist), found)
        for hoist, by_wire in FLAG_PLANS.items()
        for wire, by_image in by_wire.items()
        for image_input, by_pdf in by_image.items()
        for native_pdf, found in by_pdf.items()
    ]


def read_block(wire: object, block: object) -> Read:
    """Return what one block of ``wire`` holds (its reader's :class:`Read`).

    A block may be a provider SDK object that dumps to the wire's JSON (pydantic).

    :raises UnknownWire: for a wire not in ``TABLE``.
    :raises InvalidBlock: for a block that is not a tool-result block of ``wire``.
    """
    spec = TABLE.get(wire) if isinstance(wire, str) else None
    if spec is None:
        raise UnknownWire(wire, TABLE)
    if spec.read is None:
        raise InvalidBlock(f"blocks of the {wire} wire cannot be read")
    if not isinstance(block, (str, Mapping)):
        block = as_mapping(block) or block  # an SDK object (pydantic model)
    return spec.read(block)
