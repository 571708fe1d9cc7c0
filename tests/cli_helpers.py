"""Running the ``toolwire`` command in-process with click's CliRunner, and checking results.

Shared by the registry and probe CLI tests (``tests/`` is on the import path: its
``conftest.py`` lives there).
"""

from __future__ import annotations

import shlex

from click.testing import CliRunner, Result
from toolwire.registry.cli import main


def ops_runner(**env: str | None) -> CliRunner:
    """Return a runner whose commands record as 'ops', with no database URL set, and ``env``."""
    return CliRunner(env={"TOOLWIRE_USER": "ops", "TOOLWIRE_DATABASE_URL": None, **env})


def run(runner: CliRunner, url: str, *args: str, input: str | None = None) -> Result:
    """Run ``toolwire --database-url URL ARGS`` and return the result."""
    return runner.invoke(main, ["--database-url", url, *args], input=input)


def cli(runner: CliRunner, url: str, command: str, input: str | None = None) -> Result:
    """Run ``toolwire --database-url URL COMMAND``, COMMAND written as in a shell."""
    return run(runner, url, *shlex.split(command), input=input)


def ok(result: Result) -> str:
    """Assert the command succeeded quietly on stderr; return its stdout."""
    assert result.exit_code == 0, (result.output, result.exception)
    assert result.stderr == ""
    return result.stdout


def noted(result: Result) -> str:
    """Assert a claim set that recorded a new model succeeded and said so on stderr."""
    assert result.exit_code == 0, (result.output, result.exception)
    assert result.stderr.startswith("recorded new model "), result.stderr
    assert len(result.stderr.splitlines()) == 1
    return result.stdout


def on_terminal(url: str, *args: str, columns: int = 100) -> str:
    """Run ``toolwire --database-url URL ARGS`` with stdout on a pseudo-terminal; its output.

    The terminal is ``columns`` wide (``COLUMNS``); the command fails the test when
    it exits non-zero.
    """
    import os
    import pty
    import subprocess
    import sys

    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "toolwire.registry.cli", "--database-url", url, *args],
        stdout=follower,
        stderr=subprocess.PIPE,
        env={**os.environ, "COLUMNS": str(columns), "TOOLWIRE_USER": "ops"},
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the command closed its side
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert process.stderr is not None
    err = process.stderr.read().decode()
    process.stderr.close()
    assert process.wait(timeout=60) == 0, err
    return b"".join(chunks).decode().replace("\r\n", "\n")


def said(result: Result, line: str) -> str:
    """Assert the command succeeded and said ``line`` (exactly, one line) on stderr."""
    assert result.exit_code == 0, (result.output, result.exception)
    assert result.stderr == line + "\n", result.stderr
    return result.stdout


def failed(result: Result, *fragments: str, code: int | None = None) -> str:
    """Assert a one-line 'Error:' failure without a traceback; return that line.

    The exit status is ``code`` when given, else any non-zero one.
    """
    if code is None:
        assert result.exit_code != 0
    else:
        assert result.exit_code == code, result.output
    assert isinstance(result.exception, SystemExit), result.exception  # not a crash
    assert "Traceback" not in result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, result.stderr
    assert result.stderr.rstrip("\n").splitlines()[-1] == errors[0]
    for fragment in fragments:
        assert fragment in errors[0]
    return errors[0]


def unnamed(result: Result, engine: str, model: str) -> str:
    """Assert a resolve or format of a model ``engine`` does not know succeeded and said so.

    The one line on stderr: no recorded model nor rule names it. Return stdout.
    """
    assert result.exit_code == 0, (result.output, result.exception)
    head = f"model {model!r} is not recorded for {engine} and no rule names it"
    assert result.stderr.startswith(head), result.stderr
    assert len(result.stderr.splitlines()) == 1
    return result.stdout
