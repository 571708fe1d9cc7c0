"""Notice a change committed by any process, cheaply enough to ask on every call.

A resolver caches what it read from the registry; before each use it asks its
watch whether anything may have changed since it last asked.

- SQLite: ``PRAGMA data_version`` on a connection of the watch's own, which never
  writes. SQLite changes that number whenever another connection -- of this
  process or any other -- commits to the file, so the answer is exact. One
  statement on an open connection: about a microsecond and a half.
- PostgreSQL (psycopg 3): the write path sends ``NOTIFY`` in every transaction that
  changed something, and the watch ``LISTEN``\\s on a connection of its own. Asking
  reads what the server has already pushed, without a round trip. Delivery is
  asynchronous (the server passes the notification on right after the commit), so
  this watch is not exact: the resolver also reads the revision counter every
  ``max_age`` seconds behind it, in case the connection went quiet. A commit made
  through any ``Registry`` of this process is seen at once all the same: the
  write path also counts its commits in-process (``note_commit``).

Any other database makes ``open_watch`` return None. A watch that fails answers
True once and stops being exact: either way the resolver falls back to reading the
revision counter every ``max_age`` seconds.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy.engine import Engine

__all__ = ["CHANNEL", "ChangeWatch", "note_commit", "open_watch"]

#: The PostgreSQL notification channel the write path notifies on.
CHANNEL = "toolwire_registry"

# Commits that changed something, made by this process (see note_commit).
_commits = [0]


def note_commit() -> None:
    """Count a committed change made in this process (the write path calls it)."""
    _commits[0] += 1  # racing threads may lose a count, never the change itself


class ChangeWatch(Protocol):
    """Answers whether the registry may have changed since the last question."""

    #: True when a False answer is certain (no change was committed anywhere).
    exact: bool

    def changed(self) -> bool:
        """Return True when something may have been committed since the last call."""

    def close(self) -> None:
        """Release the watch's connection."""


class _SQLiteWatch:
    exact = True  # until it fails

    def __init__(self, path: str) -> None:
        # mode=rw: never create a database file that is not there
        uri = Path(path).absolute().as_uri() + "?mode=rw"
        self._connection = sqlite3.connect(
            uri, uri=True, isolation_level=None, check_same_thread=False
        )
        self._cursor = self._connection.cursor()
        self._lock = threading.Lock()
        self._version: int | None = None
        self._broken = False

    def changed(self) -> bool:
        with self._lock:
            if self._broken:
                return False
            try:
                # fetchall steps the statement to its end, so no read transaction stays
                # open (an open one would keep WAL checkpoints from completing).
                ((version,),) = self._cursor.execute("PRAGMA data_version").fetchall()
            except sqlite3.Error:
                self._broken, self.exact = True, False
                return True
            if version == self._version:
                return False
            self._version = version
            return True

    def close(self) -> None:
        with self._lock:
            self._broken, self.exact = True, False
            self._connection.close()


class _PostgresWatch:
    exact = False

    def __init__(self, connection: Any) -> None:
        self._connection = connection
        self._pgconn = connection.pgconn
        self._lock = threading.Lock()
        self._first = True
        self._broken = False
        self._commits = _commits[0]

    def changed(self) -> bool:
        with self._lock:
            if self._broken:
                return False
            try:
                self._pgconn.consume_input()  # non-blocking: takes what has arrived
                seen = self._first or self._commits != _commits[0]
                self._commits = _commits[0]
                while self._pgconn.notifies() is not None:
                    seen = True
            except Exception:  # a lost connection: the resolver polls from now on
                self._broken = True
                return True
            self._first = False
            return seen

    def close(self) -> None:
        with self._lock:
            self._broken = True
            self._connection.close()


def open_watch(engine: Engine) -> ChangeWatch | None:
    """Return a change watch on ``engine``'s database, or None where there is none."""
    url = engine.url
    try:
        if url.get_backend_name() == "sqlite":
            path = url.database
            if not path or path == ":memory:" or path.startswith("file:"):
                return None
            return _SQLiteWatch(path)
        if url.get_backend_name() == "postgresql" and url.get_driver_name() == "psycopg":
            # A connection of its own, outside the pool: it stays in LISTEN for good.
            cargs, cparams = engine.dialect.create_connect_args(url)
            connection = engine.dialect.loaded_dbapi.connect(*cargs, **cparams)
            try:
                connection.autocommit = True
                connection.execute(f"LISTEN {CHANNEL}")
            except BaseException:
                connection.close()
                raise
            return _PostgresWatch(connection)
    except Exception:  # no watch: the resolver polls instead
        return None
    return None
