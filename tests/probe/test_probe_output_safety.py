"""A provider's reply cannot reach the reader's terminal raw through ``toolwire probe``.

A loopback anthropic server answers every probe with text holding terminal escapes
(OSC 52 writes the clipboard, OSC 0 the window title) and a spreadsheet formula; the
probe's table, its JSON, its CSV and ``observation list`` show them safely.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from typing import Any

import pytest
from cli_helpers import ok, on_terminal, ops_runner, run
from providers import KEY, ProviderServer

REPLY = "=HYPERLINK(1) \x1b]52;c;aGVsbG8=\x07\x1b]0;owned\x07\x9b2J"
SHOWN = "=HYPERLINK(1) ^[]52;c;aGVsbG8=^G^[]0;owned^G\ufffd2J"
RAW = ("\x1b", "\x07", "\x9b")


class HostileServer(ProviderServer):
    """The anthropic API, answering every request with ``REPLY``."""

    def _answer(self, path: str, headers: Any, body: Any) -> dict[str, Any]:
        model, _ = self.api.model_and_key(path, headers, body)
        return dict(self.api.reply(model, REPLY))


@pytest.fixture(scope="module")
def hostile() -> Iterator[ProviderServer]:
    server = HostileServer("anthropic").start()
    yield server
    server.stop()


def _probe(url: str, server: ProviderServer, *args: str) -> str:
    runner = ops_runner(ANTHROPIC_API_KEY=KEY)
    return ok(run(runner, url, "probe", "anthropic", "claude-x", "--base-url", server.base_url,
                  "--quiet", *args))  # fmt: skip


def test_probe_and_observation_list_show_the_reply_safely(
    sqlite_url: str, hostile: ProviderServer
) -> None:
    table = _probe(sqlite_url, hostile, "--scenario", "image_input")
    assert not any(raw in table for raw in RAW) and "^[]52;c;" in table
    as_json = _probe(sqlite_url, hostile, "--scenario", "image_input", "--format", "json")
    assert not any(raw in as_json for raw in RAW)
    assert REPLY in _strings(json.loads(as_json))  # the exact reply, escaped
    as_csv = _probe(sqlite_url, hostile, "--scenario", "image_input", "--format", "csv")
    assert not any(raw in as_csv for raw in RAW)
    runner = ops_runner()
    listed = ok(run(runner, sqlite_url, "observation", "list", "--format", "csv"))
    cells = [cell for row in csv.reader(io.StringIO(listed)) for cell in row]
    excerpts = [cell for cell in cells if "HYPERLINK" in cell]
    assert excerpts and all(cell.startswith("'" + SHOWN[:20]) for cell in excerpts)
    terminal = on_terminal(sqlite_url, "observation", "list", "--wide")
    assert not any(raw in terminal for raw in RAW) and "^[]0;owned^G" in terminal


def _strings(data: object) -> str:
    """Return every string in ``data`` joined by newlines."""
    if isinstance(data, str):
        return data
    if isinstance(data, dict):
        return "\n".join(_strings(value) for value in data.values())
    if isinstance(data, list):
        return "\n".join(_strings(value) for value in data)
    return ""
