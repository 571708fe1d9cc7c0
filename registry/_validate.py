"""Check values before they reach the database; each check raises a typed error."""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import parse_qsl, urlsplit

from toolwire.convert import WIRES, carries_native
from toolwire.convert.errors import describe as describe  # for messages, re-exported

from ._rules import compile_rule
from .errors import (
    InvalidCapability,
    InvalidInput,
    InvalidModelId,
    InvalidRule,
    InvalidStatus,
    InvalidWire,
)
from .vocab import ENGINE_KINDS, EVIDENCE_STATUSES, MATCH_KINDS, MEDIA_KINDS

CAPABILITY_RE = re.compile(r"[a-z][a-z0-9_]{0,63}")
ENGINE_NAME_RE = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
MODEL_ID_MAX = 256
PATTERN_MAX = 512
# Any whitespace or control/format character (C0, DEL, C1, Unicode Cc/Cf/Zl/Zp) and
# lone surrogates (not text: they cannot be stored as UTF-8).
_BAD_IN_ID = re.compile(
    r"[\s\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff\ud800-\udfff]"
)
#: C0, DEL and C1 control characters: a regex rule holding one matches no model id
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def seconds(value: object, what: str, most: int) -> float:
    """Return a number of seconds from 0 to ``most``.

    :raises InvalidInput: for anything else (a bool, a string, NaN, infinity).
    """
    if type(value) not in (int, float) or not 0 <= value <= most:  # type: ignore[operator]
        raise InvalidInput(
            f"invalid {what} {describe(value)}: must be a number of seconds, 0 to {most}"
        )
    return float(value)  # type: ignore[arg-type]


def model_ids(values: object) -> list[str]:
    """Return a collection of model ids as a checked list.

    :raises InvalidInput: for a single string or anything that is not a collection.
    :raises InvalidModelId: for a malformed model id.
    """
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise InvalidInput(
            f"invalid models {describe(values)}: must be a list of model ids, not one id"
        )
    return [model_id(value) for value in values]


def capability(name: object) -> str:
    """Return a valid capability name.

    :raises InvalidCapability: unless it matches ``[a-z][a-z0-9_]{0,63}``.
    """
    if not isinstance(name, str) or not CAPABILITY_RE.fullmatch(name):
        raise InvalidCapability(
            f"invalid capability {describe(name)}: use lowercase letters, digits and _ "
            "(a letter first, at most 64 characters)"
        )
    return name


def status(value: object) -> str:
    """Return a valid evidence status.

    :raises InvalidStatus: unless it is one of ``EVIDENCE_STATUSES``.
    """
    if value not in EVIDENCE_STATUSES:
        raise InvalidStatus(
            f"invalid evidence status {describe(value)}; valid: {', '.join(EVIDENCE_STATUSES)}"
        )
    assert isinstance(value, str)
    return value


def wire(name: object) -> str:
    """Return a valid wire name.

    :raises InvalidWire: unless it is one of ``toolwire.convert.WIRES``.
    """
    if name not in WIRES:
        raise InvalidWire(f"invalid wire {describe(name)}; valid: {', '.join(WIRES)}")
    assert isinstance(name, str)
    return name


def optional_wire(name: object) -> str | None:
    """Return None or a valid wire name.

    :raises InvalidWire: for a name that is not a wire.
    """
    return None if name is None else wire(name)


def native_form(wire_name: object, kind: object) -> tuple[str, str]:
    """Return (wire, kind) of a native tool-result form that exists.

    :raises InvalidWire: for an unknown wire, or a wire without that native form.
    :raises InvalidInput: for a media kind other than image or pdf.
    """
    name = wire(wire_name)
    if kind not in MEDIA_KINDS:
        raise InvalidInput(f"invalid media kind {describe(kind)}; valid: {', '.join(MEDIA_KINDS)}")
    assert isinstance(kind, str)
    if not carries_native(name, kind):
        raise InvalidWire(f"wire {describe(name)} has no native {kind} form to record evidence for")
    return name, kind


def model_id(value: object) -> str:
    """Return a valid model id.

    :raises InvalidModelId: when empty, longer than 256, or containing whitespace or
        control characters.
    """
    if not isinstance(value, str) or not value:
        raise InvalidModelId(f"invalid model id {describe(value)}: must be a non-empty string")
    if len(value) > MODEL_ID_MAX:
        raise InvalidModelId(f"invalid model id: longer than {MODEL_ID_MAX} characters")
    if _BAD_IN_ID.search(value):
        raise InvalidModelId(
            f"invalid model id {describe(value)}: whitespace and control characters are not allowed"
        )
    return value


def engine_name(value: object) -> str:
    """Return a valid engine name.

    :raises InvalidInput: unless 1 to 64 lowercase letters, digits, ``.``, ``_``, ``-``.
    """
    if not isinstance(value, str) or not ENGINE_NAME_RE.fullmatch(value):
        raise InvalidInput(
            f"invalid engine name {describe(value)}: use lowercase letters, digits, '.', '_', '-' "
            "(at most 64 characters)"
        )
    return value


def engine_kind(value: object) -> str:
    """Return a valid engine kind.

    :raises InvalidInput: unless it is one of ``ENGINE_KINDS``.
    """
    if value not in ENGINE_KINDS:
        raise InvalidInput(
            f"invalid engine kind {describe(value)}; valid: {', '.join(ENGINE_KINDS)}"
        )
    assert isinstance(value, str)
    return value


