"""``toolwire export``, ``toolwire import`` and ``toolwire diff``: move and compare registries."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from .._output import plural
from ._common import (
    Context,
    _Trouble,
    actor_option,
    complete_engine,
    echo,
    echo_json,
    pass_ctx,
    text_or_json_option,
    user_errors,
    who,
)


@click.command(name="export")
@click.option(
    "--engine",
    "engines",
    multiple=True,
    shell_complete=complete_engine,
    help="Only this engine (repeatable).",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write to this file instead of stdout.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["toml", "json"]),
    default="toml",
    show_default=True,
    help="Output format (TOML in the seed files' shape, or JSON).",
)
@pass_ctx
def export_command(obj: Context, engines: tuple[str, ...], output: Path | None, fmt: str) -> None:
    """Write the registry's state (engines, models, rules, capabilities, claims) as a file."""
    from ..transfer import dump_json, dump_toml, export

    document = export(obj.registry(), list(engines) or None)
    text = dump_toml(document) if fmt == "toml" else dump_json(document)
    if output is None:
        click.echo(text, nl=False)
    else:
        output.write_text(text, encoding="utf-8")


@click.command(name="import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--dry-run", is_flag=True, help="Print what would change; write nothing.")
@click.option(
    "--expect-revision",
    type=click.IntRange(min=0),
    default=None,
    metavar="N",
    help="Refuse (exit 1, nothing written) unless the registry is still at data revision N "
    "(what 'toolwire db current' showed when FILE was exported).",
)
@actor_option
@pass_ctx
def import_command(
    obj: Context, file: Path, dry_run: bool, expect_revision: int | None, actor: str | None
) -> None:
    """Apply an exported FILE in one transaction; each engine it lists is made to match it.

    FILE is TOML or JSON (see docs/console.md); it is checked whole before anything is
    written, and an error names the file and the place in it.
    """
    from ..errors import InvalidInput
    from ..transfer import import_document, read_document

    data, _ = read_document(file)
    try:
        report = import_document(
            obj.registry(),
            data,
            source=file.name,
            by=who(actor),
            dry_run=dry_run,
            expect_revision=expect_revision,
        )
    except InvalidInput as error:  # a value the registry refuses: name the file it is in
        message = str(error)
        if message.startswith(f"{file.name}: "):
            raise
        raise click.ClickException(f"{file.name}: {message}") from None
    for change in report.changes:
        echo(str(change))
    for warning in report.warnings:
        echo(f"warning: {warning}", err=True)
    verb = "would change" if dry_run else "changed"
    echo(f"{file.name}: {verb} {plural(len(report.changes), 'entry', 'entries')}", err=True)


@click.command(name="diff")
@click.option("--against", default=None, metavar="URL|FILE", help="Another registry or a file.")
@click.option("--seed", is_flag=True, help="Compare with the shipped seed data.")
@text_or_json_option
@pass_ctx
def diff_command(obj: Context, against: str | None, seed: bool, fmt: str) -> None:
    """List what this registry has that the other lacks, lacks, or holds differently.

    Exit 0 when they are the same, 1 when they differ, 2 when they cannot be
    compared (as diff does): a database that cannot be opened or holds no registry,
    a driver that is not installed, a file that is missing, unreadable or malformed.
    """
    if against is not None and seed:
        raise click.UsageError("give --against URL|FILE or --seed, not both")
    if against is None and not seed:
        raise click.UsageError("give --against URL|FILE or --seed")
    with user_errors(exit_code=2):
        try:
            changes = _changes(obj, against, seed)
        except click.ClickException as error:  # a registry that could not be opened
            if error.exit_code == 2:
                raise
            raise _Trouble(error.format_message()) from None
    if fmt == "json":
        echo_json(
            [
                {"kind": c.kind, "entity": c.entity, "subject": c.subject, "detail": c.detail}
                for c in changes
            ]
        )
    else:
        for change in changes:
            echo(str(change))
    if changes:
        raise SystemExit(1)


def _changes(obj: Context, against: str | None, seed: bool) -> list[Any]:
    """Return the differences ``diff`` reports (see ``toolwire.registry.transfer.diff``)."""
    from ..transfer import diff, export, read_document, seed_document

    if seed:
        base = seed_document()
        mine = export(obj.registry())
    elif "://" in (against or ""):
        other = Context(against, obj.busy_timeout, explicit=True, origin="--against")
        try:
            base = export(other.registry())
        finally:
            other.close()
        mine = export(obj.registry())
    else:
        _, base = read_document(Path(str(against)))
        names = [e["name"] for e in base.get("engine", [])]
        mine = export(obj.registry(), names)
        if "capability" not in base:
            mine.pop("capability", None)
    return list(diff(base, mine))


COMMANDS = [export_command, import_command, diff_command]
