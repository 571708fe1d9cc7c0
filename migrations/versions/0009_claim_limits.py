"""Let claims hold limits and MIME-type lists, not only true or false.

A capability's ``value_kind`` may now be ``int`` (a limit: bytes, pixels, images,
pages) or ``mimes`` (a sorted list of MIME types) beside ``bool``. Such a claim keeps
its value in the new JSON column ``claim.value_json`` and leaves ``claim.value`` NULL;
a check holds exactly one of the two set. The history records the old and new
values the same way (``old_value_json``, ``new_value_json``).

Downgrading deletes the claims of non-bool capabilities and those capabilities (with a
``remove`` event for each claim) before the columns go, since the older schema cannot
hold them.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Frozen copies as of this revision.
KINDS_BEFORE = "'bool'"
KINDS_AFTER = "'bool', 'int', 'mimes'"
ONE_VALUE = (
    "(value IS NULL AND value_json IS NOT NULL) OR (value IS NOT NULL AND value_json IS NULL)"
)


def _json() -> sa.JSON:
    return sa.JSON(none_as_null=True)


def upgrade() -> None:
    """Add ``value_json`` to claims and their history; widen the capability value kinds."""
    with op.batch_alter_table("claim") as batch:
        batch.alter_column("value", existing_type=sa.Boolean(), nullable=True)
        batch.add_column(sa.Column("value_json", _json(), nullable=True))
        batch.create_check_constraint("one_value", ONE_VALUE)
    with op.batch_alter_table("claim_event") as batch:
        batch.add_column(sa.Column("old_value_json", _json(), nullable=True))
        batch.add_column(sa.Column("new_value_json", _json(), nullable=True))
    with op.batch_alter_table("capability") as batch:
        batch.drop_constraint(op.f("ck_capability_value_kind"), type_="check")
        batch.create_check_constraint("value_kind", f"value_kind IN ({KINDS_AFTER})")


def downgrade() -> None:
    """Remove non-bool claims (recorded as removed) and capabilities, then the columns."""
    bind = op.get_bind()
    claim = sa.table(
        "claim",
        sa.column("id", sa.Integer),
        sa.column("engine_id", sa.Integer),
        sa.column("subject_key", sa.String),
        sa.column("capability", sa.String),
        sa.column("value", sa.Boolean),
        sa.column("status", sa.String),
        sa.column("evidence", sa.Text),
        sa.column("source", sa.Text),
        sa.column("verified_at", sa.Date),
    )
    engine = sa.table("engine", sa.column("id", sa.Integer), sa.column("name", sa.String))
    capability = sa.table(
        "capability", sa.column("name", sa.String), sa.column("value_kind", sa.String)
    )
    event = sa.table(
        "claim_event",
        *(
            sa.column(name)
            for name in (
                "claim_id",
                "engine",
                "subject_key",
                "subject",
                "capability",
                "old_value",
                "old_status",
                "old_evidence",
                "old_source",
                "old_verified_at",
                "actor",
                "occurred_at",
                "reason",
                "action",
            )
        ),
    )
    rows = bind.execute(
        sa.select(claim, engine.c.name.label("engine"))
        .join(engine, engine.c.id == claim.c.engine_id)
        .where(claim.c.value.is_(None))
    ).all()
    now = datetime.now(UTC)
    if bind.dialect.name == "sqlite":
        now = now.replace(tzinfo=None)  # stored as UTC without an offset, as the tables do
    if rows:
        op.bulk_insert(
            event,
            [
                {
                    "claim_id": None,
                    "engine": row.engine,
                    "subject_key": row.subject_key,
                    "subject": row.subject_key.replace(":", " ", 1),
                    "capability": row.capability,
                    "old_value": None,
                    "old_status": row.status,
                    "old_evidence": row.evidence,
                    "old_source": row.source,
                    "old_verified_at": row.verified_at,
                    "actor": "migration",
                    "occurred_at": now,
                    "reason": "downgrade below 0009: the schema holds true/false claims only",
                    "action": "remove",
                }
                for row in rows
            ],
        )
        ids = [row.id for row in rows]
        # their history stays, no longer pointing at them (the foreign key's SET NULL,
        # done here: SQLite runs migrations with foreign keys off)
        history = sa.table("claim_event", sa.column("claim_id", sa.Integer))
        op.execute(history.update().where(history.c.claim_id.in_(ids)).values(claim_id=None))
        op.execute(claim.delete().where(claim.c.id.in_(ids)))
    op.execute(capability.delete().where(capability.c.value_kind != "bool"))
    with op.batch_alter_table("capability") as batch:
        batch.drop_constraint(op.f("ck_capability_value_kind"), type_="check")
        batch.create_check_constraint("value_kind", f"value_kind IN ({KINDS_BEFORE})")
    with op.batch_alter_table("claim_event") as batch:
        batch.drop_column("new_value_json")
        batch.drop_column("old_value_json")
    with op.batch_alter_table("claim") as batch:
        batch.drop_constraint(op.f("ck_claim_one_value"), type_="check")
        batch.drop_column("value_json")
        batch.alter_column("value", existing_type=sa.Boolean(), nullable=False)
