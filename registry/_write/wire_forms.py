"""Wire forms: the evidence behind each native tool-result form, one at a time or seeded."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, insert, select, update

from .. import _queries as q
from .. import _validate as check
from ..errors import InvalidInput
from ..records import WireForm
from ..tables import utcnow, wire_form_table
from .transaction import Transaction

__all__ = ["FormsReport", "WireForms"]

_FIELDS = ("status", "evidence", "source")


@dataclass(slots=True)
class FormsReport:
    """What ``seed_wire_forms`` did."""

    added: int = 0
    updated: int = 0
    kept: int = 0
    operator_owned: int = 0


def _check(wire: object, kind: object, status: object, evidence: object) -> None:
    check.native_form(wire, kind)
    check.status(status)
    if not isinstance(evidence, str) or not evidence.strip():
        raise InvalidInput("wire-form evidence must not be empty")


class WireForms:
    """The writes of wire-form evidence."""

    def __init__(self, txn: Transaction) -> None:
        self._txn = txn
        self._connection = txn.connection

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
        _check(wire, kind, status, evidence)
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
            self._txn.changed = True
        elif any(getattr(current, k) != v for k, v in values.items()):
            self._connection.execute(
                update(wire_form_table)
                .where(*where)
                .values(**values, recorded_by=recorded_by, recorded_at=utcnow())
            )
            self._txn.changed = True
        return q.to_wire_form(self._connection.execute(q.wire_form_select().where(*where)).one())

    def wire_form(self, wire: str, kind: str) -> WireForm | None:
        """Return the recorded evidence of a native form, None when there is none."""
        row = self._connection.execute(
            q.wire_form_select().where(
                wire_form_table.c.wire == wire, wire_form_table.c.kind == kind
            )
        ).first()
        return None if row is None else q.to_wire_form(row)

    def seed_wire_forms(
        self, forms: Sequence[Mapping[str, Any]], *, recorded_by: str
    ) -> FormsReport:
        """Record wire-form evidence; a form someone else recorded is left alone."""
        check.actor(recorded_by)
        for form in forms:
            _check(form["wire"], form["kind"], form.get("status"), form.get("evidence"))
        current = {
            (row.wire, row.kind): row
            for row in self._connection.execute(select(wire_form_table)).all()
        }
        now, report = utcnow(), FormsReport()
        inserts: dict[tuple[str, str], dict[str, Any]] = {}
        updates: dict[tuple[str, str], dict[str, Any]] = {}
        for form in forms:
            key = (form["wire"], form["kind"])
            values = {k: form.get(k) for k in _FIELDS}
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
            fields = (*_FIELDS, "recorded_by", "recorded_at")
            self._connection.execute(
                update(wire_form_table)
                .where(
                    wire_form_table.c.wire == bindparam("w"),
                    wire_form_table.c.kind == bindparam("k"),
                )
                .values({k: bindparam(k) for k in fields}),
                list(updates.values()),
            )
        self._txn.changed = self._txn.changed or bool(inserts or updates)
        return report
