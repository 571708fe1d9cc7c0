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

from sqlalchemy import Table, bindparam, insert, select, update
from sqlalchemy.engine import Connection

from . import _validate as check
from ._public import shown_in_package
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
        by_engine: dict[str, list[ClaimInput]] = {engine: [] for engine in engines}
        for item in items:
            by_engine[item.engine].append(item)
        models = self._models_of(engines, by_engine, recorded_by, report)
        wanted: dict[tuple[int, str, str], tuple[ClaimInput, Any, Any, str]] = {}
        for engine, engine_id in engines.items():
            mine = by_engine[engine]
            rules = self._rules_of(engine, engine_id, mine)
            for claim in mine:
                if claim.model is not None:
                    key, rule_id = f"model:{claim.model}", None
                    model_row = models[(engine_id, claim.model)]
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
                .values({k: bindparam(k) for k in (*CLAIM_FIELDS, "recorded_by", "recorded_at")}),
                updates,
            )
        if events:
            insert_many(self._connection, claim_event_table, events)
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
        engines: Mapping[str, int],
        claims: Mapping[str, list[ClaimInput]],
        actor: str,
        report: ClaimsReport,
    ) -> dict[tuple[int, str], int]:
        """Return (engine id, model id) -> model row of every model the claims name.

        The missing ones are recorded, with their change events, in one statement each
        for all engines (in engine order, then model id), whatever the number of engines.
        """
        wanted = {
            engines[engine]: sorted({c.model for c in mine if c.model is not None})
            for engine, mine in claims.items()
        }
        found = self._model_rows(wanted)
        missing = [
            (engine, engine_id, m)
            for engine, engine_id in engines.items()
            for m in wanted[engine_id]
            if (engine_id, m) not in found
        ]
        if missing:
            now = utcnow()
            # executemany without RETURNING is one statement (RETURNING in parameter
            # order is a statement per row on SQLite); the ids are read back after
            insert_many(
                self._connection,
                model_table,
                [
                    {
                        "engine_id": engine_id,
                        "model_id": m,
                        "wire": None,
                        "note": "",
                        "created_at": now,
                        "created_by": actor,
                    }
                    for _, engine_id, m in missing
                ],
            )
            new: dict[int, list[str]] = {}
            for _, engine_id, m in missing:
                new.setdefault(engine_id, []).append(m)
            found.update(self._model_rows(new))
            insert_many(
                self._connection,
                change_event_table,
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
                    for engine, _, m in missing
                ],
            )
            report.new_models += len(missing)
            self.changed = True
        return found

    def _model_rows(self, wanted: Mapping[int, list[str]]) -> dict[tuple[int, str], int]:
        """Return the rows of the models ``wanted`` (engine id -> model ids) that exist."""
        engine_ids = sorted(e for e, ids in wanted.items() if ids)
        names = sorted({m for ids in wanted.values() for m in ids})
        found: dict[tuple[int, str], int] = {}
        for start in range(0, len(names), _CHUNK):
            rows = self._connection.execute(
                select(model_table.c.engine_id, model_table.c.model_id, model_table.c.id).where(
                    model_table.c.engine_id.in_(engine_ids),
                    model_table.c.model_id.in_(names[start : start + _CHUNK]),
                )
            ).all()
            found.update(((int(e), m), int(row_id)) for e, m, row_id in rows)
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


def insert_many(connection: Connection, table: Table, rows: list[dict[str, Any]]) -> None:
    """Insert ``rows`` (dicts with the same keys, every column given) in one executemany.

    What ``connection.execute(insert(table), rows)`` writes, without its per-row
    parameter handling: the statement is compiled once, each column's bind processor
    (the UTC datetimes, SQLite's dates) runs once per distinct value, and the rows go to
    the driver's ``executemany`` as they are.
    """
    if not rows:
        return
    keys = list(rows[0])
    dialect = connection.dialect
    compiled = insert(table).compile(dialect=dialect, column_keys=keys)
    named = compiled.positiontup is None
    order = keys if named else list(compiled.positiontup or ())
    processors = [table.c[key].type.dialect_impl(dialect).bind_processor(dialect) for key in order]
    columns: list[list[Any]] = []
    for key, process in zip(order, processors, strict=True):
        column = [row[key] for row in rows]
        if process is not None:
            done: dict[Any, Any] = {}  # most values repeat (one timestamp, one actor)
            for value in column:
                if value is not None and value not in done:
                    done[value] = process(value)
            column = [None if value is None else done[value] for value in column]
        columns.append(column)
    values = list(zip(*columns, strict=True))
    if named:
        connection.exec_driver_sql(
            compiled.string, [dict(zip(order, v, strict=True)) for v in values]
        )
    else:
        connection.exec_driver_sql(compiled.string, values)


def _fields(claim: ClaimInput) -> dict[str, Any]:
    return {name: getattr(claim, name) for name in ClaimInput.__dataclass_fields__}


shown_in_package(ClaimInput, ClaimsReport)
