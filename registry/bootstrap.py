"""First-use setup: create, migrate and seed a registry database, above the store.

The import graph points one way: errors and records at the bottom, then ``db``
(connections, migrations), the store and its writer, the seed and import/export, this
bootstrap, the resolver, and the CLI on top. ``Registry(url)`` calls ``ensure_ready``
here when it is asked to set a database up.
"""

from __future__ import annotations

from sqlalchemy.engine import Engine

from . import db
from ._seed import seed_connection
from .errors import NoRegistry

__all__ = ["ensure_ready"]


def ensure_ready(engine: Engine, *, force: bool = False) -> bool:
    """Migrate to head and seed when the database is not at head; return whether it did.

    Safe when several processes do it at once: the first one migrates and seeds, the
    others wait for it and then find the database at head. Migration and seeding are one
    transaction, so a failure leaves the database as it was.

    A database that holds other tables and no toolwire schema is never migrated into,
    unless ``force``.

    :raises NoRegistry: for a database with other tables and no toolwire schema.
    :raises DatabaseError: when the database cannot be migrated or seeded.
    """

    head = db.head_revision()
    db.create_sqlite_file(engine)  # 0600 before SQLite creates it with the umask's mode
    if db.current_revision(engine) == head:
        return False
    with (
        db.wrap_errors("database setup failed"),
        db.setup_lock(engine),
        db.migration_connection(engine) as connection,
    ):
        current = db.revision_of(connection)
        if current == head:
            return False  # another process finished the setup while we waited
        db.check_known(current)
        foreign = [] if force or current is not None else db.foreign_tables(connection)
        if foreign:
            raise NoRegistry(
                f"the database holds other tables ({', '.join(foreign[:5])}) and no toolwire "
                "schema; not migrating into it (toolwire db upgrade --force does)"
            )
        from alembic import command

        command.upgrade(db.alembic_config(connection), "head")
        seed_connection(connection)
    return True
