"""Claims: one set, retracted or removed, or many set in a handful of statements.

A claim's subject is the engine itself, one of its models (recorded when a claim names
it first) or one of its rules. ``set_claims`` writes any number of claims with one
query per engine for its models, rules and current claims, then one ``executemany``
each for new models, new claims, changed claims and history events (the seed and
``toolwire import`` write through it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import and_, bindparam, delete, insert, select, update

from .. import _queries as q
from .. import _validate as check
from .._public import shown_in_package
from .._values import ClaimValue, check_value
from ..errors import InvalidInput, InvalidRule, UnknownCapability, UnknownClaim, UnknownEngine
from ..records import Claim
from ..tables import capability_table, claim_event_table, claim_table, engine_table, utcnow
from .models import Models
from .rules import Rules
from .transaction import (
    CLAIM_FIELDS,
    STORED_FIELDS,
    Transaction,
    claim_columns,
    claim_fields,
    insert_many,
)

__all__ = ["CLAIM_FIELDS", "ClaimInput", "Claims", "ClaimsReport", "as_date"]


@dataclass(frozen=True, slots=True)
class ClaimInput:
    """One claim to write with ``Registry.set_claims`` (same fields as ``set_claim``).

    ``rule`` is a rule id or a pattern of the engine; ``model`` a model id, recorded
    when new.
    """

    engine: str
    capability: str
    #: true/false, an int (a limit) or MIME types, as the capability's value kind says
    value: ClaimValue
    status: str
    evidence: str
    source: str | None = None
    verified_at: date | None = None
    model: str | None = None
    rule: int | str | None = None


@dataclass(slots=True)
class ClaimsReport:
    """What ``set_claims`` did with the claims it was given."""

    added: int = 0
    updated: int = 0
    #: identical to what was recorded: nothing written
    kept: int = 0
    #: left alone because someone else recorded them (``keep_others``)
    left: int = 0
    #: model rows recorded because a claim named them
    new_models: int = 0


@dataclass(frozen=True, slots=True)
class _Subject:
    key: str
    label: str
    model_row_id: int | None = None
    rule_id: int | None = None


def as_date(value: object) -> date | None:
    """Return a verified_at date; one after tomorrow (UTC, for every time zone) is refused.

    :raises InvalidInput: for a value that is not a date, or one in the future.
    """
    if value is None:
        return None
    if isinstance(value, datetime):
        value = value.date()
    if not isinstance(value, date):
        raise InvalidInput(f"invalid verified_at {check.describe(value)}: must be a date")
    if value > utcnow().date() + timedelta(days=1):
        raise InvalidInput(f"invalid verified_at {value.isoformat()}: it is in the future")
    return value


def _check_claim(evidence: object, source: object) -> None:
    """Check what ``set_claim`` and ``set_claims`` both refuse in a claim's fields.

    The value is checked against its capability's kind (``check_value``) once that
    kind is read.
    """
    if not isinstance(evidence, str) or not evidence.strip():
        raise InvalidInput("a claim needs evidence: say what supports it")
    check.text(evidence, "evidence")
    if source is not None:
        check.text(source, "source")


def _check_subject(model: object, rule: object) -> None:
    if model is not None and rule is not None:
        raise InvalidInput("a claim is about a model or a rule, not both")
    if model is not None:
        check.model_id(model)


def _event(
    claim_id: int | None,
    engine: str,
    subject: _Subject,
    capability: str,
    old: Any,
    new: Mapping[str, Any],
    actor: str,
    now: datetime,
    reason: str | None,
    action: str = "set",
) -> dict[str, Any]:
    """Return a claim_event row: the claim's fields before (``old``: a row or None) and after."""
    columns = claim_columns(new) if new else {}
    return {
        "claim_id": claim_id,
        "engine": engine,
        "subject_key": subject.key,
        "subject": subject.label,
        "capability": capability,
        **{f"old_{k}": None if old is None else getattr(old, k) for k in STORED_FIELDS},
        **{f"new_{k}": columns.get(k) for k in STORED_FIELDS},
        "actor": actor,
        "occurred_at": now,
        "reason": reason,
        "action": action,
    }


