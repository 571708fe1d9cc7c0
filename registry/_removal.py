"""Retract claims; remove rules, models and engines; move rules. Each one recorded.

A retraction appends a ``retract`` claim event; a removal appends a ``remove`` claim
event for every claim that goes with the row and a ``change_event`` with the row's
fields, so the history shows what was there, who removed it and why.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table, and_, bindparam, delete, func, insert, select, update

from . import _queries as q
from . import _validate as check
from ._output import plural
from ._wbase import (
    CLAIM_FIELDS,
    ENGINE_FIELDS,
    WriterBase,
    checked_id_rule,
    checked_tag,
    old_fields,
    required,
)
from .errors import (
    InUse,
    InvalidInput,
    InvalidRule,
    UnknownCapability,
    UnknownClaim,
    UnknownModel,
)
from .records import Claim, Engine, EngineSnapshot, Model, Rule
from .tables import claim_event_table, claim_table, engine_table, model_table, rule_table, utcnow

__all__ = ["Removals"]


class Removals(WriterBase):
    """The retracting, removing and moving writes of ``Writer``."""

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
            self.known_capability(capability)
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
        if model is not None and rule is not None:
            raise InvalidInput("a claim is about a model or a rule, not both")
        if model is not None:
            check.model_id(model)
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
                claim_id=row.id,
                engine=engine,
                subject_key=subject.key,
                subject=subject.label,
                capability=capability,
                **old_fields(row),
                **{f"new_{k}": None for k in CLAIM_FIELDS},
                actor=recorded_by,
                occurred_at=utcnow(),
                reason=evidence,
                action="retract",
            )
        )
        self._connection.execute(delete(claim_table).where(claim_table.c.id == row.id))
        self.changed = True
        return claim

    def remove_rule(
        self, engine: str, rule: int | str, *, recorded_by: str, reason: str | None = None
    ) -> Rule:
        """Remove a rule and its claims; the rules after it move up one position.

        :raises UnknownEngine: when the engine does not exist.
        :raises UnknownRule: when ``rule`` (an id, ``rule:N``, ``N`` or a pattern) names
            no rule of the engine.
        :raises InvalidRule: for a ``rule`` of ``rule:`` not followed by digits.
        """
        check.actor(recorded_by)
        engine_id = q.engine_id(self._connection, engine)
        found = self._rule_record(engine_id, engine, rule)
        label = f"rule:{found.id} {found.match} {found.pattern}"
        self._remove_claims(engine, claim_table.c.rule_id == found.id, label, recorded_by, reason)
        self._connection.execute(delete(rule_table).where(rule_table.c.id == found.id))
        self._connection.execute(
            update(rule_table)
            .where(rule_table.c.engine_id == engine_id, rule_table.c.position > found.position)
            .values(position=rule_table.c.position - 1)
        )
        self._change(
            engine, "rule", f"rule:{found.id}", "remove", _rule_detail(found), recorded_by, reason
        )
        return found

    def move_rule(
        self,
        engine: str,
        rule: int | str,
        position: int,
        *,
        recorded_by: str,
        reason: str | None = None,
    ) -> Rule:
        """Move a rule to ``position`` (1-based; past the end means last); ids stay.

        :raises UnknownEngine: when the engine does not exist.
        :raises UnknownRule: when ``rule`` (an id, ``rule:N``, ``N`` or a pattern) names
            no rule of the engine.
        :raises InvalidRule: for a position below 1, or a ``rule`` of ``rule:`` not
            followed by digits.
        """
        check.actor(recorded_by)
        if isinstance(position, bool) or not isinstance(position, int) or position < 1:
            raise InvalidRule(f"invalid rule position {position!r}: counts from 1")
        engine_id = q.engine_id(self._connection, engine)
        found = self._rule_record(engine_id, engine, rule)
        last = int(
            self._connection.scalar(
                select(func.count())
                .select_from(rule_table)
                .where(rule_table.c.engine_id == engine_id)
            )
            or 0
        )
        target = min(position, last)
        if target != found.position:
            ids = list(
                self._connection.scalars(
                    select(rule_table.c.id)
                    .where(rule_table.c.engine_id == engine_id)
                    .order_by(rule_table.c.position, rule_table.c.id)
                )
            )
            ids.remove(found.id)
            ids.insert(target - 1, found.id)
            self._renumber(engine_id, ids)
            self._change(
                engine,
                "rule",
                f"rule:{found.id}",
                "move",
                {"from": found.position, "to": target, "pattern": found.pattern},
                recorded_by,
                reason,
            )
        moved = self._rule_record(engine_id, engine, found.id)
        return moved

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
        row_id = self._model_row_id(engine_id, model_id)
        self._remove_claims(
            engine, claim_table.c.model_row_id == row_id, f"model {model_id}", recorded_by, reason
        )
        self._connection.execute(delete(model_table).where(model_table.c.id == row_id))
        self._change(
            engine,
            "model",
            f"model {model_id}",
            "remove",
            {"wire": model.wire, "note": model.note, "created_by": model.created_by},
            recorded_by,
            reason,
        )
        return model

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
        record = q.to_engine(
            self._connection.execute(
                select(*q.ENGINE_COLUMNS).where(engine_table.c.id == engine_id)
            ).one()
        )
        for found in self._connection.scalars(
            select(rule_table.c.id)
            .where(rule_table.c.engine_id == engine_id)
            .order_by(rule_table.c.position.desc())
        ).all():
            self.remove_rule(engine, int(found), recorded_by=recorded_by, reason=reason)
        for model_id in self._connection.scalars(
            select(model_table.c.model_id).where(model_table.c.engine_id == engine_id)
        ).all():
            self.remove_model(engine, model_id, recorded_by=recorded_by, reason=reason)
        self._remove_claims(
            engine, claim_table.c.engine_id == engine_id, "engine", recorded_by, reason
        )
        self._connection.execute(delete(engine_table).where(engine_table.c.id == engine_id))
        detail = {k: getattr(record, k) for k in ENGINE_FIELDS if k != "note"}
        self._change(engine, "engine", f"engine {engine}", "remove", detail, recorded_by, reason)
        return record

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
        return self._remove_claims(engine, where, subject.label, recorded_by, reason) > 0

    def order_rules(
        self, engine: str, ids: list[int], *, recorded_by: str, reason: str | None = None
    ) -> None:
        """Put the engine's rules ``ids`` first, in that order (a ``move`` event per move).

        :raises UnknownEngine: when the engine does not exist.
        """
        engine_id = q.engine_id(self._connection, engine)
        rows = self._connection.execute(
            select(rule_table.c.id, rule_table.c.position, rule_table.c.pattern)
            .where(rule_table.c.engine_id == engine_id)
            .order_by(rule_table.c.position, rule_table.c.id)
        ).all()
        order = [*dict.fromkeys(ids), *(r.id for r in rows if r.id not in ids)]
        before = {r.id: (r.position, r.pattern) for r in rows}
        if [r.id for r in rows] == order and all(before[i][0] == n for n, i in enumerate(order, 1)):
            return
        self._renumber(engine_id, order)
        for position, rule_id in enumerate(order, 1):
            old, pattern = before[rule_id]
            if old != position:
                self._change(
                    engine,
                    "rule",
                    f"rule:{rule_id}",
                    "move",
                    {"from": old, "to": position, "pattern": pattern},
                    recorded_by,
                    reason,
                )

    def update_fields(
        self,
        engine: str,
        entity: str,
        key: int | str,
        values: dict[str, Any],
        *,
        recorded_by: str,
        reason: str | None = None,
    ) -> bool:
        """Change fields of the engine, a model (``key``: its id) or a rule (its id).

        Only the fields that differ are written, with an ``update`` change event listing
        them (old, new); returns whether anything changed. Used by ``import``.

        :raises UnknownEngine, UnknownModel, UnknownRule: for a row that does not exist.
        :raises InvalidInput: for a field that cannot change this way.
        """
        allowed = {
            "engine": set(ENGINE_FIELDS),
            "model": {"wire", "note"},
            "rule": {"wire", "note"},
        }
        unknown = set(values) - allowed.get(entity, set())
        if unknown or entity not in allowed:
            raise InvalidInput(f"cannot update {entity} field(s) {', '.join(sorted(unknown))}")
        check.actor(recorded_by)
        for name in ("default_wire", "wire"):
            if name in values and values[name] is not None:
                check.wire(values[name])
        if "kind" in values:
            check.engine_kind(values["kind"])
        for name in ("provider", "family"):
            if name in values:
                required(values[name], name, 256 if name == "provider" else 32)
        if values.get("base_url") is not None:
            check.base_url(values["base_url"])
        if values.get("response_tag") is not None:
            checked_tag(values["response_tag"])
        if values.get("id_rule") is not None:
            checked_id_rule(values["id_rule"])
        engine_id = q.engine_id(self._connection, engine)
        table: Table
        if entity == "engine":
            table, where, subject = engine_table, engine_table.c.id == engine_id, f"engine {engine}"
        elif entity == "model":
            row_id = self._model_row_id(engine_id, str(key))
            if row_id is None:
                raise UnknownModel(engine, str(key))
            table, where, subject = model_table, model_table.c.id == row_id, f"model {key}"
        else:
            found = self._find_rule(engine_id, engine, key)
            table, where, subject = rule_table, rule_table.c.id == found.id, f"rule:{found.id}"
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
        self._change(engine, entity, subject, "update", detail, recorded_by, reason)
        return True

    def snapshot(self, engine: str) -> EngineSnapshot:
        """Return the engine with every model, inside this transaction.

        :raises UnknownEngine: when the engine does not exist.
        """
        return q.snapshot(self._connection, engine)

    # -- helpers ----------------------------------------------------------------------

    def _rule_record(self, engine_id: int, engine: str, rule: int | str) -> Rule:
        found = self._find_rule(engine_id, engine, rule)
        rows = self._connection.execute(q.rule_select().where(rule_table.c.id == found.id))
        return q.to_rules(rows, {})[0]

    def _renumber(self, engine_id: int, ids: list[int]) -> None:
        """Give the rules ``ids`` positions 1..n in that order."""
        # Two passes keep any unique index on positions happy: first out of the way.
        self._connection.execute(
            update(rule_table)
            .where(rule_table.c.engine_id == engine_id)
            .values(position=-rule_table.c.position)
        )

        self._connection.execute(
            update(rule_table)
            .where(rule_table.c.id == bindparam("rule_id"))
            .values(position=bindparam("pos")),
            [{"rule_id": rule_id, "pos": index} for index, rule_id in enumerate(ids, 1)],
        )


def _rule_detail(rule: Rule) -> dict[str, Any]:
    return {
        "match": rule.match,
        "pattern": rule.pattern,
        "position": rule.position,
        "wire": rule.wire,
        "note": rule.note,
        "claims": {c.capability: c.value for c in rule.claims.values()},
    }
