"""Call-id and tool-name rules: what each API accepts, and the check every block runs.

Each wire module declares its own rules (``ID_RULE``, ``NAME_RULE``) beside its
media limits; ``MISTRAL`` is an engine's rule, not a wire's. A rule is enforced
only where it is documented or seen rejected with high confidence.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from .errors import InvalidId

__all__ = ["MISTRAL", "IdRule", "check_value", "checker", "shown"]

#: how much of an offending value an error message shows
SHOWN = 80
_CACHE_MAX = 4096


class IdRule(NamedTuple):
    """One API's rule for its call ids (or tool names)."""

    #: the rule's name: a wire, or ``mistral``
    name: str
    #: what the whole value must match (Python ``re``, checked with ``fullmatch``)
    pattern: str
    #: the longest value the id map writes (checked too where ``pattern`` says so)
    max_length: int | None
    #: one line: what the rule is, and where it comes from
    description: str
    #: the characters the id map keeps (a regex class body; None: any character) —
    #: the strictest reading, where sources disagree
    safe: str | None = None
    #: the characters the first one may be (a regex class body; None: as ``safe``)
    first: str | None = None
    #: the id map writes a hash of the value instead of keeping a readable prefix
    generated: bool = False


#: Mistral's API and ``mistral_common`` (so vLLM serving Mistral models too).
MISTRAL = IdRule(
    name="mistral",
    pattern=r"^[a-zA-Z0-9]{9}$",
    max_length=9,
    description=(
        "exactly 9 letters and digits (Mistral's API and mistral_common, as vLLM serves"
        " Mistral models: errors quoted in magentic#276, langchain PR #24668, vllm#10821)"
    ),
    safe="a-zA-Z0-9",
    generated=True,
)


def shown(value: str) -> str:
    """Return ``value`` quoted for a message, cut to 80 characters."""
    if len(value) > SHOWN:
        return repr(value[: SHOWN - 1] + "…")
    return repr(value)


#: The fix for a value an ``IdMap`` can map, by kind.
_MAP_FIX = {
    "id": "pass ids=IdMap() to map it to one the API accepts",
    "name": "pass ids=IdMap() (it maps names too) to map it to one the API accepts",
}


def _fail(rule: IdRule, value: str, wire: str, kind: str) -> InvalidId:
    what = "call id" if kind == "id" else "tool name"
    if kind == "name" and not value:  # an IdMap maps a name, it cannot invent one
        fix = "pass names={call id: tool name}: the block carries no tool name"
    else:
        fix = _MAP_FIX[kind]
    return InvalidId(
        f"{wire} wire: {what} {shown(value)} breaks the {rule.name} rule"
        f" ({rule.pattern}: {rule.description}); {fix}",
        wire=wire,
        value=value,
        rule=rule.name,
        kind=kind,
    )


def kept(refused: InvalidId) -> InvalidId:
    """Return ``refused`` as said of a conversion from a wire to itself.

    There ids and names go back to the provider that minted them unchanged, so an
    ``IdMap`` is not applied and the advice to pass one does not hold; a refusal with
    another fix is returned as it is.
    """
    fix = "; " + _MAP_FIX.get(refused.kind, "")
    message = str(refused)
    if not message.endswith(fix):
        return refused
    return InvalidId(
        f"{message.removesuffix(fix)}; from the {refused.wire} wire to itself ids and names"
        " go back to the provider that minted them unchanged, so ids=IdMap() leaves them"
        " alone: give id_rule= the rule of the provider behind the route (such as"
        " 'mistral' on openai) to map them, or fix the block at its source",
        wire=refused.wire,
        value=refused.value,
        rule=refused.rule,
        kind=refused.kind,
    )


def checker(rule: IdRule, wire: str, kind: str = "id") -> tuple[set[str], Callable[[str], None]]:
    """Return the values seen valid under ``rule`` on ``wire``, and the check of one.

    A block tests ``value in seen`` (one set lookup: a gateway sends a conversation's
    ids again on every turn) and calls the check only for a value not seen yet; the
    check raises ``InvalidId`` for a value that breaks the rule and remembers the
    others (at most 4096, then it starts again).
    """
    match = re.compile(rule.pattern).fullmatch
    seen: set[str] = set()
    add, clear = seen.add, seen.clear

    def check(value: str) -> None:
        if match(value) is None:
            raise _fail(rule, value, wire, kind)
        if len(seen) >= _CACHE_MAX:
            clear()
        add(value)

    return seen, check


_CHECKS: dict[tuple[IdRule, str, str], tuple[set[str], Callable[[str], None]]] = {}


def check_value(rule: IdRule, value: str, wire: str, kind: str = "id") -> None:
    """Check ``value`` under ``rule`` for ``wire`` (the resolver's engine rule).

    :raises InvalidId: when ``value`` breaks the rule.
    """
    key = (rule, wire, kind)
    found = _CHECKS.get(key)
    if found is None:
        found = _CHECKS[key] = checker(rule, wire, kind)
    if value not in found[0]:
        found[1](value)
