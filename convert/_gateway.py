"""Re-target tool results from one wire to another (gateway mode)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ._api import format_tool_results
from ._result import ToolResult, _from_wire
from .errors import InvalidBlock, InvalidOption, UnknownWire
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
    of openai and ollama, the ``function_call_output`` items of responses, or the
    tagged strings of hermes. ``names`` maps call ids to tool names, for blocks
    that carry no name (anthropic, openai, responses) going to a wire that sends
    one (gemini, ollama, hermes).

    :raises UnknownWire: for a source or target wire not in ``WIRES``.
    :raises InvalidBlock: for a block that is not of ``source_wire`` (the message
        names its index), or ``blocks`` that is not a list of blocks.
    :raises UnknownOption: for an option name no wire knows.
    :raises InvalidOption: for an option value it cannot take, or ``names`` that is
        not a mapping of strings.
    """
    for wire in (source_wire, target_wire):
        if not isinstance(wire, str) or wire not in TABLE:
            raise UnknownWire(wire, TABLE)
    if names is not None and not isinstance(names, Mapping):
        raise InvalidOption(f"names must map call ids to tool names, not {names!r}")
    if isinstance(blocks, (str, bytes, Mapping)) or not isinstance(blocks, Iterable):
        raise InvalidBlock(f"blocks must be a list of blocks, not {type(blocks).__name__}")
    results = []
    for index, block in enumerate(blocks):
        try:
            results.append(_from_wire(ToolResult, source_wire, block, "", "", names))
        except InvalidBlock as exc:
            raise InvalidBlock(f"blocks[{index}]: {exc}") from None
    return format_tool_results(
        target_wire,
        results,
        image_input=image_input,
        native_pdf=native_pdf,
        source_blocks=source_blocks,
        response_tag=response_tag,
        **unknown,
    )
