"""``toolwire log``: every change across the registry, newest first."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import click

from .._output import as_row
from ..vocab import DB_INT_MAX
from ._common import Context, check_filters, complete_engine, emit, format_option, pass_ctx

COLUMNS = ("occurred_at", "actor", "engine", "subject", "what", "changes", "reason")


@click.command(name="log")
@click.option(
    "--since",
    type=click.DateTime(["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S"]),
    default=None,
    help="Only changes at or after this date (YYYY-MM-DD, UTC) or time.",
)
@click.option("--by", "actor", default=None, metavar="NAME", help="Only changes by NAME.")
@click.option(
    "--engine", shell_complete=complete_engine, default=None, help="Only this engine's changes."
)
@click.option(
    "--limit",
    type=click.IntRange(min=1, max=DB_INT_MAX),
    default=None,
    metavar="N",
    help="At most N changes.",
)
@format_option
@pass_ctx
def log(
    obj: Context,
    since: datetime | None,
    actor: str | None,
    engine: str | None,
    limit: int | None,
    fmt: str,
) -> None:
    """Show every change (claims, engines, models, rules, capabilities), newest first."""
    from datetime import UTC

    start = None if since is None else since.replace(tzinfo=UTC)
    entries = obj.registry().log(since=start, by=actor, engine=engine, limit=limit)
    if not entries:
        check_filters(obj, engine=engine)
    emit([_row(e, fmt) for e in entries], fmt, COLUMNS)


def _row(entry: Any, fmt: str) -> dict[str, Any]:
    row = as_row(entry)
    if fmt == "json":
        row["changes"] = {k: {"old": old, "new": new} for k, (old, new) in row["changes"].items()}
    else:
        row["changes"] = "; ".join(
            f"{k}: {_show(old)} -> {_show(new)}" for k, (old, new) in row["changes"].items()
        )
    return row


def _show(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


COMMANDS = [log]