class Claims:
    """The writes of claims; a claim's subject is a model (``models``) or a rule (``rules``)."""

    def __init__(self, txn: Transaction, models: Models, rules: Rules) -> None:
        self._txn = txn
        self._connection = txn.connection
        self._models = models
        self._rules = rules

    def claim(
        self,
        engine: str,
        capability: str,
        *,
        model: str | None = None,
        rule: int | str | None = None,
    ) -> Claim | None:
        """Return the claim on a subject, None when there is none.

        :raises UnknownEngine: when the engine does not exist.
        :raises UnknownRule: when ``rule`` (an id, ``rule:N``, ``N`` or a pattern) names
            no rule of the engine.
        :raises InvalidRule: for a ``rule`` of ``rule:`` not followed by digits.
        """
        engine_id = q.engine_id(self._connection, engine)
        subject = self._subject(engine_id, engine, model, rule, create_by=None)
        if subject is None:
            return None
        return self._claim_at(engine_id, subject.key, check.capability(capability))

    def set_claim(
        self,
        engine: str,
        capability: str,
        value: ClaimValue,
        *,
        model: str | None = None,
        rule: int | str | None = None,
        status: str,
        evidence: str,
        source: str | None = None,
        verified_at: date | None = None,
        recorded_by: str,
        reason: str | None = None,
    ) -> Claim:
        """Record a claim; a change appends one history event, an identical claim is a no-op.

        :raises UnknownEngine: when the engine does not exist.
        :raises UnknownRule: when ``rule`` (an id, ``rule:N``, ``N`` or a pattern) names
            no rule of the engine.
        :raises InvalidRule: for a ``rule`` of ``rule:`` not followed by digits.
        :raises InvalidCapability: for a malformed capability name.
        :raises UnknownCapability: for a capability not in the vocabulary.
        :raises InvalidStatus: for an unknown evidence status.
        :raises InvalidModelId: for an unusable model id.
        :raises InvalidInput: for a value not of the capability's kind (true/false, a
            whole number, MIME types), empty evidence, both subjects, or a
            ``verified_at`` in the future.
        """
        check.capability(capability)
        check.status(status)
        _check_claim(evidence, source)
        if reason is not None:
            check.text(reason, "reason")
        check.actor(recorded_by)
        verified_at = as_date(verified_at)
        _check_subject(model, rule)
        engine_id, kind = self._engine_with_capability(engine, capability)
        value = check_value(kind, value, capability)
        subject = self._subject(engine_id, engine, model, rule, create_by=recorded_by)
        assert subject is not None
        new: dict[str, Any] = {
            "value": value,
            "status": status,
            "evidence": evidence,
            "source": source,
            "verified_at": verified_at,
        }
        now = utcnow()
        current = self._connection.execute(
            select(claim_table).where(
                claim_table.c.engine_id == engine_id,
                claim_table.c.subject_key == subject.key,
                claim_table.c.capability == capability,
            )
        ).first()
        if current is not None and claim_fields(current) == new:
            return Claim(
                engine,
                subject.key,
                model,
                subject.rule_id,
                capability,
                **new,
                recorded_by=current.recorded_by,
                recorded_at=current.recorded_at,
            )
        stamp: dict[str, Any] = {"recorded_by": recorded_by, "recorded_at": now}
        if current is None:
            claim_id = self._connection.scalar(
                insert(claim_table)
                .values(
                    engine_id=engine_id,
                    subject_key=subject.key,
                    model_row_id=subject.model_row_id,
                    rule_id=subject.rule_id,
                    capability=capability,
                    **claim_columns(new),
                    **stamp,
                )
                .returning(claim_table.c.id)
            )
        else:
            claim_id = current.id
            self._connection.execute(
                update(claim_table)
                .where(claim_table.c.id == claim_id)
                .values(**claim_columns(new), **stamp)
            )
        self._connection.execute(
            insert(claim_event_table).values(
                _event(
                    claim_id, engine, subject, capability, current, new, recorded_by, now, reason
                )
            )
        )
        self._txn.changed = True
        return Claim(engine, subject.key, model, subject.rule_id, capability, **new, **stamp)

    def unset_claim(
        self,
        engine: str,
        capability: str,
        *,
        model: str | None = None,
        rule: int | str | None = None,
        evidence: str,
        recorded_by: str,
    ) -> Claim:
        """Retract a claim; the next, less specific claim decides from then on.

        The history gets a ``retract`` event with the old value and status, who and
        ``evidence`` (why) as its reason. Returns the claim as it was.

        :raises UnknownEngine: when the engine does not exist.
        :raises UnknownRule: when ``rule`` (an id, ``rule:N``, ``N`` or a pattern) names
            no rule of the engine.
        :raises InvalidRule: for a ``rule`` of ``rule:`` not followed by digits.
        :raises UnknownCapability: for a capability not in the vocabulary that no claim
            uses (a claim recorded before the vocabulary can be retracted whatever its name).
        :raises UnknownClaim: when that subject has no such claim.
        :raises InvalidInput: for empty evidence or both subjects.
        """
        try:
            self._txn.known_capability(capability)
        except UnknownCapability:
            # A claim recorded before the vocabulary existed may use a name outside it
            # (a typo); it can still be retracted.
            if not self._connection.scalar(
                select(claim_table.c.id).where(claim_table.c.capability == capability).limit(1)
            ):
                raise
        if not isinstance(evidence, str) or not evidence.strip():
            raise InvalidInput("a retraction needs evidence: say why the claim goes")
        check.text(evidence, "evidence")
        check.actor(recorded_by)
        _check_subject(model, rule)
        engine_id = q.engine_id(self._connection, engine)
        subject = self._subject(engine_id, engine, model, rule, create_by=None)
        claim = None if subject is None else self._claim_at(engine_id, subject.key, capability)
        if subject is None or claim is None:
            where = "the engine" if model is None and rule is None else f"{model or rule!r}"
            raise UnknownClaim(f"{engine!r} has no {capability} claim on {where} to retract")
        row = self._connection.execute(
            select(claim_table).where(
                claim_table.c.engine_id == engine_id,
                claim_table.c.subject_key == subject.key,
                claim_table.c.capability == capability,
            )
        ).one()
        self._connection.execute(
            insert(claim_event_table).values(
                _event(
                    row.id,
                    engine,
                    subject,
                    capability,
                    row,
                    {},
                    recorded_by,
                    utcnow(),
                    evidence,
                    action="retract",
                )
            )
        )
        self._connection.execute(delete(claim_table).where(claim_table.c.id == row.id))
        self._txn.changed = True
        return claim

    def remove_claim(
        self,
        engine: str,
        capability: str,
        *,
        model: str | None = None,
        rule: int | None = None,
        recorded_by: str,
        reason: str | None = None,
    ) -> bool:
        """Remove one claim with a ``remove`` event (an import dropping it); False if absent.

        :raises UnknownEngine: when the engine does not exist.
        """
        engine_id = q.engine_id(self._connection, engine)
        subject = self._subject(engine_id, engine, model, rule, create_by=None)
        if subject is None:
            return False
        where = and_(
            claim_table.c.engine_id == engine_id,
            claim_table.c.subject_key == subject.key,
            claim_table.c.capability == capability,
        )
        return self._txn.remove_claims(engine, where, subject.label, recorded_by, reason) > 0

    def set_claims(
        self,
        claims: Iterable[ClaimInput | Mapping[str, Any]],
        *,
        recorded_by: str,
        reason: str | None = None,
        keep_others: bool = False,
    ) -> ClaimsReport:
        """Record many claims; each change appends one history event, as ``set_claim``.

        With ``keep_others`` a claim recorded by someone other than ``recorded_by`` is
        left as it is (the seed never overwrites an operator's claim). Every claim is
        checked before anything is written; a later claim for the same subject and
        capability wins over an earlier one.

        :raises UnknownEngine: when a claim names an engine that does not exist.
        :raises UnknownRule: when a claim names no rule of its engine.
        :raises UnknownCapability: for a capability not in the vocabulary.
        :raises InvalidInput: for any value ``set_claim`` refuses.
        """
        check.actor(recorded_by)
        if reason is not None:
            check.text(reason, "reason")
        if isinstance(claims, (str, bytes, Mapping)) or not isinstance(claims, Iterable):
            raise InvalidInput(f"invalid claims {check.describe(claims)}: must be a list of claims")
        items = [self._checked(c) for c in claims]
        report = ClaimsReport()
        if not items:
            return report
        engines = self._engine_ids({c.engine for c in items})
        by_engine: dict[str, list[ClaimInput]] = {engine: [] for engine in engines}
        for item in items:
            by_engine[item.engine].append(item)
        models, report.new_models = self._models.record_missing(
            {
                engine: (engines[engine], sorted({c.model for c in mine if c.model is not None}))
                for engine, mine in by_engine.items()
            },
            recorded_by,
            "recorded by a claim",
        )
        wanted: dict[tuple[int, str, str], tuple[ClaimInput, _Subject]] = {}
        for engine, engine_id in engines.items():
            mine = by_engine[engine]
            rules = self._rules.refs(
                engine, engine_id, (c.rule for c in mine if c.rule is not None)
            )
            for claim in mine:
                if claim.model is not None:
                    model_row = models[(engine_id, claim.model)]
                    subject = _Subject(
                        f"model:{claim.model}", f"model {claim.model}", model_row_id=model_row
                    )
                elif claim.rule is not None:
                    rule_id, match, pattern = rules[claim.rule]
                    subject = _Subject(
                        f"rule:{rule_id}", f"rule:{rule_id} {match} {pattern}", rule_id=rule_id
                    )
                else:
                    subject = _Subject("engine", "engine")
                wanted[(engine_id, subject.key, claim.capability)] = (claim, subject)
        current = self._current(list(engines.values()))
        now = utcnow()
        inserts: list[dict[str, Any]] = []
        updates: list[dict[str, Any]] = []
        events: list[dict[str, Any]] = []
        for (engine_id, key, capability), (claim, subject) in wanted.items():
            new = {k: getattr(claim, k) for k in CLAIM_FIELDS}
            row = current.get((engine_id, key, capability))
            if row is not None and keep_others and row.recorded_by != recorded_by:
                report.left += 1
                continue
            if row is not None and claim_fields(row) == new:
                report.kept += 1
                continue
            claim_id = None if row is None else row.id
            events.append(
                _event(
                    claim_id, claim.engine, subject, capability, row, new, recorded_by, now, reason
                )
            )
            stamp = {"recorded_by": recorded_by, "recorded_at": now}
            if row is None:
                report.added += 1
                inserts.append(
                    {
                        "engine_id": engine_id,
                        "subject_key": key,
                        "model_row_id": subject.model_row_id,
                        "rule_id": subject.rule_id,
                        "capability": capability,
                        **claim_columns(new),
                        **stamp,
                    }
                )
            else:
                report.updated += 1
                updates.append({"claim_row": row.id, **claim_columns(new), **stamp})
        if inserts:
            # one executemany without RETURNING (one statement), then the new ids in one
            # query: RETURNING in parameter order is a statement per row on SQLite
            insert_many(self._connection, claim_table, inserts)
            ids = {
                (row.engine_id, row.subject_key, row.capability): row.id
                for row in self._connection.execute(
                    select(
                        claim_table.c.engine_id,
                        claim_table.c.subject_key,
                        claim_table.c.capability,
                        claim_table.c.id,
                    ).where(claim_table.c.engine_id.in_(sorted({r["engine_id"] for r in inserts})))
                )
            }
            for event, row in zip(
                (e for e in events if e["claim_id"] is None), inserts, strict=True
            ):
                event["claim_id"] = ids[(row["engine_id"], row["subject_key"], row["capability"])]
        if updates:
            self._connection.execute(
                update(claim_table)
                .where(claim_table.c.id == bindparam("claim_row"))
                .values({k: bindparam(k) for k in (*STORED_FIELDS, "recorded_by", "recorded_at")}),
                updates,
            )
        if events:
            insert_many(self._connection, claim_event_table, events)
            self._txn.changed = True
        return report

    # -- helpers ----------------------------------------------------------------------

    def _subject(
        self,
        engine_id: int,
        engine: str,
        model: str | None,
        rule: int | str | None,
        *,
        create_by: str | None,
    ) -> _Subject | None:
        """Resolve the claim subject; a missing model row is created when ``create_by``."""
        if model is not None:
            row_id = self._models.row_id(engine_id, model)
            if row_id is None:
                if create_by is None:
                    return None
                row_id = self._models.insert(
                    engine_id, model, wire=None, note="", created_by=create_by
                )
            return _Subject(f"model:{model}", f"model {model}", model_row_id=row_id)
        if rule is not None:
            rule_id, label = self._rules.label(engine_id, engine, rule)
            return _Subject(f"rule:{rule_id}", label, rule_id=rule_id)
        return _Subject("engine", "engine")

    def _claim_at(self, engine_id: int, subject_key: str, capability: str) -> Claim | None:
        row = self._connection.execute(
            q.claim_select().where(
                claim_table.c.engine_id == engine_id,
                claim_table.c.subject_key == subject_key,
                claim_table.c.capability == capability,
            )
        ).first()
        return None if row is None else q.to_claim(row)

    def _engine_with_capability(self, engine: str, capability: str) -> tuple[int, str]:
        """Return the engine's id and the capability's value kind, in one statement.

        :raises UnknownCapability: for a capability not in the vocabulary.
        :raises UnknownEngine: when the engine does not exist.
        """
        if self._txn.vocabulary_read:
            kind = self._txn.value_kind(capability)
            return q.engine_id(self._connection, engine), kind
        found = (
            select(capability_table.c.value_kind)
            .where(capability_table.c.name == capability)
            .scalar_subquery()
        )
        row = self._connection.execute(
            select(engine_table.c.id, found.label("kind")).where(engine_table.c.name == engine)
        ).first()
        if row is None or row.kind is None:
            kind = self._txn.value_kind(capability)  # raises with the closest names
            if row is None:
                return q.engine_id(self._connection, engine), kind  # raises UnknownEngine
            return int(row.id), kind
        return int(row.id), str(row.kind)

    def _checked(self, given: ClaimInput | Mapping[str, Any]) -> ClaimInput:
        if isinstance(given, Mapping):
            try:
                given = ClaimInput(**given)
            except TypeError as error:
                raise InvalidInput(f"invalid claim {check.describe(given)}: {error}") from None
        if not isinstance(given, ClaimInput):
            raise InvalidInput(f"invalid claim {check.describe(given)}: a ClaimInput or a mapping")
        kind = self._txn.value_kind(given.capability)
        check.status(given.status)
        _check_claim(given.evidence, given.source)
        value = check_value(kind, given.value, given.capability)
        if not isinstance(given.engine, str):
            raise InvalidInput(f"invalid engine {check.describe(given.engine)}: must be a string")
        _check_subject(given.model, given.rule)
        if given.rule is not None and (
            isinstance(given.rule, bool) or not isinstance(given.rule, (int, str))
        ):
            raise InvalidRule(
                f"invalid rule reference {check.describe(given.rule)}: an id or a pattern"
            )
        verified = as_date(given.verified_at)
        if verified is not given.verified_at or value is not given.value:
            fields = {name: getattr(given, name) for name in ClaimInput.__dataclass_fields__}
            given = ClaimInput(**{**fields, "verified_at": verified, "value": value})
        return given

    def _engine_ids(self, names: set[str]) -> dict[str, int]:
        rows = self._connection.execute(
            select(engine_table.c.name, engine_table.c.id).where(
                engine_table.c.name.in_(sorted(names))
            )
        ).all()
        found = {name: int(engine_id) for name, engine_id in rows}
        for name in sorted(names - set(found)):
            raise UnknownEngine(name, self._connection.scalars(select(engine_table.c.name)))
        return found

    def _current(self, engine_ids: list[int]) -> dict[tuple[int, str, str], Any]:
        rows = self._connection.execute(
            select(
                claim_table.c.id,
                claim_table.c.engine_id,
                claim_table.c.subject_key,
                claim_table.c.capability,
                claim_table.c.recorded_by,
                *(claim_table.c[k] for k in STORED_FIELDS),
            ).where(claim_table.c.engine_id.in_(engine_ids))
        ).all()
        return {(row.engine_id, row.subject_key, row.capability): row for row in rows}


shown_in_package(ClaimInput, ClaimsReport)
