"""Plain, frozen records the registry hands out (never ORM objects).

Mappings inside records are read-only views, so a cached snapshot cannot be changed
by whoever holds it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from types import MappingProxyType
from typing import Any

from ._public import shown_in_package
from ._rules import compile_rule, fullmatch
from ._values import ClaimValue

__all__ = [
    "Capability",
    "ChangeEvent",
    "Claim",
    "ClaimEvent",
    "Engine",
    "EngineSnapshot",
    "LogEntry",
    "Model",
    "Rule",
    "WireForm",
]

_NO_CLAIMS: Mapping[str, Claim] = MappingProxyType({})


def _no_claims() -> Mapping[str, Claim]:
    return _NO_CLAIMS


@dataclass(frozen=True, slots=True)
class WireForm:
    """Evidence behind one native tool-result form (wire x media kind)."""

    wire: str
    kind: str
    status: str
    evidence: str
    source: str | None
    recorded_by: str
    recorded_at: datetime


@dataclass(frozen=True, slots=True)
class Engine:
    """An endpoint a client talks to."""

    name: str
    provider: str
    family: str
    default_wire: str
    base_url: str | None
    kind: str
    response_tag: str | None
    note: str
    created_at: datetime
    created_by: str
    #: the ``toolwire.convert.ID_RULES`` rule results keep (None: the wire's own)
    id_rule: str | None = None


@dataclass(frozen=True, slots=True)
class Claim:
    """A claimed capability value with its evidence.

    The subject is the engine itself (``model`` and ``rule`` None), a model row
    (``model`` = its id) or a rule row (``rule`` = its id); ``subject_key`` spells the
    same as ``engine``, ``model:<id>`` or ``rule:<id>``.
    """

    engine: str
    subject_key: str
    model: str | None
    rule: int | None
    capability: str
    #: true/false for a ``bool`` capability, an int for an ``int`` one (a limit), a
    #: sorted tuple of MIME types for a ``mimes`` one
    value: ClaimValue
    status: str
    evidence: str
    source: str | None
    verified_at: date | None
    recorded_by: str
    recorded_at: datetime


@dataclass(frozen=True, slots=True)
class Model:
    """A model id recorded on an engine, with its wire override and claims."""

    engine: str
    model_id: str
    wire: str | None
    note: str
    created_at: datetime
    created_by: str
    claims: Mapping[str, Claim] = field(default_factory=_no_claims)


@dataclass(frozen=True, slots=True)
class Rule:
    """An ordered pattern row of an engine; among matching rules the last one wins.

    Exact rules compare the whole id; regex rules match the whole id with RE2, in
    linear time (write ``.*`` for a prefix; inline flags such as ``(?i)`` work;
    lookaround and backreferences do not).
    """

    id: int
    engine: str
    position: int
    match: str
    pattern: str
    wire: str | None
    note: str
    created_at: datetime
    created_by: str
    claims: Mapping[str, Claim] = field(default_factory=_no_claims)
    _regex: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        """Compile a regex rule once."""
        if self.match == "regex" and self._regex is None:
            object.__setattr__(self, "_regex", compile_rule(self.pattern))

    def matches(self, model_id: str) -> bool:
        """Return whether this rule applies to ``model_id``."""
        if self._regex is not None:
            return fullmatch(self._regex, model_id)
        return self.pattern == model_id


@dataclass(frozen=True, slots=True)
class ClaimEvent:
    """One change to a claim, as recorded in the append-only history."""

    id: int
    engine: str
    subject_key: str
    subject: str
    capability: str
    old_value: ClaimValue | None
    old_status: str | None
    old_evidence: str | None
    old_source: str | None
    old_verified_at: date | None
    new_value: ClaimValue | None
    new_status: str | None
    new_evidence: str | None
    new_source: str | None
    new_verified_at: date | None
    actor: str
    occurred_at: datetime
    reason: str | None
    #: "set" (new_* hold the claim), "retract" or "remove" (the claim is gone; new_* None)
    action: str = "set"


@dataclass(frozen=True, slots=True)
class ChangeEvent:
    """An engine, model, rule or capability added, removed or moved (append-only).

    ``detail`` holds the fields of the row added or removed, or a move's positions.
    """

    id: int
    engine: str | None
    entity: str
    subject: str
    action: str
    detail: Mapping[str, object]
    actor: str
    occurred_at: datetime
    reason: str | None


@dataclass(frozen=True, slots=True)
class Capability:
    """A capability name of the vocabulary, and what its claims mean."""

    name: str
    description: str
    value_kind: str
    gates: str | None
    created_at: datetime
    created_by: str


@dataclass(frozen=True, slots=True)
class EngineSnapshot:
    """Everything a resolver needs about one engine, read in one transaction.

    ``revision`` is the registry revision the snapshot was read at: compare it with
    ``Registry.revision()`` to know whether the snapshot is still current.
    """

    engine: Engine
    revision: int
    claims: Mapping[str, Claim]
    rules: tuple[Rule, ...]
    models: Mapping[str, Model]

    def matching_rules(self, model_id: str) -> tuple[Rule, ...]:
        """Return the rules that apply to ``model_id``, in order (the last one wins)."""
        return tuple(rule for rule in self.rules if rule.matches(model_id))


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One change anywhere in the registry, as ``Registry.log`` lists them.

    ``what`` says what happened (``claim set``, ``claim retract``, ``rule remove`` ...);
    ``changes`` maps every field that changed to its (old, new) value.
    """

    occurred_at: datetime
    actor: str
    engine: str | None
    subject: str
    what: str
    changes: Mapping[str, tuple[object, object]]
    reason: str | None


shown_in_package(*(globals()[name] for name in __all__))
