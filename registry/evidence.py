"""Evidence that ages: how long a claim of each status stays fresh, and which claims are past it.

The policy is one row per evidence status in the registry (``evidence_policy``):
``max_age_days``, or None for never (the default: live-verified 90 days, the others
never). A claim is *stale* when its age is past its status's policy; the age counts
from the later of its ``verified_at`` and the latest observation of the same
engine, model and capability that agrees with the claim (model claims: observations
are about one model); a claim with neither has no age and is never stale. The resolver
counts a stale claim one tier lower for ``min_evidence`` (a stale live-verified claim
as documented) and says so in ``explain``; ``stale_claims`` lists them
(``toolwire audit --stale``).

This module reads a ``Registry``; the work on a connection (the policy's rows, the
ages) is in ``_aging`` and re-exported here. ``today()`` is the clock every age is
measured with (UTC); tests replace it here, so every caller reads it through this
module.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

from ._aging import (
    Stale,
    agreeing_days,
    parse_days,
    read_policy,
    set_evidence_policy,
    staleness,
)
from .store import Registry
from .tables import utcnow
from .vocab import check_day

__all__ = [
    "Stale",
    "agreeing_days",
    "evidence_policy",
    "parse_days",
    "read_policy",
    "set_evidence_policy",
    "stale_claims",
    "staleness",
    "today",
]


def today() -> date:
    """Return the current UTC date, the day every age is counted to."""
    return utcnow().date()


def evidence_policy(registry: Registry) -> Mapping[str, int | None]:
    """Return the registry's evidence policy: status -> max age in days (None: never)."""
    with registry.reading("cannot read the evidence policy") as connection:
        return read_policy(connection)


def stale_claims(
    registry: Registry,
    *,
    status: str | None = None,
    capability: str | None = None,
    engine: str | None = None,
    on: date | None = None,
) -> tuple[Stale, ...]:
    """Return every claim past its status's policy (``toolwire audit --stale``).

    :raises UnknownEngine: when ``engine`` does not exist.
    :raises InvalidStatus: for an unknown status filter.
    """
    claims = registry.claims(engine=engine, capability=capability, status=status)
    day = check_day(on, "on") or today()
    with registry.reading("cannot read the evidence policy") as connection:
        policy = read_policy(connection)
        agreeing = {
            name: agreeing_days(connection, name) for name in sorted({c.engine for c in claims})
        }
    found = (staleness(c, policy, agreeing[c.engine], day) for c in claims)
    return tuple(s for s in found if s is not None)
