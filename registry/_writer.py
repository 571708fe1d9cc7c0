"""Write operations that run inside one write transaction.

``Registry.batch()`` (and first-use setup) opens the transaction, calls ``begin()`` to
serialise writers, runs any number of operations, then ``finish()`` bumps the
registry revision once when anything changed. Every claim change appends one
``claim_event`` row in the same transaction.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from sqlalchemy import exists, func, insert, select, update

from . import _queries as q
from . import _validate as check
from ._bulk import Bulk
from ._bulkadd import BulkAdd
from ._public import shown_in_package
from ._removal import Removals
from ._wbase import (
    WriterBase,
    as_date,
    capability_values,
    engine_values,
    model_values,
    old_fields,
    rule_values,
)
from .errors import DuplicateEntry, InvalidInput, InvalidRule
from .records import Capability, Claim, Engine, Model, Rule, WireForm
from .tables import (
    capability_table,
    claim_event_table,
    claim_table,
    engine_table,
    model_table,
    rule_table,
    utcnow,
    wire_form_table,
)

__all__ = ["Writer"]


class Writer(Removals, BulkAdd, Bulk, WriterBase):
    """Apply registry writes on a connection that is inside a write transaction."""

    # -- engines, models, rules ---------------------------------------------------

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
        if self._connection.scalar(select(engine_table.c.id).where(engine_table.c.name == name)):
            raise DuplicateEntry(f"engine {name!r} already exists")
        self._connection.execute(insert(engine_table).values(values))
        detail = {k: v for k, v in values.items() if k not in ("name", "created_at", "created_by")}
        self._change(name, "engine", f"engine {name}", "add", detail, created_by)
        return q.to_engine(
            self._connection.execute(
                select(*q.ENGINE_COLUMNS).where(engine_table.c.name == name)
            ).one()
        )

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
        if self._model_row_id(engine_id, model_id) is not None:
            raise DuplicateEntry(f"engine {engine!r} already has model {model_id!r}")
        self._insert_model(engine_id, model_id, wire=wire, note=note, created_by=created_by)
        row = self._connection.execute(
            q.model_select().where(
                model_table.c.engine_id == engine_id, model_table.c.model_id == model_id
            )
        ).one()
        return Model(**row._mapping)

    def add_rule(
        self,
        engine: str,
        pattern: str,
        *,
        regex: bool,
        wire: str | None = None,
        position: int | None = None,
        note: str = "",
        created_by: str,
    ) -> Rule:
        """Record a rule; ``position`` (1-based) inserts it there, default appends it.

        :raises UnknownEngine: when the engine does not exist.
        :raises DuplicateEntry: when the engine has the same rule already.
        :raises InvalidRule: for a regex that does not compile or a bad position.
        :raises InvalidModelId: for an exact pattern that is not a valid model id.
        :raises InvalidWire: for an unknown wire override.
        """
        match = rule_values(pattern, regex=regex, wire=wire, note=note)["match"]
        check.actor(created_by, "created_by")
        if position is not None and (isinstance(position, bool) or position < 1):
            raise InvalidRule(f"invalid rule position {position!r}: counts from 1")
        engine_id = q.engine_id(self._connection, engine)
        if self._connection.scalar(
            select(rule_table.c.id).where(
                rule_table.c.engine_id == engine_id,
                rule_table.c.match == match,
                rule_table.c.pattern == pattern,
            )
        ):
            raise DuplicateEntry(f"engine {engine!r} already has the {match} rule {pattern!r}")
        last = self._connection.scalar(
            select(func.coalesce(func.max(rule_table.c.position), 0)).where(
                rule_table.c.engine_id == engine_id
            )
        )
        end = int(last or 0) + 1
        if position is None or position >= end:
            position = end
        else:
            self._connection.execute(
                update(rule_table)
                .where(rule_table.c.engine_id == engine_id, rule_table.c.position >= position)
                .values(position=rule_table.c.position + 1)
            )
        rule_id = self._connection.scalar(
            insert(rule_table)
            .values(
                engine_id=engine_id,
                position=position,
                match=match,
                pattern=pattern,
                wire=wire,
                note=note,
                created_at=utcnow(),
                created_by=created_by,
            )
            .returning(rule_table.c.id)
        )
        self._change(
            engine,
            "rule",
            f"rule:{rule_id}",
            "add",
            {"match": match, "pattern": pattern, "position": position, "wire": wire, "note": note},
            created_by,
        )
        return q.to_rules(
            self._connection.execute(q.rule_select().where(rule_table.c.id == rule_id)), {}
        )[0]

    # -- the capability vocabulary ------------------------------------------------

    def add_capability(
        self,
        name: str,
        *,
        description: str,
        value_kind: str = "bool",
        gates: str | None = None,
        created_by: str,
    ) -> Capability:
        """Add a capability to the vocabulary, so claims may use it.

        :raises InvalidCapability: for a malformed name.
        :raises DuplicateEntry: when the vocabulary has it already.
        :raises InvalidInput: for an empty description, an unknown value kind or actor.
        """
        values = capability_values(
            name, description=description, value_kind=value_kind, gates=gates
        )
        check.actor(created_by, "created_by")
        if self._connection.scalar(
            select(capability_table.c.name).where(capability_table.c.name == name)
        ):
            raise DuplicateEntry(f"capability {name!r} already exists")
        values.update(created_at=utcnow(), created_by=created_by)
        self._connection.execute(insert(capability_table).values(values))
        self._change(
            None,
            "capability",
            f"capability {name}",
            "add",
            {"description": description, "value_kind": value_kind, "gates": gates},
            created_by,
        )
        self._forget_vocabulary()
        return Capability(**values)

    # -- claims -------------------------------------------------------------------

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
        value: bool,
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
        :raises InvalidInput: for a non-boolean value, empty evidence, both subjects, or
            a ``verified_at`` in the future.
        """
        check.capability(capability)
        check.status(status)
        if not isinstance(value, bool):
            raise InvalidInput(f"invalid claim value {value!r}: must be true or false")
        if not isinstance(evidence, str) or not evidence.strip():
            raise InvalidInput("a claim needs evidence: say what supports it")
        check.text(evidence, "evidence")
        if source is not None:
            check.text(source, "source")
        if reason is not None:
            check.text(reason, "reason")
        check.actor(recorded_by)
        verified_at = as_date(verified_at)
        if model is not None and rule is not None:
            raise InvalidInput("a claim is about a model or a rule, not both")
        if model is not None:
            check.model_id(model)
        engine_id = self._engine_with_capability(engine, capability)
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
        if current is not None and all(getattr(current, k) == v for k, v in new.items()):
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
                    **new,
                    **stamp,
                )
                .returning(claim_table.c.id)
            )
        else:
            claim_id = current.id
            self._connection.execute(
                update(claim_table).where(claim_table.c.id == claim_id).values(**new, **stamp)
            )
        self._connection.execute(
            insert(claim_event_table).values(
                claim_id=claim_id,
                engine=engine,
                subject_key=subject.key,
                subject=subject.label,
                capability=capability,
                **old_fields(current),
                **{f"new_{k}": v for k, v in new.items()},
                actor=recorded_by,
                occurred_at=now,
                reason=reason,
            )
        )
        self.changed = True
        return Claim(engine, subject.key, model, subject.rule_id, capability, **new, **stamp)

    def set_wire_form(
        self,
        wire: str,
        kind: str,
        *,
        status: str,
        evidence: str,
        source: str | None = None,
        recorded_by: str,
    ) -> WireForm:
        """Record the evidence behind a native form that ``toolwire.convert`` says exists.

        :raises InvalidWire: for an unknown wire or one without that native form.
        :raises InvalidStatus: for an unknown evidence status.
        :raises InvalidInput: for an unknown kind or empty evidence.
        """
        check.native_form(wire, kind)
        check.status(status)
        if not isinstance(evidence, str) or not evidence.strip():
            raise InvalidInput("wire-form evidence must not be empty")
        check.actor(recorded_by)
        values = {"status": status, "evidence": evidence, "source": source}
        where = (wire_form_table.c.wire == wire, wire_form_table.c.kind == kind)
        current = self._connection.execute(select(wire_form_table).where(*where)).first()
        if current is None:
            self._connection.execute(
                insert(wire_form_table).values(
                    wire=wire, kind=kind, **values, recorded_by=recorded_by, recorded_at=utcnow()
                )
            )
            self.changed = True
        elif any(getattr(current, k) != v for k, v in values.items()):
            self._connection.execute(
                update(wire_form_table)
                .where(*where)
                .values(**values, recorded_by=recorded_by, recorded_at=utcnow())
            )
            self.changed = True
        return q.to_wire_form(self._connection.execute(q.wire_form_select().where(*where)).one())

    def wire_form(self, wire: str, kind: str) -> WireForm | None:
        """Return the recorded evidence of a native form, None when there is none."""
        row = self._connection.execute(
            q.wire_form_select().where(
                wire_form_table.c.wire == wire, wire_form_table.c.kind == kind
            )
        ).first()
        return None if row is None else q.to_wire_form(row)

    def has_engine(self, name: str) -> bool:
        """Return whether an engine of that name exists."""
        return (
            self._connection.scalar(select(engine_table.c.id).where(engine_table.c.name == name))
            is not None
        )

    def has_model(self, engine: str, model_id: str) -> bool:
        """Return whether the engine has a row for ``model_id``.

        :raises UnknownEngine: when the engine does not exist.
        """
        engine_id = q.engine_id(self._connection, engine)
        return self._model_row_id(engine_id, model_id) is not None

    def rule_id(self, engine: str, pattern: str, *, regex: bool) -> int | None:
        """Return the id of the engine's rule with that match kind and pattern, if any.

        :raises UnknownEngine: when the engine does not exist.
        """
        engine_id = q.engine_id(self._connection, engine)
        found = self._connection.scalar(
            select(rule_table.c.id).where(
                rule_table.c.engine_id == engine_id,
                rule_table.c.match == ("regex" if regex else "exact"),
                rule_table.c.pattern == pattern,
            )
        )
        return None if found is None else int(found)

    # -- helpers ------------------------------------------------------------------

    def _engine_with_capability(self, engine: str, capability: str) -> int:
        """Return the engine's id, checking the capability in the same statement.

        :raises UnknownCapability: for a capability not in the vocabulary.
        :raises UnknownEngine: when the engine does not exist.
        """
        if self._vocabulary is not None:
            self.known_capability(capability)
            return q.engine_id(self._connection, engine)
        known = exists().where(capability_table.c.name == capability)
        row = self._connection.execute(
            select(engine_table.c.id, known.label("known")).where(engine_table.c.name == engine)
        ).first()
        if row is None or not row.known:
            self.known_capability(capability)  # raises with the closest names
        if row is None:
            return q.engine_id(self._connection, engine)  # raises UnknownEngine
        return int(row.id)


shown_in_package(Writer)
