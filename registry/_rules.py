"""Compile rule regexes with RE2, whose matching is linear in the model id.

Python's ``re`` backtracks: ``(a+)+$`` against forty ``a`` and a ``!`` takes longer
than a gateway can wait, and it holds the GIL meanwhile. RE2 never backtracks, so a
rule costs time proportional to the id (at most ``MODEL_ID_MAX`` characters) whatever
an operator writes. What RE2 cannot take (lookaround, backreferences, counted
repetition above 1000) is refused when the rule is recorded.
"""

from __future__ import annotations

import re
from typing import Any

import re2  # type: ignore[import-untyped]

from .errors import InvalidRule

__all__ = ["MAX_REPEAT", "RuleRegex", "compile_rule"]

#: RE2's own limit on a counted repetition ``{n}``; larger counts are refused here so
#: that an overflowing count (``a{4294967295}``) fails loudly instead of never matching.
MAX_REPEAT = 1000
_COUNTS = re.compile(r"(?<!\\)\{(\d+)(?:,(\d*))?\}")
_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # the error comes back as InvalidRule, not on stderr

RuleRegex = Any  # re2's compiled pattern type is not exported under a stable name


def compile_rule(pattern: str) -> RuleRegex:
    """Return ``pattern`` compiled by RE2.

    :raises InvalidRule: when RE2 cannot take it, with RE2's reason in one line.
    """
    for match in _COUNTS.finditer(pattern):
        if any(group and int(group) > MAX_REPEAT for group in match.groups()):
            raise InvalidRule(
                f"invalid regex {pattern!r}: repetition count {match.group(0)} is over {MAX_REPEAT}"
            )
    try:
        return re2.compile(pattern, options=_OPTIONS)
    except Exception as error:  # re2.error, and anything the binding raises on odd input
        detail = error.args[0] if error.args else error
        if isinstance(detail, bytes):
            detail = detail.decode("utf-8", "replace")
        hint = ""
        if "(?=" in pattern or "(?!" in pattern or "(?<" in pattern:
            hint = " (lookaround is not supported: rules match in linear time)"
        elif re.search(r"\\[1-9]|\(\?P=", pattern):
            hint = " (backreferences are not supported: rules match in linear time)"
        raise InvalidRule(f"invalid regex {pattern!r}: {detail}{hint}") from None


def fullmatch(regex: RuleRegex, model_id: str) -> bool:
    """Return whether ``regex`` matches the whole of ``model_id``."""
    if not isinstance(model_id, str):  # no model id: no rule matches it
        return False
    try:
        return regex.fullmatch(model_id) is not None
    except UnicodeEncodeError:  # a lone surrogate: no rule matches it
        return False
