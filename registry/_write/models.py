"""Models: an engine's recorded model ids, added, removed, updated; many at once for claims."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import delete, insert, select

from .. import _queries as q
from .. import _validate as check
from ..errors import DuplicateEntry, InvalidInput, UnknownModel
from ..records import Model
from ..tables import change_event_table, claim_table, engine_table, model_table, utcnow
from .transaction import Transaction, change_row, insert_many

__all__ = ["MODEL_FIELDS", "Models", "model_event", "model_values"]

#: A model's fields besides its id: what ``update_model`` may change.
MODEL_FIELDS = ("wire", "note")
_CHUNK = 500  # ids per IN (...) list


def model_values(model_id: object, *, wire: object = None, note: object = "") -> dict[str, Any]:
    """Check a new model (``add_model``, the seed and import); return its row values.

    :raises InvalidModelId: for an unusable model id.
    :raises InvalidWire: for an unknown wire override.
    """
    return {
        "model_id": check.model_id(model_id),
        "wire": check.optional_wire(wire),
        "note": check.text(note, "note"),
    }


def model_event(
    engine: str, row: Mapping[str, Any], actor: str, now: Any, reason: str | None = None
) -> dict[str, Any]:
    """Return the ``add`` change event of a new model row."""
    detail = {k: row[k] for k in MODEL_FIELDS}
    return change_row(
        engine, "model", f"model {row['model_id']}", "add", detail, actor, now, reason
    )


class Models:
    """The writes of an engine's models."""

    def __init__(self, txn: Transaction) -> None:
        self._txn = txn
        self._connection = txn.connection

    def add_model(
        self,
        engine: str,
        model_id: str,
        *,
        wire: str | None = None,
        note: str = "",
        created_by: str,
    ) -> Model:
        """Record a model id on an engine.

        :raises UnknownEngine: when the engine does not exist.
        :raises DuplicateEntry: when the model is recorded already.
        :raises InvalidModelId: for an unusable model id.
        :raises InvalidWire: for an unknown wire override.
        """
        model_values(model_id, wire=wire, note=note)
        check.actor(created_by, "created_by")
        engine_id = q.engine_id(self._connection, engine)
        if self.row_id(engine_id, model_id) is not None:
            raise DuplicateEntry(f"engine {engine!r} already has model {model_id!r}")
        self.insert(engine_id, model_id, wire=wire, note=note, created_by=created_by)
        row = self._connection.execute(
            q.model_select().where(
                model_table.c.engine_id == engine_id, model_table.c.model_id == model_id
            )
        ).one()
        return Model(**row._mapping)

    def has_model(self, engine: str, model_id: str) -> bool:
        """Return whether the engine has a row for ``model_id``.

        :raises UnknownEngine: when the engine does not exist.
        """
        engine_id = q.engine_id(self._connection, engine)
        return self.row_id(engine_id, model_id) is not None

    def remove_model(
        self, engine: str, model_id: str, *, recorded_by: str, reason: str | None = None
    ) -> Model:
        """Remove a recorded model and its claims (the id then resolves by rules again).

        :raises UnknownEngine: when the engine does not exist.
        :raises UnknownModel: when the engine has no row for ``model_id``.
        """
        check.actor(recorded_by)
        engine_id = q.engine_id(self._connection, engine)
        row = self._connection.execute(
            q.model_select().where(
                model_table.c.engine_id == engine_id, model_table.c.model_id == model_id
            )
        ).first()
        if row is None:
            raise UnknownModel(engine, model_id)
        model = Model(**row._mapping)
        row_id = self.row_id(engine_id, model_id)
        self._txn.remove_claims(
            engine, claim_table.c.model_row_id == row_id, f"model {model_id}", recorded_by, reason
        )
        self._connection.execute(delete(model_table).where(model_table.c.id == row_id))
        self._txn.change(
            engine,
            "model",
            f"model {model_id}",
            "remove",
            {"wire": model.wire, "note": model.note, "created_by": model.created_by},
            recorded_by,
            reason,
        )
        return model

    def update_model(
        self,
        engine: str,
        model_id: str,
        values: dict[str, Any],
        *,
        recorded_by: str,
        reason: str | None = None,
    ) -> bool:
        """Change a model's wire or note (``import``); return whether anything changed.

        :raises UnknownEngine: when the engine does not exist.
        :raises UnknownModel: when the engine has no row for ``model_id``.
        :raises InvalidInput: for a field that cannot change this way.
        """
        unknown = set(values) - set(MODEL_FIELDS)
        if unknown:
            raise InvalidInput(f"cannot update model field(s) {', '.join(sorted(unknown))}")
        check.actor(recorded_by)
        if values.get("wire") is not None:
            check.wire(values["wire"])
        if "note" in values:
            check.text(values["note"], "note")
        engine_id = q.engine_id(self._connection, engine)
        row_id = self.row_id(engine_id, model_id)
        if row_id is None:
            raise UnknownModel(engine, model_id)
        return self._txn.update_row(
            model_table,
            model_table.c.id == row_id,
            values,
            engine=engine,
            entity="model",
            subject=f"model {model_id}",
            recorded_by=recorded_by,
            reason=reason,
        )

    # -- for the other nouns -----------------------------------------------------------

    def row_id(self, engine_id: int, model_id: str) -> int | None:
        """Return the row of ``model_id`` on the engine, None when it is not recorded."""
        found = self._connection.scalar(
            select(model_table.c.id).where(
                model_table.c.engine_id == engine_id, model_table.c.model_id == model_id
            )
        )
        return None if found is None else int(found)

    def insert(
        self, engine_id: int, model_id: str, *, wire: str | None, note: str, created_by: str
    ) -> int:
        """Insert a model row with its ``add`` change event; return its row id."""
        row_id: int = self._connection.execute(
            insert(model_table)
            .values(
                engine_id=engine_id,
                model_id=model_id,
                wire=wire,
                note=note,
                created_at=utcnow(),
                created_by=created_by,
            )
            .returning(model_table.c.id)
        ).scalar_one()
        engine = str(
            self._connection.scalar(
                select(engine_table.c.name).where(engine_table.c.id == engine_id)
            )
        )
        self._txn.change(
            engine, "model", f"model {model_id}", "add", {"wire": wire, "note": note}, created_by
        )
        return row_id

    def record_missing(
        self, wanted: Mapping[str, tuple[int, list[str]]], actor: str, reason: str
    ) -> tuple[dict[tuple[int, str], int], int]:
        """Return (engine id, model id) -> row of each model ``wanted`` names, and the new count.

        ``wanted`` maps an engine's name to its id and model ids. The missing ones are
        recorded, with their change events, in one statement each for all engines (in
        engine order, then model id), whatever the number of engines.
        """
        by_id = {engine_id: ids for engine_id, ids in wanted.values()}
        found = self._rows(by_id)
        missing = [
            (engine, engine_id, m)
            for engine, (engine_id, ids) in wanted.items()
            for m in ids
            if (engine_id, m) not in found
        ]
        if not missing:
            return found, 0
        now = utcnow()
        rows = [
            {
                "engine_id": engine_id,
                "model_id": m,
                "wire": None,
                "note": "",
                "created_at": now,
                "created_by": actor,
            }
            for _, engine_id, m in missing
        ]
        # executemany without RETURNING is one statement (RETURNING in parameter order
        # is a statement per row on SQLite); the ids are read back after
        insert_many(self._connection, model_table, rows)
        new: dict[int, list[str]] = {}
        for _, engine_id, m in missing:
            new.setdefault(engine_id, []).append(m)
        found.update(self._rows(new))
        events = [
            model_event(engine, row, actor, now, reason)
            for (engine, _, _), row in zip(missing, rows, strict=True)
        ]
        insert_many(self._connection, change_event_table, events)
        self._txn.changed = True
        return found, len(missing)

    def _rows(self, wanted: Mapping[int, list[str]]) -> dict[tuple[int, str], int]:
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
