"""First-use setup: create, migrate and seed a registry database, below the store.

The import graph points one way (``tests/test_import_graph.py`` holds it): errors,
vocabularies and records at the bottom; then the schema, ``db`` (connections,
migrations), the writer (``_write``: one module per noun), the evidence policy on a
connection (``_aging``) and the seed; this bootstrap; the store (``Registry``), which
calls ``ensure_ready`` here when it is asked to set a database up; then what reads a
``Registry`` (evidence, the resolver, observations, catalog, transfer, matrix) and the
CLI on top.

A database without any table gets the head schema in one step, from the tables of
``toolwire.registry.tables``, without alembic (which, imported and run, took longer
than the seeding); a database that is behind head is migrated by alembic, step by
step, as before. A test holds the two paths to the same schema and rows.
"""

from __future__ import annotations

from sqlalchemy.engine import Connection, Engine

from . import db
from .errors import NoRegistry, ReadOnlyRegistry

__all__ = ["create_schema", "ensure_ready"]


def ensure_ready(engine: Engine, *, force: bool = False) -> bool:
    """Bring the database to head and seed it when it is not at head; return whether it did.

    Safe when several processes do it at once: the first one sets up, the others wait
    for it and then find the database at head. Schema and seed are one transaction, so
    a failure leaves the database as it was.

    A database that holds other tables and no toolwire schema is never migrated into,
    unless ``force``.

    :raises NoRegistry: for a database with other tables and no toolwire schema.
    :raises ReadOnlyRegistry: for a read-only SQLite file that is not at head.
    :raises DatabaseError: when the database cannot be migrated or seeded.
    """
    head = db.head_revision()
    db.create_sqlite_file(engine)  # 0600 before SQLite creates it with the umask's mode
    current = db.current_revision(engine)
    if current == head:
        return False
    read_only = db.read_only(engine)
    if read_only is not None:
        path, reason = read_only
        raise ReadOnlyRegistry(
            path,
            reason,
            f"its schema is at {current or 'nothing'} and this toolwire needs {head}: "
            "run 'toolwire db upgrade' as a user who may write it",
        )
    with (
        db.wrap_errors("database setup failed"),
        db.setup_lock(engine),
        db.migration_connection(engine) as connection,
    ):
        current = db.revision_of(connection)
        if current == head:
            return False  # another process finished the setup while we waited
        db.check_known(current)
        tables = [] if current is not None else db.foreign_tables(connection)
        if tables and not force:
            raise NoRegistry(
                f"the database holds other tables ({', '.join(tables[:5])}) and no toolwire "
                "schema; not migrating into it (toolwire db upgrade --force does)"
            )
        if current is None and not tables:
            create_schema(connection)
        else:
            from alembic import command

            command.upgrade(db.alembic_config(connection), "head")
        from ._seed import seed_connection  # only a setup reads the seed files

        seed_connection(connection)
    return True


def create_schema(connection: Connection) -> None:
    """Create the head schema, its fixed rows and the revision in an empty database.

    The same result as running every migration from empty: the tables of
    ``toolwire.registry.tables``, the wires, the ``registry_state`` row, the default
    evidence policy and the head
    revision in the version table. ``connection`` must be in a write transaction.
    """
    from .tables import (
        WIRES,
        evidence_policy_table,
        metadata,
        registry_state_table,
        utcnow,
        wire_table,
    )
    from .vocab import DEFAULT_EVIDENCE_POLICY

    metadata.create_all(connection, checkfirst=False)
    db.version_table.create(connection, checkfirst=False)
    connection.execute(db.version_table.insert(), {"version_num": db.head_revision()})
    connection.execute(
        wire_table.insert(), [{"name": n, "description": d} for n, d in WIRES.items()]
    )
    connection.execute(
        registry_state_table.insert(), {"id": 1, "revision": 0, "updated_at": utcnow()}
    )
    connection.execute(
        evidence_policy_table.insert(),
        [
            {"status": status, "max_age_days": days, "updated_by": "seed", "updated_at": utcnow()}
            for status, days in DEFAULT_EVIDENCE_POLICY.items()
        ],
    )
