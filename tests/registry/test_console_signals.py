"""Ctrl-C and closed pipes: real processes, stopped at known points of their work.

SIGINT is sent when the command is provably at a point: blocked reading its input
(nothing written yet), or blocked writing its report into a full pipe after its
transaction committed. The exit is 130 with one line saying which, and the
registry holds exactly what that line says.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from toolwire.registry import Registry

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc, sends SIGINT")

ENGINE = {
    "name": "signals-test",
    "provider": "Signals",
    "family": "openai",
    "default_wire": "openai",
    "kind": "shim",
}


@pytest.fixture(autouse=True)
def _interruptible_children() -> Iterator[None]:
    """Start the commands with SIGINT at its default, even when this run ignores it.

    A script's background job starts with SIGINT ignored, its children inherit that
    through exec, and a Python started so never raises KeyboardInterrupt. A signal
    with a handler is reset to its default at exec instead, so one is set here.
    """
    if signal.getsignal(signal.SIGINT) != signal.SIG_IGN:
        yield
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A registry that knows the engine, so that an import lists each model it adds."""
    from toolwire.registry.transfer import import_document, read_document

    url = f"sqlite:///{tmp_path / 'registry.sqlite3'}"
    path = tmp_path / "engine.json"
    path.write_text(json.dumps({"engine": [ENGINE]}), encoding="utf-8")
    with Registry(url) as registry:
        import_document(registry, read_document(path)[0], source="engine.json", by="ops")
    return url


def _start(url: str, *args: str, stdin: int | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "toolwire.registry.cli", "--database-url", url, *args],
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "TOOLWIRE_USER": "ops"},
    )


def _wait_for(condition: Callable[[], bool], process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while not condition():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the command never got there"
        time.sleep(0.01)


def _interrupted(process: subprocess.Popen[bytes]) -> str:
    """Send SIGINT; return the one line on stderr after asserting exit 130."""
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    text = err.decode()
    assert process.returncode == 130, text
    assert text.count("\n") == 1 and "Traceback" not in text, text
    return text.rstrip("\n")


def _reading_stdin(pid: int) -> bool:
    """Return True while ``pid`` is blocked in read(0, ...) (from /proc/PID/syscall)."""
    try:
        fields = Path(f"/proc/{pid}/syscall").read_text().split()
    except OSError:
        pytest.skip("no /proc/PID/syscall here")
    return fields[:2] == ["0", "0x0"]


def _pipe_full(process: subprocess.Popen[bytes]) -> bool:
    """Return True once the command's stdout pipe holds 60 KiB (its writes block)."""
    assert process.stdout is not None
    found = bytearray(4)
    fcntl.ioctl(process.stdout.fileno(), termios.FIONREAD, found)
    return int.from_bytes(found, sys.byteorder) >= 60 * 1024


def _state(url: str) -> tuple[int, set[str]]:
    with Registry(url) as registry:
        engines = {e.name for e in registry.engines()}
        assert "signals-test" in engines
        return registry.revision(), {m.model_id for m in registry.models("signals-test")}


def _big_document(path: Path, models: int = 1500) -> None:
    table = {
        **ENGINE,
        "model": [
            {
                "id": f"model-{n:05d}",
                "claim": [
                    {
                        "capability": "image_input",
                        "value": True,
                        "status": "documented",
                        "evidence": "a test",
                    }
                ],
            }
            for n in range(models)
        ],
    }
    path.write_text(json.dumps({"engine": [table]}), encoding="utf-8")


def test_import_interrupted_while_reading_its_file_writes_nothing(
    sqlite_url: str, tmp_path: Path
) -> None:
    fifo = tmp_path / "doc.json"
    os.mkfifo(fifo)
    before = _state(sqlite_url)
    process = _start(sqlite_url, "import", str(fifo))
    writer = None
    deadline = time.monotonic() + 120
    while writer is None:  # succeeds once the command opens the FIFO to read it
        try:
            writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
    try:
        assert _interrupted(process) == "interrupted: nothing written"
    finally:
        os.close(writer)
    assert _state(sqlite_url) == before


def test_import_interrupted_after_its_commit_says_so(sqlite_url: str, tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    _big_document(path)
    revision, _ = _state(sqlite_url)
    process = _start(sqlite_url, "import", str(path))
    _wait_for(lambda: _pipe_full(process), process)  # the report after the commit
    assert _interrupted(process) == "interrupted after the import committed"
    after, models = _state(sqlite_url)
    assert after > revision and len(models) == 1500


def test_import_dry_run_interrupted_while_printing_writes_nothing(
    sqlite_url: str, tmp_path: Path
) -> None:
    path = tmp_path / "big.json"
    _big_document(path)
    before = _state(sqlite_url)
    process = _start(sqlite_url, "import", str(path), "--dry-run")
    _wait_for(lambda: _pipe_full(process), process)
    assert _interrupted(process) == "interrupted: nothing written"
    assert _state(sqlite_url) == before


def _litellm_catalog(models: int) -> bytes:
    return json.dumps(
        {
            f"signals-model-{n:05d}": {
                "litellm_provider": "openai",
                "mode": "chat",
                "supports_vision": True,
            }
            for n in range(models)
        }
    ).encode()


def test_catalog_import_interrupted_while_reading_stdin_writes_nothing(
    sqlite_url: str,
) -> None:
    before = _state(sqlite_url)
    read_end, write_end = os.pipe()
    try:
        process = _start(sqlite_url, "catalog", "import", "litellm", "-", stdin=read_end)
        os.close(read_end)
        os.write(write_end, _litellm_catalog(10)[:50])  # part of it, then nothing
        _wait_for(lambda: _reading_stdin(process.pid), process)
        assert _interrupted(process) == "interrupted: nothing written"
    finally:
        os.close(write_end)
    assert _state(sqlite_url) == before


def test_catalog_import_interrupted_after_its_commit_says_so(
    sqlite_url: str, tmp_path: Path
) -> None:
    path = tmp_path / "litellm.json"
    path.write_bytes(_litellm_catalog(2000))
    with Registry(sqlite_url) as registry:
        revision = registry.revision()
    process = _start(sqlite_url, "catalog", "import", "litellm", str(path), "--format", "json")
    _wait_for(lambda: _pipe_full(process), process)  # the JSON report, after the commit
    assert _interrupted(process) == "interrupted after the catalog import committed"
    with Registry(sqlite_url) as registry:
        assert registry.revision() > revision
        claimed = {m.model_id for m in registry.models("openai")}
    assert {f"signals-model-{n:05d}" for n in range(2000)} <= claimed


# -- closed pipes --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("catalog", "import", "litellm", "{catalog}", "--dry-run"),
        ("catalog", "import", "litellm", "{catalog}", "--format", "json"),
        ("import", "{document}", "--dry-run"),
        ("export", "--format", "json"),
        ("log",),
    ],
)
def test_a_closed_pipe_ends_every_command_quietly_with_exit_0(
    sqlite_url: str, tmp_path: Path, args: tuple[str, ...]
) -> None:
    catalog = tmp_path / "litellm.json"
    catalog.write_bytes(_litellm_catalog(2000))
    document = tmp_path / "big.json"
    _big_document(document)
    argv = [a.format(catalog=catalog, document=document) for a in args]
    process = _start(sqlite_url, *argv)
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline()
    process.stdout.close()  # as `| head -1` does
    err = process.stderr.read().decode()
    process.wait(timeout=120)
    process.stderr.close()
    assert err == "" and process.returncode == 0, (process.returncode, err)


