"""The capability vocabulary, retractions and removals in the history, RE2 rules.

- ``capability``: the names a claim may use, each with a description, its value kind
  and the native form it gates (rows come from the seed, ``data/capabilities.toml``);
- ``claim_event.action``: ``set`` (as before), ``retract`` or ``remove``; a retraction
  or removal has no new value, so the ``new_*`` columns become nullable;
- ``change_event``: additions, removals and moves of engines, models, rules and
  capabilities, with the removed row's fields, so nothing goes without a trace;
- the four seeded rule patterns that used a lookahead are rewritten in place to the
  equivalent RE2 accepts (their ids, and so every claim and reference, stay).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIMESTAMP = sa.DateTime(timezone=True)
# Frozen copy as of this revision: the lookahead patterns the seed shipped, and the
# RE2 pattern matching exactly the same ids.
REWRITES: dict[str, str] = {
    "gemini-3(?![0-9]).*": "gemini-3(?:[^0-9].*)?",
    "(?i)minimax-m3(?![0-9]).*": "(?i)minimax-m3(?:[^0-9].*)?",
    "kimi-k3(?![0-9]).*": "kimi-k3(?:[^0-9].*)?",
    "kimi-k2\\.6(?![0-9]).*": "kimi-k2\\.6(?:[^0-9].*)?",
}
rule = sa.table(
    "model_rule",
    sa.column("engine_id", sa.Integer),
    sa.column("match", sa.String),
    sa.column("pattern", sa.String),
)


def upgrade() -> None:
    """Create capability and change_event, widen claim_event, rewrite the lookaheads."""
    op.create_table(
        "capability",
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("value_kind", sa.String(16), nullable=False),
        sa.Column("gates", sa.String(64), nullable=True),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("created_by", sa.String(128), nullable=False),
        sa.CheckConstraint("value_kind IN ('bool')", name=op.f("ck_capability_value_kind")),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_capability")),
    )
    op.create_table(
        "change_event",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("engine", sa.String(64), nullable=True),
        sa.Column("entity", sa.String(16), nullable=False),
        sa.Column("subject", sa.String(600), nullable=False),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("actor", sa.String(128), nullable=False),
        sa.Column("occurred_at", TIMESTAMP, nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.CheckConstraint(
            "entity IN ('engine', 'model', 'rule', 'capability')",
            name=op.f("ck_change_event_entity"),
        ),
        sa.CheckConstraint(
            "action IN ('add', 'remove', 'move', 'update')", name=op.f("ck_change_event_action")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_change_event")),
    )
    op.create_index(op.f("ix_change_event_engine"), "change_event", ["engine"], unique=False)
    op.create_index(
        op.f("ix_change_event_occurred_at"), "change_event", ["occurred_at"], unique=False
    )
    with op.batch_alter_table("claim_event") as batch:
        batch.add_column(sa.Column("action", sa.String(16), nullable=False, server_default="set"))
        batch.alter_column("new_value", existing_type=sa.Boolean(), nullable=True)
        batch.alter_column("new_status", existing_type=sa.String(16), nullable=True)
        batch.alter_column("new_evidence", existing_type=sa.Text(), nullable=True)
        batch.create_check_constraint("action", "action IN ('set', 'retract', 'remove')")
        batch.create_index(op.f("ix_claim_event_occurred_at"), ["occurred_at"], unique=False)
    bind = op.get_bind()
    for old, new in REWRITES.items():
        taken = bind.scalars(
            sa.select(rule.c.engine_id).where(rule.c.match == "regex", rule.c.pattern == new)
        ).all()
        update = rule.update().where(rule.c.match == "regex", rule.c.pattern == old)
        if taken:
            update = update.where(rule.c.engine_id.not_in(taken))
        op.execute(update.values(pattern=new))


def downgrade() -> None:
    """Drop the vocabulary and change_event; retraction events go with the action column."""
    for old, new in REWRITES.items():
        op.execute(
            rule.update().where(rule.c.match == "regex", rule.c.pattern == new).values(pattern=old)
        )
    event = sa.table("claim_event", sa.column("action", sa.String))
    op.execute(event.delete().where(event.c.action != "set"))
    with op.batch_alter_table("claim_event") as batch:
        batch.drop_index(op.f("ix_claim_event_occurred_at"))
        batch.drop_constraint(op.f("ck_claim_event_action"), type_="check")
        batch.alter_column("new_evidence", existing_type=sa.Text(), nullable=False)
        batch.alter_column("new_status", existing_type=sa.String(16), nullable=False)
        batch.alter_column("new_value", existing_type=sa.Boolean(), nullable=False)
        batch.drop_column("action")
    op.drop_index(op.f("ix_change_event_occurred_at"), table_name="change_event")
    op.drop_index(op.f("ix_change_event_engine"), table_name="change_event")
    op.drop_table("change_event")
    op.drop_table("capability")
