"""``toolwire model``: list, show, add and remove recorded models."""

from __future__ import annotations

import click
from toolwire.convert import WIRES

from .._output import as_row, plural
from ._common import (
    MODEL_COLUMNS,
    RULE_COLUMNS,
    Context,
    actor_option,
    complete_engine,
    complete_model,
    echo,
    echo_json,
    emit,
    format_option,
    pass_ctx,
    rule_row,
    who,
)


@click.group(name="model")
def group() -> None:
    """List, show, add and remove recorded models (unrecorded ids still resolve by rules)."""


@group.command(name="list")
@click.option(
    "--engine", shell_complete=complete_engine, default=None, help="Only this engine's models."
)
@format_option
@pass_ctx
def list_(obj: Context, engine: str | None, fmt: str) -> None:
    """List recorded models."""
    emit(obj.registry().models(engine), fmt, MODEL_COLUMNS)


@group.command(name="show")
@click.argument("engine", shell_complete=complete_engine)
@click.argument("model", shell_complete=complete_model)
@format_option
@pass_ctx
def show(obj: Context, engine: str, model: str, fmt: str) -> None:
    """Show a model: its row, its own claims and the rules that match it."""
    snapshot = obj.registry().engine_snapshot(engine, models=(model,))
    row = snapshot.models.get(model)
    rules = [rule_row(r) for r in snapshot.matching_rules(model)]
    claims = list(row.claims.values()) if row else []
    if fmt == "json":
        echo_json(
            {
                "engine": engine,
                "model": model,
                "recorded": row is not None,
                "wire": row.wire if row else None,
                "claims": [as_row(c) for c in claims],
                "matching_rules": rules,
            }
        )
        return
    if fmt == "csv":
        emit(claims, fmt, ("capability", "value", "status", "evidence", "source", "verified_at"))
        return
    echo(f"{engine} / {model}: " + ("recorded" if row else "not recorded (resolves by rules)"))
    if row and row.wire:
        echo(f"wire override: {row.wire}")
    echo("\nmodel claims:")
    emit(claims, fmt, ("capability", "value", "status", "evidence"))
    echo("\nmatching rules (the last one wins):")
    emit(rules, fmt, RULE_COLUMNS[1:])


@group.command(name="add")
@click.argument("engine", shell_complete=complete_engine)
@click.argument("model")
@click.option(
    "--wire", type=click.Choice(WIRES), default=None, help="Wire override for this model."
)
@click.option("--note", default="", help="Free text.")
@actor_option
@format_option
@pass_ctx
def add(
    obj: Context, engine: str, model: str, wire: str | None, note: str, actor: str | None, fmt: str
) -> None:
    """Record a model id on an engine."""
    row = obj.registry().add_model(engine, model, wire=wire, note=note, created_by=who(actor))
    emit([row], fmt, MODEL_COLUMNS)


@group.command(name="remove")
@click.argument("engine", shell_complete=complete_engine)
@click.argument("model", shell_complete=complete_model)
@click.option("--reason", default=None, help="Why it goes (kept in the history).")
@actor_option
@format_option
@pass_ctx
def remove(
    obj: Context, engine: str, model: str, reason: str | None, actor: str | None, fmt: str
) -> None:
    """Remove a recorded model and its claims (the id then resolves by rules again)."""
    registry = obj.registry()
    before = registry.model(engine, model)
    removed = registry.remove_model(engine, model, recorded_by=who(actor), reason=reason)
    claims = len(before.claims) if before is not None else 0
    echo(f"removed model {model} from {engine} with {plural(claims, 'claim')}", err=True)
    emit([removed], fmt, MODEL_COLUMNS)


COMMANDS = [group]
