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
from ._common import (
    CLAIM_COLUMNS,
    Context,
    Days,
    NameChoice,
    check_filters,
    complete_capability,
    complete_engine,
    cut,
    echo,
    emit,
    format_option,
    pass_ctx,
    rows_emitted,
    to_terminal,
    width,
)

CONFLICT_COLUMNS = (
    "engine",
    "model",
    "capability",
    "value",
    "status",
    "decided_by",
    "observation_id",
    "outcome",
    "observed_at",
)
UNOBSERVED_COLUMNS = ("engine", "model", "capability", "wire", "decided_by", "status")


@click.command(name="audit")
@click.option(
    "--status",
    type=NameChoice("evidence status", EVIDENCE_STATUSES),
    default=None,
    help="Only claims with this evidence status.",
)
@click.option(
    "--capability", shell_complete=complete_capability, default=None, help="Only this capability."
)
@click.option("--engine", shell_complete=complete_engine, default=None, help="Only this engine.")
@click.option(
    "--enabling",
    is_flag=True,
    help="Only native-media claims that enable something on evidence weaker than live-verified.",
)
@click.option(
    "--stale-days",
    type=Days(),
    default=None,
    metavar="N",
    help="Only claims not checked in the last N days (or never): a model's claim counts "
    "from its latest observation where there is one, else from verified_at.",
)
@click.option(
    "--stale",
    is_flag=True,
    help="Only claims past their status's age (toolwire evidence policy); --stale-days N "
    "overrides the policy with N days for every status.",
)
@click.option(
    "--conflicts",
    is_flag=True,
    help="Claims the latest observation of the same engine, model and capability contradicts.",
)
@click.option(
    "--unobserved",
    is_flag=True,
    help="Native-media flags that resolve to on with no observation behind them.",
)
@click.option(
    "--exit-code",
    is_flag=True,
    help="Exit 1 when the audit lists anything, 0 when it lists nothing (as git diff "
    "--exit-code does), so a CI job can fail on it.",
)
@click.option(
    "--legend",
    is_flag=True,
    help="Print what each listed capability means after the table, on stdout (on a "
    "terminal it goes to stderr anyway; into a pipe it is left out).",
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
    stale: bool,
    conflicts: bool,
    unobserved: bool,
    exit_code: bool,
    legend: bool,
    fmt: str,
) -> None:
    """List claims by evidence: what is live-verified, what rests on weaker evidence.

    With --exit-code the exit status says whether anything was listed (1) or not (0).
    """
    if conflicts and unobserved:
        raise click.UsageError("give --conflicts or --unobserved, not both")
    if (conflicts or unobserved) and (
        status is not None or enabling or stale_days is not None or stale
    ):
        raise click.UsageError("--conflicts and --unobserved take only --engine and --capability")
    options = {
        "status": status,
        "capability": capability,
        "engine": engine,
        "enabling": enabling,
        "stale_days": stale_days,
        "stale": stale,
        "conflicts": conflicts,
        "unobserved": unobserved,
        "legend": legend,
    }
    for section in SECTIONS:
        section(obj, options, fmt)
    if exit_code and rows_emitted():
        raise SystemExit(1)


def _claims(obj: Context, options: dict[str, Any], fmt: str) -> None:
    """The claims the filters select; JSON rows carry each capability's description."""
    from .. import observations

    if options["conflicts"] or options["unobserved"]:
        return
    registry = obj.registry()
    skip = ("conflicts", "unobserved", "stale", "legend")
    filters = {k: v for k, v in options.items() if k not in skip}
    if options["stale"] and options["stale_days"] is None:
        _stale(obj, filters, fmt)
        return
    claims = observations.audit(registry, **filters)  # staleness counts from observations
    if not claims:
        check_filters(obj, capability=options["capability"])
    known = {c.name: c.description for c in registry.capabilities()}
    if fmt == "json":
        rows = [as_row(c) | {"description": known.get(c.capability, "")} for c in claims]
        emit(rows, fmt, (*CLAIM_COLUMNS, "description"))
        return
    emit(claims, fmt, CLAIM_COLUMNS)
    used = sorted({c.capability for c in claims})
    if fmt == "table" and used and (options["legend"] or to_terminal()):
        # The legend is no row: into a pipe (`audit | wc -l`) only with --legend, on
        # stdout; on a terminal without it, on stderr.
        limit = width()
        pad = max(map(len, used), default=0)
        lines = [cut(f"  {name:<{pad}} {known.get(name, '')}", limit) for name in used]
        echo("\n".join(["", "capabilities:", *lines]), err=not options["legend"])


def _stale(obj: Context, filters: dict[str, Any], fmt: str) -> None:
    """With ``--stale``: claims past their status's policy, with why."""
    from ..evidence import stale_claims

    found = stale_claims(
        obj.registry(),
        status=filters["status"],
        capability=filters["capability"],
        engine=filters["engine"],
    )
    enabling = filters["enabling"]
    rows = [
        as_row(s.claim) | {"stale": s.why}
        for s in found
        if not enabling or (s.claim.value and s.claim.status != "live-verified")
    ]
    if not rows:
        check_filters(obj, capability=filters["capability"])
    emit(rows, fmt, (*CLAIM_COLUMNS[:5], "stale", *CLAIM_COLUMNS[5:]))


def _conflicts(obj: Context, options: dict[str, Any], fmt: str) -> None:
    """With ``--conflicts``: claims the latest observation contradicts."""
    if options["conflicts"]:
        from .. import observations

        found = observations.conflicts(
            obj.registry(), engine=options["engine"], capability=options["capability"]
        )
        if not found:
            check_filters(obj, capability=options["capability"])
        emit(found, fmt, CONFLICT_COLUMNS)


def _unobserved(obj: Context, options: dict[str, Any], fmt: str) -> None:
    """With ``--unobserved``: native-media flags on with no observation behind them."""
    if options["unobserved"]:
        from .. import observations

        found = observations.unobserved(
            obj.registry(), engine=options["engine"], capability=options["capability"]
        )
        if not found:
            check_filters(obj, capability=options["capability"])
        emit(found, fmt, UNOBSERVED_COLUMNS)


#: The parts of the report, in order; each gets the command's options and the format.
#: (A new kind of audit adds its options to the command and a section here.)
SECTIONS: list[Callable[[Context, dict[str, Any], str], None]] = [_claims, _conflicts, _unobserved]


COMMANDS = [audit]
