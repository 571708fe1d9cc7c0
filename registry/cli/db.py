"""``toolwire db``: create, migrate and seed the registry database."""

from __future__ import annotations

import click

from .._output import plural
from ._common import Context, echo, echo_json, pass_ctx, text_or_json_option


@click.group(name="db")
def group() -> None:
    """Create, migrate and seed the registry database."""


@group.command(name="upgrade")
@click.option("--force", is_flag=True, help="Migrate into a database that holds other tables too.")
@pass_ctx
def upgrade(obj: Context, force: bool) -> None:
    """Create or migrate the database to the newest schema (seeding it when new)."""
    from ..bootstrap import ensure_ready

    registry = obj.registry(setup=False, create=True)
    before = registry.schema_revision()
    ensure_ready(registry._engine, force=force)
    after = registry.schema_revision()
    click.echo(f"schema at {after}" + ("" if before == after else f" (was {before or 'empty'})"))


@group.command(name="current")
@text_or_json_option
@pass_ctx
def current(obj: Context, fmt: str) -> None:
    """Show the database's schema revision, the newest one, and the data revision."""
    from .. import db

    registry = obj.registry(setup=False)
    schema = registry.schema_revision()
    head = db.head_revision()
    data = registry.revision() if schema == head else None
    if fmt == "json":
        echo_json(
            {
                "database": repr(registry)[len("Registry(") + 1 : -2],
                "schema": schema,
                "head": head,
                "up_to_date": schema == head,
                "data_revision": data,
            }
        )
        return
    echo(f"database: {registry!r}")
    echo(f"schema:   {schema or 'empty'} (head {head}{', up to date' if schema == head else ''})")
    if data is not None:
        echo(f"data revision: {data}")


@group.command(name="seed")
@pass_ctx
def seed(obj: Context) -> None:
    """Load the shipped seed data again; operator-recorded claims are never overwritten."""
    from .._seed import seed as seed_registry

    report = seed_registry(obj.registry())
    click.echo(
        f"seeded {plural(len(report.engines), 'engine')}: {report.added} added, "
        f"{report.updated} updated, {report.kept} unchanged, "
        f"{plural(report.operator_owned, 'operator claim')} left alone"
    )


@group.command(name="check")
@pass_ctx
def check(obj: Context) -> None:
    """Check the database file's integrity (SQLite's integrity_check); exit 1 on damage.

    Each problem SQLite reports is printed on its own line. On PostgreSQL there is
    nothing to run (the server checks its own pages) and the command says so.
    """
    from .. import db
    from ..errors import DatabaseError

    try:
        registry = obj.registry(setup=False)
        problems = registry.integrity_problems()
    except DatabaseError as error:  # too damaged to open at all
        raise click.ClickException(str(error)) from None
    backend = registry._engine.dialect.name
    if problems is None:
        echo(f"{backend}: nothing to run (the server checks its own pages); nothing checked")
        return
    if not problems:
        opened_read_only = db.read_only(registry._engine)
        where = db.sqlite_file(registry._engine) or (
            opened_read_only[0] if opened_read_only else "the in-memory database"
        )
        echo(f"ok: integrity_check found no problem in {where}")
        return
    for problem in problems:
        echo(problem)
    raise click.ClickException(
        f"integrity_check found {plural(len(problems), 'problem')}: the file is corrupt; "
        "restore it from a backup or an export"
    )


COMMANDS = [group]
