"""Wire facts and the message envelope, read from the wire table."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ._budget import AlreadySent, applies, within_budget
from ._budget import already_sent as _already_sent
from ._hoist import hoist as _hoist
from ._idmap import map_pair, prepare_ids
from ._options import Options
from ._report import Decision, decide
from ._result import ToolResult
from .errors import InvalidToolResult, UnknownKind, UnknownWire
from .wires import FLAG_PLANS, TABLE, flag_plan, plan

__all__ = [
    "KINDS",
    "NAMED_WIRES",
    "WIRES",
    "carries_native",
    "format_tool_results",
    "native_needs_vision",
    "report",
    "report_call",
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
    already_sent: object = None,  # an AlreadySent or a mapping (checked: ``_budget``)
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

    The request limits (``max_images``, ``many_images``, ``max_pdf_pages``,
    ``max_pdf_request_bytes``) count the media of the whole call, first come first
    served, plus ``already_sent`` (an :class:`AlreadySent`, or a mapping of its
    fields: what the rest of the conversation holds); media past a limit are
    placeholders (see ``_budget`` and :func:`report_call`).

    :raises UnknownWire: for a wire not in ``WIRES``.
    :raises UnknownOption: for an option name no wire knows.
    :raises InvalidOption: for an option value it cannot take, or an ``already_sent``
        that is not a mapping of counts.
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
        source_blocks is None
        and response_tag is None
        and not unknown
        and type(wire) is str
        and (image_input is None or image_input is True or image_input is False)
        and (native_pdf is None or native_pdf is True or native_pdf is False)
        and (hoist is None or hoist is True or hoist is False)
    ):  # the usual call: the flags' plan, looked up as in ToolResult.to
        try:
            block, resolved, budget = FLAG_PLANS[hoist][wire][image_input][native_pdf]
        except KeyError:
            block, resolved, budget = flag_plan(wire, image_input, native_pdf, hoist)
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
        budget = applies(TABLE[wire], resolved)
    sent = None if already_sent is None else _already_sent(already_sent)
    if budget:  # a request limit applies: the call's budget
        if type(results) is not list:
            results = list(results)
        blocks = []
        for result in results:  # all plain text (the usual case) counts nothing
            if type(result) is not ToolResult or result._texts is None:
                return _budgeted(wire, results, block, resolved, sent)
            blocks.append(block(result, resolved))
        return _ENVELOPES[wire](blocks, results, resolved)
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


def _budgeted(
    wire: str,
    results: Iterable[ToolResult],
    block: Any,
    resolved: Options,
    sent: AlreadySent | None,
) -> list[Any]:
    """Return the messages of ``results`` with the media past a request limit as placeholders."""
    spec = TABLE[wire]
    checked = [_checked(result) for result in results]
    hoisting = _hoisting(spec, resolved)
    seen = within_budget(spec, checked, resolved, sent or AlreadySent(), hoisting)
    if hoisting:
        return _hoist(spec, seen, spec.block, resolved)
    return _ENVELOPES[wire]([block(result, resolved) for result in seen], seen, resolved)


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
    spec = TABLE[wire]
    seen: Any = _checked(result)
    if seen._texts is None and applies(spec, resolved):  # the budget of the one result, as ``to``
        seen = within_budget(spec, (seen,), resolved, hoisting=_hoisting(spec, resolved))[0]
    return decide(spec, seen, resolved)


def report_call(
    wire: str,
    results: Iterable[ToolResult],
    /,
    *,
    already_sent: object = None,
    **options: object,
) -> tuple[tuple[Decision, ...], ...]:
    """Return, per result, the decisions :func:`report` gives, under the call's budget.

    What :func:`format_tool_results` with the same arguments sends: the request
    limits count the media of every result (and ``already_sent``), so a medium past
    one is a placeholder whose reason names the limit (``max_images``,
    ``many_images_max_side``, ``max_pdf_pages``, ``max_pdf_request_bytes``).

    :raises UnknownWire: for a wire not in ``WIRES``.
    :raises UnknownOption: for an option name no wire knows.
    :raises InvalidOption: for an option value it cannot take, or a bad ``already_sent``.
    :raises InvalidToolResult: when ``results`` holds something not a ToolResult.
    """
    if isinstance(results, (str, bytes, Mapping)) or not isinstance(results, Iterable):
        raise InvalidToolResult(
            f"results must be a list of ToolResult objects, not {type(results).__name__}"
        )
    _, resolved = plan(wire, unknown=options)
    spec = TABLE[wire]
    sent = _already_sent(already_sent)
    seen: list[Any] = [_checked(result) for result in results]
    if applies(spec, resolved):
        seen = within_budget(spec, seen, resolved, sent, _hoisting(spec, resolved))
    return tuple(decide(spec, result, resolved) for result in seen)


def _hoisting(spec: Any, options: Options) -> bool:
    """True when media go into the user turn (``hoist`` on a wire that has one)."""
    return options.hoist and spec.hoist is not None
