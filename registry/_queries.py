"""Read queries shared by the store and the writer; rows become frozen records here."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import fields
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeAlias

from sqlalchemy import Row, Select, select, union_all
from sqlalchemy.engine import Connection

from .errors import UnknownEngine
from .records import (
    Claim,
    ClaimEvent,
    Engine,
    EngineSnapshot,
    LogEntry,
    Model,
    Rule,
    WireForm,
)
from .tables import (
    claim_event_table,
    claim_table,
    engine_table,
    model_table,
    registry_state_table,
    rule_table,
    wire_form_table,
)

if TYPE_CHECKING:
    AnyRow: TypeAlias = Row[*tuple[Any, ...]]
    AnySelect: TypeAlias = Select[*tuple[Any, ...]]

_EMPTY: dict[str, Any] = {}

#: The engine table's columns in the record's order: a new engine column is read as soon
#: as ``Engine`` has the field.
ENGINE_COLUMNS = tuple(engine_table.c[f.name] for f in fields(Engine))
CLAIM_COLUMNS = (
    engine_table.c.name.label("engine"),
    claim_table.c.subject_key,
    model_table.c.model_id.label("model"),
    claim_table.c.rule_id.label("rule"),
    claim_table.c.capability,
    claim_table.c.value,
    claim_table.c.status,
    claim_table.c.evidence,
    claim_table.c.source,
    claim_table.c.verified_at,
    claim_table.c.recorded_by,
    claim_table.c.recorded_at,
    claim_table.c.value_json,  # last: not a field of Claim, it becomes ``value``
)
MODEL_COLUMNS = (
    engine_table.c.name.label("engine"),
    model_table.c.model_id,
    model_table.c.wire,
    model_table.c.note,
    model_table.c.created_at,
    model_table.c.created_by,
)
RULE_COLUMNS = (
    rule_table.c.id,
    engine_table.c.name.label("engine"),
    rule_table.c.position,
    rule_table.c.match,
    rule_table.c.pattern,
    rule_table.c.wire,
    rule_table.c.note,
    rule_table.c.created_at,
    rule_table.c.created_by,
)


def revision(connection: Connection) -> int:
    """Return the registry revision counter."""
    value = connection.scalar(
        select(registry_state_table.c.revision).where(registry_state_table.c.id == 1)
    )
    return int(value or 0)


def engine_id(connection: Connection, name: str) -> int:
    """Return the primary key of engine ``name``.

    :raises UnknownEngine: when there is no such engine (with the closest names).
    """
    found = connection.scalar(select(engine_table.c.id).where(engine_table.c.name == name))
    if found is None:
        raise UnknownEngine(name, connection.scalars(select(engine_table.c.name)))
    return int(found)


def _check_order(columns: Sequence[Any], record: type[Any]) -> None:
    """Make sure a column tuple lists the record's fields in order (rows map positionally)."""
    names = [column.key for column in columns]
    expected = [f.name for f in fields(record)][: len(names)]
    if names != expected:  # pragma: no cover - a programming error caught at import
        raise AssertionError(f"{record.__name__} columns {names} != fields {expected}")


for _columns, _record in (
    (ENGINE_COLUMNS, Engine),
    (CLAIM_COLUMNS[:-1], Claim),
    (MODEL_COLUMNS, Model),
    (RULE_COLUMNS, Rule),
):
    _check_order(_columns, _record)


def to_engine(row: AnyRow) -> Engine:
    """Build an Engine record from a row of ENGINE_COLUMNS (positionally: fast)."""
    return Engine(*row[: len(ENGINE_COLUMNS)])


def to_claim(row: AnyRow) -> Claim:
    """Build a Claim record from a row of CLAIM_COLUMNS (positionally: fast)."""
    return _claim(row)


def _claim(fields: Sequence[Any]) -> Claim:
    """Build a Claim from CLAIM_COLUMNS' values: ``value_json`` (last) holds a non-bool value."""
    data = fields[-1]
    if data is None:
        return Claim(*fields[:-1])
    parts = list(fields[:-1])
    parts[5] = tuple(data) if isinstance(data, list) else data
    return Claim(*parts)


