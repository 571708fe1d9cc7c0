"""Engines: the endpoints, with their fields' checks; added one at a time or with their
rules and models in bulk (the seed and ``toolwire import``), updated, removed.

An engine's fields are listed once, in ``ENGINE_FIELDS``, and checked once, in
``engine_values``: a new engine column is this module, the schema and a migration.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, func, insert, select
from toolwire.convert import ID_RULES, InvalidOption, format_tool_results

from .. import _queries as q
from .. import _validate as check
from .._output import plural
from ..errors import DuplicateEntry, InUse, InvalidInput
from ..records import Engine, EngineSnapshot
from ..tables import (
    change_event_table,
    claim_table,
    engine_table,
    model_table,
    rule_table,
    utcnow,
)
from .capabilities import AddReport
from .models import Models, model_event, model_values
from .rules import Rules, rule_event, rule_values
from .transaction import Transaction, change_row, required

__all__ = ["ENGINE_FIELDS", "EngineEntry", "Engines", "engine_values"]

#: An engine's fields besides its name: what ``engine add`` records, an export writes
#: and ``update_engine`` may change.
ENGINE_FIELDS = (
    "provider",
    "family",
    "default_wire",
    "kind",
    "base_url",
    "response_tag",
    "id_rule",
    "note",
)


@dataclass(frozen=True, slots=True)
class EngineEntry:
    """An engine table (seed shape) with the rules to give it, in order."""

    table: Mapping[str, Any]
    rules: Sequence[Mapping[str, Any]]


def engine_values(
    name: object,
    *,
    provider: object,
    family: object,
    default_wire: object,
    kind: object,
    base_url: object = None,
    response_tag: object = None,
    id_rule: object = None,
    note: object = "",
) -> dict[str, Any]:
    """Check a new engine (``add_engine``, the seed and import); return its row values.

    :raises InvalidWire: for an unknown default wire.
    :raises InvalidInput: for a bad name, kind, provider, family, base URL, tag or note.
    """
    return {
        "name": check.engine_name(name),
        "provider": required(provider, "provider", 256),
        "family": required(family, "family", 32),
        "default_wire": check.wire(default_wire),
        "kind": check.engine_kind(kind),
        "base_url": None if base_url is None else check.base_url(base_url),
        "response_tag": _checked_tag(response_tag),
        "id_rule": _checked_id_rule(id_rule),
        "note": check.text(note, "note"),
    }


def _checked_fields(values: Mapping[str, Any]) -> None:
    """Check the fields of an engine's update, as ``engine_values`` checks a new one."""
    if values.get("default_wire") is not None:
        check.wire(values["default_wire"])
    if "kind" in values:
        check.engine_kind(values["kind"])
    for name in ("provider", "family"):
        if name in values:
            required(values[name], name, 256 if name == "provider" else 32)
    if values.get("base_url") is not None:
        check.base_url(values["base_url"])
    if values.get("response_tag") is not None:
        _checked_tag(values["response_tag"])
    if values.get("id_rule") is not None:
        _checked_id_rule(values["id_rule"])
    if "note" in values:
        check.text(values["note"], "note")


def _checked_tag(value: object) -> str | None:
    """Return a hermes response tag the converter takes (it alone says what is valid)."""
    if value is None:
        return None
    try:
        if not isinstance(value, str):
            raise InvalidOption("a tag is a string")
        format_tool_results("hermes", [], response_tag=value)
    except InvalidOption as error:
        raise InvalidInput(f"invalid response tag {check.describe(value)}: {error}") from None
    return value


def _checked_id_rule(value: object) -> str | None:
    """Return an engine's id rule: a name in ``toolwire.convert.ID_RULES`` (or None)."""
    if value is None or (isinstance(value, str) and value in ID_RULES):
        return value
    raise InvalidInput(
        f"invalid id rule {check.describe(value)}; id rules: {', '.join(sorted(ID_RULES))}"
    )


def _from_table(table: Mapping[str, Any]) -> dict[str, Any]:
    """The engine row ``add_engine`` would write for a seed table (the same check)."""
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


def _rule_from_table(rule: Mapping[str, Any]) -> dict[str, Any]:
    """The rule values ``add_rule`` would write for a seed rule (the same check)."""
    regex = "regex" in rule
    return rule_values(
        rule["regex" if regex else "exact"],
        regex=regex,
        wire=rule.get("wire"),
        note=rule.get("note", ""),
    )


def _model_from_table(model: Mapping[str, Any]) -> dict[str, Any]:
    """The model values ``add_model`` would write for a seed model (the same check)."""
    return model_values(model["id"], wire=model.get("wire"), note=model.get("note", ""))


