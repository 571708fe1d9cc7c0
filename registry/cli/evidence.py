"""``toolwire evidence policy``: how long evidence of each status stays fresh."""

from __future__ import annotations

import click

from .._output import plural
from ..vocab import EVIDENCE_STATUSES
from ._common import Context, NameChoice, actor_option, echo, emit, format_option, pass_ctx, who

POLICY_COLUMNS = ("status", "max_age_days")


@click.group(name="evidence")
def evidence_group() -> None:
    """How evidence ages: a claim past its status's age counts one tier lower."""


@evidence_group.group(name="policy", invoke_without_command=True)
@format_option
@pass_ctx
def evidence_policy(obj: Context, fmt: str) -> None:
    """Show how many days claims of each status stay fresh (never: they do not age).

    A claim past its age counts one tier lower for --min-evidence; its age counts from
    the latest observation that agrees with it, else from its verified_at.
    """
    if click.get_current_context().invoked_subcommand is not None:
        return
    from ..evidence import evidence_policy as read

    policy = read(obj.registry())
    emit(
        [
            {"status": s, "max_age_days": d if fmt == "json" or d is not None else "never"}
            for s, d in policy.items()
        ],
        fmt,
        POLICY_COLUMNS,
    )


@evidence_policy.command(name="set")
@click.argument("status", type=NameChoice("evidence status", EVIDENCE_STATUSES))
@click.argument("days", metavar="DAYS|never")
@actor_option
@pass_ctx
def evidence_policy_set(obj: Context, status: str, days: str, actor: str | None) -> None:
    """Let claims of STATUS stay fresh for DAYS days (never: they do not age)."""
    from ..evidence import parse_days, set_evidence_policy

    age = parse_days(days.strip().lower())
    registry = obj.registry()
    with registry.batch() as writer:
        changed = set_evidence_policy(writer, status, age, recorded_by=who(actor))
    shown = "never" if age is None else plural(age, "day")
    echo(f"{status}: {shown}" + ("" if changed else " (unchanged)"))


COMMANDS = [evidence_group]