def event_values(mapping: Any, prefix: str) -> Any:
    """Return the old or new claim value of a claim_event row (``prefix``: old or new)."""
    data = mapping[f"{prefix}_value_json"]
    if data is None:
        return mapping[f"{prefix}_value"]
    return tuple(data) if isinstance(data, list) else data


def claim_select() -> AnySelect:
    """Return a SELECT of CLAIM_COLUMNS over every claim."""
    return (
        select(*CLAIM_COLUMNS)
        .select_from(claim_table)
        .join(engine_table, engine_table.c.id == claim_table.c.engine_id)
        .outerjoin(model_table, model_table.c.id == claim_table.c.model_row_id)
    )


def _model(row: Sequence[Any], claims: Mapping[str, Claim]) -> Model:
    """Build a Model from a row of MODEL_COLUMNS (positionally: fast)."""
    return Model(row[0], row[1], row[2], row[3], row[4], row[5], claims)


def model_select() -> AnySelect:
    """Return a SELECT of MODEL_COLUMNS over every model."""
    return select(*MODEL_COLUMNS).join(engine_table, engine_table.c.id == model_table.c.engine_id)


def rule_select() -> AnySelect:
    """Return a SELECT of RULE_COLUMNS, in rule order."""
    return (
        select(*RULE_COLUMNS)
        .join(engine_table, engine_table.c.id == rule_table.c.engine_id)
        .order_by(engine_table.c.name, rule_table.c.position, rule_table.c.id)
    )


def to_rules(rows: Iterable[AnyRow], claims: dict[int, dict[str, Claim]]) -> tuple[Rule, ...]:
    """Build Rule records in order, attaching their claims."""
    return tuple(
        Rule(
            row[0],
            row[1],
            row[2],
            row[3],
            row[4],
            row[5],
            row[6],
            row[7],
            row[8],
            MappingProxyType(claims.get(row[0], _EMPTY)),
        )
        for row in rows
    )


# The snapshot's claim query leaves out the joins: the engine is known and model ids
# come from the model query, which the snapshot reads anyway.
_SNAPSHOT_CLAIM_COLUMNS = (
    claim_table.c.model_row_id,
    claim_table.c.rule_id,
    claim_table.c.subject_key,
    *CLAIM_COLUMNS[4:],  # capability ... recorded_at
)
_SNAPSHOT_MODEL_COLUMNS = (model_table.c.id, *MODEL_COLUMNS[1:])


def snapshot(
    connection: Connection, name: str, models: Collection[str] | None = None
) -> EngineSnapshot:
    """Read everything about engine ``name`` in four queries, whatever its size.

    ``models`` limits the model rows (and their claims) read to those ids; None
    reads them all.

    :raises UnknownEngine: when there is no such engine.
    """
    state = (
        select(registry_state_table.c.revision)
        .where(registry_state_table.c.id == 1)
        .scalar_subquery()
    )
    head = connection.execute(
        select(*ENGINE_COLUMNS, engine_table.c.id, state).where(engine_table.c.name == name)
    ).first()
    if head is None:
        raise UnknownEngine(name, connection.scalars(select(engine_table.c.name)))
    engine_id, revision = head[-2], head[-1]
    model_query = select(*_SNAPSHOT_MODEL_COLUMNS).where(model_table.c.engine_id == engine_id)
    if models is not None:
        model_query = model_query.where(model_table.c.model_id.in_(list(models)))
    model_rows = connection.execute(model_query).all()
    model_ids = {row[0]: row[1] for row in model_rows}
    claims = select(*_SNAPSHOT_CLAIM_COLUMNS).where(claim_table.c.engine_id == engine_id)
    claim_query: Any = claims
    if models is not None:
        # Only the rows that can decide: the engine's own claims, every rule's, and
        # those of the models asked for. One SELECT per kind, each an index lookup, so
        # the cost does not grow with the number of models (an OR of the three makes
        # both SQLite and PostgreSQL scan all of the engine's claims).
        # (Rule and model row ids belong to this engine already: filtering on
        # engine_id again would let the planner pick the scan.)
        rule_ids = select(rule_table.c.id).where(rule_table.c.engine_id == engine_id)
        any_claim = select(*_SNAPSHOT_CLAIM_COLUMNS)
        claim_query = union_all(
            claims.where(claim_table.c.subject_key == "engine"),
            any_claim.where(claim_table.c.rule_id.in_(rule_ids.scalar_subquery())),
            any_claim.where(claim_table.c.model_row_id.in_(list(model_ids))),
        )
    engine_claims: dict[str, Claim] = {}
    rule_claims: dict[int, dict[str, Claim]] = defaultdict(dict)
    model_claims: dict[str, dict[str, Claim]] = defaultdict(dict)
    claim_rows = connection.execute(claim_query).all()
    for model_row_id, rule_id, *rest in claim_rows:
        model_id = None if model_row_id is None else model_ids[model_row_id]
        claim = _claim((name, rest[0], model_id, rule_id, *rest[1:]))
        if rule_id is not None:
            rule_claims[rule_id][claim.capability] = claim
        elif model_id is not None:
            model_claims[model_id][claim.capability] = claim
        else:
            engine_claims[claim.capability] = claim
    rules = to_rules(
        connection.execute(rule_select().where(rule_table.c.engine_id == engine_id)).all(),
        rule_claims,
    )
    models = {
        row[1]: _model((name, *row[1:]), MappingProxyType(model_claims.get(row[1], _EMPTY)))
        for row in model_rows
    }
    return EngineSnapshot(
        engine=to_engine(head),
        revision=int(revision or 0),
        claims=MappingProxyType(engine_claims),
        rules=rules,
        models=MappingProxyType(models),
    )


