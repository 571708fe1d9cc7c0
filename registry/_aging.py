"""Evidence that ages, read and written on a connection: the policy and each claim's age.

The policy is one row per evidence status in the registry (``evidence_policy``):
``max_age_days``, or None for never. A claim is *stale* when its age is past its
status's policy; the age counts from the later of its ``verified_at`` and the latest
observation of the same engine, model and capability that agrees with the claim
(``toolwire.registry.vocab.agrees``). This is the half the writer, the seed and the
resolver use inside their own transactions; ``toolwire.registry.evidence`` holds the
half that opens a ``Registry`` read, and the clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from types import MappingProxyType
from typing import TYPE_CHECKING

from sqlalchemy import func, select, update
from sqlalchemy.engine import Connection

from . import _validate as check
from ._output import plural
from .errors import InvalidInput
from .records import Claim
from .tables import evidence_policy_table, observation_table, utcnow
from .vocab import (
    DEFAULT_EVIDENCE_POLICY,
    EVIDENCE_OUTCOMES,
    EVIDENCE_STATUSES,
    agrees,
    check_day,
    check_days,
)

if TYPE_CHECKING:
    from ._writer import Writer

__all__ = [
    "Stale",
    "agreeing_days",
    "parse_days",
    "read_policy",
    "set_evidence_policy",
    "stale_cutoff",
    "staleness",
]

#: The outcomes that agree with a true claim, and with a false one.
_AGREE = {value: tuple(o for o in EVIDENCE_OUTCOMES if agrees(value, o)) for value in (True, False)}


@dataclass(frozen=True, slots=True)
class Stale:
    """A claim past its status's policy, and why."""

    claim: Claim
    #: the day its age counts from
    checked: date
    days: int

    @property
    def why(self) -> str:
        """Return ``verified YYYY-MM-DD, policy N days``."""
        return f"verified {self.checked.isoformat()}, policy {plural(self.days, 'day')}"


def parse_days(value: object) -> int | None:
    """Return a policy age from ``N`` (days, 0 to 36500) or ``never`` (None).

    :raises InvalidInput: for anything else.
    """
    if value is None or value == "never":
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    return check_days(value, "policy age", alternative="or 'never'")


def stale_cutoff(stale_days: object, today: object = None) -> date | None:
    """Return the day before which a check is older than ``stale_days`` (None: no limit).

    ``today`` is the day ages are counted to (None: the current UTC date).

    :raises InvalidInput: for a ``stale_days`` that is not a whole number of days, 0 to
        36500, or a ``today`` that is not a date.
    """
    if stale_days is None:
        return None
    days = check_days(stale_days, "stale_days")
    day = check_day(today, "today") or utcnow().date()
    try:
        return day - timedelta(days=days)
    except OverflowError:
        raise InvalidInput(
            f"invalid stale_days {days}: counts back past the year 1 from {day}"
        ) from None


def read_policy(connection: Connection) -> Mapping[str, int | None]:
    """Return status -> max age in days (None: never) as the registry holds it."""
    rows = connection.execute(
        select(evidence_policy_table.c.status, evidence_policy_table.c.max_age_days)
    ).all()
    found = {status: days for status, days in rows}
    return MappingProxyType(
        {s: found.get(s, DEFAULT_EVIDENCE_POLICY[s]) for s in EVIDENCE_STATUSES}
    )


def set_evidence_policy(writer: Writer, status: str, days: int | None, *, recorded_by: str) -> bool:
    """Set how many days claims of ``status`` stay fresh (None: never); return if it changed.

    A change bumps the registry revision, so every resolver sees it.

    :raises InvalidStatus: for an unknown status.
    :raises InvalidInput: for a bad age or actor.
    """
    check.status(status)
    days = parse_days(days)
    check.actor(recorded_by)
    connection = writer.connection
    if read_policy(connection)[status] == days:
        return False
    connection.execute(
        update(evidence_policy_table)
        .where(evidence_policy_table.c.status == status)
        .values(max_age_days=days, updated_by=recorded_by, updated_at=utcnow())
    )
    writer.changed = True
    return True


def agreeing_days(
    connection: Connection, engine: str, model: str | None = None
) -> dict[tuple[str, str, bool], date]:
    """Return (model, capability, value) -> the day of the latest observation agreeing with it."""
    query = (
        select(
            observation_table.c.model,
            observation_table.c.scenario,
            observation_table.c.outcome,
            func.max(observation_table.c.observed_at),
        )
        .where(observation_table.c.engine == engine)
        .group_by(
            observation_table.c.model, observation_table.c.scenario, observation_table.c.outcome
        )
    )
    if model is not None:
        query = query.where(observation_table.c.model == model)
    found: dict[tuple[str, str, bool], date] = {}
    for seen_model, scenario, outcome, latest in connection.execute(query):
        day = (
            latest.date() if isinstance(latest, datetime) else date.fromisoformat(str(latest)[:10])
        )
        for value, outcomes in _AGREE.items():
            key = (seen_model, scenario, value)
            if outcome in outcomes and (key not in found or found[key] < day):
                found[key] = day
    return found


def staleness(
    claim: Claim,
    policy: Mapping[str, int | None],
    agreeing: Mapping[tuple[str, str, bool], date],
    on: date,
) -> Stale | None:
    """Return why ``claim`` is past its policy on day ``on``, None while it is fresh."""
    days = policy.get(claim.status)
    if days is None:
        return None
    checked = claim.verified_at
    if claim.model is not None:  # the latest of its verification and an agreeing observation
        value = claim.value if isinstance(claim.value, bool) else None  # probes see flags
        seen = None if value is None else agreeing.get((claim.model, claim.capability, value))
        if seen is not None and (checked is None or seen > checked):
            checked = seen
    if checked is None or checked >= on - timedelta(days=days):
        return None
    return Stale(claim, checked, days)
