"""Adding many capabilities, wire forms, engines, rules and models in a few statements.

The seed and ``toolwire import`` add what the registry lacks through here: one query
each for what exists, then one ``executemany`` per table for what is new, and one for
the change events. Every entry is checked as ``add_engine``, ``add_rule``,
``add_model``, ``add_capability`` and ``set_wire_form`` check it (by the same
``_wbase`` functions), before anything is written; the change events are the ones
those methods append, in the same order.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import bindparam, func, insert, select, update

from . import _validate as check
from ._wbase import (
    ENGINE_FIELDS,
    WriterBase,
    capability_values,
    engine_values,
    model_values,
    rule_values,
)
from .errors import InvalidInput
from .tables import (
    capability_table,
    change_event_table,
    engine_table,
    model_table,
    rule_table,
    utcnow,
    wire_form_table,
)

__all__ = ["AddReport", "BulkAdd", "EngineEntry"]


@dataclass(frozen=True, slots=True)
class EngineEntry:
    """An engine table (seed shape) with the rules to give it, in order."""

    table: Mapping[str, Any]
    rules: Sequence[Mapping[str, Any]]


@dataclass(slots=True)
class AddReport:
    """What ``add_missing`` and ``add_capabilities`` did."""

    added: int = 0
    kept: int = 0
    #: per engine, the id of each of its entry's rules, in the entry's order
    rule_ids: dict[str, list[int]] = field(default_factory=dict)


@dataclass(slots=True)
class FormsReport:
    """What ``seed_wire_forms`` did."""

    added: int = 0
    updated: int = 0
    kept: int = 0
    operator_owned: int = 0


class BulkAdd(WriterBase):
    """The bulk adds of ``Writer``."""

    def add_capabilities(
        self, tables: Sequence[Mapping[str, Any]], *, created_by: str
    ) -> AddReport:
        """Add the capabilities (seed shape) the vocabulary lacks; keep the others."""
        check.actor(created_by, "created_by")
        present = set(self._connection.scalars(select(capability_table.c.name)))
        now, report = utcnow(), AddReport()
        rows: list[dict[str, Any]] = []
        events: list[dict[str, Any]] = []
        for table in tables:
            name = table["name"]
            if name in present:
                report.kept += 1
                continue
            values = _capability(table)
            present.add(name)
            rows.append({**values, "created_at": now, "created_by": created_by})
            detail = {k: values[k] for k in ("description", "value_kind", "gates")}
            events.append(_event(None, "capability", f"capability {name}", detail, created_by, now))
            report.added += 1
        if rows:
            self._connection.execute(insert(capability_table), rows)
            self._connection.execute(insert(change_event_table), events)
            self._forget_vocabulary()
            self.changed = True
        return report

    def seed_wire_forms(
        self, forms: Sequence[Mapping[str, Any]], *, recorded_by: str
    ) -> FormsReport:
        """Record wire-form evidence; a form someone else recorded is left alone."""
        check.actor(recorded_by)
        for form in forms:
            check.native_form(form["wire"], form["kind"])
            check.status(form.get("status"))
            evidence = form.get("evidence")
            if not isinstance(evidence, str) or not evidence.strip():
                raise InvalidInput("wire-form evidence must not be empty")
        current = {
            (row.wire, row.kind): row
            for row in self._connection.execute(select(wire_form_table)).all()
        }
        now, report = utcnow(), FormsReport()
        inserts: dict[tuple[str, str], dict[str, Any]] = {}
        updates: dict[tuple[str, str], dict[str, Any]] = {}
        for form in forms:
            key = (form["wire"], form["kind"])
            values = {k: form.get(k) for k in ("status", "evidence", "source")}
            stamp = {"recorded_by": recorded_by, "recorded_at": now}
            row = current.get(key)
            if key in inserts:
                inserts[key].update(values)
                report.kept += 1  # the same form twice: the second is seen as recorded
            elif row is not None and row.recorded_by != recorded_by:
                report.kept += 1
                report.operator_owned += 1
            elif row is not None and all(getattr(row, k) == v for k, v in values.items()):
                report.kept += 1
            elif row is None:
                inserts[key] = {"wire": key[0], "kind": key[1], **values, **stamp}
                report.added += 1
            else:
                updates[key] = {"w": key[0], "k": key[1], **values, **stamp}
                report.updated += 1
        if inserts:
            self._connection.execute(insert(wire_form_table), list(inserts.values()))
        if updates:
            fields = ("status", "evidence", "source", "recorded_by", "recorded_at")
            self._connection.execute(
                update(wire_form_table)
                .where(
                    wire_form_table.c.wire == bindparam("w"),
                    wire_form_table.c.kind == bindparam("k"),
                )
                .values({k: bindparam(k) for k in fields}),
                list(updates.values()),
            )
        self.changed = self.changed or bool(inserts or updates)
        return report

    def add_missing(self, entries: Sequence[EngineEntry], *, created_by: str) -> AddReport:
        """Add the engines, rules (appended) and models of ``entries`` that are missing.

        Present ones are kept as they are. Returns the rule ids of each entry.

        :raises InvalidInput: (or a subclass) for an entry ``add_engine``, ``add_rule``
            or ``add_model`` would refuse; nothing is written then.
        """
        check.actor(created_by, "created_by")
        report = AddReport()
        if not entries:
            return report
        names = [e.table["name"] for e in entries]
        engines = dict(
            self._connection.execute(
                select(engine_table.c.name, engine_table.c.id).where(engine_table.c.name.in_(names))
            ).all()
        )
        engine_rows = [_engine(e.table) for e in entries if e.table["name"] not in engines]
        fresh = {row["name"]: row for row in engine_rows}
        for entry in entries:
            for rule in entry.rules:
                _rule(rule)
            for model in entry.table.get("model", []):
                _model(model)
        known = list(engines.values())
        rules: dict[tuple[int, str, str], int] = {}
        pending: dict[tuple[int, str, str], dict[str, Any]] = {}
        last: dict[int, int] = {}
        models: set[tuple[int, str]] = set()
        if known:
            for found in self._connection.execute(
                select(
                    rule_table.c.engine_id,
                    rule_table.c.match,
                    rule_table.c.pattern,
                    rule_table.c.id,
                ).where(rule_table.c.engine_id.in_(known))
            ):
                rules[(found.engine_id, found.match, found.pattern)] = int(found.id)
            last = dict(
                self._connection.execute(
                    select(rule_table.c.engine_id, func.max(rule_table.c.position))
                    .where(rule_table.c.engine_id.in_(known))
                    .group_by(rule_table.c.engine_id)
                ).all()
            )
            models = set(
                self._connection.execute(
                    select(model_table.c.engine_id, model_table.c.model_id).where(
                        model_table.c.engine_id.in_(known)
                    )
                ).all()
            )
        now = utcnow()
        if engine_rows:
            # executemany without RETURNING is one statement on every backend; the ids
            # are read back in one query
            self._connection.execute(
                insert(engine_table),
                [{**row, "created_at": now, "created_by": created_by} for row in engine_rows],
            )
            engines.update(
                self._connection.execute(
                    select(engine_table.c.name, engine_table.c.id).where(
                        engine_table.c.name.in_(list(fresh))
                    )
                ).all()
            )
        # Plan every rule and model row, then the events in the order add_* writes them.
        plan: list[tuple[str, str, dict[str, Any]]] = []  # (engine, entity, row)
        planned: dict[str, list[int | dict[str, Any]]] = {}
        new_rules: list[dict[str, Any]] = []
        new_models: list[dict[str, Any]] = []
        for entry in entries:
            name = entry.table["name"]
            engine_id = engines[name]
            if name in fresh:
                plan.append((name, "engine", fresh[name]))
                report.added += 1
            else:
                report.kept += 1
            ids_of: list[int | dict[str, Any]] = []
            for rule in entry.rules:
                values = _rule(rule)
                key = (engine_id, values["match"], values["pattern"])
                if key in rules or key in pending:
                    ids_of.append(rules[key] if key in rules else pending[key])
                    report.kept += 1  # a rule listed twice: the second is seen as present
                    continue
                last[engine_id] = position = int(last.get(engine_id) or 0) + 1
                row = {
                    "engine_id": engine_id,
                    "position": position,
                    **values,
                    "created_at": now,
                    "created_by": created_by,
                }
                pending[key] = row
                new_rules.append(row)
                plan.append((name, "rule", row))
                ids_of.append(row)
                report.added += 1
            planned[name] = ids_of  # new rules' rows: their ids are known after the insert
            for model in entry.table.get("model", []):
                if (engine_id, model["id"]) in models:
                    report.kept += 1
                    continue
                models.add((engine_id, model["id"]))
                row = {
                    "engine_id": engine_id,
                    **_model(model),
                    "created_at": now,
                    "created_by": created_by,
                }
                new_models.append(row)
                plan.append((name, "model", row))
                report.added += 1
        if new_rules:
            self._connection.execute(insert(rule_table), new_rules)
            ids = {
                (r.engine_id, r.match, r.pattern): int(r.id)
                for r in self._connection.execute(
                    select(
                        rule_table.c.engine_id,
                        rule_table.c.match,
                        rule_table.c.pattern,
                        rule_table.c.id,
                    ).where(rule_table.c.engine_id.in_(sorted({r["engine_id"] for r in new_rules})))
                )
            }
            for row in new_rules:
                row["id"] = ids[(row["engine_id"], row["match"], row["pattern"])]
        report.rule_ids = {
            name: [i if isinstance(i, int) else int(i["id"]) for i in ids_of]
            for name, ids_of in planned.items()
        }
        if new_models:
            self._connection.execute(insert(model_table), new_models)
        events = [_change_of(engine, entity, row, created_by, now) for engine, entity, row in plan]
        if events:
            self._connection.execute(insert(change_event_table), events)
            self.changed = True
        return report


def _engine(table: Mapping[str, Any]) -> dict[str, Any]:
    """The engine row ``add_engine`` would write (checked by the same function)."""
    return engine_values(
        table["name"],
        provider=table["provider"],
        family=table["family"],
        default_wire=table["default_wire"],
        kind=table["kind"],
        base_url=table.get("base_url"),
        response_tag=table.get("response_tag"),
        id_rule=table.get("id_rule"),
        note=table.get("note", ""),
    )


def _rule(rule: Mapping[str, Any]) -> dict[str, Any]:
    """The rule values ``add_rule`` would write (checked by the same function)."""
    regex = "regex" in rule
    return rule_values(
        rule["regex" if regex else "exact"],
        regex=regex,
        wire=rule.get("wire"),
        note=rule.get("note", ""),
    )


def _model(model: Mapping[str, Any]) -> dict[str, Any]:
    """The model values ``add_model`` would write (checked by the same function)."""
    return model_values(model["id"], wire=model.get("wire"), note=model.get("note", ""))


def _capability(table: Mapping[str, Any]) -> dict[str, Any]:
    """The capability values ``add_capability`` would write (checked by the same function)."""
    return capability_values(
        table["name"],
        description=table["description"],
        value_kind=table.get("value_kind", "bool"),
        gates=table.get("gates"),
    )


def _change_of(
    engine: str, entity: str, row: dict[str, Any], actor: str, now: Any
) -> dict[str, Any]:
    if entity == "engine":
        detail = {k: row[k] for k in ENGINE_FIELDS}
        return _event(engine, "engine", f"engine {engine}", detail, actor, now)
    if entity == "rule":
        detail = {k: row[k] for k in ("match", "pattern", "position", "wire", "note")}
        return _event(engine, "rule", f"rule:{row['id']}", detail, actor, now)
    detail = {"wire": row["wire"], "note": row["note"]}
    return _event(engine, "model", f"model {row['model_id']}", detail, actor, now)


def _event(
    engine: str | None, entity: str, subject: str, detail: dict[str, Any], actor: str, now: Any
) -> dict[str, Any]:
    return {
        "engine": engine,
        "entity": entity,
        "subject": subject,
        "action": "add",
        "detail": json.dumps(detail, sort_keys=True, ensure_ascii=False, default=str),
        "actor": actor,
        "occurred_at": now,
        "reason": None,
    }
