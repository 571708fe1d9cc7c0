"""``toolwire audit``: claims by evidence.

The report is a list of sections (``SECTIONS``); each turns the command's options
into rows, so another kind of audit is one more entry.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from .._output import as_row
from ..vocab import EVIDENCE_STATUSES
from ._common import CLAIM_COLUMNS, Context, cut, echo, emit, format_option, pass_ctx, width


@click.command(name="audit")
@click.option(
    "--status",
    type=click.Choice(EVIDENCE_STATUSES),
    default=None,
    help="Only claims with this evidence status.",
)
@click.option("--capability", default=None, help="Only this capability.")
@click.option("--engine", default=None, help="Only this engine.")
@click.option(
    "--enabling",
    is_flag=True,
    help="Only native-media claims that enable something on evidence weaker than live-verified.",
)
@click.option(
    "--stale-days",
    type=click.IntRange(min=0, max=36500),
    default=None,
    metavar="N",
    help="Only claims not verified in the last N days (or never).",
)
@format_option
@pass_ctx
def audit(
    obj: Context,
    status: str | None,
    capability: str | None,
    engine: str | None,
    enabling: bool,
    stale_days: int | None,
    fmt: str,
) -> None:
    """List claims by evidence: what is live-verified, what rests on weaker evidence."""
    options = {
        "status": status,
        "capability": capability,
        "engine": engine,
        "enabling": enabling,
        "stale_days": stale_days,
    }
    for section in SECTIONS:
        section(obj, options, fmt)


def _claims(obj: Context, options: dict[str, Any], fmt: str) -> None:
    """The claims the filters select; JSON rows carry each capability's description."""
    registry = obj.registry()
    claims = registry.audit(**options)
    known = {c.name: c.description for c in registry.capabilities()}
    if fmt == "json":
        rows = [as_row(c) | {"description": known.get(c.capability, "")} for c in claims]
        emit(rows, fmt, (*CLAIM_COLUMNS, "description"))
        return
    emit(claims, fmt, CLAIM_COLUMNS)
    used = sorted({c.capability for c in claims})
    if fmt == "table" and used:
        echo("\ncapabilities:")
        limit = width()
        echo("\n".join(cut(f"  {name:<24} {known.get(name, '')}", limit) for name in used))


#: The parts of the report, in order; each gets the command's options and the format.
#: (A new kind of audit adds its options to the command and a section here.)
SECTIONS: list[Callable[[Context, dict[str, Any], str], None]] = [_claims]


COMMANDS = [audit]
