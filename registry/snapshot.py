"""The registry as resolved, in one JSON document any language can read.

The snapshot holds, per engine, its default wire, call-id rule, its own claims and
its rules as recorded and, per recorded model (and per id an exact rule names),
what the resolver decides: the wire, the converter options ``format_for``
passes, for every flag of ``FLAGS`` its value with the claim behind it
(evidence status, source, verification date, where it sits) and when it turns
stale, and likewise every limit of ``LIMITS`` a claim decides (``limits``). It
is what ``toolwire snapshot`` writes and ``GET /v1/snapshot`` serves;
``SCHEMA_FILE`` (shipped beside this module) is its JSON Schema, so gateways in
other languages can generate types from it.

The bytes depend on the registry only: keys are sorted, and the time in it is the
registry's last change (``registry_state.updated_at``), not the clock. Staleness is
given as a day (``stale_after``: the claim counts as stale on any later day), so
the document does not change with the date it is written on.
"""

from __future__ import annotations

import json
import threading
import time
from datetime import date, datetime, timedelta
from importlib import resources
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from . import evidence as _evidence
from ._values import json_value
from .errors import DatabaseError
from .tables import registry_state_table

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ._changes import ChangeWatch
    from .records import Claim
    from .resolver import FlagTrace, LimitTrace, Resolution
    from .store import Registry

__all__ = [
    "SCHEMA_FILE",
    "SCHEMA_VERSION",
    "Snapshot",
    "SnapshotCache",
    "build_snapshot",
    "capability_entries",
    "evidence_inputs",
    "limit_entries",
    "schema_text",
    "stale_after",
]

#: The version of the document's shape; it changes when a field changes meaning or goes.
SCHEMA_VERSION = 1

#: The JSON Schema of the document, shipped in the package beside this module.
SCHEMA_FILE = "snapshot.schema.json"

#: How many times a snapshot is read again when a write lands while it is being read.
_ATTEMPTS = 5


class Snapshot:
    """One snapshot: the registry revision it was read at and the document's bytes."""

    __slots__ = ("body", "revision")

    def __init__(self, revision: int, body: bytes) -> None:
        """Hold ``body`` (UTF-8 JSON) read at ``revision``."""
        self.revision = revision
        self.body = body

    @property
    def etag(self) -> str:
        """Return the HTTP entity tag of this revision's document (quoted)."""
        return f'"r{self.revision}-s{SCHEMA_VERSION}"'


def schema_text() -> str:
    """Return the snapshot's JSON Schema as shipped in the package."""
    return resources.files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8")


def stale_after(
    claim: Claim | None,
    policy: Mapping[str, int | None],
    agreeing: Mapping[tuple[str, str, bool], date],
) -> date | None:
    """Return the last day ``claim`` is fresh under ``policy`` (None: it never ages).

    The rule is ``evidence.staleness``'s: asked about the last day there is, it says
    from which day the age counts and how many days the policy allows.
    """
    if claim is None:
        return None
    found = _evidence.staleness(claim, policy, agreeing, date.max)
    if found is None:
        return None
    return found.checked + timedelta(days=found.days)


def _entry(
    entry: FlagTrace | LimitTrace,
    policy: Mapping[str, int | None],
    agreeing: Mapping[tuple[str, str, bool], date],
) -> dict[str, Any]:
    """Return a flag's or a limit's snapshot entry: its value fields, the deciding claim
    with its dates, then what changed the value after the claim (a flag's clearing)."""
    claim = entry.claim
    stale = stale_after(claim, policy, agreeing)
    verified = claim.verified_at if claim is not None else None
    return {
        **entry.value_json(),
        "decided_by": entry.decided_by,
        "status": entry.status,
        "source": claim.source if claim is not None else None,
        "verified_at": verified.isoformat() if verified is not None else None,
        "stale_after": stale.isoformat() if stale is not None else None,
        **entry.after_json(),
    }


def limit_entries(
    resolution: Resolution,
    policy: Mapping[str, int | None],
    agreeing: Mapping[tuple[str, str, bool], date],
) -> dict[str, dict[str, Any]]:
    """Return, per limit a claim decides for ``resolution``, its value and claim (JSON-ready)."""
    return {name: _entry(entry, policy, agreeing) for name, entry in resolution.limit_trace.items()}


def _claims(
    claims: Mapping[str, Claim],
    policy: Mapping[str, int | None],
    agreeing: Mapping[tuple[str, str, bool], date],
) -> dict[str, dict[str, Any]]:
    """Return claims as they are recorded (before any rule of the resolver), JSON-ready."""
    found = {}
    for name, claim in claims.items():
        last = stale_after(claim, policy, agreeing)
        found[name] = {
            "value": json_value(claim.value),
            "status": claim.status,
            "source": claim.source,
            "verified_at": claim.verified_at.isoformat() if claim.verified_at else None,
            "stale_after": last.isoformat() if last is not None else None,
        }
    return found


def capability_entries(
    resolution: Resolution,
    policy: Mapping[str, int | None],
    agreeing: Mapping[tuple[str, str, bool], date],
) -> dict[str, dict[str, Any]]:
    """Return, per flag of ``resolution``, its value and the claim behind it (JSON-ready).

    ``policy`` and ``agreeing`` are ``evidence.read_policy`` and
    ``evidence.agreeing_days`` of the resolution's engine.
    """
    return {flag: _entry(entry, policy, agreeing) for flag, entry in resolution.trace.items()}


