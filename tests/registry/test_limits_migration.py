"""Migration 0009 (claims that hold limits and MIME types), up and down with rows in place."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from toolwire.registry import db

NOW = datetime(2026, 12, 1, tzinfo=UTC)


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    created = db.create_engine(database_url)
    yield created
    created.dispose()


def _exec(engine: Engine, sql: str, **params: object) -> None:
    with engine.begin() as connection:
        connection.execute(sa.text(sql), params)


def _rows(engine: Engine, sql: str) -> list[tuple[object, ...]]:
    with engine.connect() as connection:
        return [tuple(row) for row in connection.execute(sa.text(sql))]


def _claim(engine: Engine, capability: str, value: object, value_json: object | None) -> None:
    _exec(
        engine,
        "INSERT INTO claim (engine_id, subject_key, capability, value, value_json, status,"
        " evidence, recorded_by, recorded_at) VALUES (1, 'engine', :capability, :value,"
        " :value_json, 'documented', 'e', 'test', :now)",
        capability=capability,
        value=value,
        value_json=None if value_json is None else json.dumps(value_json),
        now=NOW,
    )


def _capability(engine: Engine, name: str, kind: str) -> None:
    _exec(
        engine,
        "INSERT INTO capability (name, description, value_kind, created_at, created_by)"
        " VALUES (:name, 'd', :kind, :now, 'test')",
        name=name,
        kind=kind,
        now=NOW,
    )


def test_0009_keeps_bool_claims_and_takes_limits(engine: Engine) -> None:
    db.upgrade(engine, "0008")
    _exec(
        engine,
        "INSERT INTO engine (id, name, provider, family, default_wire, kind, note, created_at,"
        " created_by) VALUES (1, 'anthropic', 'p', 'anthropic', 'anthropic', 'first-party',"
        " '', :now, 'test')",
        now=NOW,
    )
    _capability(engine, "image_input", "bool")
    with pytest.raises(sa.exc.IntegrityError):  # before 0009 a capability is a flag
        _capability(engine, "max_images", "int")
    _exec(
        engine,
        "INSERT INTO claim (engine_id, subject_key, capability, value, status, evidence,"
        " recorded_by, recorded_at) VALUES (1, 'engine', 'image_input', :yes, 'documented',"
        " 'e', 'test', :now)",
        yes=True,
        now=NOW,
    )

    db.upgrade(engine, "0009")
    assert _rows(engine, "SELECT capability, value, value_json FROM claim") == [
        ("image_input", True, None)
    ]
    _capability(engine, "max_images", "int")
    _capability(engine, "image_mimes", "mimes")
    _claim(engine, "max_images", None, 600)
    _claim(engine, "image_mimes", None, ["image/jpeg", "image/png"])
    found = dict(_rows(engine, "SELECT capability, value_json FROM claim WHERE value IS NULL"))
    decoded = {k: json.loads(v) if isinstance(v, str) else v for k, v in found.items()}
    assert decoded == {"max_images": 600, "image_mimes": ["image/jpeg", "image/png"]}
    # exactly one of the two values: neither, or both, is refused by the database
    with pytest.raises(sa.exc.IntegrityError):
        _claim(engine, "many_images", None, None)
    with pytest.raises(sa.exc.IntegrityError):
        _claim(engine, "many_images", True, 20)
    with pytest.raises(sa.exc.IntegrityError):
        _capability(engine, "odd", "float")

    _exec(  # a history event of the limit claim, as every write records one
        engine,
        "INSERT INTO claim_event (claim_id, engine, subject_key, subject, capability,"
        " new_status, new_evidence, new_value_json, actor, occurred_at, action)"
        " SELECT id, 'anthropic', 'engine', 'engine', capability, status, evidence,"
        " value_json, 'test', :now, 'set' FROM claim WHERE capability = 'max_images'",
        now=NOW,
    )

    db.downgrade(engine, "0008")
    assert _rows(engine, "SELECT capability, value FROM claim") == [("image_input", True)]
    # the set event stays in the history, no longer pointing at the removed claim
    assert _rows(engine, "SELECT claim_id, action FROM claim_event WHERE actor = 'test'") == [
        (None, "set")
    ]
    assert _rows(engine, "SELECT name FROM capability") == [("image_input",)]
    removed = _rows(
        engine,
        "SELECT capability, action, old_status, actor FROM claim_event WHERE action = 'remove'"
        " ORDER BY capability",
    )
    assert removed == [
        ("image_mimes", "remove", "documented", "migration"),
        ("max_images", "remove", "documented", "migration"),
    ]
    columns = {c["name"] for c in sa.inspect(engine).get_columns("claim")}
    assert "value_json" not in columns
    with pytest.raises(sa.exc.IntegrityError):  # value is NOT NULL again
        _exec(
            engine,
            "INSERT INTO claim (engine_id, subject_key, capability, status, evidence,"
            " recorded_by, recorded_at) VALUES (1, 'rule:9', 'image_input', 'documented',"
            " 'e', 'test', :now)",
            now=NOW,
        )

    db.upgrade(engine)
    assert db.current_revision(engine) == db.head_revision()
    assert "new_value_json" in {c["name"] for c in sa.inspect(engine).get_columns("claim_event")}


def test_a_registry_on_0008_gets_the_limits_when_it_is_set_up(engine: Engine) -> None:
    from toolwire.registry.bootstrap import ensure_ready

    db.upgrade(engine, "0008")
    assert ensure_ready(engine) is True  # migrated to head, then seeded
    assert _rows(engine, "SELECT value_kind FROM capability WHERE name = 'image_mimes'") == [
        ("mimes",)
    ]
    found = _rows(
        engine,
        "SELECT claim.value_json FROM claim JOIN engine ON engine.id = claim.engine_id"
        " WHERE engine.name = 'anthropic' AND claim.capability = 'max_images'",
    )
    assert [json.loads(v) if isinstance(v, str) else v for (v,) in found] == [100]
