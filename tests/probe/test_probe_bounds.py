"""A probe stays bounded against hostile endpoints: memory, time and what it scans.

Each hostile reply comes from a real HTTP server on loopback (``hostile.py``); the
probe runs as its own process, so its peak memory is its own (``wait4``'s rusage).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from cli_helpers import ops_runner
from cli_helpers import run as run_cli
from hostile import HUGE, HostileServer, gzip_bomb
from providers import KEY
from toolwire.registry.probe import MAX_REPLY, redact

#: The peak resident memory a probe process may reach whatever the server sends.
PEAK_MB = 200


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str
    peak_mb: float
    seconds: float

    def result(self) -> dict[str, Any]:
        [result] = json.loads(self.stdout)["results"]
        assert isinstance(result, dict)
        return result


#: Runs the CLI, then writes the process's own peak RSS (VmHWM, counted from its exec:
#: a forked child's rusage would also count its parent's pages) to the file in argv[1].
_MEASURED = """
import atexit, sys
def peak():
    with open('/proc/self/status') as status:
        line = next(line for line in status if line.startswith('VmHWM:'))
    with open(PEAK_FILE, 'w') as out:
        out.write(line.split()[1])
PEAK_FILE = sys.argv.pop(1)
atexit.register(peak)
from toolwire.registry.cli import main
main(prog_name='toolwire')
"""


def probe_process(url: str, base_url: str, *args: str) -> Run:
    """Run ``toolwire probe openai gpt-4o`` in a child process; its output and peak RSS."""
    env = {**os.environ, "TOOLWIRE_USER": "ops", "OPENAI_API_KEY": KEY}
    env.pop("TOOLWIRE_DATABASE_URL", None)
    with tempfile.TemporaryDirectory() as folder:
        peak = os.path.join(folder, "peak")
        command = [
            *(sys.executable, "-c", _MEASURED, peak, "--database-url", url),
            *("probe", "openai", "gpt-4o", "--base-url", base_url, "--scenario", "image_input"),
            *("--quiet", "--format", "json", *args),
        ]
        started = time.monotonic()
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        seconds = time.monotonic() - started
        with open(peak) as measured:
            peak_kib = int(measured.read())
    return Run(done.returncode, done.stdout, done.stderr, peak_kib / 1024, seconds)


@pytest.fixture
def hostile(request: pytest.FixtureRequest) -> Iterator[HostileServer]:
    server = HostileServer(request.param).start()
    yield server
    server.stop()


@pytest.mark.parametrize("hostile", ["bomb"], indirect=True)
def test_a_gzip_bomb_is_cut_at_the_cap(sqlite_url: str, hostile: HostileServer) -> None:
    assert len(gzip_bomb()) < 2 * MAX_REPLY  # ~1 MB that inflates to 1 GiB
    run = probe_process(sqlite_url, hostile.base_url)
    assert run.code == 1, run.stderr
    assert run.stderr.strip() == (
        "Error: 1 of 1 request ended in error (that says nothing about the capability)"
    )
    result = run.result()
    assert (result["outcome"], result["http_status"]) == ("error", 200)
    assert result["excerpt"].startswith("reply larger than 1 MB inflated; read no further")
    assert run.peak_mb < PEAK_MB, f"peak RSS {run.peak_mb:.0f} MB"
    assert run.seconds < 30


@pytest.mark.parametrize("hostile", ["huge"], indirect=True)
def test_a_20_mb_body_is_cut_at_the_cap(sqlite_url: str, hostile: HostileServer) -> None:
    run = probe_process(sqlite_url, hostile.base_url)
    assert run.code == 1, run.stderr
    result = run.result()
    assert (result["outcome"], result["http_status"]) == ("error", 200)
    assert result["excerpt"].startswith("reply larger than 1 MB; read no further")
    assert len(result["excerpt"]) <= 200
    assert run.peak_mb < PEAK_MB, f"peak RSS {run.peak_mb:.0f} MB"
    assert HUGE > 10 * MAX_REPLY


@pytest.mark.parametrize("hostile", ["drip", "drip-headers"], indirect=True)
def test_a_slow_drip_ends_at_the_deadline(sqlite_url: str, hostile: HostileServer) -> None:
    run = probe_process(sqlite_url, hostile.base_url, "--timeout", "2")
    assert run.code == 1, run.stderr
    result = run.result()
    assert result["outcome"] == "error"
    assert result["excerpt"].startswith("no complete reply within 2s")
    # each byte came well within any per-read timeout; the deadline is for the whole
    assert 1900 <= result["latency_ms"] <= 5000
    assert run.peak_mb < PEAK_MB, f"peak RSS {run.peak_mb:.0f} MB"


@pytest.mark.parametrize("hostile", ["deflate-raw"], indirect=True)
def test_raw_deflate_is_read(sqlite_url: str, hostile: HostileServer) -> None:
    result = run_cli(
        ops_runner(OPENAI_API_KEY=KEY),
        sqlite_url,
        *("probe", "openai", "gpt-4o", "--base-url", hostile.base_url),
        *("--scenario", "image_input", "--quiet", "--format", "json"),
    )
    assert result.exit_code == 0, result.output
    [row] = json.loads(result.stdout)["results"]
    assert (row["outcome"], row["excerpt"]) == ("ignored", "the code")


@pytest.mark.parametrize("hostile", ["brotli"], indirect=True)
def test_an_encoding_not_asked_for_is_an_error(sqlite_url: str, hostile: HostileServer) -> None:
    result = run_cli(
        ops_runner(OPENAI_API_KEY=KEY),
        sqlite_url,
        *("probe", "openai", "gpt-4o", "--base-url", hostile.base_url),
        *("--scenario", "image_input", "--quiet", "--format", "json"),
    )
    assert result.exit_code == 1
    [row] = json.loads(result.stdout)["results"]
    assert row["outcome"] == "error"
    assert row["excerpt"] == "reply in an encoding not asked for: 'br'"


def test_redact_scans_only_the_head_of_a_long_reply() -> None:
    key = "sk-live-0123456789abcdef"
    text = f"bad key {key} " + "word " * 2_000_000  # 10 MB
    started = time.monotonic()
    excerpt = redact(text, key=key, sent="")
    assert time.monotonic() - started < 0.5
    assert excerpt.startswith("bad key [key] word word")
    assert len(excerpt) == 200 and excerpt.endswith("…")


def test_a_key_cut_by_the_scanned_head_is_still_replaced() -> None:
    key = "sk-live-0123456789abcdef"
    for spaces in range(780, 810):  # the key straddles the scanned head
        excerpt = redact(" " * spaces + key + " tail", key=key, sent="")
        assert "0123" not in excerpt and "sk-live" not in excerpt


@pytest.mark.parametrize("hostile", ["deflate-raw"], indirect=True)
def test_the_library_takes_a_smaller_cap(sqlite_registry: Any, hostile: HostileServer) -> None:
    from toolwire.registry.errors import InvalidInput
    from toolwire.registry.probe import probe

    args = {"recorded_by": "ops", "scenarios": ["image_input"], "base_url": hostile.base_url}
    report = probe(sqlite_registry, "openai", "gpt-4o", max_reply=16, **args)
    [result] = report.results
    assert result.outcome == "error"
    assert result.excerpt == "reply larger than 16 bytes; read no further"  # as it arrived
    for bad in (0, -1, 1.5):
        with pytest.raises(InvalidInput, match="invalid max_reply"):
            probe(sqlite_registry, "openai", "gpt-4o", max_reply=bad, **args)  # type: ignore[arg-type]
