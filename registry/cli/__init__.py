"""The ``toolwire`` command: a thin shell over the registry, the resolver and convert.

Commands are noun-then-verb (``toolwire claim set``), one module per noun in this
package; each module lists its top-level commands in ``COMMANDS`` and
``COMMAND_MODULES`` below lists the modules, so a new noun is one new module and one
line here. Only this package prints or exits: expected failures become one line on
stderr and exit 1 (bad usage exit 2), never a traceback. Modules import SQLAlchemy,
alembic and the store inside the commands, so ``toolwire --help`` stays light.
"""

from __future__ import annotations

from importlib import import_module

import click

from ._common import Context

__all__ = ["COMMAND_MODULES", "main"]

#: The command modules (each lists its commands in ``COMMANDS``).
COMMAND_MODULES: tuple[str, ...] = (
    "db",
    "engine",
    "model",
    "rule",
    "claim",
    "capability",
    "audit",
    "resolve",
    "log",
    "transfer",
    "probe",
    "observation",
    "matrix",
    "completion",
    "catalog",
    "evidence",
    "serve",
    "snapshot",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
# The version is looked up only when --version is given (importlib.metadata is slow).
@click.version_option(package_name="toolwire", prog_name="toolwire")
@click.option(
    "--database-url",
    envvar="TOOLWIRE_DATABASE_URL",
    metavar="URL",
    default=None,
    help="SQLAlchemy URL of the registry (env TOOLWIRE_DATABASE_URL; default: an SQLite "
    "file in your data directory, created and seeded on first use).",
)
@click.option(
    "--busy-timeout",
    envvar="TOOLWIRE_BUSY_TIMEOUT",
    type=click.FloatRange(min=0, max=3600),
    default=5.0,
    show_default=True,
    metavar="SECONDS",
    help="How long an SQLite write waits for another writer (env TOOLWIRE_BUSY_TIMEOUT).",
)
@click.pass_context
def main(ctx: click.Context, database_url: str | None, busy_timeout: float) -> None:
    """Format tool results for LLM wires, and keep the registry of what each model reads."""
    if busy_timeout != busy_timeout:  # NaN passes every range check
        raise click.BadParameter("not a number", param_hint="--busy-timeout")
    source = ctx.get_parameter_source("database_url")
    from_env = source is click.core.ParameterSource.ENVIRONMENT
    ctx.obj = Context(
        database_url,
        busy_timeout,
        explicit=database_url is not None,
        origin="TOOLWIRE_DATABASE_URL" if from_env else None,
    )
    ctx.call_on_close(ctx.obj.close)


for _name in COMMAND_MODULES:
    for _command in import_module(f"{__name__}.{_name}").COMMANDS:
        main.add_command(_command)
