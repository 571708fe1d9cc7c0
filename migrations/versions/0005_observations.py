"""Create the append-only observation log of live probes.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Frozen copies of the vocabularies as of this revision.
SCENARIOS = "'image_input', 'tool_result_images', 'tool_result_pdf', 'source_blocks'"
OUTCOMES = "'read', 'ignored', 'rejected', 'error'"


def upgrade() -> None:
    """Create the observation table and its lookup index."""
    op.create_table(
        "observation",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("engine", sa.String(64), nullable=False),
        sa.Column("model", sa.String(256), nullable=False),
        sa.Column("wire", sa.String(32), nullable=False),
        sa.Column("scenario", sa.String(32), nullable=False),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("observed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("recorded_by", sa.String(128), nullable=False),
        sa.Column("endpoint", sa.String(512), nullable=False),
        sa.Column("http_status", sa.Integer(), nullable=True),
        sa.Column("latency_ms", sa.Integer(), nullable=True),
        sa.Column("excerpt", sa.Text(), nullable=False),
        sa.Column("request_sha256", sa.String(64), nullable=False),
        sa.Column("challenge", sa.String(16), nullable=False),
        sa.Column("toolwire_version", sa.String(32), nullable=False),
        sa.CheckConstraint(f"scenario IN ({SCENARIOS})", name=op.f("ck_observation_scenario")),
        sa.CheckConstraint(f"outcome IN ({OUTCOMES})", name=op.f("ck_observation_outcome")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_observation")),
    )
    op.create_index(op.f("ix_observation_engine"), "observation", ["engine", "model", "scenario"])


def downgrade() -> None:
    """Drop the observation log (its rows go with it)."""
    op.drop_index(op.f("ix_observation_engine"), table_name="observation")
    op.drop_table("observation")
