"""Migration 0005: the observation table arrives empty beside existing rows, and goes again."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from toolwire.registry import db

NOW = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
ROW = {
    "engine": "anthropic",
    "model": "claude-sonnet-4-5",
    "wire": "anthropic",
    "scenario": "tool_result_images",
    "outcome": "ignored",
    "observed_at": NOW,
    "recorded_by": "ops",
    "endpoint": "https://api.anthropic.com",
    "http_status": 200,
    "latency_ms": 812,
    "excerpt": "I cannot see any code.",
    "request_sha256": "0" * 64,
    "challenge": "ACEFHJ",
    "toolwire_version": "0.1.0",
}


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    created = db.create_engine(database_url)
    yield created
    created.dispose()


def _count(engine: Engine, table: str) -> int:
    with engine.connect() as connection:
        return int(connection.scalar(sa.text(f"SELECT count(*) FROM {table}")) or 0)


def _insert_observation(engine: Engine, **changes: object) -> None:
    columns = {**ROW, **changes}
    names = ", ".join(columns)
    values = ", ".join(f":{name}" for name in columns)
    with engine.begin() as connection:
        connection.execute(sa.text(f"INSERT INTO observation ({names}) VALUES ({values})"), columns)


def test_upgrade_keeps_rows_and_downgrade_drops_only_observations(engine: Engine) -> None:
    db.upgrade(engine, "0004")
    with engine.begin() as connection:
        connection.execute(
            sa.text(
                "INSERT INTO engine (name, provider, family, default_wire, kind, note,"
                " created_at, created_by) VALUES ('anthropic', 'p', 'anthropic', 'anthropic',"
                " 'first-party', '', :now, 'test')"
            ),
            {"now": NOW},
        )
    db.upgrade(engine, "0005")
    assert "observation" in sa.inspect(engine).get_table_names()
    assert _count(engine, "engine") == 1
    assert _count(engine, "observation") == 0
    _insert_observation(engine)
    with engine.connect() as connection:
        row = connection.execute(sa.text("SELECT engine, outcome, challenge FROM observation"))
        assert [tuple(r) for r in row] == [("anthropic", "ignored", "ACEFHJ")]
    db.downgrade(engine, "0004")
    tables = sa.inspect(engine).get_table_names()
    assert "observation" not in tables
    assert {"capability", "change_event"} <= set(tables)  # 0003's tables stay
    assert _count(engine, "engine") == 1
    with engine.connect() as connection:  # 0004's bedrock wire row stays
        assert connection.scalar(sa.text("SELECT count(*) FROM wire WHERE name = 'bedrock'")) == 1
    db.upgrade(engine)
    assert _count(engine, "observation") == 0


@pytest.mark.parametrize(
    "changes", [{"outcome": "maybe"}, {"scenario": "audio_input"}, {"challenge": None}]
)
def test_the_table_refuses_rows_outside_the_vocabulary(
    engine: Engine, changes: dict[str, object]
) -> None:
    db.upgrade(engine)
    with pytest.raises(sa.exc.IntegrityError):
        _insert_observation(engine, **changes)
    assert _count(engine, "observation") == 0
