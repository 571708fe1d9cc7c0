"""The observation log of live probes, the claims drawn from it, and the audits that use it.

An observation is one request ``toolwire probe`` sent: which model on which endpoint,
which scenario (each scenario is evidence for the capability of the same name), how it
ended, when, and a bounded excerpt of the reply. The log is append-only: nothing here
updates or deletes a row.

Only observations that reached the model (``read``, ``ignored``, ``rejected``) are
evidence; an ``error`` (5xx, timeout, network, bad credentials) says nothing about the
capability, so "the latest observation" below always means the latest informative one.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import date, datetime
from importlib import metadata
from typing import Any

from sqlalchemy import insert, select

from . import _validate as check
from ._aging import stale_cutoff
from ._writer import Writer
from .errors import InvalidInput
from .records import Claim
from .resolver import FLAGS, Resolver
from .store import Registry
from .tables import observation_table, utcnow
from .vocab import (
    EVIDENCE_OUTCOMES,
    OBSERVATION_OUTCOMES,
    OBSERVATION_SCENARIOS,
    agrees,
)

__all__ = [
    "Conflict",
    "Observation",
    "Unobserved",
    "audit",
    "claim_from_observation",
    "conflicts",
    "describe",
    "latest_for",
    "latest_observations",
    "list_observations",
    "record_observation",
    "unobserved",
]

#: Where probe claims say they come from.
PROBE_SOURCE = "probe"
_EXCERPT_MAX = 500


@dataclass(frozen=True, slots=True)
class Observation:
    """One recorded probe request and how it ended."""

    id: int
    engine: str
    model: str
    wire: str
    scenario: str
    outcome: str
    observed_at: datetime
    recorded_by: str
    endpoint: str
    http_status: int | None
    latency_ms: int | None
    excerpt: str
    request_sha256: str
    challenge: str
    toolwire_version: str


@dataclass(frozen=True, slots=True)
class Conflict:
    """A claim that the latest observation of the same engine, model and capability contradicts."""

    engine: str
    model: str
    capability: str
    value: bool
    status: str
    decided_by: str
    evidence: str
    observation_id: int
    outcome: str
    observed_at: datetime


@dataclass(frozen=True, slots=True)
class Unobserved:
    """A native-media flag that resolves to on with no observation behind it."""

    engine: str
    model: str
    capability: str
    wire: str
    decided_by: str
    status: str | None


_COLUMNS = tuple(observation_table.c[f.name] for f in fields(Observation))


@functools.cache
def _toolwire_version() -> str:
    """Return the installed toolwire version ("unknown" from a bare checkout)."""
    try:
        return metadata.version("toolwire")
    except metadata.PackageNotFoundError:  # pragma: no cover - not installed
        return "unknown"


def record_observation(
    writer: Writer,
    *,
    engine: str,
    model: str,
    wire: str,
    scenario: str,
    outcome: str,
    recorded_by: str,
    endpoint: str,
    http_status: int | None,
    latency_ms: int | None,
    excerpt: str,
    request_sha256: str,
    challenge: str,
    observed_at: datetime | None = None,
) -> Observation:
    """Append one observation inside ``writer``'s transaction and return it.

    :raises InvalidInput: for an unknown scenario or outcome, a bad model id, wire or
        actor, or an excerpt longer than 500 characters.
    """
    check.model_id(model)
    check.wire(wire)
    check.actor(recorded_by)
    if scenario not in OBSERVATION_SCENARIOS:
        shown = check.describe(scenario)
        raise InvalidInput(f"unknown scenario {shown}; valid: {', '.join(OBSERVATION_SCENARIOS)}")
    if outcome not in OBSERVATION_OUTCOMES:
        raise InvalidInput(
            f"unknown outcome {check.describe(outcome)}; valid: {', '.join(OBSERVATION_OUTCOMES)}"
        )
    if len(excerpt) > _EXCERPT_MAX:
        raise InvalidInput(f"an excerpt holds at most {_EXCERPT_MAX} characters")
    values: dict[str, Any] = {
        "engine": engine,
        "model": model,
        "wire": wire,
        "scenario": scenario,
        "outcome": outcome,
        "observed_at": observed_at or utcnow(),
        "recorded_by": recorded_by,
        "endpoint": endpoint,
        "http_status": http_status,
        "latency_ms": latency_ms,
        "excerpt": excerpt,
        "request_sha256": request_sha256,
        "challenge": challenge,
        "toolwire_version": _toolwire_version(),
    }
    connection = writer.connection
    new_id = connection.scalar(
        insert(observation_table).values(values).returning(observation_table.c.id)
    )
    # A resolution counts a claim's age from the latest agreeing observation: bump.
    writer.changed = True
    row = connection.execute(select(*_COLUMNS).where(observation_table.c.id == new_id)).one()
    return Observation(*row)


def claim_from_observation(writer: Writer, observation: Observation) -> Claim | None:
    """Write the claim an observation supports on its model; None for an ``error``.

    ``read`` claims true, ``ignored`` and ``rejected`` claim false; status
    live-verified, verified on the observation's date, source ``probe``, evidence
    naming the observation. The claim goes through the normal write path (history event).

    :raises UnknownEngine: when the observation's engine does not exist.
    """
    if observation.outcome not in EVIDENCE_OUTCOMES:
        return None
    day = observation.observed_at.date()
    evidence = (
        f"probe observation #{observation.id}: {observation.outcome} on {day.isoformat()} "
        f"({observation.wire} wire, {observation.endpoint})"
    )
    return writer.set_claim(
        observation.engine,
        observation.scenario,
        observation.outcome == "read",
        model=observation.model,
        status="live-verified",
        evidence=evidence,
        source=PROBE_SOURCE,
        verified_at=day,
        recorded_by=observation.recorded_by,
    )


def list_observations(
    registry: Registry,
    engine: str | None = None,
    *,
    model: str | None = None,
    scenario: str | None = None,
    outcome: str | None = None,
) -> tuple[Observation, ...]:
    """Return the observations matching every filter given, oldest first.

    Observations are kept by name: an engine without any simply has none.

    :raises InvalidInput: for an unknown scenario or outcome filter.
    """
    if scenario is not None and scenario not in OBSERVATION_SCENARIOS:
        shown = check.describe(scenario)
        raise InvalidInput(f"unknown scenario {shown}; valid: {', '.join(OBSERVATION_SCENARIOS)}")
    if outcome is not None and outcome not in OBSERVATION_OUTCOMES:
        raise InvalidInput(
            f"unknown outcome {check.describe(outcome)}; valid: {', '.join(OBSERVATION_OUTCOMES)}"
        )
    where = [
        column == value
        for column, value in (
            (observation_table.c.engine, engine),
            (observation_table.c.model, model),
            (observation_table.c.scenario, scenario),
            (observation_table.c.outcome, outcome),
        )
        if value is not None
    ]
    with registry.reading("cannot read observations") as connection:
        rows = connection.execute(select(*_COLUMNS).where(*where).order_by(observation_table.c.id))
        return tuple(Observation(*row) for row in rows)


def latest_observations(
    registry: Registry, *, engine: str | None = None, model: str | None = None
) -> dict[tuple[str, str, str], Observation]:
    """Return the latest informative observation per (engine, model, scenario)."""
    latest: dict[tuple[str, str, str], Observation] = {}
    for found in list_observations(registry, engine, model=model):
        if found.outcome in EVIDENCE_OUTCOMES:
            latest[(found.engine, found.model, found.scenario)] = found  # ids ascend
    return latest


def conflicts(
    registry: Registry, *, engine: str | None = None, capability: str | None = None
) -> tuple[Conflict, ...]:
    """Return each claim the latest observation of its engine, model and capability contradicts.

    The claim compared is the one that decides the flag for the observed model (its
    own claim, else the last matching rule's, else the engine's), as ``resolve``
    finds it; a flag nobody claims has nothing to conflict with.

    :raises UnknownEngine: when ``engine`` does not exist.
    """
    if engine is not None:
        registry.engine(engine)  # unknown engines are an error, as in audit
    resolver = Resolver(registry)
    found: list[Conflict] = []
    for (engine_name, model, scenario), seen in sorted(
        latest_observations(registry, engine=engine).items()
    ):
        if capability is not None and scenario != capability:
            continue
        trace = resolver.resolve(engine_name, model).trace[scenario]
        claim = trace.claim
        if claim is None or agrees(claim.value, seen.outcome):
            continue
        found.append(
            Conflict(
                engine_name,
                model,
                scenario,
                bool(claim.value),
                claim.status,
                trace.decided_by,
                claim.evidence,
                seen.id,
                seen.outcome,
                seen.observed_at,
            )
        )
    return tuple(found)


def unobserved(
    registry: Registry, *, engine: str | None = None, capability: str | None = None
) -> tuple[Unobserved, ...]:
    """Return every native-media flag that resolves to on with no observation behind it.

    The models looked at are the recorded ones and every one a probe was sent to.

    :raises UnknownEngine: when ``engine`` does not exist.
    """
    every = list_observations(registry, engine)
    latest = {(o.engine, o.model, o.scenario): o for o in every if o.outcome in EVIDENCE_OUTCOMES}
    pairs = {(m.engine, m.model_id) for m in registry.models(engine)}
    pairs |= {(o.engine, o.model) for o in every}
    resolver = Resolver(registry)
    found: list[Unobserved] = []
    for engine_name, model in sorted(pairs):
        resolution = resolver.resolve(engine_name, model)
        for flag in FLAGS:
            if capability is not None and flag != capability:
                continue
            trace = resolution.trace[flag]
            if trace.value and (engine_name, model, flag) not in latest:
                found.append(
                    Unobserved(
                        engine_name, model, flag, resolution.wire, trace.decided_by, trace.status
                    )
                )
    return tuple(found)


def audit(
    registry: Registry,
    *,
    status: str | None = None,
    capability: str | None = None,
    engine: str | None = None,
    enabling: bool = False,
    stale_days: int | None = None,
    today: date | None = None,
) -> tuple[Claim, ...]:
    """Return the claims of ``Registry.audit``, staleness counted from observations.

    With ``stale_days`` a model's claim counts as checked on the date of the latest
    observation of that engine, model and capability where there is one, else on its
    ``verified_at``; engine and rule claims use ``verified_at``.

    :raises UnknownEngine: when ``engine`` does not exist.
    :raises InvalidStatus: for an unknown status filter.
    :raises InvalidInput: for a ``stale_days`` that is not a whole number of days,
        0 to 36500.
    """
    cutoff = stale_cutoff(stale_days, today)
    claims = registry.audit(status=status, capability=capability, engine=engine, enabling=enabling)
    if cutoff is None:
        return claims
    latest = latest_observations(registry, engine=engine)
    return tuple(c for c in claims if _is_stale(c, latest, cutoff))


def _is_stale(
    claim: Claim, latest: Mapping[tuple[str, str, str], Observation], cutoff: date
) -> bool:
    checked = claim.verified_at
    if claim.model is not None:
        seen = latest.get((claim.engine, claim.model, claim.capability))
        if seen is not None:
            checked = seen.observed_at.date()
    return checked is None or checked < cutoff


def latest_for(registry: Registry, engine: str, model: str) -> dict[str, Observation]:
    """Return the latest informative observation of ``model`` on ``engine`` per scenario."""
    latest = latest_observations(registry, engine=engine, model=model)
    return {scenario: found for (_, _, scenario), found in latest.items()}


def describe(seen: Observation, claim: Claim | None) -> str:
    """Describe an observation in a line, and whether it contradicts ``claim``."""
    text = (
        f"#{seen.id} {seen.outcome} on {seen.observed_at.date().isoformat()} "
        f"({seen.wire} wire, {seen.endpoint})"
    )
    if claim is not None and not agrees(claim.value, seen.outcome):
        text += f"; contradicts the {str(claim.value).lower()} claim"
    return text
