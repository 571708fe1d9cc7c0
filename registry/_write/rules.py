"""Rules: an engine's ordered patterns, added, moved, reordered, removed, updated."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import bindparam, delete, func, insert, select, update

from .. import _queries as q
from .. import _validate as check
from ..errors import DuplicateEntry, InvalidInput, InvalidRule, UnknownRule
from ..records import Rule
from ..tables import claim_table, rule_table, utcnow
from ..vocab import DB_INT_MAX
from .transaction import Transaction, change_row

__all__ = ["RULE_FIELDS", "RuleRef", "Rules", "rule_event", "rule_ref", "rule_values"]

#: A rule's fields besides its match and pattern: what ``update_rule`` may change.
RULE_FIELDS = ("wire", "note")
#: A rule's id, match kind and pattern (what a claim on it is labelled with).
RuleRef = tuple[int, str, str]


def rule_ref(rule: int | str) -> int | str:
    """Return the rule id of ``17``, ``"17"`` or ``"rule:17"``, else the text as a pattern.

    :raises InvalidRule: for ``rule:`` not followed by digits, an id past what the
        database holds, or a value that is neither an int nor a string.
    """
    if type(rule) is int:
        return _rule_id(rule)
    if not isinstance(rule, str):
        raise InvalidRule(
            f"invalid rule {check.describe(rule)}: pass a rule id (17, rule:17) or a pattern"
        )
    digits = rule[5:] if rule.startswith("rule:") else rule
    if digits.isascii() and digits.isdigit():
        return _rule_id(int(digits))
    if rule.startswith("rule:"):
        raise InvalidRule(f"{rule!r} is not a rule reference (rule:N)")
    return rule


def _rule_id(rule: int) -> int:
    if not 0 <= rule <= DB_INT_MAX:
        shown = check.describe(rule)
        raise InvalidRule(f"invalid rule id {shown}: rule ids count from 1 to {DB_INT_MAX}")
    return rule


def check_position(position: object) -> int:
    """Return a rule position (1-based) as given.

    :raises InvalidRule: for a value that is not a whole number from 1.
    """
    if type(position) is not int or position < 1:
        raise InvalidRule(f"invalid rule position {check.describe(position)}: counts from 1")
    return position


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


def rule_event(engine: str, row: Mapping[str, Any], actor: str, now: Any) -> dict[str, Any]:
    """Return the ``add`` change event of a new rule row (its id known)."""
    detail = {k: row[k] for k in ("match", "pattern", "position", *RULE_FIELDS)}
    return change_row(engine, "rule", f"rule:{row['id']}", "add", detail, actor, now)


def _both(engine: str, pattern: object) -> InvalidRule:
    return InvalidRule(
        f"pattern {pattern!r} names both an exact and a regex rule of {engine!r}; give the rule id"
    )


def _label(found: Any) -> str:
    return f"rule:{found.id} {found.match} {found.pattern}"


class Rules:
    """The writes of an engine's rules."""

    def __init__(self, txn: Transaction) -> None:
        self._txn = txn
        self._connection = txn.connection

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
        if position is not None:
            position = check_position(position)
        engine_id = q.engine_id(self._connection, engine)
        if self._connection.scalar(
            select(rule_table.c.id).where(
                rule_table.c.engine_id == engine_id,
                rule_table.c.match == match,
                rule_table.c.pattern == pattern,
            )
        ):
            raise DuplicateEntry(f"engine {engine!r} already has the {match} rule {pattern!r}")
        end = self.count(engine_id) + 1
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
        self._txn.change(
            engine,
            "rule",
            f"rule:{rule_id}",
            "add",
            {"match": match, "pattern": pattern, "position": position, "wire": wire, "note": note},
            created_by,
        )
        return self.record(engine_id, engine, int(rule_id or 0))

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
        found = self.record(engine_id, engine, rule)
        self._txn.remove_claims(
            engine, claim_table.c.rule_id == found.id, _label(found), recorded_by, reason
        )
        self._connection.execute(delete(rule_table).where(rule_table.c.id == found.id))
        self._connection.execute(
            update(rule_table)
            .where(rule_table.c.engine_id == engine_id, rule_table.c.position > found.position)
            .values(position=rule_table.c.position - 1)
        )
        detail = {
            "match": found.match,
            "pattern": found.pattern,
            "position": found.position,
            "wire": found.wire,
            "note": found.note,
            "claims": {c.capability: c.value for c in found.claims.values()},
        }
        self._txn.change(engine, "rule", f"rule:{found.id}", "remove", detail, recorded_by, reason)
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
        position = check_position(position)
        engine_id = q.engine_id(self._connection, engine)
        found = self.record(engine_id, engine, rule)
        target = min(position, self.count(engine_id))
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
            self._txn.change(
                engine,
                "rule",
                f"rule:{found.id}",
                "move",
                {"from": found.position, "to": target, "pattern": found.pattern},
                recorded_by,
                reason,
            )
        return self.record(engine_id, engine, found.id)

    def order_rules(
        self, engine: str, ids: list[int], *, recorded_by: str, reason: str | None = None
    ) -> None:
        """Put the engine's rules ``ids`` first, in that order (a ``move`` event per move).

        :raises UnknownEngine: when the engine does not exist.
        :raises UnknownRule: for an id that is not one of the engine's rules.
        :raises InvalidInput: for ``ids`` that is not a list of rule ids.
        """
        if isinstance(ids, (str, bytes, Mapping)) or not isinstance(ids, Iterable):
            raise InvalidInput(f"invalid rule ids {check.describe(ids)}: a list of rule ids")
        ids = list(ids)
        engine_id = q.engine_id(self._connection, engine)
        rows = self._connection.execute(
            select(rule_table.c.id, rule_table.c.position, rule_table.c.pattern)
            .where(rule_table.c.engine_id == engine_id)
            .order_by(rule_table.c.position, rule_table.c.id)
        ).all()
        known = {r.id for r in rows}
        for rule_id in ids:
            if type(rule_id) is not int or rule_id not in known:
                raise UnknownRule(engine, rule_id)
        order = [*dict.fromkeys(ids), *(r.id for r in rows if r.id not in ids)]
        before = {r.id: (r.position, r.pattern) for r in rows}
        if [r.id for r in rows] == order and all(before[i][0] == n for n, i in enumerate(order, 1)):
            return
        self._renumber(engine_id, order)
        for position, rule_id in enumerate(order, 1):
            old, pattern = before[rule_id]
            if old != position:
                self._txn.change(
                    engine,
                    "rule",
                    f"rule:{rule_id}",
                    "move",
                    {"from": old, "to": position, "pattern": pattern},
                    recorded_by,
                    reason,
                )

    def update_rule(
        self,
        engine: str,
        rule: int | str,
        values: dict[str, Any],
        *,
        recorded_by: str,
        reason: str | None = None,
    ) -> bool:
        """Change a rule's wire or note (``import``); return whether anything changed.

        :raises UnknownEngine: when the engine does not exist.
        :raises UnknownRule: when ``rule`` names no rule of the engine.
        :raises InvalidInput: for a field that cannot change this way.
        """
        unknown = set(values) - set(RULE_FIELDS)
        if unknown:
            raise InvalidInput(f"cannot update rule field(s) {', '.join(sorted(unknown))}")
        check.actor(recorded_by)
        if values.get("wire") is not None:
            check.wire(values["wire"])
        if "note" in values:
            check.text(values["note"], "note")
        engine_id = q.engine_id(self._connection, engine)
        found = self.find(engine_id, engine, rule)
        return self._txn.update_row(
            rule_table,
            rule_table.c.id == found.id,
            values,
            engine=engine,
            entity="rule",
            subject=f"rule:{found.id}",
            recorded_by=recorded_by,
            reason=reason,
        )

    # -- for the other nouns -----------------------------------------------------------

    def count(self, engine_id: int) -> int:
        """Return how many rules the engine has (its last position)."""
        last = self._connection.scalar(
            select(func.coalesce(func.max(rule_table.c.position), 0)).where(
                rule_table.c.engine_id == engine_id
            )
        )
        return int(last or 0)

    def find(self, engine_id: int, engine: str, rule: int | str) -> Any:
        """Return (id, match, pattern) of the engine's rule named by an id, ``rule:N``, ``N``
        or a pattern.

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
            raise _both(engine, rule)
        return rows[0]

    def label(self, engine_id: int, engine: str, rule: int | str) -> tuple[int, str]:
        """Return the id of the rule ``find`` names and the label its claims carry."""
        found = self.find(engine_id, engine, rule)
        return int(found.id), _label(found)

    def record(self, engine_id: int, engine: str, rule: int | str) -> Rule:
        """Return the rule ``find`` names as a record, with its claims."""
        found = self.find(engine_id, engine, rule)
        rows = self._connection.execute(q.rule_select().where(rule_table.c.id == found.id))
        return q.to_rules(rows, {})[0]

    def refs(
        self, engine: str, engine_id: int, refs: Iterable[int | str]
    ) -> dict[int | str, RuleRef]:
        """Return each of ``refs`` (rule ids or patterns) -> (id, match, pattern), in one query.

        :raises UnknownRule: for a reference that names no rule of the engine.
        :raises InvalidRule: for a pattern of both an exact and a regex rule.
        """
        wanted = set(refs)
        if not wanted:
            return {}
        rows = self._connection.execute(
            select(rule_table.c.id, rule_table.c.match, rule_table.c.pattern).where(
                rule_table.c.engine_id == engine_id
            )
        ).all()
        by_id = {int(r.id): (int(r.id), r.match, r.pattern) for r in rows}
        by_pattern: dict[str, list[RuleRef]] = {}
        for entry in by_id.values():
            by_pattern.setdefault(entry[2], []).append(entry)
        resolved: dict[int | str, RuleRef] = {}
        for ref in wanted:
            if isinstance(ref, int):
                if ref not in by_id:
                    raise UnknownRule(engine, ref)
                resolved[ref] = by_id[ref]
                continue
            matches = by_pattern.get(ref, [])
            if not matches:
                raise UnknownRule(engine, ref)
            if len(matches) > 1:
                raise _both(engine, ref)
            resolved[ref] = matches[0]
        return resolved

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
