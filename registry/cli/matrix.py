"""``toolwire matrix``: the whole registry as one self-contained HTML page."""

from __future__ import annotations

from pathlib import Path

import click

from .._output import plural
from ..vocab import EVIDENCE_STATUSES
from ._common import (
    Context,
    Days,
    NameChoice,
    check_known,
    complete_capability,
    complete_engine,
    echo,
    pass_ctx,
)


@click.command(name="matrix")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the page to this file instead of stdout.",
)
@click.option(
    "--engine",
    "engines",
    multiple=True,
    shell_complete=complete_engine,
    help="Only this engine (repeatable).",
)
@click.option(
    "--capability",
    "capabilities",
    shell_complete=complete_capability,
    multiple=True,
    help="Only this capability's column (repeatable; default: every resolved flag).",
)
@click.option(
    "--min-evidence",
    type=NameChoice("evidence status", EVIDENCE_STATUSES),
    default=None,
    help="Resolve with claims weaker than this counted as absent (as resolve does).",
)
@click.option(
    "--stale-days",
    type=Days(),
    default=None,
    metavar="N",
    help="Show a claim last checked more than N days ago as stale, instead of judging "
    "by the evidence policy (toolwire evidence policy).",
)
@pass_ctx
def matrix_command(
    obj: Context,
    output: Path | None,
    engines: tuple[str, ...],
    capabilities: tuple[str, ...],
    min_evidence: str | None,
    stale_days: int | None,
) -> None:
    """Write the capability matrix: every engine and model against every flag, as HTML.

    One self-contained page (no external assets, works from file://): each cell's
    colour is the resolved value (on, off, no claim) and a small mark the evidence
    behind it, conflict and stale cells framed; the deciding claim and the latest
    observation show on hover and in the row's details. The header, engine and model
    stay in place while the table scrolls; columns sort, a filter box, a capability's
    value and the evidence boxes narrow the rows, which download as CSV (docs/tables.md).
    """
    from ..matrix import build, render_html
    from ..resolver import FLAGS

    registry = obj.registry()
    known = {e.name for e in registry.engines()}
    for engine in engines:
        check_known("engine", engine, known)
    for capability in capabilities:
        check_known("capability", capability, FLAGS)
    page = build(
        registry,
        engines=engines or None,
        capabilities=capabilities or None,
        min_evidence=min_evidence,
        stale_days=stale_days,
    )
    text = render_html(page)
    if output is None:
        click.echo(text, nl=False)
        return
    output.write_text(text, encoding="utf-8")
    models = sum(1 for row in page.rows if row.kind == "model")
    engines_shown = len({row.engine for row in page.rows})
    echo(f"wrote {output}: {plural(engines_shown, 'engine')}, {plural(models, 'model')}", err=True)


COMMANDS = [matrix_command]
