"""Shared fixtures: the registry databases every registry test runs against.

``database_url`` is an empty database and ``registry`` a migrated, seeded
``Registry``, each parametrized over ``sqlite`` (a temp file) and ``postgresql`` (a
throwaway PostgreSQL server started once per session — under ``pytest -n``, once per
worker, so workers never share a database — one fresh database per test).
Seeded databases are copied from a per-session template, so each test starts from the
same state in milliseconds.

When the PostgreSQL server cannot start, the postgresql parameters are skipped with
the reason, unless ``TOOLWIRE_REQUIRE_POSTGRES=1`` (CI), which makes it an error.
"""

from __future__ import annotations

import atexit
import itertools
import logging
import os
import pwd
import queue
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import ops_runner
from click.testing import CliRunner
from clock import TEST_DAY
from hypothesis import HealthCheck, settings
from toolwire.registry import evidence
from toolwire.registry.bootstrap import ensure_ready
from toolwire.registry.db import create_engine
from toolwire.registry.store import Registry
from xdist.scheduler import LoadScopeScheduling, Scheduling

# The property tests draw new examples on every run on a developer's machine. Under
# TOOLWIRE_HYPOTHESIS=ci (``.ci/run`` sets it) each test's examples derive from the test
# itself, the same on every run: a submission's CI run checks the same cases every time
# and cannot fail on an example drawn by chance, and a slow shared machine fails no
# health check for slow data generation and no per-example deadline (timing belongs to
# the benchmarks, never to a test).
settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("TOOLWIRE_HYPOTHESIS", "default"))

#: The tests that import the providers' SDKs or LiteLLM: seconds of imports, made on
#: first use (tests/lazy.py). Under ``pytest -n`` they run as one unit on one worker
#: (``SdkTestsTogether``), so the other workers never import them.
SDK_TESTS = ("tests/convert/", "tests/probe/", "tests/integrations/")
SDK_FILES = (
    "tests/registry/test_boto3_payloads.py",
    "tests/registry/test_format_for.py",
    "tests/registry/test_resolver_bedrock.py",
)


class SdkTestsTogether(LoadScopeScheduling):
    """xdist's load scheduling, except that the SDK tests are one unit of work.

    Every other test is a unit of its own, handed out as workers free up; the
    largest unit (the SDK tests) is handed out first.
    """

    def _split_scope(self, nodeid: str) -> str:
        path = nodeid.split("::", 1)[0]
        return "sdk" if path.startswith(SDK_TESTS) or path in SDK_FILES else nodeid


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Scheduling | None:
    """Schedule ``pytest -n`` runs with ``SdkTestsTogether`` (another ``--dist`` mode wins)."""
    if config.getvalue("dist") != "load":
        return None
    return SdkTestsTogether(config, log)


PG_BIN = Path(os.environ.get("TOOLWIRE_PG_BIN", "/usr/lib/postgresql/15/bin"))
# The PostgreSQL clusters and the tests' temporary directories live in memory where the
# machine has a tmpfs with room: CREATE DATABASE copies a thousand small files and
# checkpoints, about 16 ms there against 90-160 ms on a disk, and every SQLite commit
# and CLI write of the tests would otherwise wait on the disk's flushes.
_MEMORY = Path("/dev/shm")
_MEMORY_ROOM = 4 * 1024**3  # bytes free for the tests' files (a run writes about 300 MB)


def _memory_usable() -> bool:
    if not (_MEMORY.is_dir() and os.access(_MEMORY, os.W_OK | os.X_OK)):
        return False
    stats = os.statvfs(_MEMORY)
    return stats.f_bavail * stats.f_frsize >= _MEMORY_ROOM


#: Set when pytest unconfigures this process as an xdist worker: its reports are all
#: sent. It exits when the controller tells it to.
_worker_done = False


def _end_worker() -> None:
    """End a finished worker without the interpreter's teardown.

    What is left of a worker's exit is freeing every module and object of its run,
    about 4 s on the worker that loaded the SDKs, and the controller waits for it
    before it reports. Registered when this module is imported, this handler runs
    after the handlers registered later (atexit runs the last first).
    """
    if _worker_done:
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


