"""``ID_RULES`` and ``IdMap``: call ids and tool names every API accepts, paired both ways.

A gateway applies one map to both sides of a pair: the assistant's tool call it
sends on (``m.id(target, call_id)``) and the result toolwire formats (``ids=m``).
The map is a function of ``(target, original)`` alone, except where two originals
would get the same id in one map (then the later one's hash is taken again with
a counter), so a gateway's workers agree without sharing state.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from types import MappingProxyType

from ._idrules import MISTRAL, IdRule, check_value, shown
from .errors import InvalidId, InvalidOption, UnknownWire, describe
from .wires import TABLE

__all__ = ["ID_RULES", "NAME_RULES", "IdMap", "map_pair", "prepare_ids"]

#: rule name -> the call-id rule: every wire that has one, and ``mistral`` (an engine's)
ID_RULES: Mapping[str, IdRule] = MappingProxyType(
    {
        **{name: wire.id_rule for name, wire in TABLE.items() if wire.id_rule is not None},
        MISTRAL.name: MISTRAL,
    }
)
#: wire -> the rule of the tool name its blocks send (gemini, ollama)
NAME_RULES: Mapping[str, IdRule] = MappingProxyType(
    {name: wire.name_rule for name, wire in TABLE.items() if wire.name_rule is not None}
)

_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
#: base62 symbols of the hash a mapped value ends with (about 59 bits)
SUFFIX = 10
_PERSON = b"toolwire-ids"
_IDENTITY = IdRule("", "", None, "")  # a target without a rule: values pass unchanged


class _Target:
    """How one rule's values are checked and written by the map."""

    __slots__ = ("first", "match", "rule", "strict", "unsafe")

    def __init__(self, rule: IdRule) -> None:
        self.rule = rule
        self.match = re.compile(rule.pattern).fullmatch if rule.pattern else None
        self.unsafe = re.compile(f"[^{rule.safe}]").sub if rule.safe else None
        self.first = re.compile(f"[{rule.first}]").match if rule.first else None
        body = f"[{rule.safe}]" if rule.safe else "."
        head = f"[{rule.first}]" if rule.first else body
        most = "" if rule.max_length is None else str(rule.max_length - 1)
        self.strict = re.compile(f"(?s){head}{body}{{0,{most}}}").fullmatch

    def valid(self, value: str) -> bool:
        """Return True when ``value`` keeps the rule under its strictest reading."""
        if self.match is None:
            return True
        return self.match(value) is not None and self.strict(value) is not None

    def write(self, value: str, attempt: int) -> str:
        """Return the id the map writes for ``value`` (``attempt`` > 0: after a collision)."""
        rule = self.rule
        suffix = _hash(value, attempt, rule.max_length if rule.generated else SUFFIX)
        if rule.generated:
            return suffix
        base = self.unsafe("_", value) if self.unsafe is not None else value
        if self.first is not None and self.first(base) is None:
            base = "_" + base[1:]
        if rule.max_length is not None:
            base = base[: rule.max_length - SUFFIX - 1]
        return f"{base}_{suffix}"


def _hash(value: str, attempt: int, length: int | None) -> str:
    """Return ``length`` base62 symbols of a keyed blake2b of ``value`` (stable across
    processes, unlike ``hash()``)."""
    import hashlib  # here: its import (OpenSSL) would cost every ``import toolwire.convert``

    digest = hashlib.blake2b(
        value.encode("utf-8", "surrogatepass"),
        digest_size=16,
        person=_PERSON,
        salt=attempt.to_bytes(16, "big"),
    ).digest()
    number = int.from_bytes(digest, "big")
    out = []
    for _ in range(length or SUFFIX):
        number, digit = divmod(number, 62)
        out.append(_ALPHABET[digit])
    return "".join(out)


_TARGETS: dict[tuple[str, str], _Target] = {}


