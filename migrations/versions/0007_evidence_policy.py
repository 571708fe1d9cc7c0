"""Store how long evidence of each status stays fresh (the evidence policy).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Frozen copies as of this revision: the statuses and the default policy.
STATUSES = "'live-verified', 'documented', 'inferred', 'unverified'"
DEFAULT_POLICY = (
    ("live-verified", 90),
    ("documented", None),
    ("inferred", None),
    ("unverified", None),
)


def upgrade() -> None:
    """Create the evidence_policy table with one row per status (live-verified: 90 days)."""
    table = op.create_table(
        "evidence_policy",
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("max_age_days", sa.Integer(), nullable=True),
        sa.Column("updated_by", sa.String(128), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(f"status IN ({STATUSES})", name=op.f("ck_evidence_policy_status")),
        sa.CheckConstraint(
            "max_age_days IS NULL OR (max_age_days >= 0 AND max_age_days <= 36500)",
            name=op.f("ck_evidence_policy_max_age_days"),
        ),
        sa.PrimaryKeyConstraint("status", name=op.f("pk_evidence_policy")),
    )
    now = datetime.now(UTC)
    if op.get_bind().dialect.name == "sqlite":
        now = now.replace(tzinfo=None)  # stored as UTC without an offset, as the tables do
    op.bulk_insert(
        table,
        [
            {"status": status, "max_age_days": days, "updated_by": "seed", "updated_at": now}
            for status, days in DEFAULT_POLICY
        ],
    )


def downgrade() -> None:
    """Drop the evidence policy (every claim stops ageing)."""
    op.drop_table("evidence_policy")
