"""Re-target tool results from one wire to another (gateway mode)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ._api import format_tool_results
from ._idrules import kept as kept_refusal
from ._result import ToolResult
from .errors import InvalidBlock, InvalidId, InvalidOption, UnknownWire, describe
from .wires import TABLE

__all__ = ["convert_tool_results"]


def convert_tool_results(
    source_wire: str,
    target_wire: str,
    blocks: Iterable[Any],
    /,
    *,
    names: Mapping[str, str] | None = None,
    image_input: bool | None = None,
    native_pdf: bool | None = None,
    source_blocks: bool | None = None,
    response_tag: str | None = None,
    **unknown: object,
) -> list[Any]:
    """Return tool-result blocks of ``source_wire`` as the messages of ``target_wire``.

    Each block is read with :meth:`ToolResult.from_wire`, then all are formatted
    with :func:`format_tool_results` and the options given (those of
    :meth:`ToolResult.to`). ``blocks`` are the blocks themselves: an Anthropic
    user message's ``content``, a Gemini content's ``parts``, the tool messages
    of openai and ollama, the ``function_call_output`` items of responses, the
    tagged strings of hermes, or the ``toolResult`` blocks of a bedrock user
    message's ``content``. ``names`` maps call ids to tool names, for blocks
    that carry no name (anthropic, openai, responses) going to a wire that sends
    one (gemini, ollama, hermes). ``ids=IdMap()`` maps ids and names to ones the
    target takes, except from a wire to itself: ids go back to the provider that
    minted them unchanged (unless ``id_rule`` names another provider's rule on that
    wire, such as Mistral's on openai).

    :raises UnknownWire: for a source or target wire not in ``WIRES``.
    :raises InvalidBlock: for a block that is not of ``source_wire`` (the message
        names its index), or ``blocks`` that is not a list of blocks.
    :raises UnknownOption: for an option name no wire knows.
    :raises InvalidOption: for an option value it cannot take, or ``names`` that is
        not a mapping of strings.
    :raises InvalidId: for an id or name the target's rule refuses (``ID_RULES``).
    """
    for wire in (source_wire, target_wire):
        if not isinstance(wire, str) or wire not in TABLE:
            raise UnknownWire(wire, TABLE)
    if names is not None and (
        not isinstance(names, Mapping)
        or not all(type(key) is str and type(value) is str for key, value in names.items())
    ):
        raise InvalidOption(
            f"names must map call ids to tool names (strings), not {describe(names)}"
        )
    kept = source_wire == target_wire and not _other_rule(target_wire, unknown.get("id_rule"))
    if kept:
        unknown.pop("ids", None)  # ids go back to the provider that minted them as they are
    if isinstance(blocks, (str, bytes, Mapping)) or not isinstance(blocks, Iterable):
        raise InvalidBlock(f"blocks must be a list of blocks, not {type(blocks).__name__}")
    results = []
    for index, block in enumerate(blocks):
        try:
            results.append(ToolResult._from_block(source_wire, block, "", "", names))
        except InvalidBlock as exc:
            raise InvalidBlock(f"blocks[{index}]: {exc}") from None
    try:
        return format_tool_results(
            target_wire,
            results,
            image_input=image_input,
            native_pdf=native_pdf,
            source_blocks=source_blocks,
            response_tag=response_tag,
            **unknown,
        )
    except InvalidId as exc:
        if not kept:
            raise
        raise kept_refusal(exc) from None


def _other_rule(wire: str, id_rule: object) -> bool:
    """Return True when ``id_rule`` is not ``wire``'s own: the engine behind the route is
    another provider on the same wire (Mistral's ids on the openai wire), so its ids
    were not minted there and may need the map."""
    own = TABLE[wire].id_rule
    return id_rule is not None and (own is None or id_rule != own.name)
