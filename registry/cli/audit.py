"""``toolwire audit``: claims by evidence.

The report is a list of sections (``SECTIONS``); each turns the command's options
into rows, so another kind of audit is one more entry.
"""

from __future__ import annotations

import click

from ..vocab import EVIDENCE_STATUSES
from ._common import CLAIM_COLUMNS, Context, emit, format_option, pass_ctx


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
    claims = obj.registry().audit(
        status=status,
        capability=capability,
        engine=engine,
        enabling=enabling,
        stale_days=stale_days,
    )
    emit(claims, fmt, CLAIM_COLUMNS)


COMMANDS = [audit]
