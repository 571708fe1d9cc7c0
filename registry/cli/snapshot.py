"""``toolwire snapshot``: the registry as resolved, one JSON document any language can read."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import click

from .._output import plural
from ._common import Context, echo, pass_ctx


@click.command(name="snapshot")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write to this file (replaced whole, never half-written) instead of stdout.",
)
@click.option(
    "--schema",
    is_flag=True,
    help="Write the snapshot's JSON Schema instead (to generate types for other languages).",
)
@pass_ctx
def snapshot_command(obj: Context, output: Path | None, schema: bool) -> None:
    """Write every engine, recorded model and capability as resolved, as JSON.

    Per engine: its wire and call-id rule; per recorded model: the wire, the converter
    options format_for passes, and every flag's value with its evidence status,
    source, verification date and the last day it is fresh (stale_after). Keys are
    sorted and the time in it is the registry's last change, so the same registry
    gives the same bytes. GET /v1/snapshot of `toolwire serve` serves the same
    document; --schema writes its JSON Schema.
    """
    from ..snapshot import build_snapshot, schema_text

    if schema:
        data = schema_text().encode("utf-8")
        what = "the snapshot schema"
    else:
        found = build_snapshot(obj.registry())
        data = found.body
        what = f"revision {found.revision}"
    if output is None:
        click.echo(data, nl=False)
        return
    _replace(output, data)
    echo(f"wrote {output}: {what}, {plural(len(data), 'byte')}", err=True)


def _replace(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file beside it, renamed over it.

    A failure names ``path``, not the temporary file.
    """
    try:
        handle, temporary = tempfile.mkstemp(
            dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
        )
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException as exc:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise OSError(exc.errno, exc.strerror, str(path)) from None
        raise


COMMANDS = [snapshot_command]
