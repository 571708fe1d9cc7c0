"""The write transaction every noun's writes share: lock, revision, change log, history.

``Registry.batch()`` (and first-use setup) opens the transaction, calls ``begin()`` to
serialise writers, runs any number of writes, then ``finish()`` bumps the registry
revision once when anything changed. Every claim change appends one ``claim_event``
row in the same transaction; every engine, model, rule or capability change one
``change_event`` row.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from sqlalchemy import Table, delete, insert, select, text, update
from sqlalchemy.engine import Connection

from .. import _validate as check
from .._changes import CHANNEL
from .._values import stored
from ..errors import InvalidInput, UnknownCapability
from ..tables import (
    capability_table,
    change_event_table,
    claim_event_table,
    claim_table,
    registry_state_table,
    utcnow,
)

__all__ = [
    "CLAIM_FIELDS",
    "STORED_FIELDS",
    "Transaction",
    "claim_columns",
    "claim_fields",
    "insert_many",
    "required",
]

#: What a claim holds besides its subject and capability (each event records old and new).
CLAIM_FIELDS = ("value", "status", "evidence", "source", "verified_at")
#: The columns they are stored in: a ``bool`` value in ``value``, any other in ``value_json``.
STORED_FIELDS = (*CLAIM_FIELDS, "value_json")
_CLAIM_COLUMNS = tuple(claim_table.c[k] for k in STORED_FIELDS)


def claim_columns(fields: Mapping[str, Any]) -> dict[str, Any]:
    """Return a claim's fields (``CLAIM_FIELDS``) as its columns (``STORED_FIELDS``)."""
    flag, data = stored(fields.get("value"))
    return {**fields, "value": flag, "value_json": data}


def claim_fields(row: Any) -> dict[str, Any]:
    """Return the ``CLAIM_FIELDS`` of a claim row (one of ``STORED_FIELDS`` at least)."""
    found = {k: getattr(row, k) for k in CLAIM_FIELDS}
    data = row.value_json
    if data is not None:
        found["value"] = tuple(data) if isinstance(data, list) else data
    return found


