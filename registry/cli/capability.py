"""``toolwire capability``: the vocabulary of names claims may use."""

from __future__ import annotations

import click

from ..vocab import VALUE_KINDS
from ._common import Context, actor_option, complete_capability, emit, format_option, pass_ctx, who

COLUMNS = ("name", "value_kind", "gates", "description")


@click.group(name="capability")
def group() -> None:
    """List, show and add the capabilities claims may use (the vocabulary)."""


@group.command(name="list")
@format_option
@pass_ctx
def list_(obj: Context, fmt: str) -> None:
    """List every capability with what its claims mean."""
    emit(obj.registry().capabilities(), fmt, COLUMNS)


@group.command(name="show")
@click.argument("name", shell_complete=complete_capability)
@format_option
@pass_ctx
def show(obj: Context, name: str, fmt: str) -> None:
    """Show one capability."""
    emit([obj.registry().capability(name)], fmt, (*COLUMNS, "created_by", "created_at"))


@group.command(name="add")
@click.argument("name")
@click.option("--description", required=True, help="What a true claim of it means.")
@click.option("--gates", default=None, help="The native form it gates, if any.")
@click.option(
    "--value-kind",
    type=click.Choice(VALUE_KINDS),
    default="bool",
    show_default=True,
    help="What its claims hold: true/false, a whole number (a limit) or MIME types.",
)
@actor_option
@format_option
@pass_ctx
def add(
    obj: Context,
    name: str,
    description: str,
    gates: str | None,
    value_kind: str,
    actor: str | None,
    fmt: str,
) -> None:
    """Add a capability to the vocabulary, so claims may use it."""
    added = obj.registry().add_capability(
        name, description=description, value_kind=value_kind, gates=gates, created_by=who(actor)
    )
    emit([added], fmt, COLUMNS)


COMMANDS = [group]
