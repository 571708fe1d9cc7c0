"""Insert the six wires.

Every engine, model and rule names its wire through a foreign key to ``wire``, so the
rows are part of the schema's contract rather than seed data. Rows that already exist
(an operator may have inserted one by hand) are kept as they are.

Revision ID: 0002
Revises: 0001
Create Date: 2026-10-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

WIRES: dict[str, str] = {
    "anthropic": "Anthropic Messages: tool_result blocks inside a user turn",
    "openai": "OpenAI Chat Completions: one role=tool message per result",
    "responses": "OpenAI Responses (also Perplexity Agent API): function_call_output items",
    "gemini": "Google Gemini: functionResponse parts inside a user turn",
    "ollama": "Ollama native /api/chat: role=tool messages with tool_name",
    "hermes": "Hermes function calling: <tool_response> tags in a tool message",
}

wire = sa.table("wire", sa.column("name", sa.String), sa.column("description", sa.Text))


def upgrade() -> None:
    """Insert each wire that is not there yet."""
    bind = op.get_bind()
    present = set(bind.scalars(sa.select(wire.c.name)))
    missing = [{"name": n, "description": d} for n, d in WIRES.items() if n not in present]
    if missing:
        op.bulk_insert(wire, missing)


def downgrade() -> None:
    """Delete the six wires, keeping any still referenced by an engine, model or rule."""
    referenced = sa.union(
        sa.select(sa.column("default_wire")).select_from(sa.table("engine")),
        sa.select(sa.column("wire")).select_from(sa.table("model")),
        sa.select(sa.column("wire")).select_from(sa.table("model_rule")),
        sa.select(sa.column("wire")).select_from(sa.table("wire_form")),
    )
    in_use = {name for name in op.get_bind().scalars(referenced) if name is not None}
    op.execute(wire.delete().where(wire.c.name.in_(sorted(set(WIRES) - in_use))))
