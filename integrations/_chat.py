"""Rewrite an OpenAI Chat conversation's tool turns for the model a gateway routes it to.

A gateway such as LiteLLM takes every conversation in the Chat Completions shape and
translates it to the routed provider's wire itself. What it cannot know is what the
model behind the route *reads* inside a tool result, nor which call ids that provider
refuses. :func:`rewrite` decides both from a registry ``Resolution`` and returns the
conversation still in the Chat shape, for the gateway to translate as usual:

- A ``role: "tool"`` message's ``image_url`` and ``file`` parts are read as MCP items
  through the Responses wire's reader (whose ``input_image``/``input_file`` parts are
  the same data URLs; the openai wire's reader has no media form to read them into),
  and the converter's report says, per item, what the routed wire does with it under
  the resolved options: a part the model reads natively there stays as it is; any
  other becomes the converter's metadata-only placeholder text (a message left with no
  native part gets the converter's whole string form, as the openai wire writes it).
- Where the resolution hoists (``hoist_media`` on the openai wire), the run of tool
  messages is formatted by the converter itself: tool messages with their text, then
  one user message with the media after a boundary naming the tool and its call id.
- The request limits (``max_images``, ``max_pdf_pages``, ``max_pdf_request_bytes``,
  ``many_images``) hold for the whole request: the tool messages with media are
  decided as one call, in conversation order, with what the other messages send
  (``_sent``) as ``already_sent``; a medium past a limit becomes its placeholder.
- Call ids (the assistant's ``tool_calls`` and the tool messages' ``tool_call_id``)
  and, where the wire has a name rule, tool names are mapped with one ``IdMap`` to the
  engine's rule (else the wire's): a valid id is kept as it is, so ids the target
  minted go back unchanged and pairs survive.

Nothing is copied or rewritten when nothing changes: the caller's list comes back
untouched (None).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolwire.convert import LIMIT_OPTIONS, NAME_RULES, Decision, IdMap, ToolResult
from toolwire.registry import Resolution

from ._parts import as_responses
from ._sent import already_sent

__all__ = ["Rewrite", "has_tool_turns", "rewrite"]


@dataclass(frozen=True, slots=True)
class Rewrite:
    """A rewritten conversation and what was done to it."""

    messages: list[Any]
    #: the request's ``tools`` with mapped names (None: unchanged)
    tools: list[Any] | None
    #: the compact decision report recorded in the request's metadata
    report: dict[str, Any] = field(default_factory=dict)


def has_tool_turns(messages: object) -> bool:
    """Return True when ``messages`` holds a tool call or a tool result (the cheap test)."""
    if type(messages) is not list:
        return False
    for message in messages:
        if type(message) is dict and (message.get("role") == "tool" or message.get("tool_calls")):
            return True
    return False


def _has_media(message: Mapping[str, Any]) -> bool:
    content = message.get("content")
    if type(content) is not list:
        return False
    return any(type(part) is not dict or part.get("type") != "text" for part in content)


class _Pass:
    """One pass over a conversation: the id map, the names seen and the report."""

    def __init__(self, resolution: Resolution) -> None:
        self.resolution = resolution
        self.ids = IdMap()
        self.target = resolution.id_rule or resolution.wire
        self.name_target = resolution.wire if resolution.wire in NAME_RULES else None
        self.names: dict[str, str] = {}  # original call id -> original tool name
        self.mapped = 0
        self.media: list[dict[str, Any]] = []
        self.hoisted = 0
        # the tool messages with media, by index, read and decided as one call
        self.results: dict[int, ToolResult] = {}
        self.decided: dict[int, tuple[Decision, ...]] = {}

    def decide(self, messages: list[Any]) -> None:
        """Read every tool message with media and decide them as one call, counting
        what the request's other messages send against the request limits."""
        found = [
            index
            for index, message in enumerate(messages)
            if type(message) is dict and message.get("role") == "tool" and _has_media(message)
        ]
        if not found:
            return
        for message in messages:  # the tool names, which the results carry
            if type(message) is dict and message.get("role") == "assistant":
                self._names(message)
        results = [self._result(messages[index]) for index in found]
        sent = already_sent(messages, self.resolution.wire)
        decided = self.resolution.report(results, already_sent=sent)
        self.results = dict(zip(found, results, strict=True))
        self.decided = dict(zip(found, decided, strict=True))

    def _names(self, message: Mapping[str, Any]) -> None:
        calls = message.get("tool_calls")
        if type(calls) is not list:
            return
        for call in calls:
            function = call.get("function") if type(call) is dict else None
            name = function.get("name") if type(function) is dict else None
            if type(call) is dict and isinstance(call.get("id"), str) and isinstance(name, str):
                self.names[call["id"]] = name

    def call_id(self, original: object) -> Any:
        if not isinstance(original, str):
            return original
        mapped = self.ids.id(self.target, original)
        if mapped != original:
            self.mapped += 1
        return mapped

    def name(self, original: object) -> Any:
        if self.name_target is None or not isinstance(original, str) or not original:
            return original
        return self.ids.name(self.name_target, original)

    # -- the assistant's calls -----------------------------------------------------

    def assistant(self, message: dict[str, Any]) -> dict[str, Any]:
        calls = message.get("tool_calls")
        if type(calls) is not list:
            return message
        changed = False
        out = []
        for call in calls:
            if type(call) is not dict:
                out.append(call)
                continue
            function = call.get("function")
            name = function.get("name") if type(function) is dict else None
            new_id = self.call_id(call.get("id"))
            new_name = self.name(name)
            if new_id == call.get("id") and new_name == name:
                out.append(call)
                continue
            changed = True
            call = {**call, "id": new_id}
            if type(function) is dict:
                call["function"] = {**function, "name": new_name}
            out.append(call)
        return {**message, "tool_calls": out} if changed else message

    # -- a run of tool messages ----------------------------------------------------

    def tools(self, run: list[dict[str, Any]], first: int) -> list[dict[str, Any]]:
        if self.resolution.options.get("hoist") and any(map(_has_media, run)):
            return self._hoisted(run, first)
        return [self._tool(message, first + offset) for offset, message in enumerate(run)]

    def _result(self, message: Mapping[str, Any]) -> ToolResult:
        call_id = message.get("tool_call_id")
        name = message.get("name")
        if not isinstance(name, str) or not name:
            name = self.names.get(call_id, "") if isinstance(call_id, str) else ""
        return ToolResult.from_wire("responses", as_responses(message), name=name)

    def _note(self, at: int, result: ToolResult, decisions: Sequence[Decision]) -> None:
        for decision in decisions:
            if decision.outcome != "text":
                self.media.append(
                    {
                        "message": at,
                        "call_id": result.id,
                        "part": decision.index,
                        "type": decision.type,
                        "outcome": decision.outcome,
                        "reason": decision.reason,
                        "mime": decision.mime,
                        "size": decision.size,
                    }
                )

    def _tool(self, message: dict[str, Any], at: int) -> dict[str, Any]:
        new_id = self.call_id(message.get("tool_call_id"))
        paired = {**message, "tool_call_id": new_id}
        if "name" in message:  # the function name some clients repeat here
            paired["name"] = self.name(message["name"])
        if not _has_media(message):
            return message if paired == message else paired
        result, decisions = self.results[at], self.decided[at]
        self._note(at, result, decisions)
        parts = message["content"]
        if all(d.outcome in ("native", "text") for d in decisions):
            return paired
        if not any(d.outcome == "native" for d in decisions):
            # no part goes natively: the converter's string form, as the openai wire writes it
            return {**paired, "content": result.to("openai")["content"]}
        content = []
        for decision, part, item in zip(decisions, parts, result.content, strict=True):
            if decision.outcome in ("native", "text"):
                content.append(part)
            else:
                content.append({"type": "text", "text": _placeholder(item)})
        return {**paired, "content": content}

    def _hoisted(self, run: list[dict[str, Any]], first: int) -> list[dict[str, Any]]:
        results = []
        for at, message in enumerate(run, first):
            if at not in self.results:  # no media: nothing to decide
                results.append(self._result(message))
                continue
            result, decisions = self.results[at], self.decided[at]
            self._note(at, result, decisions)
            self.hoisted += sum(d.outcome == "hoisted" for d in decisions)
            results.append(_within(result, decisions))
        for result in results:
            self.call_id(result.id)  # counted as the tool messages' ids are
        formatted = self.resolution.format(results, ids=self.ids)
        kept = []
        for message, written in zip(run, formatted, strict=False):
            # the converter writes role, id and content; other keys (name, ...) stay
            kept.append({**message, **written})
        return kept + formatted[len(run) :]