def rule_pattern(pattern: object, match: str) -> str:
    """Return a usable rule pattern: a compiling regex, or a valid model id when exact.

    :raises InvalidRule: for an unknown match kind, an empty or oversized pattern, a
        regex RE2 cannot take (lookaround, backreferences, bad syntax) or one holding a
        control character (no model id holds one).
    :raises InvalidModelId: for an exact pattern that is not a valid model id.
    """
    if match not in MATCH_KINDS:
        raise InvalidRule(f"invalid match kind {describe(match)}; valid: {', '.join(MATCH_KINDS)}")
    if not isinstance(pattern, str) or not pattern or len(pattern) > PATTERN_MAX:
        raise InvalidRule(
            f"invalid rule pattern {describe(pattern)}: 1 to {PATTERN_MAX} characters"
        )
    if match == "exact":
        return model_id(pattern)
    if _CONTROL.search(pattern):  # write \n, not a newline: no model id holds one
        raise InvalidRule(
            f"invalid regex {describe(pattern)}: control characters match no model id"
        )
    compile_rule(pattern)
    return pattern


def actor(value: object, what: str = "recorded_by") -> str:
    """Return a non-empty, single-line actor name.

    :raises InvalidInput: when empty, multi-line or longer than 128 characters.
    """
    if not isinstance(value, str) or not value.strip() or len(value) > 128 or "\n" in value:
        raise InvalidInput(
            f"invalid {what} {describe(value)}: a non-empty name, one line, at most 128 characters"
        )
    return text(value, what)


_NOT_TEXT = re.compile(r"[\x00\ud800-\udfff]")


def text(value: object, what: str) -> str:
    """Return a string field that every backend stores as it is.

    :raises InvalidInput: when it is not a string, or holds a NUL or a lone surrogate
        (PostgreSQL stores neither; SQLite would, so the check is the same everywhere).
    """
    if not isinstance(value, str):
        raise InvalidInput(f"invalid {what} {describe(value)}: must be a string")
    if _NOT_TEXT.search(value):
        raise InvalidInput(
            f"invalid {what} {describe(value)}: NUL and lone surrogates (not UTF-8) are not text"
        )
    return value


BASE_URL_MAX = 512
#: Words that make a query parameter a credential (``api_key``, ``X-Amz-Signature``, ...).
_SECRET_WORDS = frozenset(
    {
        "key",
        "apikey",
        "token",
        "secret",
        "signature",
        "sig",
        "password",
        "passwd",
        "pwd",
        "auth",
        "authorization",
        "credential",
        "credentials",
    }
)
_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def base_url(value: object) -> str:
    """Return an engine's base URL: http(s), a host, a valid port and no credentials.

    A key never lives in a stored or printed URL: user info (``user:pass@``) and
    secret-looking query parameters (``key``, ``api_key``, ``token``, ``secret``,
    ``signature``, ...) are refused, so that the key stays in its variable.

    :raises InvalidInput: for anything else, without repeating the credentials.
    """
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"invalid base_url {describe(value)}: must be a non-empty string")
    if len(value) > BASE_URL_MAX:
        raise InvalidInput(f"invalid base_url: longer than {BASE_URL_MAX} characters")
    text(value, "base_url")
    if _BAD_IN_ID.search(value):
        raise InvalidInput("invalid base_url: whitespace and control characters are not allowed")
    try:
        parts = urlsplit(value)
    except ValueError as error:  # a bracketed host that is not an IPv6 address
        raise InvalidInput(f"invalid base_url: {error}") from None
    if parts.scheme not in ("http", "https"):
        raise InvalidInput(f"invalid base_url {_shown(value)!r}: must be http:// or https://")
    if "@" in parts.netloc:
        raise InvalidInput(
            "invalid base_url: credentials do not belong in a URL (user info given); "
            "put the key in the engine's key variable"
        )
    if not parts.hostname:
        raise InvalidInput(f"invalid base_url {_shown(value)!r}: no host")
    if not parts.hostname.isascii():
        raise InvalidInput(
            f"invalid base_url {_shown(value)!r}: the host must be ASCII (its xn-- form)"
        )
    try:
        parts.port  # noqa: B018  (urlsplit checks the port when it is read)
    except ValueError:
        raise InvalidInput(f"invalid base_url {_shown(value)!r}: port out of range") from None
    secret = [name for name, _ in parse_qsl(parts.query, keep_blank_values=True) if _secret(name)]
    if secret:
        raise InvalidInput(
            f"invalid base_url: credentials do not belong in a URL (query parameter "
            f"{secret[0]!r}); put the key in the engine's key variable"
        )
    return value


def _secret(name: str) -> bool:
    return any(word.lower() in _SECRET_WORDS for word in _WORDS.findall(name)) or (
        name.lower().replace("-", "").replace("_", "") in _SECRET_WORDS
    )


def _shown(value: str) -> str:
    """Return a URL cut to its scheme, host and path (never a query, where keys hide)."""
    parts = urlsplit(value)  # (base_url split it once already)
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}{parts.path}"[:120]


def url_host(value: str | None) -> str | None:
    """Return the lower-case host of a URL, None for none or an unreadable one."""
    if not value:
        return None
    try:
        host = urlsplit(value).hostname
    except ValueError:
        return None
    return host.lower() if host else None


def host_change(subject: str, old: str | None, new: str | None) -> str | None:
    """Return a warning when a base URL moves to another host, else None.

    Keys follow the base URL: ``toolwire probe`` sends an engine's key to its host.
    """
    before, after = url_host(old), url_host(new)
    if after is None or before == after:
        return None
    return (
        f"{subject}: base_url host changes from {before or '(none)'} to {after}; "
        "toolwire probe sends a key there only with --allow-endpoint"
    )
