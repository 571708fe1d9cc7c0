"""Create the registry schema.

Revision ID: 0001
Revises:
Create Date: 2026-10-01
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Frozen copies of the vocabularies as of this revision: a migration never imports
# the live models, whose values may move on.
STATUSES = "'live-verified', 'documented', 'inferred', 'unverified'"
TIMESTAMP = sa.DateTime(timezone=True)


def upgrade() -> None:
    """Create every table and the single registry_state row."""
    op.create_table(
        "wire",
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_wire")),
    )
    op.create_table(
        "wire_form",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("wire", sa.String(32), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("evidence", sa.Text(), nullable=False),
        sa.Column("source", sa.Text(), nullable=True),
        sa.Column("recorded_by", sa.String(128), nullable=False),
        sa.Column("recorded_at", TIMESTAMP, nullable=False),
        sa.CheckConstraint("kind IN ('image', 'pdf')", name=op.f("ck_wire_form_kind")),
        sa.CheckConstraint(f"status IN ({STATUSES})", name=op.f("ck_wire_form_status")),
        sa.ForeignKeyConstraint(["wire"], ["wire.name"], name=op.f("fk_wire_form_wire_wire")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_wire_form")),
        sa.UniqueConstraint("wire", "kind", name=op.f("uq_wire_form_wire_kind")),
    )
    op.create_table(
        "engine",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("provider", sa.String(256), nullable=False),
        sa.Column("family", sa.String(32), nullable=False),
        sa.Column("default_wire", sa.String(32), nullable=False),
        sa.Column("base_url", sa.String(512), nullable=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("response_tag", sa.String(64), nullable=True),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("created_by", sa.String(128), nullable=False),
        sa.CheckConstraint(
            "kind IN ('first-party', 'shim', 'gateway', 'self-hosted')",
            name=op.f("ck_engine_kind"),
        ),
        sa.ForeignKeyConstraint(
            ["default_wire"], ["wire.name"], name=op.f("fk_engine_default_wire_wire")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_engine")),
        sa.UniqueConstraint("name", name=op.f("uq_engine_name")),
    )
    op.create_table(
        "model",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("engine_id", sa.Integer(), nullable=False),
        sa.Column("model_id", sa.String(256), nullable=False),
        sa.Column("wire", sa.String(32), nullable=True),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("created_by", sa.String(128), nullable=False),
        sa.ForeignKeyConstraint(
            ["engine_id"],
            ["engine.id"],
            name=op.f("fk_model_engine_id_engine"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(["wire"], ["wire.name"], name=op.f("fk_model_wire_wire")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_model")),
        sa.UniqueConstraint("engine_id", "model_id", name=op.f("uq_model_engine_id_model_id")),
    )
    op.create_table(
        "model_rule",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("engine_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("match", sa.String(8), nullable=False),
        sa.Column("pattern", sa.String(512), nullable=False),
        sa.Column("wire", sa.String(32), nullable=True),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("created_by", sa.String(128), nullable=False),
        sa.CheckConstraint("match IN ('exact', 'regex')", name=op.f("ck_model_rule_match")),
        sa.ForeignKeyConstraint(
            ["engine_id"],
            ["engine.id"],
            name=op.f("fk_model_rule_engine_id_engine"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(["wire"], ["wire.name"], name=op.f("fk_model_rule_wire_wire")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_model_rule")),
        sa.UniqueConstraint(
            "engine_id", "match", "pattern", name=op.f("uq_model_rule_engine_id_match_pattern")
        ),
    )
    op.create_index(
        op.f("ix_model_rule_engine_id"), "model_rule", ["engine_id", "position"], unique=False
    )
    op.create_table(
        "claim",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("engine_id", sa.Integer(), nullable=False),
        sa.Column("subject_key", sa.String(300), nullable=False),
        sa.Column("model_row_id", sa.Integer(), nullable=True),
        sa.Column("rule_id", sa.Integer(), nullable=True),
        sa.Column("capability", sa.String(64), nullable=False),
        sa.Column("value", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("evidence", sa.Text(), nullable=False),
        sa.Column("source", sa.Text(), nullable=True),
        sa.Column("verified_at", sa.Date(), nullable=True),
        sa.Column("recorded_by", sa.String(128), nullable=False),
        sa.Column("recorded_at", TIMESTAMP, nullable=False),
        sa.CheckConstraint(f"status IN ({STATUSES})", name=op.f("ck_claim_status")),
        sa.CheckConstraint(
            "model_row_id IS NULL OR rule_id IS NULL", name=op.f("ck_claim_one_subject")
        ),
        sa.ForeignKeyConstraint(
            ["engine_id"],
            ["engine.id"],
            name=op.f("fk_claim_engine_id_engine"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["model_row_id"],
            ["model.id"],
            name=op.f("fk_claim_model_row_id_model"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["rule_id"],
            ["model_rule.id"],
            name=op.f("fk_claim_rule_id_model_rule"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_claim")),
        sa.UniqueConstraint(
            "engine_id",
            "subject_key",
            "capability",
            name=op.f("uq_claim_engine_id_subject_key_capability"),
        ),
    )
    op.create_index(op.f("ix_claim_capability"), "claim", ["capability"], unique=False)
    op.create_index(op.f("ix_claim_model_row_id"), "claim", ["model_row_id"], unique=False)
    op.create_index(op.f("ix_claim_rule_id"), "claim", ["rule_id"], unique=False)
    op.create_table(
        "claim_event",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("claim_id", sa.Integer(), nullable=True),
        sa.Column("engine", sa.String(64), nullable=False),
        sa.Column("subject_key", sa.String(300), nullable=False),
        sa.Column("subject", sa.String(600), nullable=False),
        sa.Column("capability", sa.String(64), nullable=False),
        sa.Column("old_value", sa.Boolean(), nullable=True),
        sa.Column("old_status", sa.String(16), nullable=True),
        sa.Column("old_evidence", sa.Text(), nullable=True),
        sa.Column("new_value", sa.Boolean(), nullable=False),
        sa.Column("new_status", sa.String(16), nullable=False),
        sa.Column("new_evidence", sa.Text(), nullable=False),
        sa.Column("old_source", sa.Text(), nullable=True),
        sa.Column("new_source", sa.Text(), nullable=True),
        sa.Column("old_verified_at", sa.Date(), nullable=True),
        sa.Column("new_verified_at", sa.Date(), nullable=True),
        sa.Column("actor", sa.String(128), nullable=False),
        sa.Column("occurred_at", TIMESTAMP, nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["claim_id"],
            ["claim.id"],
            name=op.f("fk_claim_event_claim_id_claim"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_claim_event")),
    )
    op.create_index(
        op.f("ix_claim_event_engine"),
        "claim_event",
        ["engine", "subject_key", "capability"],
        unique=False,
    )
    op.create_index(op.f("ix_claim_event_claim_id"), "claim_event", ["claim_id"], unique=False)
    state = op.create_table(
        "registry_state",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("updated_at", TIMESTAMP, nullable=False),
        sa.CheckConstraint("id = 1", name=op.f("ck_registry_state_single_row")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_registry_state")),
    )
    op.bulk_insert(state, [{"id": 1, "revision": 0, "updated_at": datetime.now(UTC)}])


def downgrade() -> None:
    """Drop every table."""
    for table in (
        "registry_state",
        "claim_event",
        "claim",
        "model_rule",
        "model",
        "engine",
        "wire_form",
        "wire",
    ):
        op.drop_table(table)
