"""``set_claims``: many claims with their history events in a handful of statements.

Whatever the number of claims: one query per engine for its models, rules and current
claims, then one ``executemany`` each for new models, new claims, changed claims and
history events. Seeding and ``toolwire import`` write through here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import bindparam, insert, select, update

from . import _validate as check
from ._wbase import CLAIM_FIELDS, WriterBase, as_date
from .errors import InvalidInput, InvalidRule, UnknownEngine, UnknownRule
from .tables import (
    change_event_table,
    claim_event_table,
    claim_table,
    engine_table,
    model_table,
    rule_table,
    utcnow,
)

__all__ = ["Bulk", "ClaimInput", "ClaimsReport"]

_CHUNK = 500  # ids per IN (...) list


@dataclass(frozen=True, slots=True)
class ClaimInput:
    """One claim to write with ``Registry.set_claims`` (same fields as ``set_claim``).

    ``rule`` is a rule id or a pattern of the engine; ``model`` a model id, recorded
    when new.
    """

    engine: str
    capability: str
    value: bool
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


class Bulk(WriterBase):
    """The bulk write of ``Writer``."""

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
        items = [self._checked(c) for c in claims]
        report = ClaimsReport()
        if not items:
            return report
        engines = self._engine_ids({c.engine for c in items})
        wanted: dict[tuple[int, str, str], tuple[ClaimInput, Any, Any, str]] = {}
        for engine, engine_id in engines.items():
            mine = [c for c in items if c.engine == engine]
            models = self._models_of(engine, engine_id, mine, recorded_by, report)
            rules = self._rules_of(engine, engine_id, mine)
            for claim in mine:
                if claim.model is not None:
                    key, model_row, rule_id = f"model:{claim.model}", models[claim.model], None
                    label = f"model {claim.model}"
                elif claim.rule is not None:
                    rule_id, match, pattern = rules[claim.rule]
                    key, model_row, label = (
                        f"rule:{rule_id}",
                        None,
                        f"rule:{rule_id} {match} {pattern}",
                    )
                else:
                    key, model_row, rule_id, label = "engine", None, None, "engine"
                wanted[(engine_id, key, claim.capability)] = (claim, model_row, rule_id, label)
        current = self._current(list(engines.values()))
        now = utcnow()
        inserts: list[dict[str, Any]] = []
        updates: list[dict[str, Any]] = []
        events: list[dict[str, Any]] = []
        for (engine_id, key, capability), (claim, model_row, rule_id, label) in wanted.items():
            new = {k: getattr(claim, k) for k in CLAIM_FIELDS}
            row = current.get((engine_id, key, capability))
            if row is not None and keep_others and row.recorded_by != recorded_by:
                report.left += 1
                continue
            if row is not None and all(getattr(row, k) == v for k, v in new.items()):
                report.kept += 1
                continue
            event = {
                "engine": claim.engine,
                "subject_key": key,
                "subject": label,
                "capability": capability,
                **{f"old_{k}": None if row is None else getattr(row, k) for k in CLAIM_FIELDS},
                **{f"new_{k}": v for k, v in new.items()},
                "actor": recorded_by,
                "occurred_at": now,
                "reason": reason,
                "action": "set",
                "claim_id": None if row is None else row.id,
            }
            events.append(event)
            stamp = {"recorded_by": recorded_by, "recorded_at": now}
            if row is None:
                report.added += 1
                inserts.append(
                    {
                        "engine_id": engine_id,
                        "subject_key": key,
                        "model_row_id": model_row,
                        "rule_id": rule_id,
                        "capability": capability,
                        **new,
                        **stamp,
                    }
                )
            else:
                report.updated += 1
                updates.append({"claim_row": row.id, **new, **stamp})
        if inserts:
            # one executemany without RETURNING (one statement), then the new ids in one
            # query: RETURNING in parameter order is a statement per row on SQLite
            self._connection.execute(insert(claim_table), inserts)
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
                .values({k: bindparam(k) for k in (*CLAIM_FIELDS, "recorded_by", "recorded_at")}),
                updates,
            )
        if events:
            self._connection.execute(insert(claim_event_table), events)
            self.changed = True
        return report

    # -- helpers ----------------------------------------------------------------------

    def _checked(self, given: ClaimInput | Mapping[str, Any]) -> ClaimInput:
        if isinstance(given, Mapping):
            try:
                given = ClaimInput(**given)
            except TypeError as error:
                raise InvalidInput(f"invalid claim {given!r}: {error}") from None
        if not isinstance(given, ClaimInput):
            raise InvalidInput(f"invalid claim {given!r}: a ClaimInput or a mapping")
        self.known_capability(given.capability)
        check.status(given.status)
        if not isinstance(given.value, bool):
            raise InvalidInput(f"invalid claim value {given.value!r}: must be true or false")
        if not isinstance(given.evidence, str) or not given.evidence.strip():
            raise InvalidInput("a claim needs evidence: say what supports it")
        check.text(given.evidence, "evidence")
        if given.source is not None:
            check.text(given.source, "source")
        if not isinstance(given.engine, str):
            raise InvalidInput(f"invalid engine {given.engine!r}: must be a string")
        if given.model is not None and given.rule is not None:
            raise InvalidInput("a claim is about a model or a rule, not both")
        if given.model is not None:
            check.model_id(given.model)
        if given.rule is not None and (
            isinstance(given.rule, bool) or not isinstance(given.rule, (int, str))
        ):
            raise InvalidRule(f"invalid rule reference {given.rule!r}: an id or a pattern")
        verified = as_date(given.verified_at)
        if verified is not given.verified_at:
            given = ClaimInput(**{**_fields(given), "verified_at": verified})
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

    def _models_of(
        self,
        engine: str,
        engine_id: int,
        claims: list[ClaimInput],
        actor: str,
        report: ClaimsReport,
    ) -> dict[str, int]:
        wanted = sorted({c.model for c in claims if c.model is not None})
        found: dict[str, int] = {}
        for start in range(0, len(wanted), _CHUNK):
            rows = self._connection.execute(
                select(model_table.c.model_id, model_table.c.id).where(
                    model_table.c.engine_id == engine_id,
                    model_table.c.model_id.in_(wanted[start : start + _CHUNK]),
                )
            ).all()
            found.update((model_id, int(row_id)) for model_id, row_id in rows)
        missing = [m for m in wanted if m not in found]
        if missing:
            now = utcnow()
            ids = self._connection.execute(
                insert(model_table).returning(model_table.c.id, sort_by_parameter_order=True),
                [
                    {
                        "engine_id": engine_id,
                        "model_id": m,
                        "wire": None,
                        "note": "",
                        "created_at": now,
                        "created_by": actor,
                    }
                    for m in missing
                ],
            ).scalars()
            found.update(zip(missing, ids, strict=True))
            self._connection.execute(
                insert(change_event_table),
                [
                    {
                        "engine": engine,
                        "entity": "model",
                        "subject": f"model {m}",
                        "action": "add",
                        "detail": '{"note": "", "wire": null}',
                        "actor": actor,
                        "occurred_at": now,
                        "reason": "recorded by a claim",
                    }
                    for m in missing
                ],
            )
            report.new_models += len(missing)
            self.changed = True
        return found

    def _rules_of(
        self, engine: str, engine_id: int, claims: list[ClaimInput]
    ) -> dict[int | str, tuple[int, str, str]]:
        refs = {c.rule for c in claims if c.rule is not None}
        if not refs:
            return {}
        rows = self._connection.execute(
            select(rule_table.c.id, rule_table.c.match, rule_table.c.pattern).where(
                rule_table.c.engine_id == engine_id
            )
        ).all()
        by_id = {int(r.id): (int(r.id), r.match, r.pattern) for r in rows}
        by_pattern: dict[str, list[tuple[int, str, str]]] = {}
        for entry in by_id.values():
            by_pattern.setdefault(entry[2], []).append(entry)
        resolved: dict[int | str, tuple[int, str, str]] = {}
        for ref in refs:
            if isinstance(ref, int):
                if ref not in by_id:
                    raise UnknownRule(engine, ref)
                resolved[ref] = by_id[ref]
                continue
            matches = by_pattern.get(ref, [])
            if not matches:
                raise UnknownRule(engine, ref)
            if len(matches) > 1:
                raise InvalidRule(
                    f"pattern {ref!r} names both an exact and a regex rule of {engine!r}; "
                    "give the rule id"
                )
            resolved[ref] = matches[0]
        return resolved

    def _current(self, engine_ids: list[int]) -> dict[tuple[int, str, str], Any]:
        rows = self._connection.execute(
            select(
                claim_table.c.id,
                claim_table.c.engine_id,
                claim_table.c.subject_key,
                claim_table.c.capability,
                claim_table.c.recorded_by,
                *(claim_table.c[k] for k in CLAIM_FIELDS),
            ).where(claim_table.c.engine_id.in_(engine_ids))
        ).all()
        return {(row.engine_id, row.subject_key, row.capability): row for row in rows}


def _fields(claim: ClaimInput) -> dict[str, Any]:
    return {name: getattr(claim, name) for name in ClaimInput.__dataclass_fields__}
