"""``toolwire rule``: the ordered model-id rules of an engine."""

from __future__ import annotations

import click
from toolwire.convert import WIRES

from .._output import plural
from ._common import (
    RULE_COLUMNS,
    Context,
    actor_option,
    complete_engine,
    echo,
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
@click.argument("engine", shell_complete=complete_engine)
@format_option
@pass_ctx
def list_(obj: Context, engine: str, fmt: str) -> None:
    """List an engine's rules in order, each with its stable reference rule:N."""
    emit([rule_row(r) for r in obj.registry().rules(engine)], fmt, RULE_COLUMNS)


@group.command(name="add")
@click.argument("engine", shell_complete=complete_engine)
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


@group.command(name="remove")
@click.argument("engine", shell_complete=complete_engine)
@click.argument("rule")
@click.option("--reason", default=None, help="Why it goes (kept in the history).")
@actor_option
@format_option
@pass_ctx
def remove(
    obj: Context, engine: str, rule: str, reason: str | None, actor: str | None, fmt: str
) -> None:
    """Remove RULE (rule:N, N or its pattern) and its claims; the history keeps them."""
    registry = obj.registry()
    before = {r.id: r for r in registry.rules(engine)}
    removed = registry.remove_rule(engine, rule, recorded_by=who(actor), reason=reason)
    found = before.get(removed.id)
    claims = len(found.claims) if found is not None else 0
    echo(f"removed rule:{removed.id} from {engine} with {plural(claims, 'claim')}", err=True)
    emit([rule_row(removed)], fmt, RULE_COLUMNS)


@group.command(name="move")
@click.argument("engine", shell_complete=complete_engine)
@click.argument("rule")
@click.option("--position", required=True, type=click.IntRange(min=1), help="New 1-based position.")
@click.option("--reason", default=None, help="Why it moves (kept in the history).")
@actor_option
@format_option
@pass_ctx
def move(
    obj: Context,
    engine: str,
    rule: str,
    position: int,
    reason: str | None,
    actor: str | None,
    fmt: str,
) -> None:
    """Move RULE to another position (later rules win); its rule:N reference stays."""
    moved = obj.registry().move_rule(engine, rule, position, recorded_by=who(actor), reason=reason)
    emit([rule_row(moved)], fmt, RULE_COLUMNS)


COMMANDS = [group]