def _target(target: object, kind: str) -> _Target:
    """Return the rule of ``target`` (a wire or a rule name) for ids or names."""
    if isinstance(target, IdRule):
        rule: IdRule | None = target
    elif not isinstance(target, str) or (target not in TABLE and target not in ID_RULES):
        raise UnknownWire(target, [*TABLE, MISTRAL.name])
    elif kind == "id":
        rule = ID_RULES.get(target)
    else:
        rule = NAME_RULES.get(target)
    rule = rule or _IDENTITY
    key = (kind, rule.name) if rule.name else (kind, "")
    found = _TARGETS.get(key)
    if found is None or found.rule is not rule:
        found = _TARGETS[key] = _Target(rule)
    return found


class IdMap:
    """A deterministic, collision-free, reversible map of call ids and tool names.

    ``id(target, original)`` returns an id ``target`` (a wire, or a rule name in
    ``ID_RULES``) accepts: the original when it already keeps the rule (under
    its strictest reading), else the original with every character the rule
    does not allow replaced by ``_``, cut to fit, and ``_`` plus a 10-symbol
    hash (blake2b, so every process agrees); ``mistral`` gets 9 symbols of the
    hash. Two originals never get the same id for one target in one map.
    ``original(target, mapped)`` reverses it; ``name`` and ``original_name`` do
    the same for tool names (``NAME_RULES``). Safe to share between threads.
    """

    __slots__ = ("_forward", "_lock", "_reverse")

    def __init__(self) -> None:
        self._forward: dict[tuple[str, str, str], str] = {}
        self._reverse: dict[tuple[str, str, str], str] = {}
        self._lock = threading.Lock()

    def id(self, target: str, original: str) -> str:
        """Return the call id to send on ``target`` for ``original``.

        :raises InvalidId: for an empty id (it cannot be paired by value) or one
            that is not a string.
        :raises UnknownWire: for a target that is neither a wire nor a rule.
        """
        return self._map(target, original, "id")

    def original(self, target: str, mapped: str) -> str:
        """Return the original of an id this map gave for ``target``.

        :raises InvalidId: for an id this map never gave for ``target``.
        :raises UnknownWire: for a target that is neither a wire nor a rule.
        """
        return self._back(target, mapped, "id")

    def name(self, target: str, original: str) -> str:
        """Return the tool name to send on ``target`` for ``original``.

        :raises InvalidId: for an empty name or one that is not a string.
        :raises UnknownWire: for a target that is neither a wire nor a rule.
        """
        return self._map(target, original, "name")

    def original_name(self, target: str, mapped: str) -> str:
        """Return the original of a tool name this map gave for ``target``.

        :raises InvalidId: for a name this map never gave for ``target``.
        :raises UnknownWire: for a target that is neither a wire nor a rule.
        """
        return self._back(target, mapped, "name")

    def items(self) -> list[dict[str, str]]:
        """Return every mapping made so far (``kind``, ``rule``, ``original``, ``mapped``)."""
        with self._lock:
            pairs = list(self._forward.items())
        return [
            {"kind": kind, "rule": rule, "original": original, "mapped": mapped}
            for (kind, rule, original), mapped in pairs
        ]

    def _map(self, target: object, original: object, kind: str) -> str:
        found = _target(target, kind)
        if type(original) is not str and not isinstance(original, str):
            raise InvalidId(f"a {_what(kind)} must be a string, not {type(original).__name__}")
        if not original:
            if found.match is not None and found.match(original) is not None:
                return original  # a rule that takes no value (an optional name): none sent
            raise InvalidId(
                f"an empty {_what(kind)} cannot be mapped: nothing pairs the result with its"
                " call (give the tool call an id, and the result the same one)"
                if kind == "id"
                else "an empty tool name cannot be mapped: the block carries none; pass"
                " names={call id: tool name} to name each result's tool",
                wire=str(target),
                rule=found.rule.name,
                kind=kind,
            )
        key = (kind, found.rule.name, str(original))
        mapped = self._forward.get(key)
        if mapped is not None:
            return mapped
        with self._lock:
            mapped = self._forward.get(key)
            if mapped is not None:
                return mapped
            value = key[2]
            attempt = 0
            candidate = value if found.valid(value) else found.write(value, attempt)
            while (kind, found.rule.name, candidate) in self._reverse:
                attempt += 1
                candidate = found.write(value, attempt)
            self._forward[key] = candidate
            self._reverse[(kind, found.rule.name, candidate)] = value
            return candidate

    def _back(self, target: object, mapped: object, kind: str) -> str:
        found = _target(target, kind)
        if type(mapped) is not str and not isinstance(mapped, str):
            raise InvalidId(f"a {_what(kind)} must be a string, not {type(mapped).__name__}")
        original = self._reverse.get((kind, found.rule.name, str(mapped)))
        if original is None:
            raise InvalidId(
                f"{_what(kind)} {shown(str(mapped))} was not given by this map for {target}",
                wire=str(target),
                value=str(mapped),
                rule=found.rule.name,
                kind=kind,
            )
        return original

    def __repr__(self) -> str:
        return f"<IdMap: {len(self._forward)} mapped>"