def _placeholder(item: Mapping[str, Any]) -> str:
    """Return the placeholder of one MCP item: the converter's string form of it alone."""
    content: str = ToolResult(id="-", content=[item]).to("openai")["content"]
    return content


def _within(result: ToolResult, decisions: Sequence[Decision]) -> ToolResult:
    """Return ``result`` with each medium a limit stopped in the conversation's call
    as its placeholder text, so formatting one run alone cannot send it."""
    if not any(d.outcome == "placeholder" and d.reason in LIMIT_OPTIONS for d in decisions):
        return result
    content = [
        {"type": "text", "text": _placeholder(item)}
        if decision.outcome == "placeholder" and decision.reason in LIMIT_OPTIONS
        else item
        for decision, item in zip(decisions, result.content, strict=True)
    ]
    return ToolResult(id=result.id, name=result.name, content=content, is_error=result.is_error)


def rewrite(messages: list[Any], resolution: Resolution, *, tools: object = None) -> Rewrite | None:
    """Return ``messages`` rewritten for ``resolution`` (None: nothing to change).

    ``tools`` (the request's Chat tool definitions) get the mapped names where the
    wire has a name rule (gemini), so a definition and its calls keep agreeing.

    :raises InvalidId: for an empty call id (it cannot be paired) or name.
    :raises InvalidBlock: for a tool message whose parts cannot be read.
    """
    run = _Pass(resolution)
    run.decide(messages)
    out: list[Any] = []
    changed = False
    index, count = 0, len(messages)
    while index < count:
        message = messages[index]
        if type(message) is not dict:
            out.append(message)
            index += 1
            continue
        role = message.get("role")
        if role == "tool":
            end = index
            while (
                end < count and type(messages[end]) is dict and messages[end].get("role") == "tool"
            ):
                end += 1
            written = run.tools(messages[index:end], index)
            changed = (
                changed
                or len(written) != end - index
                or any(
                    new is not old for new, old in zip(written, messages[index:end], strict=False)
                )
            )
            out.extend(written)
            index = end
            continue
        if role == "assistant":
            new = run.assistant(message)
            changed = changed or new is not message
            message = new
        out.append(message)
        index += 1
    new_tools = _tools(run, tools)
    if not changed and new_tools is None and not run.media:
        return None
    report: dict[str, Any] = {
        "engine": resolution.engine,
        "model": resolution.model,
        "wire": resolution.wire,
        "id_rule": run.target,
        "ids_mapped": run.mapped,
    }
    if run.media:
        report["media"] = run.media
    if run.hoisted:
        report["hoisted"] = run.hoisted
    return Rewrite(out if changed else messages, new_tools, report)


def _tools(run: _Pass, tools: object) -> list[Any] | None:
    """Return ``tools`` with mapped names, or None when none changed."""
    if run.name_target is None or type(tools) is not list:
        return None
    changed = False
    out = []
    for tool in tools:
        function = tool.get("function") if type(tool) is dict else None
        name = function.get("name") if type(function) is dict else None
        new = run.name(name)
        if new == name:
            out.append(tool)
            continue
        changed = True
        out.append({**tool, "function": {**function, "name": new}})  # type: ignore[dict-item]
    return out if changed else None
