"""The capability vocabulary: its check, one capability added, the seed's many."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import insert, select

from .. import _validate as check
from ..errors import DuplicateEntry, InvalidInput
from ..records import Capability
from ..tables import capability_table, change_event_table, utcnow
from ..vocab import VALUE_KINDS
from .transaction import Transaction, change_row, required

__all__ = ["AddReport", "Capabilities", "capability_values"]


@dataclass(slots=True)
class AddReport:
    """What ``add_missing`` and ``add_capabilities`` did."""

    added: int = 0
    kept: int = 0
    #: per engine, the id of each of its entry's rules, in the entry's order
    rule_ids: dict[str, list[int]] = field(default_factory=dict)


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
        raise InvalidInput(
            f"invalid value kind {check.describe(value_kind)}; valid: {', '.join(VALUE_KINDS)}"
        )
    if gates is not None:
        required(gates, "gates", 64)
    return {"name": name, "description": description, "value_kind": value_kind, "gates": gates}


def _detail(values: Mapping[str, Any]) -> dict[str, Any]:
    return {k: values[k] for k in ("description", "value_kind", "gates")}


class Capabilities:
    """The writes of the capability vocabulary."""

    def __init__(self, txn: Transaction) -> None:
        self._txn = txn
        self._connection = txn.connection

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
        self._txn.change(
            None, "capability", f"capability {name}", "add", _detail(values), created_by
        )
        self._txn.forget_vocabulary()
        return Capability(**values)

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
            values = capability_values(
                name,
                description=table["description"],
                value_kind=table.get("value_kind", "bool"),
                gates=table.get("gates"),
            )
            present.add(name)
            rows.append({**values, "created_at": now, "created_by": created_by})
            events.append(
                change_row(
                    None,
                    "capability",
                    f"capability {name}",
                    "add",
                    _detail(values),
                    created_by,
                    now,
                )
            )
            report.added += 1
        if rows:
            self._connection.execute(insert(capability_table), rows)
            self._connection.execute(insert(change_event_table), events)
            self._txn.forget_vocabulary()
            self._txn.changed = True
        return report