def _what(kind: str) -> str:
    return "call id" if kind == "id" else "tool name"


def prepare_ids(ids: object, id_rule: object) -> tuple[IdMap | None, IdRule | None]:
    """Return the options ``ids`` (an ``IdMap`` or None) and ``id_rule`` (a rule name in
    ``ID_RULES`` or None: the wire's own) as the map and the rule they name.

    :raises InvalidOption: when ``ids`` is not an ``IdMap`` or ``id_rule`` not a rule.
    """
    rule = None
    if id_rule is not None:
        if not isinstance(id_rule, str) or id_rule not in ID_RULES:
            raise InvalidOption(
                f"id_rule must be one of {', '.join(sorted(ID_RULES))}, not {describe(id_rule)}"
            )
        rule = ID_RULES[id_rule]
    if ids is not None and not isinstance(ids, IdMap):
        raise InvalidOption(f"ids must be an IdMap, not {type(ids).__name__}")
    return ids, rule


def map_pair(
    wire: str, call_id: str, name: str, ids: IdMap | None, rule: IdRule | None
) -> tuple[str, str]:
    """Return the call id and tool name to send on ``wire``: mapped by ``ids`` (the id
    under ``rule``, an engine's such as ``mistral``, where given, else the wire's own;
    the name under the wire's name rule), or, without ``ids``, as they are once the
    id is checked under ``rule``.

    :raises InvalidId: for an id the rule refuses (without ``ids``), or an empty id or
        name that the target's rule needs (with ``ids``).
    """
    spec = TABLE[wire]
    if ids is None:
        if rule is not None:
            check_value(rule, call_id, wire)
        return call_id, name
    id_target: object = rule if rule is not None else spec.id_rule
    new_id = call_id if id_target is None else ids._map(id_target, call_id, "id")
    if rule is not None and spec.id_rule is not None and rule != spec.id_rule:
        _both(rule, spec.id_rule, new_id, wire)
    new_name = ids._map(wire, name, "name") if spec.name_rule is not None else name
    return new_id, new_name


def _both(rule: IdRule, own: IdRule, mapped: str, wire: str) -> None:
    """Refuse an id mapped under an engine's ``rule`` that ``wire``'s ``own`` rule breaks.

    :raises InvalidId: naming both rules (the engine's rule is looser than its wire's).
    """
    try:
        check_value(own, mapped, wire)
    except InvalidId as exc:
        raise InvalidId(
            f"{wire} wire: the id {shown(mapped)} mapped under the engine's {rule.name} rule"
            f" breaks the wire's {own.name} rule ({own.pattern}); give the engine an id rule"
            f" at least as strict as its wire's (or none)",
            wire=wire,
            value=mapped,
            rule=own.name,
        ) from exc