atexit.register(_end_worker)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Mark an xdist worker as done (see ``_end_worker``)."""
    global _worker_done
    _worker_done = hasattr(config, "workerinput")


def pytest_configure(config: pytest.Config) -> None:
    """Put the run's temporary directories in memory (``_MEMORY``) unless told where.

    Under ``pytest -n`` the controller chooses the directory and hands it to the workers.
    """
    chosen = config.option.basetemp is not None or "PYTEST_DEBUG_TEMPROOT" in os.environ
    if not chosen and _memory_usable():
        tempfile.tempdir = str(_MEMORY)


BACKENDS = ("sqlite", "postgresql")
_names = itertools.count()


class PostgresServer:
    """A private PostgreSQL cluster in a temp dir, on 127.0.0.1 and a free port."""

    def __init__(self) -> None:
        self.root = Path(
            tempfile.mkdtemp(prefix="toolwire-pg-", dir=_MEMORY if _memory_usable() else None)
        )
        self.data = self.root / "data"
        self.port = _free_port()
        self._as_user: list[str] = []
        self.before_stop: list[Callable[[], None]] = []

    def start(self) -> None:
        """Run initdb and pg_ctl start; as root, both run as an unprivileged user."""
        for tool in ("initdb", "pg_ctl"):
            if not (PG_BIN / tool).exists():
                raise RuntimeError(f"{PG_BIN / tool} not found")
        if os.geteuid() == 0:
            self._drop_privileges()
        self._run(
            PG_BIN / "initdb",
            "-D",
            self.data,
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
            "--no-instructions",
        )
        # Test workers start their servers side by side: a port taken between choosing
        # it and binding it is chosen again.
        for attempt in range(3):
            options = (
                f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root} "
                "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                # copies of the template by file, without WAL: a fraction of the time
                "-c wal_level=minimal -c max_wal_senders=0"
            )
            try:
                self._run(
                    PG_BIN / "pg_ctl",
                    "-D",
                    self.data,
                    "-l",
                    self.root / "server.log",
                    "-o",
                    options,
                    "-w",
                    "-t",
                    "60",
                    "start",
                )
                return
            except RuntimeError:
                if attempt == 2 or "already in use" not in _log_tail(self.root):
                    raise
                self.port = _free_port()

    def stop(self) -> None:
        """Stop the server and remove its files."""
        for callback in self.before_stop:
            callback()
        if (self.data / "postmaster.pid").exists():
            self._run(PG_BIN / "pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str) -> str:
        """Return the SQLAlchemy URL of a database on this server."""
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def execute(self, sql: str) -> None:
        """Run one statement outside a transaction (CREATE/DROP DATABASE)."""
        import psycopg

        with psycopg.connect(
            host="127.0.0.1",
            port=self.port,
            user="postgres",
            dbname="postgres",
            autocommit=True,
        ) as connection:
            connection.execute(sql)  # type: ignore[arg-type]

    def _drop_privileges(self) -> None:
        user = next((u for u in ("postgres", "nobody") if _has_user(u)), None)
        if user is None:
            raise RuntimeError("running as root and no postgres/nobody user to run initdb as")
        record = pwd.getpwnam(user)
        if shutil.which("runuser"):
            self._as_user = ["runuser", "-u", user, "--"]
        elif shutil.which("setpriv"):
            self._as_user = [
                "setpriv",
                f"--reuid={record.pw_uid}",
                f"--regid={record.pw_gid}",
                "--clear-groups",
            ]
        else:
            raise RuntimeError("running as root and neither runuser nor setpriv is available")
        os.chown(self.root, record.pw_uid, record.pw_gid)
        self.root.chmod(0o700)

    def _run(self, *argv: object) -> None:
        command = [*self._as_user, *map(str, argv)]
        done = subprocess.run(command, capture_output=True, text=True, cwd=self.root, check=False)
        if done.returncode != 0:
            tail = _log_tail(self.root)
            raise RuntimeError(
                f"{Path(str(argv[0])).name} failed ({done.returncode}): "
                f"{(done.stderr or done.stdout).strip()[-800:]} {tail}".strip()
            )


def _log_tail(root: Path) -> str:
    log = root / "server.log"
    return log.read_text(errors="replace")[-800:] if log.exists() else ""


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _has_user(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


@pytest.fixture(autouse=True)
def _evidence_day(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(evidence, "today", lambda: TEST_DAY)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """Start one PostgreSQL server for the session (skip or fail when it cannot start)."""
    server = PostgresServer()
    try:
        server.start()
    except Exception as error:  # any failure to start means "no PostgreSQL here"
        server.stop()
        reason = f"PostgreSQL test server unavailable: {error}"
        if os.environ.get("TOOLWIRE_REQUIRE_POSTGRES") == "1":
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    yield server
    server.stop()


class PreparedCopies:
    """Copies of the PostgreSQL template made ahead by threads, so tests rarely wait on one.

    CREATE DATABASE ... TEMPLATE takes a tenth of a second or more; the server makes
    copies on two connections while tests run, and drops the used ones on a third.
    """

    def __init__(self, server: PostgresServer, template: str, depth: int = 6) -> None:
        self._server = server
        self._template = template
        self._ready: queue.Queue[str | BaseException] = queue.Queue(maxsize=depth)
        self._used: queue.Queue[str] = queue.Queue()
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._fill, name=f"pg-copies-{n}", daemon=True)
            for n in range(2)
        ]
        self._threads.append(threading.Thread(target=self._drop, name="pg-drops", daemon=True))
        for thread in self._threads:
            thread.start()
        server.before_stop.append(self.close)

    def take(self) -> str:
        """Return the name of a fresh copy of the template."""
        item = self._ready.get(timeout=120)
        if isinstance(item, BaseException):
            raise RuntimeError(f"could not copy the template database: {item}") from item
        return item

    def give_back(self, name: str) -> None:
        """Drop a used copy in the background (the server's removal drops what is left)."""
        self._used.put(name)

    def close(self) -> None:
        """Stop making and dropping copies (the server's removal drops the rest)."""
        self._stop.set()
        while not self._ready.empty():
            self._ready.get_nowait()
        for thread in self._threads:
            thread.join(timeout=30)

    def _fill(self) -> None:
        while not self._stop.is_set():
            name = f"toolwire_test_{next(_names)}"
            item: str | BaseException = name
            try:
                self._server.execute(
                    f"CREATE DATABASE {name} TEMPLATE {self._template} STRATEGY FILE_COPY"
                )
            except Exception as error:  # reported to the test that takes it
                item = error
            while not self._stop.is_set():
                try:
                    self._ready.put(item, timeout=0.2)
                    break
                except queue.Full:
                    continue
            if isinstance(item, BaseException):
                return

    def _drop(self) -> None:
        while not self._stop.is_set():
            try:
                name = self._used.get(timeout=0.2)
            except queue.Empty:
                continue
            try:
                self._server.execute(f"DROP DATABASE {name} WITH (FORCE)")
            except Exception:  # a copy left behind goes with the server's files
                continue


class SeededTemplates:
    """One migrated, seeded database per backend, built on first use, to copy from."""

    def __init__(self, directory: Path) -> None:
        self._directory = directory
        self._made: dict[str, str] = {}
        self._copies: PreparedCopies | None = None

    def copies(self, request: pytest.FixtureRequest) -> PreparedCopies:
        """Return the background maker of PostgreSQL template copies."""
        if self._copies is None:
            template = self.get(request, "postgresql")
            server: PostgresServer = request.getfixturevalue("postgres_server")
            self._copies = PreparedCopies(server, template)
        return self._copies

    def close(self) -> None:
        """Stop the background copies."""
        if self._copies is not None:
            self._copies.close()

    def get(self, request: pytest.FixtureRequest, backend: str) -> str:
        """Return the template's file path (sqlite) or database name (postgresql)."""
        if backend not in self._made:
            if backend == "sqlite":
                path = self._directory / "seeded.sqlite3"
                url, self._made[backend] = f"sqlite:///{path}", str(path)
            else:
                server: PostgresServer = request.getfixturevalue("postgres_server")
                server.execute("CREATE DATABASE toolwire_template")
                url, self._made[backend] = server.url("toolwire_template"), "toolwire_template"
            engine = create_engine(url)
            try:
                ensure_ready(engine)
            finally:
                engine.dispose()  # copying needs a source nobody is connected to
        return self._made[backend]


@pytest.fixture(scope="session")
def seeded_templates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SeededTemplates]:
    """Return the session's seeded template databases."""
    templates = SeededTemplates(tmp_path_factory.mktemp("templates"))
    yield templates
    templates.close()