def test_a_command_interrupted_after_first_use_setup_says_only_that(tmp_path: Path) -> None:
    """The default registry is created and seeded on first use: that committed, not more."""
    process = subprocess.Popen(
        [sys.executable, "-m", "toolwire.registry.cli", "log", "--format", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={
            **{k: v for k, v in os.environ.items() if k != "TOOLWIRE_DATABASE_URL"},
            "XDG_DATA_HOME": str(tmp_path),
        },
    )
    _wait_for(lambda: _pipe_full(process), process)  # printing the seed's history
    assert _interrupted(process) == "interrupted: nothing written but the new registry's setup"
    assert (tmp_path / "toolwire" / "registry.sqlite3").exists()


@pytest.mark.parametrize(
    ("closed", "args", "message"),
    [
        (
            ">&-",
            (
                "engine",
                "add",
                "closed-out",
                "--provider=P",
                "--family=openai",
                "--wire=openai",
                "--kind=shim",
            ),
            "Error: standard output is closed; nothing was done",
        ),
        (
            "<&-",
            ("format", "openai", "gpt-4", "-", "--id", "c1", "--name", "t"),
            "Error: standard input is closed; nothing to read from -",
        ),
    ],
    ids=["stdout", "stdin"],
)
def test_a_stream_closed_at_start_is_said_in_one_line_before_anything_is_done(
    sqlite_url: str, closed: str, args: tuple[str, ...], message: str
) -> None:
    with Registry(sqlite_url) as registry:
        revision = registry.revision()
    command = [sys.executable, "-m", "toolwire.registry.cli", "--database-url", sqlite_url, *args]
    done = subprocess.run(
        ["bash", "-c", f'exec "$@" {closed}', "bash", *command],  # the shell closes the stream
        capture_output=True,
        env={**os.environ, "TOOLWIRE_USER": "ops"},
        timeout=60,
        check=False,
    )
    assert done.returncode == 1 and done.stderr.decode() == message + "\n", done.stderr
    assert done.stdout == b""
    with Registry(sqlite_url) as registry:
        assert registry.revision() == revision
