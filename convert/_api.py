"""Wire facts and the message envelope, read from the wire table."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ._hoist import hoist as _hoist
from ._idmap import map_pair, prepare_ids
from ._report import Decision, decide
from ._result import ToolResult
from .errors import InvalidToolResult, UnknownKind, UnknownWire
from .wires import DEFAULT_PLANS, TABLE, plan

__all__ = [
    "KINDS",
    "NAMED_WIRES",
    "WIRES",
    "carries_native",
    "format_tool_results",
    "native_needs_vision",
    "report",
    "wire_options",
]

#: Every wire name, in a stable order.
WIRES: tuple[str, ...] = tuple(TABLE)
#: The wires whose blocks name the tool: a result sent there needs a name.
NAMED_WIRES: tuple[str, ...] = tuple(name for name, spec in TABLE.items() if spec.needs_name)
#: The media kinds a wire may carry natively.
KINDS: tuple[str, ...] = ("image", "pdf")
_ENVELOPES = {name: spec.envelope for name, spec in TABLE.items()}


def carries_native(wire: str | None, kind: str) -> bool:
    """Return True when ``wire`` has a native tool-result form for ``kind``.

    False on every wire without one, including an unknown wire or None.

    :raises UnknownKind: when ``kind`` is not ``"image"`` or ``"pdf"``.
    """
    if kind not in KINDS:
        raise UnknownKind(kind)
    spec = TABLE.get(wire) if isinstance(wire, str) else None
    return spec is not None and kind in spec.native


def native_needs_vision(wire: str | None, kind: str) -> bool:
    """Return True when the native form of ``kind`` on ``wire`` reaches only vision models.

    True for images on every wire that carries them, and for PDFs on responses
    and gemini (read through the model's vision); False for a PDF on anthropic
    (a text-only model reads the extracted text) and on wires without a form.

    :raises UnknownKind: when ``kind`` is not ``"image"`` or ``"pdf"``.
    """
    if kind not in KINDS:
        raise UnknownKind(kind)
    spec = TABLE.get(wire) if isinstance(wire, str) else None
    return spec is not None and spec.native.get(kind, False)


def wire_options(wire: str) -> frozenset[str]:
    """Return the names of the options ``wire`` reads (others are ignored there).

    :raises UnknownWire: for a wire not in ``WIRES``.
    """
    spec = TABLE.get(wire) if isinstance(wire, str) else None
    if spec is None:
        raise UnknownWire(wire, TABLE)
    return spec.options


def format_tool_results(
    wire: str,
    results: Iterable[ToolResult],
    /,
    *,
    image_input: bool | None = None,
    native_pdf: bool | None = None,
    source_blocks: bool | None = None,
    response_tag: str | None = None,
    hoist: object = None,  # a flag, checked as the others are (object: **options pass it)
    **unknown: object,
) -> list[Any]:
    """Return the messages (or input items) that carry ``results`` on ``wire``.

    anthropic, gemini and bedrock put every result in one user message; openai,
    ollama and hermes send one tool message per result; responses one input item
    each. Options are those of :meth:`ToolResult.to`, plus ``hoist`` (openai,
    ollama): images (``image_input``) and, on openai, PDFs (``native_pdf``) go
    in one user message after the tool messages (see ``_hoist``), ``call_ids``
    (hermes): each tool message carries its result's call id as ``tool_call_id``,
    as an OpenAI-compatible chat endpoint needs, and ``ids`` / ``id_rule`` (see
    ``_idmap``).

    :raises UnknownWire: for a wire not in ``WIRES``.
    :raises UnknownOption: for an option name no wire knows.
    :raises InvalidOption: for an option value it cannot take.
    :raises InvalidToolResult: when ``results`` holds something not a ToolResult.
    :raises InvalidId: for an id or name the wire's rule refuses (``ID_RULES``).
    """
    if type(results) is not list and (
        isinstance(results, (str, bytes, Mapping)) or not isinstance(results, Iterable)
    ):
        raise InvalidToolResult(
            f"results must be a list of ToolResult objects, not {type(results).__name__}"
        )
    if (
        image_input is None
        and native_pdf is None
        and source_blocks is None
        and response_tag is None
        and hoist is None
        and not unknown
        and type(wire) is str
        and wire in DEFAULT_PLANS
    ):  # the usual call: one lookup, as in ToolResult.to
        block, resolved = DEFAULT_PLANS[wire]
    else:
        ids = unknown.pop("ids", None) if unknown else None
        id_rule = unknown.pop("id_rule", None) if unknown else None
        block, resolved = plan(
            wire,
            image_input,
            native_pdf,
            source_blocks,
            response_tag,
            unknown,
            hoist=hoist,
        )
        if ids is not None or id_rule is not None:
            idmap, rule = prepare_ids(ids, id_rule)
            results = [
                result._renamed(*map_pair(wire, result.id, result.name, idmap, rule))
                if isinstance(result, ToolResult)
                else result
                for result in results
            ]
    if resolved.hoist:  # only wires that read it (openai, ollama) can have it set
        if type(results) is not list:
            results = list(results)
        blocks = []
        for result in results:  # all plain text (the usual case) hoists nothing
            if type(result) is not ToolResult or result._texts is None:
                for each in results:
                    if type(each) is not ToolResult:
                        _checked(each)
                spec = TABLE[wire]
                return _hoist(spec, results, spec.block, resolved)
            blocks.append(block(result, resolved))
        return _ENVELOPES[wire](blocks, results, resolved)
    if type(results) is not list:
        results = list(results)  # the envelope reads them beside their blocks
    blocks = []
    for result in results:  # no call per result but the block's
        if type(result) is not ToolResult and not isinstance(result, ToolResult):
            _checked(result)
        blocks.append(block(result, resolved))
    return _ENVELOPES[wire](blocks, results, resolved)


def _checked(result: object) -> ToolResult:
    if not isinstance(result, ToolResult):
        raise InvalidToolResult(f"results must be ToolResult objects, not {type(result).__name__}")
    return result


def report(wire: str, result: ToolResult, /, **options: object) -> tuple[Decision, ...]:
    """Return, per content item of ``result``, what ``wire`` gets with ``options`` and why.

    Each :class:`Decision` says whether the item went natively, as text, as a
    placeholder (with the reason: the wire has no form for it, the model does
    not read it, over the size limit, invalid base64, unsupported MIME, ...),
    hoisted into a user turn, or was left out (audience). Options are those of
    :func:`format_tool_results`; the rules are the ones the blocks use.

    :raises UnknownWire: for a wire not in ``WIRES``.
    :raises UnknownOption: for an option name no wire knows.
    :raises InvalidOption: for an option value it cannot take.
    :raises InvalidToolResult: when ``result`` is not a ToolResult.
    """
    _, resolved = plan(wire, unknown=options)
    return decide(TABLE[wire], _checked(result), resolved)
