"""The ``toolwire`` command: a thin shell over the registry, the resolver and convert.

Commands are noun-then-verb (``toolwire claim set``), one module per noun in this
package; each module lists its top-level commands in ``COMMANDS`` and
``COMMAND_MODULES`` below lists the modules, so a new noun is one new module and one
line here. Only this package prints or exits: expected failures become one line on
stderr and exit 1 (bad usage exit 2), never a traceback. Modules import SQLAlchemy,
alembic and the store inside the commands, so ``toolwire --help`` stays light.
"""

from __future__ import annotations

import contextlib
import os
import sys
from importlib import import_module
from typing import Any

import click

from ._common import Context, Seconds

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


#: The exit status of a command stopped by Ctrl-C (SIGINT), as shells report it.
INTERRUPTED = 130


class _Toolwire(click.Group):
    """The ``toolwire`` group: Ctrl-C and a closed output pipe end a command cleanly.

    Ctrl-C exits 130 with one line saying whether the command's write committed (each
    write is one transaction: it either committed or rolled back). A reader that went
    away (``toolwire catalog import ... | head -1``) ends the command quietly, exit 0.
    """

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; map KeyboardInterrupt and BrokenPipeError to their exits.

        A process started with its standard output closed (``toolwire ... >&-``), or
        with standard input closed and told to read ``-``, is told so before the
        command does anything.
        """
        args = [*getattr(ctx, "_protected_args", ()), *ctx.args]
        if sys.stdout is None:
            raise click.ClickException("standard output is closed; nothing was done")
        if sys.stdin is None and "-" in args:
            raise click.ClickException("standard input is closed; nothing to read from -")
        words = _command_words(self, args)
        before = _commits()
        try:
            result = super().invoke(ctx)
            sys.stdout.flush()  # here, not at exit, so that a closed pipe is caught
            return result
        except KeyboardInterrupt:
            _quiet_output()
            if _commits()[0] > before[0]:
                message = f"interrupted after the {words or 'command'} committed"
            elif _commits()[1] > before[1]:
                message = "interrupted: nothing written but the new registry's setup"
            else:
                message = "interrupted: nothing written"
            with contextlib.suppress(OSError):  # stderr may be gone too
                click.echo(message, err=True)
            raise click.exceptions.Exit(INTERRUPTED) from None
        except BrokenPipeError:
            _quiet_output()
            raise click.exceptions.Exit(0) from None


def _command_words(group: click.Group, args: list[str]) -> str:
    """Return the command the arguments name below ``group`` (``catalog import``)."""
    words: list[str] = []
    current: click.Command = group
    for arg in args:
        if arg.startswith("-") or not isinstance(current, click.Group):
            break
        found = current.commands.get(arg)
        if found is None:
            break
        words.append(arg)
        current = found
    return " ".join(words)


def _commits() -> tuple[int, int]:
    """Return how many writes, and setups, this process committed so far."""
    # The store counts the writes that changed something (``_changes.note_commit``),
    # ``db`` the setups; before they are imported there were none.
    changes = sys.modules.get("toolwire.registry._changes")
    db = sys.modules.get("toolwire.registry.db")
    return (
        int(changes._commits[0]) if changes is not None else 0,
        db.setup_commits() if db is not None else 0,
    )


def _quiet_output() -> None:
    """Point stdout at /dev/null, so that exiting does not flush into a closed pipe."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (a test's runner)
        return
    try:
        null = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)


@click.group(cls=_Toolwire, context_settings={"help_option_names": ["-h", "--help"]})
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
    type=Seconds(min=0, max=3600),
    default=5.0,
    show_default=True,
    metavar="SECONDS",
    help="How long an SQLite write waits for another writer (env TOOLWIRE_BUSY_TIMEOUT).",
)
@click.pass_context
def main(ctx: click.Context, database_url: str | None, busy_timeout: float) -> None:
    """Format tool results for LLM wires, and keep the registry of what each model reads."""
    source = ctx.get_parameter_source("database_url")
    from_env = source is click.core.ParameterSource.ENVIRONMENT
    # An in-memory database (sqlite://) is new at every start: it is created and
    # seeded like the default file, not refused as a URL that holds no registry.
    in_memory = database_url is not None and _in_memory(database_url)
    ctx.obj = Context(
        database_url,
        busy_timeout,
        explicit=database_url is not None and not in_memory,
        origin="TOOLWIRE_DATABASE_URL" if from_env else None,
    )
    ctx.call_on_close(ctx.obj.close)


def _in_memory(url: str) -> bool:
    """Return True for an in-memory SQLite URL: ``sqlite://`` or ``sqlite:///:memory:``."""
    scheme, sep, rest = url.strip().partition("://")
    if not sep or not scheme.startswith("sqlite"):
        return False
    path = rest.split("?", 1)[0]
    return path in ("", "/", "/:memory:")


for _name in COMMAND_MODULES:
    for _command in import_module(f"{__name__}.{_name}").COMMANDS:
        main.add_command(_command)
