"""Add the engine's call-id rule, and give the seeded Mistral engine Mistral's.

``id_rule`` names a rule of ``toolwire.convert.ID_RULES`` the engine's results keep
(NULL: the wire's own). Mistral's API and ``mistral_common`` take only 9 letters and
digits, so an existing ``mistral`` engine on the openai wire gets ``mistral``.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

engine = sa.table(
    "engine",
    sa.column("name", sa.String),
    sa.column("default_wire", sa.String),
    sa.column("id_rule", sa.String),
)


def upgrade() -> None:
    """Add ``engine.id_rule``; set ``mistral`` on the seeded Mistral engine."""
    with op.batch_alter_table("engine") as batch:
        batch.add_column(sa.Column("id_rule", sa.String(32), nullable=True))
    op.execute(
        engine.update()
        .where(engine.c.name == "mistral", engine.c.default_wire == "openai")
        .values(id_rule="mistral")
    )


def downgrade() -> None:
    """Drop ``engine.id_rule``."""
    with op.batch_alter_table("engine") as batch:
        batch.drop_column("id_rule")
