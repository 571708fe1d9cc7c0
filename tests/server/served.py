"""Running ``toolwire serve`` as a user runs it, for the service tests.

``start_server`` starts ``toolwire serve`` in a subprocess on a free loopback port
and waits until ``/healthz`` answers; ``cli`` runs a ``toolwire`` command in-process.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

import httpx
from click.testing import CliRunner
from toolwire.registry.cli import main

TOOLWIRE = str(Path(sys.executable).with_name("toolwire"))
#: The bearer token and the body limit of ``shared_server``.
TOKEN = "s3cret-token-for-tests"
LIMIT = 1024 * 1024

#: Models recorded in the test registries (engine, model id, extra model add args).
MODELS = (
    ("anthropic", "claude-sonnet-4-5", ()),
    ("anthropic", "claude-2.1", ()),
    ("openai", "gpt-4o", ()),
    ("openai-responses", "gpt-5", ()),
    ("gemini", "gemini-3-pro-preview", ()),
    ("nousresearch", "Hermes-4-405B", ("--wire", "hermes")),
    ("ollama", "library/llava:7b", ()),
)


def free_port() -> int:
    """Return a TCP port free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cli(url: str, *args: str) -> str:
    """Run a toolwire command in-process on ``url``; return its stdout (it must succeed)."""
    done = CliRunner().invoke(main, ["--database-url", url, *args], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    return done.stdout


class Served:
    """A running ``toolwire serve`` subprocess."""

    def __init__(self, process: subprocess.Popen[bytes], port: int, log: Path) -> None:
        self.process = process
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        self.log = log

    def output(self) -> str:
        """Return what the server printed so far."""
        return self.log.read_text(errors="replace")

    def stop(self, timeout: float = 30) -> int:
        """Send SIGTERM and return the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise


def _environment(url: str, extra: dict[str, str] | None) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("TOOLWIRE_TOKEN", "TOOLWIRE_TOKEN_FILE", "PROMETHEUS_MULTIPROC_DIR")
    }
    env["TOOLWIRE_DATABASE_URL"] = url
    env.update(extra or {})
    return env


def start_server(
    url: str, directory: Path, *args: str, env: dict[str, str] | None = None
) -> Served:
    """Start ``toolwire serve`` on ``url`` and a free port; wait until it answers.

    A port another process took between the pick and the bind is picked again.
    """
    for _ in range(3):
        served = _start(url, directory, args, env)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if served.process.poll() is not None:
                break
            try:
                if httpx.get(served.base + "/healthz", timeout=1).status_code == 200:
                    return served
            except httpx.TransportError:
                pass
            time.sleep(0.05)
        else:
            served.stop()
            raise AssertionError(f"toolwire serve did not answer in 60 s: {served.output()}")
        if "address already in use" not in served.output():
            raise AssertionError(
                f"toolwire serve exited {served.process.returncode}: {served.output()}"
            )
    raise AssertionError(f"no free port after 3 tries: {served.output()}")


def _start(url: str, directory: Path, args: tuple[str, ...], env: dict[str, str] | None) -> Served:
    port = free_port()
    log = directory / f"serve-{port}.log"
    handle: IO[bytes] = log.open("wb")
    process = subprocess.Popen(
        [TOOLWIRE, "serve", "--port", str(port), "--log-level", "warning", *args],
        stdout=handle,
        stderr=subprocess.STDOUT,
        env=_environment(url, env),
    )
    handle.close()
    return Served(process, port, log)