def _require(request: pytest.FixtureRequest, backend: str) -> None:
    if backend == "postgresql":
        request.getfixturevalue("postgres_server")  # skips here when unavailable


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """Name the database backend of this test: sqlite or postgresql."""
    _require(request, request.param)
    return str(request.param)


def _fresh(request: pytest.FixtureRequest, backend: str, tmp_path: Path, seeded: bool) -> str:
    if backend == "sqlite":
        path = tmp_path / "registry.sqlite3"
        if seeded:
            shutil.copyfile(request.getfixturevalue("seeded_templates").get(request, backend), path)
        return f"sqlite:///{path}"
    server: PostgresServer = request.getfixturevalue("postgres_server")
    if seeded:
        copies = request.getfixturevalue("seeded_templates").copies(request)
        name = copies.take()
        request.addfinalizer(lambda: copies.give_back(name))
        return server.url(name)
    name = f"toolwire_test_{next(_names)}"
    server.execute(f"CREATE DATABASE {name}")
    request.addfinalizer(lambda: server.execute(f"DROP DATABASE {name} WITH (FORCE)"))
    return server.url(name)


@pytest.fixture
def database_url(request: pytest.FixtureRequest, backend: str, tmp_path: Path) -> str:
    """Return the URL of an empty database on this test's backend."""
    return _fresh(request, backend, tmp_path, seeded=False)


