"""Insert the bedrock wire (Amazon Bedrock Converse).

Engines, models and rules name their wire through a foreign key to ``wire``, so the
seventh wire is a row the schema needs before any engine can use it. A row that
already exists is kept as it is.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NAME = "bedrock"
DESCRIPTION = "Amazon Bedrock Converse: toolResult blocks inside a user turn"

wire = sa.table("wire", sa.column("name", sa.String), sa.column("description", sa.Text))


def upgrade() -> None:
    """Insert the bedrock wire unless it is there."""
    present = op.get_bind().scalar(sa.select(wire.c.name).where(wire.c.name == NAME))
    if present is None:
        op.bulk_insert(wire, [{"name": NAME, "description": DESCRIPTION}])


def downgrade() -> None:
    """Delete the bedrock wire unless an engine, model, rule or wire form still uses it."""
    referenced = sa.union(
        sa.select(sa.column("default_wire")).select_from(sa.table("engine")),
        sa.select(sa.column("wire")).select_from(sa.table("model")),
        sa.select(sa.column("wire")).select_from(sa.table("model_rule")),
        sa.select(sa.column("wire")).select_from(sa.table("wire_form")),
    )
    if NAME not in set(op.get_bind().scalars(referenced)):
        op.execute(wire.delete().where(wire.c.name == NAME))
