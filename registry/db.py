"""Connect to the registry database, migrate it, and get it ready on first use.

SQLite (the default) is set up for several processes at once: WAL journal, a busy
timeout, foreign keys on every connection, and SQLAlchemy in charge of ``BEGIN`` (the
pysqlite recipe of the SQLAlchemy docs) so that write transactions start with
``BEGIN IMMEDIATE`` -- a writer takes the write lock before it reads, so two writers
queue on the busy timeout instead of failing on a lock upgrade. Read transactions use a
plain ``BEGIN`` and never wait for writers (WAL).

Migrations live in the ``toolwire.migrations`` package and run programmatically, so
they work from an installed wheel.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import sqlite3
import sys
import time
import uuid
import weakref
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import sqlalchemy as sa
from sqlalchemy import event, exc
from sqlalchemy.engine import Connection, Engine, make_url

from ._paths import install_hint, make_private_dirs, user_data_dir

if TYPE_CHECKING:  # alembic is imported where a migration needs it, not on every open
    from alembic.config import Config
from .errors import DatabaseError, DatabaseLocked, InvalidInput, NoRegistry
from .vocab import DB_INT_MAX

__all__ = [
    "BUSY_TIMEOUT_MS",
    "DATABASE_URL_ENV",
    "VERSION_TABLE",
    "alembic_config",
    "check_known",
    "create_engine",
    "create_sqlite_file",
    "current_revision",
    "default_database_url",
    "downgrade",
    "for_writing",
    "foreign_tables",
    "head_revision",
    "integrity_problems",
    "migration_connection",
    "read_only",
    "refuse_symlink",
    "require_registry",
    "revision_of",
    "setup_commits",
    "setup_lock",
    "sqlite_file",
    "upgrade",
    "version_table",
    "wrap_errors",
]

DATABASE_URL_ENV = "TOOLWIRE_DATABASE_URL"
DATABASE_FILE = "registry.sqlite3"
VERSION_TABLE = "toolwire_alembic_version"
BUSY_TIMEOUT_MS = 5000
BUSY_TIMEOUT_MAX_MS = 2**31 - 1  # SQLite's busy timeout is a C int of milliseconds
#: The least time a connection waits for another that switches a new file to WAL (see
#: ``_journal_mode_wal``): that switch writes and syncs the file's first page, which
#: can take seconds on a disk busy with other writes.
WAL_SWITCH_WAIT_S = 30.0
#: The version table as alembic creates it (``version_table_impl`` of alembic's
#: DefaultImpl), for the databases created without migrations; a test compares them.
version_table = sa.Table(
    VERSION_TABLE,
    sa.MetaData(),
    sa.Column("version_num", sa.String(32), nullable=False),
    sa.PrimaryKeyConstraint("version_num", name=f"{VERSION_TABLE}_pkc"),
)
_WRITE_OPTION = "toolwire_write"
# Arbitrary constant naming toolwire's setup lock among PostgreSQL advisory locks.
_PG_SETUP_LOCK = 0x746F6F6C77697265 & 0x7FFFFFFFFFFFFFFF


def default_database_url() -> str:
    """Return ``$TOOLWIRE_DATABASE_URL``, else an SQLite file in the user's data directory.

    The data directory, and each missing parent of it, is created readable by its
    owner only (0700) whatever the umask. The default file (and its directory) must
    be the user's own and not writable by group or others; a URL the user names is
    their choice and is not checked.

    :raises DatabaseError: when the data directory cannot be created (no writable
        home, as for a container user), or the default file is refused.
    """
    url = os.environ.get(DATABASE_URL_ENV, "").strip()
    if url:
        return url
    try:
        directory = user_data_dir()
    except RuntimeError as error:  # Path.home(): no HOME and no passwd entry
        raise DatabaseError(f"cannot locate the data directory: {error}; {_ELSEWHERE}") from None
    try:
        make_private_dirs(directory)
    except OSError as error:
        failed = error.filename or directory
        raise DatabaseError(
            f"cannot create the data directory {directory} "
            f"({error.strerror or error}: {failed}); {_ELSEWHERE}"
        ) from None
    path = directory / DATABASE_FILE
    for found in (directory, path):
        _refuse_shared(found)
    return f"sqlite:///{path}"


#: What to do when the default data directory cannot be used.
_ELSEWHERE = (
    "set XDG_DATA_HOME to a writable directory, TOOLWIRE_DATABASE_URL to a registry's "
    "database URL, or TOOLWIRE_DATABASE_URL=sqlite:// for an in-memory registry "
    "(seeded at start, gone at exit)"
)


def _refuse_shared(path: Path) -> None:
    """Refuse a default registry file or directory another user owns or may write.

    Another user who can write either could put a registry of their choosing there.

    :raises DatabaseError: naming the path and the fix.
    """
    try:
        found = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return
    except OSError as error:
        raise DatabaseError(f"cannot read {path}: {error.strerror or error}") from None
    getuid = getattr(os, "getuid", None)
    if getuid is None:  # Windows: ownership and modes are ACLs, not checked here
        return
    what = "data directory" if os.path.isdir(path) else "registry file"
    if found.st_uid != getuid():
        raise DatabaseError(
            f"refusing the {what} {path}: it belongs to uid {found.st_uid}, not to you "
            f"(uid {getuid()}); give TOOLWIRE_DATABASE_URL to use it anyway"
        )
    if found.st_mode & 0o022:
        raise DatabaseError(
            f"refusing the {what} {path}: group or others may write to it "
            f"(mode {found.st_mode & 0o777:o}); chmod go-w {path}"
        )


def create_engine(url: str, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> Engine:
    """Create an engine for ``url``; SQLite gets WAL, busy timeout, foreign keys, BEGIN IMMEDIATE.

    :raises DatabaseError: when the URL is malformed or names an unavailable driver.
    """
    if not isinstance(url, str) or "\x00" in url:
        raise DatabaseError("cannot open database: the URL must be a string without NUL")
    if not url.isascii():
        try:
            url.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate, from a non-UTF-8 argument
            raise DatabaseError(
                "cannot open database: the URL must be UTF-8 text (it holds a lone surrogate)"
            ) from None
    if "://" not in url:
        raise DatabaseError(
            f"cannot open database: {url!r} is not a database URL; for an SQLite file give "
            f"sqlite:///{Path(url).expanduser().absolute()}"
        )
    url, read_only_file, reason = _read_only_sqlite(url)
    url, keeper = _shared_memory(url)
    with wrap_errors("cannot open database"):
        try:
            engine = sa.create_engine(url)
        except ValueError as error:  # e.g. a port that is not a number
            raise DatabaseError(f"cannot open database: bad URL ({error})") from None
    if keeper is not None:  # held, then closed, with the engine
        weakref.finalize(engine, keeper.close)
    if engine.dialect.name == "sqlite":
        path = sqlite_file(engine)
        if path is not None:
            refuse_symlink(path, "database file")
        if read_only_file is not None and reason is not None:
            _READ_ONLY[engine] = (read_only_file, reason)
        _configure_sqlite(engine, busy_timeout_ms, wal=read_only_file is None)
    return engine


def _shared_memory(url: str) -> tuple[str, sqlite3.Connection | None]:
    """Return an in-memory SQLite URL as one database every connection of it shares.

    SQLAlchemy gives each thread its own connection to ``sqlite://``, and so its own
    empty database: a registry seeded in one thread would be empty in the others (a
    web server's worker threads). A named in-memory database with a shared cache is
    one database for every connection opened on it while one stays open: the keeper
    returned, held as long as the engine is.
    """
    try:
        parsed = make_url(url)
    except Exception:  # reported by create_engine with the usual message
        return url, None
    if not parsed.drivername.startswith("sqlite") or parsed.database not in (None, "", ":memory:"):
        return url, None
    name = f"file:toolwire-memory-{uuid.uuid4().hex}?mode=memory&cache=shared"
    keeper = sqlite3.connect(name, uri=True, check_same_thread=False)
    return str(parsed.set(database=name, query={"uri": "true"})), keeper


#: The SQLite engines opened read-only: the file and why (see ``read_only``).
_READ_ONLY: weakref.WeakKeyDictionary[Engine, tuple[Path, str]] = weakref.WeakKeyDictionary()


def read_only(engine: Engine) -> tuple[Path, str] | None:
    """Return the SQLite file ``engine`` reads read-only and why; None when it can write."""
    return _READ_ONLY.get(engine)


def _read_only_sqlite(url: str) -> tuple[str, Path | None, str | None]:
    """Return ``url`` opening an SQLite file this process cannot write read-only.

    A file that is not writable, or whose directory is not (SQLite writes its journal
    beside it), opens with ``mode=ro``; reading a WAL database that way needs its -wal
    and -shm files to exist or to be creatable, and where neither holds (a read-only
    file system, a directory nobody may write to) it opens ``immutable=1``, which
    reads the file as it is. Returns the URL, the file and the reason (None, None for
    a URL left as it is).
    """
    try:
        parsed = make_url(url)
    except Exception:  # reported by create_engine with the usual message
        return url, None, None
    database = parsed.database
    if (
        not parsed.drivername.startswith("sqlite")
        or not database
        or database == ":memory:"
        or database.startswith("file:")
    ):
        return url, None, None
    path = Path(database)
    try:
        if not path.is_file() or path.is_symlink():  # the symlink is refused later
            return url, None, None
        read_only_fs = bool(os.statvfs(path.parent).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):  # no such directory; no statvfs (Windows)
        return url, None, None
    directory_writable = os.access(path.parent, os.W_OK | os.X_OK)
    if read_only_fs:
        reason = "on a read-only file system"
    elif not os.access(path, os.W_OK):
        reason = "the file is not writable"
    elif not directory_writable:
        reason = f"its directory {path.parent} is not writable"
    else:
        return url, None, None
    side_files = all(Path(f"{path}{end}").is_file() for end in ("-wal", "-shm"))
    mode = "mode=ro" if not read_only_fs and (directory_writable or side_files) else "immutable=1"
    uri = f"file:{quote(str(path))}?{mode}"
    return str(parsed.set(database=uri, query={"uri": "true"})), path, reason


def for_writing(engine: Engine) -> Engine:
    """Return a view of ``engine`` whose transactions are write transactions.

    On SQLite they begin with ``BEGIN IMMEDIATE``; elsewhere the option has no effect.
    """
    return engine.execution_options(**{_WRITE_OPTION: True})


def _configure_sqlite(engine: Engine, busy_timeout_ms: int, *, wal: bool = True) -> None:
    path = sqlite_file(engine)

    @event.listens_for(engine, "handle_error")
    def _on_error(context: Any) -> None:
        # SQLite says "database or disk is full" for most writes that hit ENOSPC, but
        # a failed journal or shared-memory write is only a "disk I/O error": say
        # "disk full" when the file's file system has no space left.
        error = str(context.original_exception)
        if path is not None and _DISK_IO in error and _no_space_left(path):
            raise DatabaseError(f"{_DISK_FULL} on {path.parent} ({_DISK_IO}); {_FREE}")

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take BEGIN away from the driver: SQLAlchemy emits it (see _on_begin).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            if wal:
                _journal_mode_wal(cursor, busy_timeout_ms)
            cursor.execute("PRAGMA synchronous = NORMAL")
            cursor.execute("PRAGMA foreign_keys = ON")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        writing = connection.get_execution_options().get(_WRITE_OPTION, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if writing else "BEGIN")


def _journal_mode_wal(cursor: sqlite3.Cursor, busy_timeout_ms: int) -> None:
    """Switch the database to WAL, waiting out another connection that switches it too.

    On a new, empty file, connections that set WAL at the same moment get "database
    is locked" at once: SQLite does not wait there (the busy timeout is not used).
    Once one has switched, the mode is in the file and setting it again is a read.
    The others wait for the switch for the busy timeout, and at least
    ``WAL_SWITCH_WAIT_S``: it syncs the file, which a busy disk can make slow.
    """
    deadline = time.monotonic() + max(busy_timeout_ms / 1000, WAL_SWITCH_WAIT_S)
    while True:
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() >= deadline:
                raise
            time.sleep(0.005)


_DISK_IO = "disk I/O error"
_DISK_FULL = "the disk is full: no space left"
_FREE = "free some space and try again"


def _no_space_left(path: Path) -> bool:
    """Return True when the file system holding ``path`` has no block left for us."""
    try:
        found = os.statvfs(path.parent)
    except (OSError, AttributeError):  # gone, or no statvfs (Windows)
        return False
    return found.f_bavail == 0


def integrity_problems(engine: Engine, *, quick: bool = False) -> list[str] | None:
    """Return what SQLite's integrity check finds wrong (empty: nothing); None elsewhere.

    ``quick`` runs ``PRAGMA quick_check`` (the structure of every page, not whether
    indexes match their tables: fast enough to run before each export), else
    ``PRAGMA integrity_check``. A file too damaged for the check to run is one problem.
    Other databases check their own pages, so nothing is run there (None).

    :raises DatabaseError: when the database cannot be opened at all.
    """
    if engine.dialect.name != "sqlite":
        return None
    pragma = "quick_check" if quick else "integrity_check"
    with wrap_errors("cannot check the database"), engine.connect() as connection:
        try:
            found = connection.exec_driver_sql(f"PRAGMA {pragma}")
            # a row may hold several lines, under a "*** in database main ***" heading
            rows = [
                line
                for row in found
                for line in str(row[0]).splitlines()
                if line.strip() and not line.startswith("*** in database")
            ]
        except exc.DatabaseError as error:  # e.g. "database disk image is malformed"
            detail = str(error.orig or error).strip().splitlines()
            return [detail[0] if detail else type(error).__name__]
    return [] if rows == ["ok"] else rows


@contextlib.contextmanager
def wrap_errors(action: str) -> Iterator[None]:
    """Turn SQLAlchemy, alembic and sqlite3 errors into ``DatabaseError`` (one line).

    :raises DatabaseLocked: when SQLite stayed locked past the busy timeout.
    :raises DatabaseError: for any other database or migration failure.
    """
    try:
        yield
    except ImportError as error:  # the URL names a driver that is not installed
        name = error.name or str(error)
        if name.startswith("psycopg"):
            fix = f"install the postgresql extra: {install_hint('postgresql')}"
        else:
            fix = (
                "install the driver that URL names into this Python environment "
                "(toolwire's extras cover PostgreSQL only)"
            )
        raise DatabaseError(f"{action}: database driver {name} is not installed; {fix}") from error
    except UnicodeEncodeError as error:  # a lone surrogate from a non-UTF-8 argument
        raise InvalidInput(
            f"{action}: {error.object[error.start : error.end]!r} is not UTF-8 text"
        ) from None
    except OSError as error:  # e.g. the setup lock file next to an SQLite database
        raise DatabaseError(f"{action}: {error.strerror or error}: {error.filename}") from error
    except OverflowError:  # an int argument bound to a statement, past 64 bits
        raise InvalidInput(
            f"{action}: a whole number past the largest the database holds ({DB_INT_MAX})"
        ) from None
    except Exception as error:
        if not isinstance(error, (exc.SQLAlchemyError, sqlite3.Error, _command_error())):
            raise
        detail = str(getattr(error, "orig", None) or error).strip().splitlines()
        first = detail[0] if detail else type(error).__name__
        if "database is locked" in first or "database is busy" in first:
            raise DatabaseLocked(
                f"{action}: database is locked by another writer; try again"
            ) from error
        if "database or disk is full" in first:
            raise DatabaseError(f"{action}: {_DISK_FULL} ({first}); {_FREE}") from error
        if "database disk image is malformed" in first:
            raise DatabaseError(
                f"{action}: the database file is corrupt ({first}); run 'toolwire db check'"
            ) from error
        raise DatabaseError(f"{action}: {first}") from error


class _NeverRaised(Exception):
    """Stands for alembic's CommandError while alembic is not imported."""


def _command_error() -> type[Exception]:
    """Return alembic's CommandError if alembic is loaded (nothing raises it otherwise)."""
    found: type[Exception] = getattr(sys.modules.get("alembic.util"), "CommandError", _NeverRaised)
    return found


def alembic_config(connection: Connection | None = None) -> Config:
    """Return the alembic configuration of the shipped migrations (imports alembic)."""
    from alembic.config import Config

    config = Config()
    # A wheel installs the package as a plain directory, so the path is a real one.
    location = str(resources.files("toolwire.migrations"))
    config.set_main_option("script_location", location.replace("%", "%%"))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


#: Migration files are named after their revision: ``0003_ops.py`` is revision "0003",
#: and each revises the one before (a test holds alembic to this).
_MIGRATION_FILE = re.compile(r"(\d{4})_\w+\.py")


@functools.cache
def head_revision() -> str:
    """Return the newest migration revision shipped with this toolwire.

    Read from the migration file names, so that opening a registry that is at head
    does not import alembic.

    :raises DatabaseError: when no migration is found.
    """
    versions = resources.files("toolwire.migrations").joinpath("versions")
    found = [
        match.group(1)
        for entry in versions.iterdir()
        if (match := _MIGRATION_FILE.fullmatch(entry.name)) is not None
    ]
    if not found:
        raise DatabaseError("no migrations found in toolwire.migrations")
    return max(found)


def revision_of(connection: Connection) -> str | None:
    """Return the schema revision through ``connection`` with a plain query (None: empty)."""
    if not sa.inspect(connection).has_table(VERSION_TABLE):
        return None
    return _read_revision(connection)


def _read_revision(connection: Connection) -> str | None:
    rows = connection.execute(sa.text(f"SELECT version_num FROM {VERSION_TABLE}")).scalars().all()
    if len(rows) > 1:
        raise DatabaseError(f"{VERSION_TABLE} holds several revisions: {', '.join(rows)}")
    return rows[0] if rows else None


def sqlite_file(engine: Engine) -> Path | None:
    """Return the file of an SQLite database, None for other backends and memory DBs."""
    if engine.dialect.name != "sqlite":
        return None
    database = make_url(engine.url).database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def require_registry(engine: Engine) -> None:
    """Check that ``engine`` holds a toolwire registry, without creating anything.

    :raises NoRegistry: when the SQLite file does not exist or no toolwire schema is there.
    :raises DatabaseError: when the database cannot be reached.
    """
    shown = make_url(engine.url).render_as_string(hide_password=True)
    hint = "run 'toolwire db upgrade' to create one"
    path = sqlite_file(engine)
    if path is not None and not path.exists():
        raise NoRegistry(f"no toolwire registry at {shown}; {hint}")
    with wrap_errors("cannot open database"), engine.connect() as connection:
        present = sa.inspect(connection).has_table(VERSION_TABLE)
    if not present:
        raise NoRegistry(f"no toolwire registry at {shown} (no toolwire schema); {hint}")


def foreign_tables(connection: Connection) -> list[str]:
    """Return the tables of a database that has no toolwire schema (empty: a new DB)."""
    inspector = sa.inspect(connection)
    if inspector.has_table(VERSION_TABLE):
        return []
    return sorted(inspector.get_table_names())


def current_revision(engine: Engine) -> str | None:
    """Return the database's migration revision, None for an empty database.

    :raises DatabaseError: when the database cannot be read.
    """
    with wrap_errors("cannot read schema revision"), engine.connect() as connection:
        try:  # one query where the schema is there, as on every open of a ready registry
            return _read_revision(connection)
        except exc.DBAPIError:  # e.g. no version table yet: look the usual way
            connection.rollback()
        return revision_of(connection)


#: Setups and migrations this process committed (see ``setup_commits``).
_setups = [0]


def setup_commits() -> int:
    """Return how many setups or migrations this process committed so far.

    The CLI tells a Ctrl-C that came after a new registry was set up from one that
    came before.
    """
    return _setups[0]


@contextlib.contextmanager
def migration_connection(engine: Engine) -> Iterator[Connection]:
    """Yield a connection in one write transaction that DDL and data changes share.

    SQLite: foreign keys off around it (batch table rebuilds would cascade), checked
    with ``foreign_key_check`` before commit. PostgreSQL: an advisory transaction lock
    serialises concurrent setups.
    """
    sqlite = engine.dialect.name == "sqlite"
    with for_writing(engine).connect() as connection:
        raw = connection.connection.driver_connection
        assert raw is not None
        if sqlite:
            raw.execute("PRAGMA foreign_keys = OFF")  # no effect inside a transaction
        try:
            with connection.begin():
                if engine.dialect.name == "postgresql":
                    connection.execute(sa.select(sa.func.pg_advisory_xact_lock(_PG_SETUP_LOCK)))
                yield connection
                if sqlite and connection.exec_driver_sql("PRAGMA foreign_key_check").first():
                    raise DatabaseError("migration left rows violating foreign keys")
            _setups[0] += 1
        finally:
            if sqlite:
                raw.execute("PRAGMA foreign_keys = ON")


@contextlib.contextmanager
def setup_lock(engine: Engine) -> Iterator[None]:
    """Hold an exclusive file lock next to an SQLite database file, where fcntl exists.

    Elsewhere the ``BEGIN IMMEDIATE`` (SQLite) or advisory lock (PostgreSQL) taken by
    ``migration_connection`` serialises setups on its own.
    """
    database = make_url(engine.url).database if engine.dialect.name == "sqlite" else None
    try:
        import fcntl
    except ImportError:  # Windows
        fcntl = None  # type: ignore[assignment]
    if fcntl is None or not database or database == ":memory:" or database.startswith("file:"):
        yield
        return
    lock = Path(database).with_name(Path(database).name + ".lock")
    refuse_symlink(lock, "lock file")
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    with os.fdopen(os.open(lock, flags, 0o600), "r+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def refuse_symlink(path: Path, what: str) -> None:
    """Refuse a database or lock file that is a symbolic link (it could point anywhere).

    :raises DatabaseError: when ``path`` is a symlink.
    """
    if path.is_symlink():
        raise DatabaseError(f"refusing the symlinked {what} {path}: give the real path")


def create_sqlite_file(engine: Engine) -> None:
    """Create a missing SQLite database file readable by its owner only (0600).

    SQLite gives its -wal and -shm files the database file's permissions.

    :raises DatabaseError: for a symlinked path or a file that cannot be created.
    """
    path = sqlite_file(engine)
    if path is None:
        return
    refuse_symlink(path, "database file")
    if path.exists():
        return
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        os.close(os.open(path, flags, 0o600))
    except FileExistsError:  # another process created it meanwhile
        pass
    except OSError as error:
        raise DatabaseError(
            f"cannot create database file {path}: {error.strerror or error}"
        ) from error


def check_known(revision: str | None) -> None:
    """Refuse a schema revision this toolwire does not ship (a newer package wrote it).

    :raises DatabaseError: for an unknown revision.
    """
    if revision is None:
        return
    from alembic.script import ScriptDirectory
    from alembic.util import CommandError

    scripts = ScriptDirectory.from_config(alembic_config())
    try:
        scripts.get_revision(revision)
    except CommandError as error:
        raise DatabaseError(
            f"database schema revision {revision!r} is unknown to this toolwire "
            f"(head {head_revision()!r}); is it newer than the installed package?"
        ) from error


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Migrate the database up to ``revision`` (default: head) in one transaction.

    :raises DatabaseError: when a migration fails; nothing is applied then.
    """
    from alembic import command

    check_known(current_revision(engine))
    with (
        wrap_errors("migration failed"),
        setup_lock(engine),
        migration_connection(engine) as connection,
    ):
        command.upgrade(alembic_config(connection), revision)


def downgrade(engine: Engine, revision: str) -> None:
    """Migrate the database down to ``revision`` (``base`` empties it) in one transaction.

    :raises DatabaseError: when a migration fails; nothing is applied then.
    """
    from alembic import command

    with (
        wrap_errors("migration failed"),
        setup_lock(engine),
        migration_connection(engine) as connection,
    ):
        command.downgrade(alembic_config(connection), revision)
