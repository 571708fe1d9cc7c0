"""What a probe changed: each probed flag before and after, and the flips.

A flip is an informative observation (``read``, ``ignored``, ``rejected``) that
contradicts the value the flag resolved to before the probe: a claim saying on that
the model ignored or rejected, or a flag off (by its claim or by default) that the
model was seen to read. A nightly job fails on a flip: the registry said one thing
and the model did another.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..resolver import Resolver
from ..store import Registry
from ..vocab import EVIDENCE_OUTCOMES, OBSERVATION_SCENARIOS, agrees
from ._runner import ProbeResult

__all__ = ["Drift", "DriftEntry", "State", "drift", "flag_states"]


@dataclass(frozen=True, slots=True)
class State:
    """How one flag of one model resolves: its value and the claim deciding it."""

    value: bool
    decided_by: str
    status: str | None
    evidence: str | None

    def as_dict(self) -> dict[str, Any]:
        """Return the state as a JSON object."""
        return {
            "value": self.value,
            "decided_by": self.decided_by,
            "status": self.status,
            "evidence": self.evidence,
        }


@dataclass(frozen=True, slots=True)
class DriftEntry:
    """One probed flag: before the probe, what was observed, after it."""

    model: str
    capability: str
    before: State
    outcome: str
    observation_id: int
    http_status: int | None
    after: State
    flip: bool

    def as_dict(self) -> dict[str, Any]:
        """Return the entry as a JSON object."""
        return {
            "model": self.model,
            "capability": self.capability,
            "before": self.before.as_dict(),
            "observation": {
                "id": self.observation_id,
                "outcome": self.outcome,
                "http_status": self.http_status,
            },
            "after": self.after.as_dict(),
            "flip": self.flip,
        }


@dataclass(frozen=True, slots=True)
class Drift:
    """The drift report of one probe run."""

    engine: str
    endpoint: str
    entries: tuple[DriftEntry, ...]

    @property
    def flips(self) -> tuple[DriftEntry, ...]:
        """Return the entries whose observation contradicts the value before."""
        return tuple(entry for entry in self.entries if entry.flip)

    def as_dict(self) -> dict[str, Any]:
        """Return the report as a JSON object."""
        return {
            "engine": self.engine,
            "endpoint": self.endpoint,
            "probed": len(self.entries),
            "flips": len(self.flips),
            "entries": [entry.as_dict() for entry in self.entries],
        }


def flag_states(
    registry: Registry, engine: str, models: Sequence[str]
) -> dict[tuple[str, str], State]:
    """Return how each probe flag of each of ``models`` resolves now.

    :raises UnknownEngine: for an engine the registry does not know.
    """
    resolver = Resolver(registry)
    states = {}
    for model in models:
        trace = resolver.resolve(engine, model).trace
        for flag in OBSERVATION_SCENARIOS:
            entry = trace[flag]
            claim = entry.claim
            states[(model, flag)] = State(
                bool(entry.value),
                entry.decided_by,
                None if claim is None else claim.status,
                None if claim is None else claim.evidence,
            )
    return states


def drift(
    engine: str,
    endpoint: str,
    before: Mapping[tuple[str, str], State],
    after: Mapping[tuple[str, str], State],
    results: Iterable[tuple[str, ProbeResult]],
) -> Drift:
    """Return the drift report of ``results`` (model, result) between two ``flag_states``."""
    entries = []
    for model, result in results:
        key = (model, result.scenario)
        old, new = before[key], after[key]
        flip = result.outcome in EVIDENCE_OUTCOMES and not agrees(old.value, result.outcome)
        entries.append(
            DriftEntry(
                model,
                result.scenario,
                old,
                result.outcome,
                result.observation.id,
                result.http_status,
                new,
                flip,
            )
        )
    return Drift(engine, endpoint, tuple(entries))