class Transaction:
    """A connection inside a write transaction, and what every noun's writes share."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        #: whether this transaction changed anything (``finish`` bumps the revision then)
        self.changed = False
        self._vocabulary: dict[str, str] | None = None

    @property
    def connection(self) -> Connection:
        """The connection of this write transaction, for writes that join it."""
        return self._connection

    def begin(self) -> None:
        """Take the registry's write lock (the registry_state row) for this transaction.

        On SQLite the transaction's ``BEGIN IMMEDIATE`` holds the database's write lock
        already, so no statement is needed there.
        """
        if self._connection.dialect.name == "sqlite":
            return
        self._connection.execute(
            select(registry_state_table.c.revision)
            .where(registry_state_table.c.id == 1)
            .with_for_update()
        )

    def finish(self) -> None:
        """Bump the registry revision once if this transaction changed anything."""
        if self.changed:
            self._connection.execute(
                update(registry_state_table)
                .where(registry_state_table.c.id == 1)
                .values(revision=registry_state_table.c.revision + 1, updated_at=utcnow())
            )
            if self._connection.dialect.name == "postgresql":
                # Delivered on commit to every resolver listening (see _changes).
                self._connection.execute(text(f"NOTIFY {CHANNEL}"))

    # -- the capability vocabulary, read once per transaction -----------------------

    def known_capability(self, name: object) -> str:
        """Return ``name`` when the vocabulary has it.

        :raises InvalidCapability: for a malformed name.
        :raises UnknownCapability: for a name not in the vocabulary (with the closest).
        """
        check.capability(name)
        assert isinstance(name, str)
        if name not in self._kinds():
            raise UnknownCapability(name, self._kinds())
        return name

    def value_kind(self, name: str) -> str:
        """Return the value kind of capability ``name`` (``bool``, ``int`` or ``mimes``).

        :raises UnknownCapability: for a name not in the vocabulary.
        """
        return self._kinds()[self.known_capability(name)]

    def _kinds(self) -> dict[str, str]:
        if self._vocabulary is None:
            rows = self._connection.execute(
                select(capability_table.c.name, capability_table.c.value_kind)
            )
            self._vocabulary = {name: kind for name, kind in rows}
        return self._vocabulary

    @property
    def vocabulary_read(self) -> bool:
        """Whether the vocabulary was read in this transaction (and is current)."""
        return self._vocabulary is not None

    def forget_vocabulary(self) -> None:
        """Read the vocabulary afresh next time (a capability was added)."""
        self._vocabulary = None

    # -- the history ----------------------------------------------------------------

    def change(
        self,
        engine: str | None,
        entity: str,
        subject: str,
        action: str,
        detail: dict[str, Any],
        actor: str,
        reason: str | None = None,
    ) -> None:
        """Append a change_event row (an engine, model, rule or capability changed)."""
        self._connection.execute(
            insert(change_event_table).values(
                change_row(engine, entity, subject, action, detail, actor, utcnow(), reason)
            )
        )
        self.changed = True

    def update_row(
        self,
        table: Table,
        where: Any,
        values: dict[str, Any],
        *,
        engine: str,
        entity: str,
        subject: str,
        recorded_by: str,
        reason: str | None,
    ) -> bool:
        """Write the ``values`` that differ from the row's, with one ``update`` change event.

        Returns whether anything changed.
        """
        current = self._connection.execute(select(*(table.c[k] for k in values)).where(where)).one()
        changed = {
            k: (old, new)
            for (k, new), old in zip(values.items(), current, strict=True)
            if old != new
        }
        if not changed:
            return False
        self._connection.execute(
            update(table).where(where).values({k: new for k, (_, new) in changed.items()})
        )
        detail = {k: {"old": old, "new": new} for k, (old, new) in changed.items()}
        self.change(engine, entity, subject, "update", detail, recorded_by, reason)
        return True

    def remove_claims(
        self, engine: str, where: Any, label: str, actor: str, reason: str | None
    ) -> int:
        """Delete the claims selected by ``where``, each with a ``remove`` event first.

        A row that goes (an engine, a model, a rule) takes its claims with it this way.
        """
        rows = self._connection.execute(
            select(
                claim_table.c.id,
                claim_table.c.subject_key,
                claim_table.c.capability,
                *_CLAIM_COLUMNS,
            ).where(where)
        ).all()
        if not rows:
            return 0
        now = utcnow()
        self._connection.execute(
            insert(claim_event_table),
            [
                {
                    "claim_id": row.id,
                    "engine": engine,
                    "subject_key": row.subject_key,
                    "subject": label if row.subject_key != "engine" else "engine",
                    "capability": row.capability,
                    **{f"old_{k}": getattr(row, k) for k in STORED_FIELDS},
                    **{f"new_{k}": None for k in STORED_FIELDS},
                    "actor": actor,
                    "occurred_at": now,
                    "reason": reason,
                    "action": "remove",
                }
                for row in rows
            ],
        )
        self._connection.execute(
            delete(claim_table).where(claim_table.c.id.in_([r.id for r in rows]))
        )
        self.changed = True
        return len(rows)


def change_row(
    engine: str | None,
    entity: str,
    subject: str,
    action: str,
    detail: dict[str, Any],
    actor: str,
    now: Any,
    reason: str | None = None,
) -> dict[str, Any]:
    """Return the values of one change_event row (written one at a time or in bulk)."""
    return {
        "engine": engine,
        "entity": entity,
        "subject": subject,
        "action": action,
        "detail": json.dumps(detail, sort_keys=True, ensure_ascii=False, default=str),
        "actor": actor,
        "occurred_at": now,
        "reason": reason,
    }


def required(value: object, what: str, longest: int | None = None) -> str:
    """Return a non-empty string of at most ``longest`` characters (checked as text).

    :raises InvalidInput: for anything else.
    """
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"invalid {what} {check.describe(value)}: must be a non-empty string")
    if longest is not None and len(value) > longest:
        raise InvalidInput(f"invalid {what}: longer than {longest} characters")
    return check.text(value, what)


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
