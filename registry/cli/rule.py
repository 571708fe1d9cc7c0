"""``toolwire rule``: the ordered model-id rules of an engine."""

from __future__ import annotations

import click
from toolwire.convert import WIRES

from ._common import (
    RULE_COLUMNS,
    Context,
    actor_option,
    emit,
    format_option,
    pass_ctx,
    rule_row,
    who,
)


@click.group(name="rule")
def group() -> None:
    """Ordered model-id rules per engine (exact id or regex; the last match wins)."""


@group.command(name="list")
@click.argument("engine")
@format_option
@pass_ctx
def list_(obj: Context, engine: str, fmt: str) -> None:
    """List an engine's rules in order, each with its stable reference rule:N."""
    emit([rule_row(r) for r in obj.registry().rules(engine)], fmt, RULE_COLUMNS)


@group.command(name="add")
@click.argument("engine")
@click.argument("pattern")
@click.option(
    "--regex/--exact",
    default=False,
    show_default=True,
    help="PATTERN is a regex matched against the whole id (RE2, linear time), or an exact id.",
)
@click.option("--wire", type=click.Choice(WIRES), default=None, help="Wire override for matches.")
@click.option("--position", type=int, default=None, help="1-based position (default: last).")
@click.option("--note", default="", help="Free text.")
@actor_option
@format_option
@pass_ctx
def add(
    obj: Context,
    engine: str,
    pattern: str,
    regex: bool,
    wire: str | None,
    position: int | None,
    note: str,
    actor: str | None,
    fmt: str,
) -> None:
    """Add a rule; give it claims with `toolwire claim set ENGINE CAP VALUE --rule rule:N`."""
    rule = obj.registry().add_rule(
        engine,
        pattern,
        regex=regex,
        wire=wire,
        position=position,
        note=note,
        created_by=who(actor),
    )
    emit([rule_row(rule)], fmt, RULE_COLUMNS)


COMMANDS = [group]
