"""Converter options: their names, their defaults and the check of their values."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from .errors import InvalidOption, UnknownOption

__all__ = [
    "ALL_OPTIONS",
    "EXTRA_FLAGS",
    "UNIVERSAL",
    "Options",
    "as_flag",
    "resolve_options",
]

#: Options added after the first four; each is false by default, so a call that
#: does not pass one behaves exactly as before.
EXTRA_FLAGS = ("raw_bytes", "url_sources", "audience", "hoist", "call_ids")
ALL_OPTIONS = frozenset(
    {"image_input", "native_pdf", "source_blocks", "response_tag", *EXTRA_FLAGS}
)
#: Options every wire reads, whatever its ``options`` say.
UNIVERSAL = frozenset({"audience"})
_FLAGS = frozenset({"image_input", "native_pdf", "source_blocks", *EXTRA_FLAGS})
_TAG = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}")


class Options(NamedTuple):
    """The options one call of ``ToolResult.to`` runs with (defaults filled in)."""

    image_input: bool = False
    native_pdf: bool = False
    source_blocks: bool = True
    response_tag: str = "tool_response"
    #: bedrock: ``bytes`` for boto3 instead of the base64 string of the JSON API
    raw_bytes: bool = False
    #: anthropic, responses, gemini: an https ``resource_link`` to an image/PDF goes by URL
    url_sources: bool = False
    #: every wire: leave out items whose ``annotations.audience`` lacks "assistant"
    audience: bool = False
    #: openai, ollama (``format_tool_results`` only): media in one user message after
    #: the tool messages
    hoist: bool = False
    #: hermes (``format_tool_results`` only): each tool message carries the result's
    #: call id as ``tool_call_id`` (an OpenAI-compatible chat endpoint needs it)
    call_ids: bool = False


def resolve_options(
    reads: frozenset[str], defaults: Options, given: Mapping[str, object]
) -> Options:
    """Return a wire's ``defaults`` updated with the options it ``reads``.

    :raises UnknownOption: for a name no wire knows (a misspelling).
    :raises InvalidOption: for a value the option cannot take.
    """
    changes: dict[str, Any] = {}
    for name, value in given.items():
        if name not in ALL_OPTIONS:
            raise UnknownOption(name, ALL_OPTIONS)
        value = _check(name, value)  # a bad value is a bug even where it is ignored
        if name in reads or name in UNIVERSAL:
            changes[name] = value
    return defaults._replace(**changes) if changes else defaults


def as_flag(value: object) -> bool | None:
    """Return ``value`` as a boolean when it is one (or a number equal to 0 or 1), else None.

    0/1 are accepted as well as booleans (configuration files often say 1):
    anything equal to 0 or 1 (a plan is cached by value, and 1 == 1.0 == True).
    Strings are not flags: ``"false"`` would otherwise be true.
    """
    if value is True or value is False:
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    return None


def _check(name: str, value: object) -> object:
    if name in _FLAGS:
        flag = as_flag(value)
        if flag is not None:
            return flag
        raise InvalidOption(f"option {name!r} must be true or false, not {value!r}")
    if isinstance(value, str) and _TAG.fullmatch(value):
        return value
    raise InvalidOption(
        f"option {name!r} must be an XML tag name such as 'tool_response', not {value!r}"
    )
