"""Progress of a probe run on stderr: a live line on a terminal, else a line per request."""

from __future__ import annotations

__all__ = ["Progress"]

import shutil
import sys
import threading
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from ..probe import ProbeResult


class Progress:
    """Report each finished request on stderr (nothing when ``quiet``)."""

    def __init__(self, *, quiet: bool) -> None:
        self.quiet = quiet
        stream = sys.stderr  # CliRunner puts its own here
        self.live = not quiet and stream.isatty()
        self._stream = stream
        self._lock = threading.Lock()
        self._shown = False

    def __call__(self, done: int, total: int, model: str, result: ProbeResult) -> None:
        """Show that request ``done`` of ``total`` (``model``, its scenario) has ended."""
        if self.quiet:
            return
        status = "-" if result.http_status is None else str(result.http_status)
        line = f"[{done}/{total}] {model} {result.scenario}: {result.outcome} ({status})"
        with self._lock:
            if self.live:
                width = shutil.get_terminal_size((100, 24)).columns - 1
                self._stream.write("\r\x1b[K" + line[:width])
                self._stream.flush()
                self._shown = True
            else:
                click.echo(line, err=True)

    def finish(self) -> None:
        """End the live line, so what follows starts on a line of its own."""
        if self._shown:
            self._stream.write("\r\x1b[K")
            self._stream.flush()
            self._shown = False
