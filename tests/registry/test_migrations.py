"""Migrations: one head, up from empty, down and up again, schema matches the tables.

A new database is created from the tables directly (``bootstrap.create_schema``); the
tests below hold it to what the migrations build, structure and rows.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Engine
from toolwire.registry import db
from toolwire.registry.bootstrap import create_schema, ensure_ready
from toolwire.registry.errors import DatabaseError
from toolwire.registry.tables import metadata

TABLES = {
    "capability",
    "change_event",
    "claim",
    "claim_event",
    "engine",
    "evidence_policy",
    "model",
    "model_rule",
    "observation",
    "registry_state",
    "wire",
    "wire_form",
}
WIRES_0002 = {"anthropic", "openai", "responses", "gemini", "ollama", "hermes"}
WIRES_0004 = {*WIRES_0002, "bedrock"}  # 0004 adds the seventh
WIRES = {*WIRES_0004, "gemini-interactions"}  # 0008 adds the eighth


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    created = db.create_engine(database_url)
    yield created
    created.dispose()


def _tables(engine: Engine) -> set[str]:
    return set(sa.inspect(engine).get_table_names()) - {db.VERSION_TABLE}


def _wires(engine: Engine) -> dict[str, str]:
    with engine.connect() as connection:
        rows = connection.execute(sa.text("SELECT name, description FROM wire"))
        return {name: description for name, description in rows}


def test_single_head() -> None:
    scripts = ScriptDirectory.from_config(db.alembic_config())
    assert len(scripts.get_heads()) == 1
    assert db.head_revision() == scripts.get_current_head()


def test_each_migration_file_is_named_after_its_revision_and_revises_the_one_before() -> None:
    # db.head_revision reads the head from the file names (no alembic on a ready open).
    scripts = ScriptDirectory.from_config(db.alembic_config())
    revisions = sorted(scripts.walk_revisions(), key=lambda script: script.revision)
    previous = None
    for script in revisions:
        assert script.path is not None
        assert Path(script.path).name.startswith(f"{script.revision}_")
        assert script.down_revision == previous
        previous = script.revision
    assert db.head_revision() == scripts.get_current_head() == previous


def test_upgrade_from_empty(engine: Engine) -> None:
    assert db.current_revision(engine) is None
    db.upgrade(engine)
    assert db.current_revision(engine) == db.head_revision()
    assert _tables(engine) == TABLES
    assert set(_wires(engine)) == WIRES
    with engine.connect() as connection:
        state = connection.execute(sa.text("SELECT id, revision FROM registry_state")).all()
    assert [tuple(row) for row in state] == [(1, 0)]


def test_downgrade_to_base_and_up_again(engine: Engine) -> None:
    db.upgrade(engine)
    db.downgrade(engine, "base")
    assert db.current_revision(engine) is None
    assert _tables(engine) == set()
    db.upgrade(engine)
    assert db.current_revision(engine) == db.head_revision()
    assert _tables(engine) == TABLES


def test_models_match_migrated_schema(engine: Engine) -> None:
    db.upgrade(engine)

    def ours(
        obj: object, name: str | None, type_: str, reflected: bool, compare_to: object
    ) -> bool:
        return not (type_ == "table" and name == db.VERSION_TABLE)

    with engine.connect() as connection:
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "include_object": ours}
        )
        diffs = compare_metadata(context, metadata)
    assert diffs == []


def test_wire_migration_keeps_existing_rows(engine: Engine) -> None:
    db.upgrade(engine, "0001")
    with engine.begin() as connection:
        connection.execute(
            sa.text("INSERT INTO wire (name, description) VALUES ('hermes', 'ours')")
        )
    db.upgrade(engine, "0002")
    wires = _wires(engine)
    assert set(wires) == WIRES_0002
    assert wires["hermes"] == "ours"


def test_wire_migration_downgrade_keeps_referenced_wires(engine: Engine) -> None:
    db.upgrade(engine, "0002")
    now = datetime.now(UTC)
    with engine.begin() as connection:
        connection.execute(
            sa.text(
                "INSERT INTO engine (name, provider, family, default_wire, kind, note,"
                " created_at, created_by) VALUES ('local', 'p', 'openai', 'ollama',"
                " 'self-hosted', '', :now, 'test')"
            ),
            {"now": now},
        )
    db.downgrade(engine, "0001")
    assert set(_wires(engine)) == {"ollama"}
    db.upgrade(engine)
    assert set(_wires(engine)) == WIRES


def test_ensure_ready_migrates_and_seeds_once(engine: Engine) -> None:
    assert ensure_ready(engine) is True
    assert db.current_revision(engine) == db.head_revision()
    with engine.connect() as connection:
        engines = connection.scalar(sa.text("SELECT count(*) FROM engine"))
        revision = connection.scalar(sa.text("SELECT revision FROM registry_state"))
    assert engines and engines > 20
    assert ensure_ready(engine) is False
    with engine.connect() as connection:
        assert connection.scalar(sa.text("SELECT revision FROM registry_state")) == revision


def test_unknown_newer_revision_is_a_clear_error(engine: Engine) -> None:
    db.upgrade(engine)
    with engine.begin() as connection:
        connection.execute(sa.text(f"UPDATE {db.VERSION_TABLE} SET version_num = '9999'"))
    with pytest.raises(DatabaseError, match="unknown to this toolwire"):
        ensure_ready(engine)


def test_bedrock_migration_adds_the_seventh_wire_and_keeps_it_while_used(engine: Engine) -> None:
    db.upgrade(engine, "0002")
    assert set(_wires(engine)) == WIRES_0002
    db.upgrade(engine, "0004")
    assert set(_wires(engine)) == WIRES_0004
    db.downgrade(engine, "0002")
    assert set(_wires(engine)) == WIRES_0002  # unused: removed
    db.upgrade(engine, "0004")
    with engine.begin() as connection:
        connection.execute(
            sa.text(
                "INSERT INTO engine (name, provider, family, default_wire, kind, note,"
                " created_at, created_by) VALUES ('br', 'p', 'bedrock', 'bedrock',"
                " 'first-party', '', :now, 'test')"
            ),
            {"now": datetime.now(UTC)},
        )
    db.downgrade(engine, "0002")
    assert set(_wires(engine)) == WIRES_0004  # still named by an engine: kept
    db.upgrade(engine)
    assert set(_wires(engine)) == WIRES


def test_interactions_migration_adds_the_eighth_wire_and_keeps_it_while_used(
    engine: Engine,
) -> None:
    db.upgrade(engine, "0007")
    assert set(_wires(engine)) == WIRES_0004
    db.upgrade(engine, "0008")
    assert set(_wires(engine)) == WIRES
    db.downgrade(engine, "0007")
    assert set(_wires(engine)) == WIRES_0004  # unused: removed
    db.upgrade(engine, "0008")
    with engine.begin() as connection:
        connection.execute(
            sa.text(
                "INSERT INTO engine (name, provider, family, default_wire, kind, note,"
                " created_at, created_by) VALUES ('gi', 'p', 'gemini', 'gemini-interactions',"
                " 'first-party', '', :now, 'test')"
            ),
            {"now": datetime.now(UTC)},
        )
    db.downgrade(engine, "0007")
    assert set(_wires(engine)) == WIRES  # still named by an engine: kept
    db.upgrade(engine)
    assert set(_wires(engine)) == WIRES


def _structure(engine: Engine) -> dict[str, dict[str, Any]]:
    """Return every table of the database as reflected: columns, keys, indexes, checks."""
    inspector = sa.inspect(engine)
    dialect = engine.dialect

    def column(found: dict[str, Any]) -> dict[str, Any]:
        return {**found, "type": found["type"].compile(dialect)}

    def by_name(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return sorted(items, key=lambda item: str(item.get("name")))

    def check(found: dict[str, Any]) -> dict[str, Any]:
        # SQLite keeps each CREATE TABLE as written: compare the condition, not its spacing
        return {**found, "sqltext": " ".join(str(found["sqltext"]).split())}

    return {
        table: {
            "columns": [column(c) for c in inspector.get_columns(table)],
            "primary_key": inspector.get_pk_constraint(table),
            "foreign_keys": by_name(inspector.get_foreign_keys(table)),
            "indexes": by_name(inspector.get_indexes(table)),
            "unique": by_name(inspector.get_unique_constraints(table)),
            "checks": by_name([check(c) for c in inspector.get_check_constraints(table)]),
        }
        for table in sorted(inspector.get_table_names())
    }


def _fixed_rows(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    """Return the rows a new database holds before seeding (timestamps left out)."""
    queries = {
        "wire": "SELECT name, description FROM wire ORDER BY name",
        "registry_state": "SELECT id, revision FROM registry_state",
        "evidence_policy": "SELECT status, max_age_days, updated_by FROM evidence_policy"
        " ORDER BY status",
        db.VERSION_TABLE: f"SELECT version_num FROM {db.VERSION_TABLE}",
    }
    with engine.connect() as connection:
        return {
            table: [tuple(row) for row in connection.execute(sa.text(sql))]
            for table, sql in queries.items()
        }


@pytest.fixture
def created(second_database_url: str) -> Iterator[Engine]:
    """An empty database given the head schema by create_schema, not by migrations."""
    made = db.create_engine(second_database_url)
    db.create_sqlite_file(made)
    with db.migration_connection(made) as connection:
        create_schema(connection)
    yield made
    made.dispose()


def test_created_schema_equals_the_migrated_one(engine: Engine, created: Engine) -> None:
    db.upgrade(engine)
    migrated, made = _structure(engine), _structure(created)
    assert set(made) == {*TABLES, db.VERSION_TABLE}
    assert set(migrated) == set(made)
    for table in migrated:  # one table at a time, so a failure names it
        assert made[table] == migrated[table], table
    # the comparison sees what it should: named constraints, indexes, types, defaults
    claim_event = made["claim_event"]
    assert {c["name"]: c["nullable"] for c in claim_event["columns"]}["new_value"] is True
    assert "set" in str({c["name"]: c["default"] for c in claim_event["columns"]}["action"])
    assert "ck_claim_event_action" in {c["name"] for c in claim_event["checks"]}
    assert {i["name"] for i in made["claim"]["indexes"]} >= {"ix_claim_capability"}
    assert made["claim"]["foreign_keys"][0]["options"].get("ondelete") == "CASCADE"


def test_created_schema_holds_the_migrated_rows(engine: Engine, created: Engine) -> None:
    db.upgrade(engine)
    assert _fixed_rows(created) == _fixed_rows(engine)
    assert _fixed_rows(created)[db.VERSION_TABLE] == [(db.head_revision(),)]
    assert {name for name, _ in _fixed_rows(created)["wire"]} == WIRES


def test_a_new_database_is_created_without_alembic(database_url: str) -> None:
    import subprocess
    import sys

    code = (
        "import sys; from toolwire.registry import Registry; "
        f"r = Registry({database_url!r}); r.close(); "
        "print(sorted(m for m in ('alembic', 'sqlalchemy.orm') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
    engine = db.create_engine(database_url)
    try:
        assert db.current_revision(engine) == db.head_revision()
        with engine.connect() as connection:
            assert connection.scalar(sa.text("SELECT count(*) FROM engine"))
    finally:
        engine.dispose()


def test_a_database_behind_head_is_still_migrated(engine: Engine) -> None:
    db.upgrade(engine, "0004")
    assert ensure_ready(engine) is True
    assert db.current_revision(engine) == db.head_revision()
    assert _tables(engine) == TABLES


def test_evidence_policy_migration_adds_the_default_beside_existing_rows(engine: Engine) -> None:
    db.upgrade(engine, "0005")
    with engine.begin() as connection:
        connection.execute(
            sa.text(
                "INSERT INTO engine (name, provider, family, default_wire, kind, note,"
                " created_at, created_by) VALUES ('anthropic', 'p', 'anthropic', 'anthropic',"
                " 'first-party', '', :now, 'test')"
            ),
            {"now": datetime(2026, 12, 1, tzinfo=UTC)},
        )
    db.upgrade(engine, "0007")
    with engine.connect() as connection:
        rows = connection.execute(
            sa.text("SELECT status, max_age_days FROM evidence_policy ORDER BY status")
        )
        assert [tuple(r) for r in rows] == [
            ("documented", None),
            ("inferred", None),
            ("live-verified", 90),
            ("unverified", None),
        ]
        assert connection.scalar(sa.text("SELECT count(*) FROM engine")) == 1
    with pytest.raises(sa.exc.IntegrityError), engine.begin() as connection:
        connection.execute(sa.text("UPDATE evidence_policy SET max_age_days = -1"))
    db.downgrade(engine, "0006")
    assert "evidence_policy" not in sa.inspect(engine).get_table_names()
    with engine.connect() as connection:
        assert connection.scalar(sa.text("SELECT count(*) FROM engine")) == 1
    db.upgrade(engine)
    assert "evidence_policy" in _tables(engine)