def to_event(row: AnyRow) -> ClaimEvent:
    """Build a ClaimEvent record from a claim_event row."""
    mapping = row._mapping
    return ClaimEvent(
        **{key: mapping[key] for key in _EVENT_FIELDS},
        old_value=event_values(mapping, "old"),
        new_value=event_values(mapping, "new"),
    )


_EVENT_FIELDS: Sequence[str] = tuple(
    column.key
    for column in claim_event_table.columns
    if column.key != "claim_id" and "value" not in column.key
)


def claim_log_entry(row: AnyRow) -> LogEntry:
    """Build a log entry from a claim_event row: every claim field that changed."""
    m = row._mapping
    changes = {
        name: (m[f"old_{name}"], m[f"new_{name}"])
        for name in ("status", "evidence", "source", "verified_at")
        if m[f"old_{name}"] != m[f"new_{name}"]
    }
    old, new = event_values(m, "old"), event_values(m, "new")
    if old != new:
        changes = {"value": (old, new), **changes}
    return LogEntry(
        m["occurred_at"],
        m["actor"],
        m["engine"],
        m["subject_key"],
        f"claim {m['capability']} {m['action']}",
        MappingProxyType(changes),
        m["reason"],
    )


def change_log_entry(row: AnyRow) -> LogEntry:
    """Build a log entry from a change_event row: the row's fields, added or removed."""
    m = row._mapping
    detail = json.loads(m["detail"])
    if m["action"] == "move":
        changes = {"position": (detail.get("from"), detail.get("to"))}
    elif m["action"] == "update":
        changes = {k: (v.get("old"), v.get("new")) for k, v in detail.items()}
    elif m["action"] == "add":
        changes = {k: (None, v) for k, v in detail.items()}
    else:
        changes = {k: (v, None) for k, v in detail.items()}
    subject = m["subject"]
    return LogEntry(
        m["occurred_at"],
        m["actor"],
        m["engine"],
        subject,
        f"{m['entity']} {m['action']}",
        MappingProxyType(changes),
        m["reason"],
    )


def to_wire_form(row: AnyRow) -> WireForm:
    """Build a WireForm record from a wire_form row."""
    mapping = row._mapping
    return WireForm(**{field.name: mapping[field.name] for field in fields(WireForm)})


def wire_form_select() -> AnySelect:
    """Return a SELECT of every wire_form row, by wire then kind."""
    return select(wire_form_table).order_by(wire_form_table.c.wire, wire_form_table.c.kind)
