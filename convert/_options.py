"""Converter options: their names, their defaults and the check of their values."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any, NamedTuple

from .errors import InvalidOption, UnknownOption, describe

__all__ = [
    "ALL_OPTIONS",
    "COUNTS",
    "EXTRA_FLAGS",
    "IMAGE_LIMITS",
    "LIMITS",
    "MIME_OPTIONS",
    "PDF_LIMITS",
    "SIZES",
    "UNIVERSAL",
    "Options",
    "as_flag",
    "resolve_options",
]

#: Options added after the first four; each is false by default, so a call that
#: does not pass one behaves exactly as before.
EXTRA_FLAGS = ("raw_bytes", "url_sources", "audience", "hoist", "call_ids")
#: Provider limits (see docs/limits.md). Not given (None): the wire's own default.
#: Sizes in decoded bytes and sides in pixels are at least 1; counts at least 0.
SIZES = frozenset(
    {
        "max_image_bytes",
        "max_pdf_bytes",
        "max_image_side",
        "many_images_max_side",
        "max_pdf_request_bytes",
    }
)
COUNTS = frozenset({"max_images", "many_images", "max_pdf_pages"})
#: MIME-type collections: they narrow a wire's own set, never widen it.
MIME_OPTIONS = frozenset({"image_mimes"})
LIMITS = SIZES | COUNTS | MIME_OPTIONS
#: The limit options in the order they are shown (exported as ``LIMIT_OPTIONS``; the
#: registry's limit capabilities are these names).
LIMIT_ORDER: tuple[str, ...] = (
    "max_image_bytes",
    "max_pdf_bytes",
    "max_image_side",
    "max_images",
    "many_images",
    "many_images_max_side",
    "max_pdf_pages",
    "max_pdf_request_bytes",
    "image_mimes",
)
#: The limits that concern images, and PDFs (a wire reads those of the kinds it carries).
IMAGE_LIMITS = frozenset(
    {
        "max_image_bytes",
        "max_image_side",
        "max_images",
        "many_images",
        "many_images_max_side",
        "image_mimes",
    }
)
PDF_LIMITS = frozenset({"max_pdf_bytes", "max_pdf_pages", "max_pdf_request_bytes"})
ALL_OPTIONS = frozenset(
    {"image_input", "native_pdf", "source_blocks", "response_tag", *EXTRA_FLAGS, *LIMITS}
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
    # -- provider limits (None: no limit; a wire's ``defaults`` hold its own). Per item,
    # a wire's ``Form`` holds the default and these replace it when given.
    #: the largest image (decoded bytes) one result may carry natively
    max_image_bytes: int | None = None
    #: the largest PDF (decoded bytes) one result may carry natively
    max_pdf_bytes: int | None = None
    #: the largest width or height (px) of an image sent natively
    max_image_side: int | None = None
    #: images per request
    max_images: int | None = None
    #: over this many images in a request, each must be at most ``many_images_max_side``
    many_images: int | None = None
    many_images_max_side: int | None = None
    #: PDF pages per request
    max_pdf_pages: int | None = None
    #: PDF bytes (decoded) per request
    max_pdf_request_bytes: int | None = None
    #: the image MIME types the engine takes (narrows the wire's own set)
    image_mimes: frozenset[str] | None = None


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
        if value is None and name in LIMITS:
            continue  # not given: the wire's default
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
    if name in LIMITS:
        return check_limit(name, value)
    if name in _FLAGS:
        flag = as_flag(value)
        if flag is not None:
            return flag
        raise InvalidOption(f"option {name!r} must be true or false, not {describe(value)}")
    if isinstance(value, str) and _TAG.fullmatch(value):
        return value
    raise InvalidOption(
        f"option {name!r} must be an XML tag name such as 'tool_response', not {describe(value)}"
    )


def check_limit(name: str, value: object) -> int | frozenset[str]:
    """Return a limit's value checked (an ``int``, or a frozenset of lower-case MIME types).

    :raises InvalidOption: for a bool, a non-integer, a size under 1, a count under 0,
        or a MIME collection that is a string or holds a non-string.
    """
    if name in MIME_OPTIONS:
        if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Collection):
            raise InvalidOption(
                f"option {name!r} must be a collection of MIME types such as"
                f" ['image/png'], not {describe(value)}"
            )
        mimes = []
        for mime in value:
            if not isinstance(mime, str):
                raise InvalidOption(
                    f"option {name!r} holds a non-string MIME type: {describe(mime)}"
                )
            mimes.append(mime.split(";", 1)[0].strip().lower())
        return frozenset(mimes)
    least = 1 if name in SIZES else 0
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        what = "a whole number of at least 1" if least else "a whole number of at least 0"
        raise InvalidOption(f"option {name!r} must be {what}, not {describe(value)}")
    return int(value)