@pytest.fixture
def seeded_database_url(request: pytest.FixtureRequest, backend: str, tmp_path: Path) -> str:
    """Return the URL of a migrated, seeded database on this test's backend."""
    return _fresh(request, backend, tmp_path, seeded=True)


@pytest.fixture
def registry(seeded_database_url: str) -> Iterator[Registry]:
    """Return a migrated, seeded Registry on this test's backend."""
    with Registry(seeded_database_url) as opened:
        yield opened


@pytest.fixture(scope="module", params=BACKENDS)
def shared_registry(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Registry]:
    """Return a seeded Registry shared by a module's read-only tests: never write to it."""
    _require(request, request.param)
    url = _fresh(request, request.param, tmp_path_factory.mktemp("shared"), seeded=True)
    with Registry(url) as opened:
        yield opened


@pytest.fixture
def second_database_url(request: pytest.FixtureRequest, backend: str, tmp_path: Path) -> str:
    """Return the URL of a second empty database on this test's backend."""
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'second.sqlite3'}"
    server: PostgresServer = request.getfixturevalue("postgres_server")
    name = f"toolwire_test_{next(_names)}"
    server.execute(f"CREATE DATABASE {name}")
    request.addfinalizer(lambda: server.execute(f"DROP DATABASE {name} WITH (FORCE)"))
    return server.url(name)


@pytest.fixture
def url(seeded_database_url: str) -> str:
    """Return the URL of a fresh seeded database (the CLI tests' ``--database-url``)."""
    return seeded_database_url


@pytest.fixture
def runner() -> CliRunner:
    """Return a CLI runner whose commands record as 'ops'."""
    return ops_runner()
