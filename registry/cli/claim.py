"""``toolwire claim``: record and retract capability claims, read their history."""

from __future__ import annotations

from datetime import date
from typing import Any

import click

from .._validate import capability as check_capability
from .._validate import text as check_text
from .._values import parse_value, show_value
from ..errors import InvalidInput
from ..vocab import EVIDENCE_STATUSES
from ._common import (
    CLAIM_COLUMNS,
    Context,
    actor_option,
    check_filters,
    complete_capability,
    complete_engine,
    complete_model,
    echo,
    emit,
    format_option,
    pass_ctx,
    who,
)

EVENT_COLUMNS = (
    "occurred_at",
    "engine",
    "subject_key",
    "capability",
    "action",
    "old_value",
    "old_status",
    "new_value",
    "new_status",
    "new_evidence",
    "actor",
    "reason",
)

_rule_option = click.option(
    "--rule",
    default=None,
    metavar="rule:N|PATTERN",
    help="Claim for this rule: its reference as `rule list` shows it (rule:17 or 17), "
    "or its pattern.",
)


@click.group(name="claim")
def group() -> None:
    """Record and retract capability claims with their evidence, and read their history."""


@group.command(name="set")
@click.argument("engine", shell_complete=complete_engine)
@click.argument("capability", shell_complete=complete_capability)
@click.argument("value", required=False, metavar="[VALUE]")
@click.option(
    "--value",
    "value_option",
    default=None,
    metavar="VALUE",
    help="The value, instead of the VALUE argument: true or false, a whole number "
    "(600; sizes in decoded bytes) or MIME types (image/png,image/jpeg), as the "
    "capability's value kind says.",
)
@click.option(
    "--model",
    shell_complete=complete_model,
    default=None,
    help="Claim for this model id (recorded if new).",
)
@_rule_option
@click.option(
    "--status",
    required=True,
    type=click.Choice(EVIDENCE_STATUSES),
    help="Strength of the evidence.",
)
@click.option("--evidence", required=True, help="What supports the claim, one sentence.")
@click.option("--source", default=None, help="URL, test name or ticket behind the evidence.")
@click.option(
    "--verified-at",
    type=click.DateTime(["%Y-%m-%d"]),
    default=None,
    help="When the evidence was checked (YYYY-MM-DD, not in the future).",
)
@click.option("--reason", default=None, help="Why this changes (kept in the history).")
@actor_option
@format_option
@pass_ctx
def set_(
    obj: Context,
    engine: str,
    capability: str,
    value: str | None,
    value_option: str | None,
    model: str | None,
    rule: str | None,
    status: str,
    evidence: str,
    source: str | None,
    verified_at: Any,
    reason: str | None,
    actor: str | None,
    fmt: str,
) -> None:
    """Set CAPABILITY to VALUE on ENGINE (or one of its models or rules).

    VALUE is true or false for a flag, a whole number for a limit (sizes in decoded
    bytes: 7864320), or comma-separated MIME types (image/png,image/jpeg), as
    `capability list` shows each capability's value kind.
    """
    if model is not None and rule is not None:
        raise click.UsageError("give --model or --rule, not both")
    if (value is None) == (value_option is None):
        raise click.UsageError("give the value once: as VALUE or as --value")
    text = value if value is not None else value_option
    assert text is not None
    when: date | None = verified_at.date() if verified_at is not None else None
    registry = obj.registry()
    check_capability(capability)  # a malformed name says so before "unknown"
    kind = registry.capability(capability).value_kind
    parsed = parse_value(kind, text, capability)
    with registry.batch() as writer:
        new_model = model is not None and not writer.has_model(engine, model)
        claim = writer.set_claim(
            engine,
            capability,
            parsed,
            model=model,
            rule=rule,
            status=status,
            evidence=evidence,
            source=source,
            verified_at=when,
            recorded_by=who(actor),
            reason=reason,
        )
    if new_model:
        echo(f"recorded new model {model} on {engine}", err=True)
    emit([claim], fmt, CLAIM_COLUMNS)


@group.command(name="unset")
@click.argument("engine", shell_complete=complete_engine)
@click.argument("capability", shell_complete=complete_capability)
@click.option(
    "--model", shell_complete=complete_model, default=None, help="Retract this model's claim."
)
@_rule_option
@click.option("--reason", default=None, help="Why the claim goes (kept in the history).")
# the option's first name, kept working for the scripts that use it
@click.option("--evidence", default=None, hidden=True, help="The old name of --reason.")
@actor_option
@format_option
@pass_ctx
def unset(
    obj: Context,
    engine: str,
    capability: str,
    model: str | None,
    rule: str | None,
    reason: str | None,
    evidence: str | None,
    actor: str | None,
    fmt: str,
) -> None:
    """Retract a claim: the next, less specific claim decides from then on."""
    if model is not None and rule is not None:
        raise click.UsageError("give --model or --rule, not both")
    if reason is not None and evidence is not None:
        raise click.UsageError("give --reason once (--evidence is its old name)")
    why = reason if reason is not None else evidence
    if why is None:
        raise click.UsageError("Missing option '--reason': say why the claim goes")
    hint = "'--reason'" if reason is not None else "'--evidence'"
    if not why.strip():
        raise click.BadParameter("it is empty: say why the claim goes", param_hint=hint)
    try:
        check_text(why, "text")
    except InvalidInput as error:
        raise click.BadParameter(str(error), param_hint=hint) from None
    claim = obj.registry().unset_claim(
        engine,
        capability,
        model=model,
        rule=rule,
        evidence=why,
        recorded_by=who(actor),
    )
    where = f"model {claim.model}" if claim.model else (f"rule:{claim.rule}" if claim.rule else "")
    value = show_value(claim.value)
    echo(
        f"retracted the {capability} claim ({value}, {claim.status}) on "
        + (f"{where} of {engine}" if where else f"engine {engine}"),
        err=True,
    )
    emit([claim], fmt, CLAIM_COLUMNS)


@group.command(name="history")
@click.argument("engine", shell_complete=complete_engine)
@click.option(
    "--model", shell_complete=complete_model, default=None, help="Only this model's claims."
)
@click.option(
    "--capability", shell_complete=complete_capability, default=None, help="Only this capability."
)
@format_option
@pass_ctx
def history(obj: Context, engine: str, model: str | None, capability: str | None, fmt: str) -> None:
    """Show every change to an engine's claims, oldest first."""
    events = obj.registry().claim_history(engine, model=model, capability=capability)
    if not events:
        check_filters(obj, engine=engine, model=model, capability=capability)
    emit(events, fmt, EVENT_COLUMNS)


COMMANDS = [group]