class Engines:
    """The writes of engines; an engine's removal takes its ``rules`` and ``models`` along."""

    def __init__(self, txn: Transaction, models: Models, rules: Rules) -> None:
        self._txn = txn
        self._connection = txn.connection
        self._models = models
        self._rules = rules

    def add_engine(
        self,
        name: str,
        *,
        provider: str,
        family: str,
        default_wire: str,
        kind: str,
        base_url: str | None = None,
        response_tag: str | None = None,
        note: str = "",
        created_by: str,
        id_rule: str | None = None,
    ) -> Engine:
        """Record a new engine.

        :raises DuplicateEntry: when an engine of that name exists.
        :raises InvalidWire: for an unknown default wire.
        :raises InvalidInput: for a bad name, kind, provider, family, tag or actor.
        """
        values = {
            **engine_values(
                name,
                provider=provider,
                family=family,
                default_wire=default_wire,
                kind=kind,
                base_url=base_url,
                response_tag=response_tag,
                id_rule=id_rule,
                note=note,
            ),
            "created_at": utcnow(),
            "created_by": check.actor(created_by, "created_by"),
        }
        if self.has_engine(name):
            raise DuplicateEntry(f"engine {name!r} already exists")
        self._connection.execute(insert(engine_table).values(values))
        detail = {k: values[k] for k in ENGINE_FIELDS}
        self._txn.change(name, "engine", f"engine {name}", "add", detail, created_by)
        return self._record(engine_table.c.name == name)

    def has_engine(self, name: str) -> bool:
        """Return whether an engine of that name exists."""
        return (
            self._connection.scalar(select(engine_table.c.id).where(engine_table.c.name == name))
            is not None
        )

    def snapshot(self, engine: str) -> EngineSnapshot:
        """Return the engine with every model, inside this transaction.

        :raises UnknownEngine: when the engine does not exist.
        """
        return q.snapshot(self._connection, engine)

    def update_engine(
        self, engine: str, values: dict[str, Any], *, recorded_by: str, reason: str | None = None
    ) -> bool:
        """Change fields of the engine (``import``); return whether anything changed.

        :raises UnknownEngine: when the engine does not exist.
        :raises InvalidInput: for a field that cannot change this way, or a bad value.
        """
        unknown = set(values) - set(ENGINE_FIELDS)
        if unknown:
            raise InvalidInput(f"cannot update engine field(s) {', '.join(sorted(unknown))}")
        check.actor(recorded_by)
        _checked_fields(values)
        engine_id = q.engine_id(self._connection, engine)
        return self._txn.update_row(
            engine_table,
            engine_table.c.id == engine_id,
            values,
            engine=engine,
            entity="engine",
            subject=f"engine {engine}",
            recorded_by=recorded_by,
            reason=reason,
        )

    def remove_engine(
        self,
        engine: str,
        *,
        force: bool = False,
        recorded_by: str,
        reason: str | None = None,
    ) -> Engine:
        """Remove an engine; with ``force`` its claims, models and rules go with it.

        :raises UnknownEngine: when the engine does not exist.
        :raises InUse: without ``force``, while claims, models or rules hang on it.
        """
        check.actor(recorded_by)
        engine_id = q.engine_id(self._connection, engine)
        counts = {
            name: int(
                self._connection.scalar(
                    select(func.count()).select_from(table).where(table.c.engine_id == engine_id)
                )
                or 0
            )
            for name, table in (
                ("claim", claim_table),
                ("model", model_table),
                ("rule", rule_table),
            )
        }
        if not force and any(counts.values()):
            held = ", ".join(plural(n, name) for name, n in counts.items() if n)
            raise InUse(f"engine {engine!r} still has {held}; remove them first or give --force")
        record = self._record(engine_table.c.id == engine_id)
        for found in self._connection.scalars(
            select(rule_table.c.id)
            .where(rule_table.c.engine_id == engine_id)
            .order_by(rule_table.c.position.desc())
        ).all():
            self._rules.remove_rule(engine, int(found), recorded_by=recorded_by, reason=reason)
        for model_id in self._connection.scalars(
            select(model_table.c.model_id).where(model_table.c.engine_id == engine_id)
        ).all():
            self._models.remove_model(engine, model_id, recorded_by=recorded_by, reason=reason)
        self._txn.remove_claims(
            engine, claim_table.c.engine_id == engine_id, "engine", recorded_by, reason
        )
        self._connection.execute(delete(engine_table).where(engine_table.c.id == engine_id))
        detail = {k: getattr(record, k) for k in ENGINE_FIELDS if k != "note"}
        self._txn.change(
            engine, "engine", f"engine {engine}", "remove", detail, recorded_by, reason
        )
        return record

    def add_missing(self, entries: Sequence[EngineEntry], *, created_by: str) -> AddReport:
        """Add the engines, rules (appended) and models of ``entries`` that are missing.

        Present ones are kept as they are. Returns the rule ids of each entry. One
        query each for what exists, one ``executemany`` per table for what is new and
        one for the change events, in the order ``add_engine``, ``add_rule`` and
        ``add_model`` append theirs, after every entry is checked as they check it.

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
        engine_rows = [_from_table(e.table) for e in entries if e.table["name"] not in engines]
        fresh = {row["name"]: row for row in engine_rows}
        for entry in entries:
            for rule in entry.rules:
                _rule_from_table(rule)
            for model in entry.table.get("model", []):
                _model_from_table(model)
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
                values = _rule_from_table(rule)
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
                    **_model_from_table(model),
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
        events = [_added(engine, entity, row, created_by, now) for engine, entity, row in plan]
        if events:
            self._connection.execute(insert(change_event_table), events)
            self._txn.changed = True
        return report

    def _record(self, where: Any) -> Engine:
        return q.to_engine(self._connection.execute(select(*q.ENGINE_COLUMNS).where(where)).one())


def _added(engine: str, entity: str, row: dict[str, Any], actor: str, now: Any) -> dict[str, Any]:
    """Return the ``add`` change event of a new engine, rule or model row."""
    if entity == "rule":
        return rule_event(engine, row, actor, now)
    if entity == "model":
        return model_event(engine, row, actor, now)
    detail = {k: row[k] for k in ENGINE_FIELDS}
    return change_row(engine, "engine", f"engine {engine}", "add", detail, actor, now)
