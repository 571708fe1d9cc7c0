"""The base of ``Writer``: the transaction's lock, revision bump and shared lookups.

The checks of a new engine, model, rule and capability (``engine_values`` and the
others) are here too, for the single-row adds and the bulk adds alike.

Every write module (``_writer``, ``_removal``, ``_bulk``, ``_bulkadd``) builds on
``WriterBase``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import delete, insert, select, text, update
from sqlalchemy.engine import Connection
from toolwire.convert import ID_RULES, InvalidOption, format_tool_results

from . import _queries as q
from . import _validate as check
from ._changes import CHANNEL
from .errors import InvalidInput, InvalidRule, UnknownCapability, UnknownRule
from .records import Claim
from .tables import (
    capability_table,
    change_event_table,
    claim_event_table,
    claim_table,
    engine_table,
    model_table,
    registry_state_table,
    rule_table,
    utcnow,
)
from .vocab import VALUE_KINDS

__all__ = ["WriterBase"]

CLAIM_FIELDS = ("value", "status", "evidence", "source", "verified_at")
#: An engine's fields besides its name: what ``engine add`` records and ``update_fields``
#: may change.
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
class _Subject:
    key: str
    label: str
    model_row_id: int | None = None
    rule_id: int | None = None


class WriterBase:
    """A connection inside a write transaction, and the lookups every write shares."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self.changed = False
        self._vocabulary: frozenset[str] | None = None

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

    # -- shared helpers -------------------------------------------------------------

    def known_capability(self, name: object) -> str:
        """Return ``name`` when the vocabulary has it.

        :raises InvalidCapability: for a malformed name.
        :raises UnknownCapability: for a name not in the vocabulary (with the closest).
        """
        check.capability(name)
        assert isinstance(name, str)
        if self._vocabulary is None:
            self._vocabulary = frozenset(self._connection.scalars(select(capability_table.c.name)))
        if name not in self._vocabulary:
            raise UnknownCapability(name, self._vocabulary)
        return name

    def _forget_vocabulary(self) -> None:
        self._vocabulary = None

    def _change(
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
                engine=engine,
                entity=entity,
                subject=subject,
                action=action,
                detail=json.dumps(detail, sort_keys=True, ensure_ascii=False, default=str),
                actor=actor,
                occurred_at=utcnow(),
                reason=reason,
            )
        )
        self.changed = True

    def _remove_claims(
        self, engine: str, where: Any, label: str, actor: str, reason: str | None
    ) -> int:
        """Delete the claims selected by ``where``, each with a ``remove`` event first."""
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
                    **{f"old_{k}": getattr(row, k) for k in CLAIM_FIELDS},
                    **{f"new_{k}": None for k in CLAIM_FIELDS},
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

    def _claim_at(self, engine_id: int, subject_key: str, capability: str) -> Claim | None:
        row = self._connection.execute(
            q.claim_select().where(
                claim_table.c.engine_id == engine_id,
                claim_table.c.subject_key == subject_key,
                claim_table.c.capability == capability,
            )
        ).first()
        return None if row is None else q.to_claim(row)

    def _model_row_id(self, engine_id: int, model_id: str) -> int | None:
        found = self._connection.scalar(
            select(model_table.c.id).where(
                model_table.c.engine_id == engine_id, model_table.c.model_id == model_id
            )
        )
        return None if found is None else int(found)

    def _insert_model(
        self, engine_id: int, model_id: str, *, wire: str | None, note: str, created_by: str
    ) -> int:
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
        self._change(
            self._engine_name(engine_id),
            "model",
            f"model {model_id}",
            "add",
            {"wire": wire, "note": note},
            created_by,
        )
        return row_id

    def _engine_name(self, engine_id: int) -> str:
        return str(
            self._connection.scalar(
                select(engine_table.c.name).where(engine_table.c.id == engine_id)
            )
        )

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
            row_id = self._model_row_id(engine_id, model)
            if row_id is None:
                if create_by is None:
                    return None
                row_id = self._insert_model(
                    engine_id, model, wire=None, note="", created_by=create_by
                )
            return _Subject(f"model:{model}", f"model {model}", model_row_id=row_id)
        if rule is not None:
            found = self._find_rule(engine_id, engine, rule)
            return _Subject(
                f"rule:{found.id}",
                f"rule:{found.id} {found.match} {found.pattern}",
                rule_id=found.id,
            )
        return _Subject("engine", "engine")

    def _find_rule(self, engine_id: int, engine: str, rule: int | str) -> Any:
        """Return the engine's rule named by an id, ``rule:N``, ``N`` or a pattern.

        :raises InvalidRule: for ``rule:`` not followed by digits, or a pattern that
            names both an exact and a regex rule.
        :raises UnknownRule: when no rule of the engine has that id or pattern.
        """
        rule = rule_ref(rule)
        where = rule_table.c.id == rule if isinstance(rule, int) else rule_table.c.pattern == rule
        rows = self._connection.execute(
            select(rule_table.c.id, rule_table.c.match, rule_table.c.pattern).where(
                rule_table.c.engine_id == engine_id, where
            )
        ).all()
        if not rows:
            raise UnknownRule(engine, rule)
        if len(rows) > 1:
            raise InvalidRule(
                f"pattern {rule!r} names both an exact and a regex rule of {engine!r}; "
                "give the rule id"
            )
        return rows[0]


