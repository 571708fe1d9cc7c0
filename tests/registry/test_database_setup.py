"""Database setup: default location, SQLite settings, error wrapping."""

from __future__ import annotations

import multiprocessing
import sqlite3
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from toolwire.registry import db
from toolwire.registry._paths import user_data_dir
from toolwire.registry.errors import DatabaseError, DatabaseLocked
from toolwire.registry.store import Registry


def test_default_url_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(db.DATABASE_URL_ENV, "postgresql+psycopg://ops@db/toolwire")
    assert db.default_database_url() == "postgresql+psycopg://ops@db/toolwire"


def test_default_url_is_a_file_in_the_data_dir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(db.DATABASE_URL_ENV, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr("sys.platform", "linux")
    url = db.default_database_url()
    assert url == f"sqlite:///{tmp_path / 'xdg' / 'toolwire' / 'registry.sqlite3'}"
    assert (tmp_path / "xdg" / "toolwire").is_dir()


@pytest.mark.parametrize(
    ("platform", "environ", "expected"),
    [
        ("linux", {"XDG_DATA_HOME": "/data"}, Path("/data/toolwire")),
        ("linux", {"XDG_DATA_HOME": "relative"}, Path.home() / ".local/share/toolwire"),
        ("linux", {}, Path.home() / ".local/share/toolwire"),
        ("darwin", {}, Path.home() / "Library/Application Support/toolwire"),
        (
            "win32",
            {"LOCALAPPDATA": "C:/Users/ops/AppData/Local"},
            Path("C:/Users/ops/AppData/Local/toolwire"),
        ),
    ],
)
def test_user_data_dir_per_platform(platform: str, environ: dict[str, str], expected: Path) -> None:
    assert user_data_dir(platform=platform, environ=environ) == expected


def test_sqlite_connections_are_set_up_for_concurrency(tmp_path: Path) -> None:
    engine = db.create_engine(f"sqlite:///{tmp_path / 'r.sqlite3'}")
    try:
        with engine.connect() as connection:
            pragmas = {
                name: connection.exec_driver_sql(f"PRAGMA {name}").scalar()
                for name in ("journal_mode", "foreign_keys", "busy_timeout")
            }
        assert pragmas == {"journal_mode": "wal", "foreign_keys": 1, "busy_timeout": 5000}
    finally:
        engine.dispose()


def _connect_when_all_are_ready(url: str, barrier: Any, failures: Any) -> None:
    engine = db.create_engine(url)
    barrier.wait()
    try:
        with engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    except Exception as error:
        failures.put(f"{type(error).__name__}: {error}")
    finally:
        engine.dispose()


@pytest.mark.skipif(sys.platform == "win32", reason="forks the processes")
def test_processes_switching_a_new_file_to_wal_at_once_all_succeed(tmp_path: Path) -> None:
    # SQLite answers "database is locked" at once, without the busy timeout, to
    # processes that set WAL on a new file at the same moment; they must wait instead.
    context = multiprocessing.get_context("fork")
    failures = context.SimpleQueue()
    for round_ in range(10):
        path = tmp_path / f"race-{round_}.sqlite3"
        path.touch()
        barrier = context.Barrier(4)
        processes = [
            context.Process(
                target=_connect_when_all_are_ready, args=(f"sqlite:///{path}", barrier, failures)
            )
            for _ in range(4)
        ]
        for process in processes:
            process.start()
        for process in processes:
            process.join(timeout=60)
            assert process.exitcode == 0
    found = []
    while not failures.empty():
        found.append(failures.get())
    assert found == []


def test_a_slow_switch_to_wal_is_waited_for_past_the_busy_timeout(tmp_path: Path) -> None:
    # Another connection holds the new file's lock (as a switch to WAL does while it
    # syncs the first page) for far longer than this engine's busy timeout: the
    # connection waits for it instead of failing with "database is locked".
    path = tmp_path / "slow.sqlite3"
    path.touch()
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("CREATE TABLE held (x)")
    release = threading.Timer(0.6, holder.execute, args=("COMMIT",))
    engine = db.create_engine(f"sqlite:///{path}", busy_timeout_ms=50)
    release.start()
    try:
        started = time.monotonic()
        with engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert time.monotonic() - started >= 0.5  # it waited for the holder
    finally:
        release.join()
        holder.close()
        engine.dispose()


def test_write_transactions_take_the_lock_at_begin(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'r.sqlite3'}"
    first = db.create_engine(url)
    second = db.create_engine(url, busy_timeout_ms=50)
    try:
        with db.for_writing(first).begin() as holder:
            holder.exec_driver_sql("SELECT 1")
            # a reader is not blocked by the writer (WAL) ...
            with second.connect() as reader:
                assert reader.exec_driver_sql("SELECT 1").scalar() == 1
            # ... but a second writer is, at BEGIN, before it read anything
            with (
                pytest.raises(DatabaseLocked, match="locked by another writer"),
                db.wrap_errors("write failed"),
                db.for_writing(second).begin(),
            ):
                pass
    finally:
        first.dispose()
        second.dispose()


def test_foreign_keys_are_enforced(registry: Registry) -> None:
    engine = db.create_engine(registry.url)
    try:
        with pytest.raises(DatabaseError), db.wrap_errors("insert"), engine.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO model (engine_id, model_id, note, created_at, created_by)"
                    " VALUES (999999, 'm', '', CURRENT_TIMESTAMP, 't')"
                )
            )
    finally:
        engine.dispose()


def test_unreachable_database_is_a_database_error(tmp_path: Path) -> None:
    with pytest.raises(
        DatabaseError, match=r"cannot create database file .*No such file or directory"
    ):
        Registry(f"sqlite:///{tmp_path / 'missing' / 'dir' / 'r.sqlite3'}")


def test_malformed_url_is_a_database_error() -> None:
    with pytest.raises(DatabaseError, match="cannot open database"):
        db.create_engine("not a url")


def test_repr_hides_the_password(tmp_path: Path) -> None:
    registry = Registry("postgresql+psycopg://ops:secret@127.0.0.1:1/x", setup=False)
    try:
        assert "secret" not in repr(registry)
    finally:
        registry.close()


def test_the_revision_of_a_ready_database_is_one_query(seeded_database_url: str) -> None:
    engine = db.create_engine(seeded_database_url)
    seen: list[str] = []
    try:
        with engine.connect():
            pass  # the connection's own setup (pragmas) is not part of the check
        sa.event.listen(engine, "before_cursor_execute", lambda *args: seen.append(args[2]))
        assert db.current_revision(engine) == db.head_revision()
    finally:
        engine.dispose()
    queries = [s for s in seen if s.strip().upper() not in ("BEGIN", "COMMIT", "ROLLBACK")]
    assert queries == [f"SELECT version_num FROM {db.VERSION_TABLE}"]


def test_the_revision_of_an_empty_database_is_none(database_url: str) -> None:
    engine = db.create_engine(database_url)
    try:
        db.create_sqlite_file(engine)
        assert db.current_revision(engine) is None
        with engine.begin() as connection:  # the failed first query left nothing open
            connection.execute(sa.text("CREATE TABLE other (id INTEGER)"))
        assert db.current_revision(engine) is None
    finally:
        engine.dispose()
