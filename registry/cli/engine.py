"""``toolwire engine``: list, show, add, update and remove engines."""

from __future__ import annotations

from typing import Any

import click
from toolwire.convert import ID_RULES, WIRES

from .._output import as_row, plural
from ..vocab import ENGINE_KINDS
from ._common import (
    ENGINE_COLUMNS,
    RULE_COLUMNS,
    Context,
    actor_option,
    complete_engine,
    echo,
    echo_json,
    emit,
    format_option,
    pass_ctx,
    rule_row,
    who,
)


@click.group(name="engine")
def group() -> None:
    """List, show, add, update and remove engines (the endpoints a client talks to)."""


@group.command(name="list")
@format_option
@pass_ctx
def list_(obj: Context, fmt: str) -> None:
    """List every engine."""
    emit(obj.registry().engines(), fmt, ENGINE_COLUMNS)


@group.command(name="show")
@click.argument("name", shell_complete=complete_engine)
@format_option
@pass_ctx
def show(obj: Context, name: str, fmt: str) -> None:
    """Show an engine with its engine-level claims and rules."""
    snapshot = obj.registry().engine_snapshot(name)
    if fmt == "json":
        data = as_row(snapshot.engine)
        data["claims"] = [as_row(c) for c in snapshot.claims.values()]
        data["rules"] = [rule_row(r) for r in snapshot.rules]
        data["models"] = sorted(snapshot.models)
        echo_json(data)
        return
    emit([snapshot.engine], fmt, [*ENGINE_COLUMNS, "response_tag", "id_rule", "note"])
    if fmt == "table":
        echo("\nengine claims:")
        emit(list(snapshot.claims.values()), fmt, ("capability", "value", "status", "evidence"))
        echo("\nrules (the last matching rule wins):")
        emit([rule_row(r) for r in snapshot.rules], fmt, RULE_COLUMNS[1:])
        echo(f"\n{plural(len(snapshot.models), 'recorded model')}")


@group.command(name="add")
@click.argument("name")
@click.option("--provider", required=True, help="Who runs it, e.g. 'Anthropic Messages'.")
@click.option("--family", required=True, help="API family, e.g. anthropic, openai.")
@click.option(
    "--wire", "default_wire", required=True, type=click.Choice(WIRES), help="Default wire."
)
@click.option("--kind", required=True, type=click.Choice(ENGINE_KINDS), help="Kind of endpoint.")
@click.option("--base-url", default=None, help="Endpoint URL.")
@click.option("--response-tag", default=None, help="Hermes response tag (hermes wire).")
@click.option(
    "--id-rule",
    default=None,
    type=click.Choice(sorted(ID_RULES)),
    help="Call-id rule results must keep (default: the wire's), e.g. mistral.",
)
@click.option("--note", default="", help="Free text.")
@actor_option
@format_option
@pass_ctx
def add(
    obj: Context, name: str, default_wire: str, actor: str | None, fmt: str, **fields: Any
) -> None:
    """Add an engine."""
    engine = obj.registry().add_engine(
        name, default_wire=default_wire, created_by=who(actor), **fields
    )
    emit([engine], fmt, ENGINE_COLUMNS)


@group.command(name="update")
@click.argument("name", shell_complete=complete_engine)
@click.option("--provider", default=None, help="Who runs it.")
@click.option("--family", default=None, help="API family, e.g. anthropic, openai.")
@click.option(
    "--wire", "default_wire", default=None, type=click.Choice(WIRES), help="Default wire."
)
@click.option("--kind", default=None, type=click.Choice(ENGINE_KINDS), help="Kind of endpoint.")
@click.option(
    "--base-url",
    default=None,
    help="Endpoint URL, without credentials (a move to another host is warned about).",
)
@click.option("--response-tag", default=None, help="Hermes response tag (hermes wire).")
@click.option(
    "--id-rule",
    default=None,
    type=click.Choice(sorted(ID_RULES)),
    help="Call-id rule results must keep.",
)
@click.option("--note", default=None, help="Free text.")
@click.option("--reason", default=None, help="Why it changes (kept in the history).")
@click.option("--dry-run", is_flag=True, help="Print what would change; write nothing.")
@actor_option
@pass_ctx
def update(
    obj: Context,
    name: str,
    reason: str | None,
    dry_run: bool,
    actor: str | None,
    **fields: Any,
) -> None:
    """Change fields of an engine; one line per changed field, warnings on stderr.

    A base URL whose host changes is warned about: toolwire probe sends the engine's
    key to its host.
    """
    from .. import _validate as check

    values = {k: v for k, v in fields.items() if v is not None}
    if not values:
        raise click.UsageError("nothing to change: give at least one field option")
    if "base_url" in values:
        check.base_url(values["base_url"])
    registry = obj.registry()
    current = registry.engine(name)
    changed = {k: v for k, v in values.items() if getattr(current, k) != v}
    for key, new in changed.items():
        echo(f"~ engine {name}: {key}: {getattr(current, key) or '-'} -> {new}")
    warning = check.host_change(f"engine {name}", current.base_url, changed.get("base_url"))
    if warning:
        echo(f"warning: {warning}", err=True)
    verb = "would change" if dry_run else "changed"
    if changed and not dry_run:
        with registry.batch() as writer:
            writer.update_fields(
                name, "engine", name, changed, recorded_by=who(actor), reason=reason
            )
    echo(f"engine {name}: {verb} {plural(len(changed), 'field')}", err=True)


@group.command(name="remove")
@click.argument("name", shell_complete=complete_engine)
@click.option(
    "--force", is_flag=True, help="Also remove its claims, models and rules (one transaction)."
)
@click.option("--reason", default=None, help="Why it goes (kept in the history).")
@actor_option
@format_option
@pass_ctx
def remove(
    obj: Context, name: str, force: bool, reason: str | None, actor: str | None, fmt: str
) -> None:
    """Remove an engine; refused while claims, models or rules hang on it, unless --force."""
    registry = obj.registry()
    before = registry.engine_snapshot(name)
    removed = registry.remove_engine(name, force=force, recorded_by=who(actor), reason=reason)
    claims = len(before.claims) + sum(len(r.claims) for r in before.rules)
    claims += sum(len(m.claims) for m in before.models.values())
    counts = ((claims, "claim"), (len(before.models), "model"), (len(before.rules), "rule"))
    held = [plural(n, word) for n, word in counts if n]
    listed = ", ".join(held[:-1]) + " and " + held[-1] if len(held) > 1 else "".join(held)
    echo(f"removed engine {name}" + (f" with {listed}" if listed else ""), err=True)
    emit([removed], fmt, ENGINE_COLUMNS)


COMMANDS = [group]