def evidence_inputs(
    registry: Registry, engine: str, model: str | None = None
) -> tuple[Mapping[str, int | None], dict[tuple[str, str, bool], date]]:
    """Return the evidence policy and the agreeing observation days of ``engine``.

    :raises DatabaseError: when the registry cannot be read.
    """
    with registry.reading("cannot read the evidence policy") as connection:
        return _evidence.read_policy(connection), _evidence.agreeing_days(connection, engine, model)


def _changed_at(registry: Registry) -> tuple[int, datetime | None]:
    with registry.reading("cannot read the registry state") as connection:
        row = connection.execute(
            select(registry_state_table.c.revision, registry_state_table.c.updated_at).where(
                registry_state_table.c.id == 1
            )
        ).first()
    if row is None:
        return 0, None
    return int(row[0]), row[1]


def _document(registry: Registry) -> tuple[int, dict[str, Any]]:
    from .resolver import Resolver

    revision, changed = _changed_at(registry)
    resolver = Resolver(registry)
    engines: dict[str, Any] = {}
    policy = _evidence.evidence_policy(registry)
    for engine in registry.engines():
        with registry.reading("cannot read the observations") as connection:
            agreeing = _evidence.agreeing_days(connection, engine.name)
        own = registry.engine_snapshot(engine.name, models=())  # its claims and rules
        recorded = resolver.resolve_many(engine.name)
        # and the ids exact rules name: they resolve by those rules (as the matrix shows)
        named = {r.pattern for r in own.rules if r.match == "exact"} - {r.model for r in recorded}
        models = {}
        for resolution in recorded + resolver.resolve_many(engine.name, sorted(named)):
            models[resolution.model] = {
                "recorded": resolution.model not in named,
                "wire": resolution.wire,
                "wire_from": resolution.wire_from,
                "options": {k: json_value(v) for k, v in resolution.options.items()},
                "capabilities": capability_entries(resolution, policy, agreeing),
                "limits": limit_entries(resolution, policy, agreeing),
            }
        engines[engine.name] = {
            "wire": engine.default_wire,
            "id_rule": engine.id_rule,
            "kind": engine.kind,
            "provider": engine.provider,
            "claims": _claims(own.claims, policy, agreeing),
            "rules": [
                {
                    "position": rule.position,
                    "match": rule.match,
                    "pattern": rule.pattern,
                    "wire": rule.wire,
                    "claims": _claims(rule.claims, policy, agreeing),
                }
                for rule in own.rules
            ],
            "models": models,
        }
    document = {
        "schema_version": SCHEMA_VERSION,
        "revision": revision,
        "changed_at": changed.isoformat() if changed is not None else None,
        "evidence_policy": dict(policy),
        "engines": engines,
    }
    return revision, document


def build_snapshot(registry: Registry) -> Snapshot:
    """Return the snapshot of ``registry``: every engine, recorded model and flag, resolved.

    Read again (a few times) when a write lands while it is being read, so the
    document is the registry at one revision.

    :raises DatabaseError: when the registry cannot be read, or keeps changing.
    """
    for _ in range(_ATTEMPTS):
        revision, document = _document(registry)
        if registry.revision() == revision:
            body = json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
            return Snapshot(revision, body.encode("utf-8"))
    raise DatabaseError("the registry kept changing while the snapshot was read; try again")


class SnapshotCache:
    """The current snapshot of one registry, built again only when the registry changed.

    Whether it changed is asked of the registry's change watch (``_changes``: one
    ``PRAGMA data_version`` on SQLite, the notifications already received on
    PostgreSQL), as the resolver asks it; where the watch is not exact, or there is
    none, the revision counter is also read at most every ``max_age`` seconds.
    """

    def __init__(self, registry: Registry, *, max_age: float = 0.5) -> None:
        """Keep the snapshot of ``registry``."""
        self.registry = registry
        self.max_age = max_age
        self._lock = threading.Lock()
        self._watch: ChangeWatch | None = None
        self._watch_opened = False
        self._checked = 0.0
        self._revision: int | None = None
        self._snapshot: Snapshot | None = None

    def revision(self) -> int:
        """Return the registry revision, read again only when it may have changed.

        :raises DatabaseError: when the registry cannot be read.
        """
        if not self._watch_opened:
            with self._lock:
                if not self._watch_opened:
                    self._watch = self.registry.watch_changes()
                    self._watch_opened = True
        watch = self._watch
        due = self._revision is None
        now = 0.0
        if watch is None or not watch.exact:
            now = time.monotonic()
            due = due or now - self._checked >= self.max_age
        if watch is not None and watch.changed():
            due = True
        if due:
            self._revision = self.registry.revision()
            self._checked = now
        assert self._revision is not None
        return self._revision

    def get(self) -> Snapshot:
        """Return the snapshot at the current revision (built on first use after a change).

        :raises DatabaseError: when the registry cannot be read.
        """
        revision = self.revision()
        found = self._snapshot
        if found is not None and found.revision == revision:
            return found
        with self._lock:
            found = self._snapshot
            if found is None or found.revision != revision:
                found = self._snapshot = build_snapshot(self.registry)
        return found

    def close(self) -> None:
        """Close the change watch."""
        with self._lock:
            if self._watch is not None:
                self._watch.close()
            self._watch = None