_CLAIM_COLUMNS = tuple(claim_table.c[k] for k in CLAIM_FIELDS)


def rule_ref(rule: int | str) -> int | str:
    """Return the rule id of ``17``, ``"17"`` or ``"rule:17"``, else the text as a pattern.

    :raises InvalidRule: for ``rule:`` not followed by digits.
    """
    if isinstance(rule, int):
        return rule
    digits = rule[5:] if rule.startswith("rule:") else rule
    if digits.isascii() and digits.isdigit():
        return int(digits)
    if rule.startswith("rule:"):
        raise InvalidRule(f"{rule!r} is not a rule reference (rule:N)")
    return rule


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
        "response_tag": checked_tag(response_tag),
        "id_rule": checked_id_rule(id_rule),
        "note": check.text(note, "note"),
    }


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


def rule_values(
    pattern: object, *, regex: bool, wire: object = None, note: object = ""
) -> dict[str, Any]:
    """Check a new rule (``add_rule``, the seed and import); return its row values.

    :raises InvalidRule: for a regex that does not compile.
    :raises InvalidModelId: for an exact pattern that is not a valid model id.
    :raises InvalidWire: for an unknown wire override.
    """
    match = "regex" if regex else "exact"
    return {
        "match": match,
        "pattern": check.rule_pattern(pattern, match),
        "wire": check.optional_wire(wire),
        "note": check.text(note, "note"),
    }


def capability_values(
    name: object, *, description: object, value_kind: object = "bool", gates: object = None
) -> dict[str, Any]:
    """Check a new capability (``add_capability``, the seed and import); return its values.

    :raises InvalidCapability: for a malformed name.
    :raises InvalidInput: for an empty description, an unknown value kind or bad gates.
    """
    check.capability(name)
    if not isinstance(description, str) or not description.strip():
        raise InvalidInput("a capability needs a description: say what its claims mean")
    check.text(description, "description")
    if value_kind not in VALUE_KINDS:
        raise InvalidInput(f"invalid value kind {value_kind!r}; valid: {', '.join(VALUE_KINDS)}")
    if gates is not None:
        required(gates, "gates", 64)
    return {"name": name, "description": description, "value_kind": value_kind, "gates": gates}


def required(value: object, what: str, longest: int | None = None) -> str:
    """Return a non-empty string of at most ``longest`` characters (checked as text)."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"invalid {what} {value!r}: must be a non-empty string")
    if longest is not None and len(value) > longest:
        raise InvalidInput(f"invalid {what}: longer than {longest} characters")
    return check.text(value, what)


def checked_tag(value: object) -> str | None:
    """Return a hermes response tag the converter takes (it alone says what is valid)."""
    if value is None:
        return None
    try:
        if not isinstance(value, str):
            raise InvalidOption("a tag is a string")
        format_tool_results("hermes", [], response_tag=value)
    except InvalidOption as error:
        raise InvalidInput(f"invalid response tag {value!r}: {error}") from None
    return value


def checked_id_rule(value: object) -> str | None:
    """Return an engine's id rule: a name in ``toolwire.convert.ID_RULES`` (or None)."""
    if value is None or (isinstance(value, str) and value in ID_RULES):
        return value
    raise InvalidInput(f"invalid id rule {value!r}; id rules: {', '.join(sorted(ID_RULES))}")


def as_date(value: object) -> date | None:
    """Return a verified_at date; one after tomorrow (UTC, for every time zone) is refused."""
    if value is None:
        return None
    if isinstance(value, datetime):
        value = value.date()
    if not isinstance(value, date):
        raise InvalidInput(f"invalid verified_at {value!r}: must be a date")
    if value > utcnow().date() + timedelta(days=1):
        raise InvalidInput(f"invalid verified_at {value.isoformat()}: it is in the future")
    return value


def old_fields(current: Any) -> dict[str, Any]:
    return {f"old_{k}": None if current is None else getattr(current, k) for k in CLAIM_FIELDS}
