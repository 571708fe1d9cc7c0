"""Alembic environment of the toolwire registry.

``toolwire.registry.db`` runs migrations programmatically and hands its open
connection (already inside the transaction it wants the migration to run in) through
``config.attributes["connection"]``. Without one, the URL comes from the
``sqlalchemy.url`` option, else from ``default_database_url()``, and an engine is built
with the registry's SQLite settings.

``render_as_batch`` is on so that ALTERs run on SQLite as copy-and-move batches; the
registry's upgrade turns SQLite foreign-key enforcement off around the migration and
runs ``PRAGMA foreign_key_check`` before committing, as SQLite's documentation asks for
table rebuilds.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection
from toolwire.registry.db import VERSION_TABLE, create_engine, default_database_url
from toolwire.registry.tables import metadata

config = context.config
target_metadata = metadata


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=True,
        version_table=VERSION_TABLE,
        compare_type=True,
    )


def run_migrations_offline() -> None:
    """Emit the migration SQL for the configured URL without connecting."""
    context.configure(
        url=config.get_main_option("sqlalchemy.url") or default_database_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
        version_table=VERSION_TABLE,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Run the migrations on the given connection, or on a new one to the configured URL."""
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure(connection)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = create_engine(config.get_main_option("sqlalchemy.url") or default_database_url())
    try:
        with engine.connect() as connection:
            _configure(connection)
            with context.begin_transaction():
                context.run_migrations()
            connection.commit()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
