"""Migration 0006: ``engine.id_rule`` arrives beside existing rows (Mistral's set), and goes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from toolwire.registry import db


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    created = db.create_engine(database_url)
    yield created
    created.dispose()


def _insert_engine(engine: Engine, name: str, wire: str) -> None:
    with engine.begin() as connection:
        connection.execute(
            sa.text(
                "INSERT INTO engine (name, provider, family, default_wire, kind, note,"
                " created_at, created_by) VALUES (:name, 'p', 'openai', :wire, 'first-party',"
                " 'kept', CURRENT_TIMESTAMP, 'test')"
            ),
            {"name": name, "wire": wire},
        )


def _rows(engine: Engine, columns: str) -> list[tuple[object, ...]]:
    with engine.connect() as connection:
        return [tuple(r) for r in connection.execute(sa.text(f"SELECT {columns} FROM engine"))]


def test_upgrade_sets_mistral_and_keeps_every_row(engine: Engine) -> None:
    db.upgrade(engine, "0005")
    _insert_engine(engine, "mistral", "openai")
    _insert_engine(engine, "vllm", "openai")
    _insert_engine(engine, "ollama", "ollama")
    db.upgrade(engine, "0006")
    assert sorted(_rows(engine, "name, id_rule, note")) == [
        ("mistral", "mistral", "kept"),
        ("ollama", None, "kept"),
        ("vllm", None, "kept"),
    ]
    db.downgrade(engine, "0005")
    assert sorted(_rows(engine, "name, note")) == [
        ("mistral", "kept"),
        ("ollama", "kept"),
        ("vllm", "kept"),
    ]
    with engine.connect() as connection:
        columns = {c["name"] for c in sa.inspect(connection).get_columns("engine")}
    assert "id_rule" not in columns
