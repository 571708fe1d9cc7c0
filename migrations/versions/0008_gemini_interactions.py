"""Insert the gemini-interactions wire (Google's Interactions API).

Engines, models and rules name their wire through a foreign key to ``wire``, so the
eighth wire is a row the schema needs before any engine can use it. A row that
already exists is kept as it is.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NAME = "gemini-interactions"
DESCRIPTION = "Google Gemini Interactions API: function_result steps in the interaction's input"

wire = sa.table("wire", sa.column("name", sa.String), sa.column("description", sa.Text))


def upgrade() -> None:
    """Insert the gemini-interactions wire unless it is there."""
    present = op.get_bind().scalar(sa.select(wire.c.name).where(wire.c.name == NAME))
    if present is None:
        op.bulk_insert(wire, [{"name": NAME, "description": DESCRIPTION}])


def downgrade() -> None:
    """Delete the wire unless an engine, model, rule or wire form still uses it."""
    referenced = sa.union(
        sa.select(sa.column("default_wire")).select_from(sa.table("engine")),
        sa.select(sa.column("wire")).select_from(sa.table("model")),
        sa.select(sa.column("wire")).select_from(sa.table("model_rule")),
        sa.select(sa.column("wire")).select_from(sa.table("wire_form")),
    )
    if NAME not in set(op.get_bind().scalars(referenced)):
        op.execute(wire.delete().where(wire.c.name == NAME))
