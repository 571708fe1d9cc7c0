"""The registry handle: reads return frozen records, each write is one transaction.

Writes append ``claim_event`` rows for every claim change and bump the registry
revision once per transaction that changed something, so an in-process cache can
compare ``revision()`` to notice a change made by another process. A write that is
rejected (typed error, database failure) is rolled back and changes nothing. Setting
a claim to exactly what it already is (value, status, evidence, source, verified_at)
is a no-op: no event, no revision bump.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Collection, Iterator
from datetime import UTC, date, datetime, time
from types import MappingProxyType, TracebackType
from typing import Any, Concatenate, ParamSpec, TypeVar

from sqlalchemy import Table, or_, select
from sqlalchemy.engine import Connection

from . import _queries as q
from . import _validate as check
from . import db
from ._aging import stale_cutoff
from ._changes import ChangeWatch, note_commit, open_watch
from ._public import shown_in_package
from ._write.claims import ClaimInput, ClaimsReport
from ._writer import Writer
from .bootstrap import ensure_ready
from .errors import DatabaseError, InvalidInput, ReadOnlyRegistry, UnknownCapability
from .records import (
    Capability,
    Claim,
    ClaimEvent,
    Engine,
    EngineSnapshot,
    LogEntry,
    Model,
    Rule,
    WireForm,
)
from .tables import (
    capability_table,
    change_event_table,
    claim_event_table,
    claim_table,
    engine_table,
    model_table,
)
from .vocab import EVIDENCE_STATUSES, evidence_rank

__all__ = ["NATIVE_MEDIA_CAPABILITIES", "ClaimInput", "ClaimsReport", "Registry"]

#: Capabilities that let images or PDFs reach a model natively.
NATIVE_MEDIA_CAPABILITIES: tuple[str, ...] = (
    "image_input",
    "source_blocks",
    "tool_result_images",
    "tool_result_pdf",
)


P = ParamSpec("P")
R = TypeVar("R")


def _one_transaction(
    method: Callable[Concatenate[Writer, P], R],
) -> Callable[Concatenate[Registry, P], R]:
    """Return ``method`` of ``Writer`` as a ``Registry`` method run in its own batch.

    It keeps the writer method's signature and docstring; a failed write changes
    nothing.
    """

    @functools.wraps(method)
    def write(self: Registry, /, *args: P.args, **kwargs: P.kwargs) -> R:
        with self.batch() as writer:
            return method(writer, *args, **kwargs)

    return write


class Registry:
    """A handle on one registry database (SQLite by default, any SQLAlchemy URL)."""

    def __init__(
        self,
        url: str | None = None,
        *,
        setup: bool = True,
        create: bool = True,
        busy_timeout: float = db.BUSY_TIMEOUT_MS / 1000,
    ) -> None:
        """Open the registry at ``url`` (default: ``default_database_url()``).

        With ``setup`` the database is migrated to head and seeded when it is not at
        head yet (first use). Without ``create`` a database that does not exist or
        holds no toolwire schema is refused (``NoRegistry``) and nothing is created.
        ``busy_timeout`` is how many seconds an SQLite write waits for another writer
        before failing with ``DatabaseLocked``.

        :raises NoRegistry: without ``create``, when there is no registry at ``url``.
        :raises DatabaseError: when the database cannot be opened or set up.
        :raises InvalidInput: for a ``url`` that is not a string, or a ``busy_timeout``
            that is not a number of seconds from 0 (SQLite holds up to about 24 days).
        """
        if url is not None and not isinstance(url, str):
            raise InvalidInput(f"invalid database url {check.describe(url)}: must be a string")
        self._url = url if url is not None else db.default_database_url()
        seconds = check.seconds(busy_timeout, "busy_timeout", db.BUSY_TIMEOUT_MAX_MS // 1000)
        self._engine = db.create_engine(self._url, busy_timeout_ms=round(seconds * 1000))
        self._write_engine = db.for_writing(self._engine)
        try:
            if create:
                db.create_sqlite_file(self._engine)  # 0600, before SQLite makes it
            else:
                db.require_registry(self._engine)
        except DatabaseError as error:
            self._engine.dispose()
            raise self._name_the_file(error) from error
        except BaseException:
            self._engine.dispose()
            raise
        self._watches: list[ChangeWatch] = []
        if setup:
            try:
                ensure_ready(self._engine)
            except DatabaseError as error:
                self._engine.dispose()
                raise self._name_the_file(error) from error
            except BaseException:
                self._engine.dispose()
                raise

    def _name_the_file(self, error: DatabaseError) -> DatabaseError:
        """Return ``error``, or one naming the file when SQLite found no database in it."""
        if "file is not a database" not in str(error):
            return error
        found = db.read_only(self._engine)
        path = found[0] if found is not None else db.sqlite_file(self._engine)
        return DatabaseError(
            f"cannot open database: {path} is not an SQLite database (file is not a "
            "database); point the URL at a toolwire registry"
        )

    @property
    def url(self) -> str:
        """Return the database URL this registry was opened with."""
        return self._url

    def close(self) -> None:
        """Close every pooled connection and every change watch handed out."""
        for watch in self._watches:
            watch.close()
        self._watches.clear()
        self._engine.dispose()

    def __enter__(self) -> Registry:
        """Return self; ``close()`` runs on exit."""
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Close the registry."""
        self.close()

    def __repr__(self) -> str:
        """Show the URL without its password."""
        from sqlalchemy.engine import make_url

        return f"Registry({make_url(self._url).render_as_string(hide_password=True)!r})"

    # -- transactions -------------------------------------------------------------

    @contextlib.contextmanager
    def reading(self, action: str) -> Iterator[Connection]:
        """Open a connection for the statements of one read; close it after.

        On PostgreSQL the read sees one snapshot (repeatable read). ``action`` says
        what failed in the ``DatabaseError`` a database failure becomes ("cannot read
        observations").

        :raises DatabaseError: when the database fails.
        """
        with db.wrap_errors(action), self._engine.connect() as connection:
            if self._engine.dialect.name == "postgresql":
                # One snapshot for all the statements of a read.
                connection.execution_options(isolation_level="REPEATABLE READ")
            yield connection

    @contextlib.contextmanager
    def batch(self) -> Iterator[Writer]:
        """Run several writes as one transaction: all or nothing, one revision bump.

        :raises ReadOnlyRegistry: when the SQLite file was opened read-only.
        :raises DatabaseError: when the database fails; nothing is written then.
        """
        read_only = db.read_only(self._engine)
        if read_only is not None:
            raise ReadOnlyRegistry(*read_only)
        with db.wrap_errors("write failed"), self._write_engine.begin() as connection:
            writer = Writer(connection)
            writer.begin()
            yield writer
            writer.finish()
        if writer.changed:
            note_commit()

    # -- reads --------------------------------------------------------------------

    def integrity_problems(self, *, quick: bool = False) -> list[str] | None:
        """Return what SQLite's integrity check finds (empty: nothing); None on other databases.

        ``quick`` runs ``quick_check`` (every page's structure) instead of the full
        ``integrity_check``.

        :raises DatabaseError: when the database cannot be opened at all.
        """
        return db.integrity_problems(self._engine, quick=quick)

    def revision(self) -> int:
        """Return the revision counter; it changes whenever a write changed something.

        :raises DatabaseError: when the database cannot be read.
        """
        with self.reading("cannot read registry revision") as connection:
            return q.revision(connection)

    def watch_changes(self) -> ChangeWatch | None:
        """Return a watch that tells cheaply whether anything was committed since.

        None where the database offers no such signal (then read ``revision()``).
        """
        watch = open_watch(self._engine)
        if watch is not None:
            self._watches.append(watch)
        return watch

    def schema_revision(self) -> str | None:
        """Return the database's migration revision (None when it is empty).

        :raises DatabaseError: when the database cannot be read.
        """
        return db.current_revision(self._engine)

    def engine(self, name: str) -> Engine:
        """Return the engine called ``name``.

        :raises UnknownEngine: when there is none (the message names the closest ones).
        """
        with self.reading("cannot read engine") as connection:
            row = connection.execute(
                select(*q.ENGINE_COLUMNS).where(engine_table.c.name == name)
            ).first()
            if row is None:
                q.engine_id(connection, name)  # raises UnknownEngine with the hint
            assert row is not None
            return q.to_engine(row)

    def engines(self) -> tuple[Engine, ...]:
        """Return every engine, by name."""
        with self.reading("cannot read engines") as connection:
            rows = connection.execute(select(*q.ENGINE_COLUMNS).order_by(engine_table.c.name))
            return tuple(q.to_engine(row) for row in rows)

    def models(self, engine: str | None = None) -> tuple[Model, ...]:
        """Return the recorded models with their claims, of one engine or of all.

        :raises UnknownEngine: when ``engine`` does not exist.
        """
        with self.reading("cannot read models") as connection:
            models_query = q.model_select().order_by(engine_table.c.name, model_table.c.model_id)
            claims_query = q.claim_select().where(claim_table.c.model_row_id.is_not(None))
            if engine is not None:
                engine_id = q.engine_id(connection, engine)
                models_query = models_query.where(model_table.c.engine_id == engine_id)
                claims_query = claims_query.where(claim_table.c.engine_id == engine_id)
            by_model: dict[tuple[str, str], dict[str, Claim]] = {}
            for row in connection.execute(claims_query):
                claim = q.to_claim(row)
                assert claim.model is not None
                by_model.setdefault((claim.engine, claim.model), {})[claim.capability] = claim
            return tuple(
                Model(
                    **row._mapping,
                    claims=MappingProxyType(by_model.get((row.engine, row.model_id), {})),
                )
                for row in connection.execute(models_query)
            )

    def model(self, engine: str, model_id: str) -> Model | None:
        """Return the model row of ``model_id`` on ``engine``, None when unrecorded.

        :raises UnknownEngine: when the engine does not exist.
        """
        with self.reading("cannot read model") as connection:
            engine_id = q.engine_id(connection, engine)
            row = connection.execute(
                q.model_select().where(
                    model_table.c.engine_id == engine_id, model_table.c.model_id == model_id
                )
            ).first()
            if row is None:
                return None
            claims = connection.execute(
                q.claim_select().where(
                    claim_table.c.engine_id == engine_id,
                    claim_table.c.subject_key == f"model:{model_id}",
                )
            )
            by_capability = {c.capability: q.to_claim(c) for c in claims}
            return Model(**row._mapping, claims=MappingProxyType(by_capability))

    def rules(self, engine: str) -> tuple[Rule, ...]:
        """Return the engine's rules in order (among matching rules the last one wins).

        :raises UnknownEngine: when the engine does not exist.
        """
        return self.engine_snapshot(engine, models=()).rules

    def claims(
        self,
        *,
        engine: str | None = None,
        capability: str | None = None,
        status: str | None = None,
        model: str | None = None,
        recorded_by: str | None = None,
    ) -> tuple[Claim, ...]:
        """Return the claims matching every filter given, by engine, subject, capability.

        :raises UnknownEngine: when ``engine`` does not exist.
        :raises InvalidStatus: for an unknown status filter.
        """
        where: list[Any] = []
        if capability is not None:
            where.append(claim_table.c.capability == capability)
        if status is not None:
            where.append(claim_table.c.status == check.status(status))
        if model is not None:
            where.append(model_table.c.model_id == model)
        if recorded_by is not None:
            where.append(claim_table.c.recorded_by == recorded_by)
        return self._claims(engine, where)

    def _claims(self, engine: str | None, where: list[Any]) -> tuple[Claim, ...]:
        with self.reading("cannot read claims") as connection:
            if engine is not None:
                where = [*where, claim_table.c.engine_id == q.engine_id(connection, engine)]
            rows = connection.execute(
                q.claim_select()
                .where(*where)
                .order_by(engine_table.c.name, claim_table.c.subject_key, claim_table.c.capability)
            )
            return tuple(q.to_claim(row) for row in rows)

    def wire_forms(self) -> tuple[WireForm, ...]:
        """Return the evidence recorded for each native tool-result form."""
        with self.reading("cannot read wire forms") as connection:
            return tuple(q.to_wire_form(row) for row in connection.execute(q.wire_form_select()))

    def engine_snapshot(
        self, engine: str, *, models: Collection[str] | None = None
    ) -> EngineSnapshot:
        """Return the engine, its claims, ordered rules and models, in four queries.

        ``models`` limits the models read to those ids (the resolver reads one);
        None reads every model of the engine.

        :raises UnknownEngine: when the engine does not exist.
        :raises InvalidInput: for ``models`` that is not a collection of model ids.
        """
        ids = None if models is None else check.model_ids(models)
        with self.reading("cannot read engine") as connection:
            return q.snapshot(connection, engine, ids)

    def claim_history(
        self,
        engine: str,
        *,
        model: str | None = None,
        capability: str | None = None,
    ) -> tuple[ClaimEvent, ...]:
        """Return the claim events of an engine, oldest first.

        History is kept by name, so it outlives deleted engines, models and rules and
        an unknown engine simply has no events.

        :raises InvalidInput: for an engine, model or capability that is not a string.
        """
        check.text(engine, "engine")
        for value, what in ((model, "model"), (capability, "capability")):
            if value is not None:
                check.text(value, what)
        where: list[Any] = [claim_event_table.c.engine == engine]
        if model is not None:
            where.append(claim_event_table.c.subject_key == f"model:{model}")
        if capability is not None:
            where.append(claim_event_table.c.capability == capability)
        with self.reading("cannot read claim history") as connection:
            rows = connection.execute(
                select(claim_event_table).where(*where).order_by(claim_event_table.c.id)
            )
            return tuple(q.to_event(row) for row in rows)

    def capabilities(self) -> tuple[Capability, ...]:
        """Return the capability vocabulary, by name."""
        with self.reading("cannot read capabilities") as connection:
            rows = connection.execute(
                select(capability_table).order_by(capability_table.c.name)
            ).all()
            return tuple(Capability(**row._mapping) for row in rows)

    def capability(self, name: str) -> Capability:
        """Return one capability of the vocabulary.

        :raises UnknownCapability: when the vocabulary has no such name (with the closest).
        """
        found = {c.name: c for c in self.capabilities()}
        if not isinstance(name, str) or name not in found:  # a list is no name (unhashable)
            raise UnknownCapability(name, found)
        return found[name]

    def log(
        self,
        *,
        since: datetime | date | None = None,
        by: str | None = None,
        engine: str | None = None,
        limit: int | None = None,
    ) -> tuple[LogEntry, ...]:
        """Return every change (claims, engines, models, rules, capabilities), newest first.

        ``since`` keeps changes at or after it (a date means its start, UTC); ``by`` one
        actor's; ``engine`` one engine's (history is kept by name: removed engines too).

        :raises InvalidInput: for a bad ``limit`` or ``since``, or a ``by`` or ``engine``
            that is not a string.
        """
        for value, what in ((by, "actor"), (engine, "engine")):
            if value is not None:
                check.text(value, what)
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or limit < 1
        ):
            raise InvalidInput(f"invalid limit {check.describe(limit)}: a positive integer")
        start = _start_of(since)

        def newest(table: Table) -> q.AnySelect:
            query = select(table)
            if start is not None:
                query = query.where(table.c.occurred_at >= start)
            if by is not None:
                query = query.where(table.c.actor == by)
            if engine is not None:
                query = query.where(table.c.engine == engine)
            query = query.order_by(table.c.occurred_at.desc(), table.c.id.desc())
            return query if limit is None else query.limit(limit)

        with self.reading("cannot read the change log") as connection:
            claims, changes = newest(claim_event_table), newest(change_event_table)
            entries = [q.claim_log_entry(row) for row in connection.execute(claims)]
            entries += [q.change_log_entry(row) for row in connection.execute(changes)]
        entries.sort(key=lambda e: e.occurred_at, reverse=True)
        return tuple(entries[:limit] if limit is not None else entries)

    def audit(
        self,
        *,
        status: str | None = None,
        capability: str | None = None,
        engine: str | None = None,
        enabling: bool = False,
        stale_days: int | None = None,
        today: date | None = None,
    ) -> tuple[Claim, ...]:
        """Return the claims that match every filter given.

        ``enabling`` keeps true claims on the native-media capabilities whose evidence
        is weaker than live-verified; ``stale_days`` keeps claims verified more than that
        many days before ``today`` (default: the current UTC date) or never verified.

        :raises UnknownEngine: when ``engine`` does not exist.
        :raises InvalidStatus: for an unknown status filter.
        :raises InvalidInput: for a ``stale_days`` that is not a whole number of days,
            0 to 36500.
        """
        where: list[Any] = []
        if status is not None:
            where.append(claim_table.c.status == check.status(status))
        if capability is not None:
            where.append(claim_table.c.capability == capability)
        if enabling:
            top = evidence_rank("live-verified")
            weaker = [s for s in EVIDENCE_STATUSES if evidence_rank(s) < top]
            where += [
                claim_table.c.value.is_(True),
                claim_table.c.capability.in_(NATIVE_MEDIA_CAPABILITIES),
                claim_table.c.status.in_(weaker),
            ]
        cutoff = stale_cutoff(stale_days, today)
        if cutoff is not None:
            where.append(
                or_(claim_table.c.verified_at.is_(None), claim_table.c.verified_at < cutoff)
            )
        return self._claims(engine, where)

    # -- writes: each one a transaction of its own (use ``batch()`` for several) ------

    add_engine = _one_transaction(Writer.add_engine)
    add_model = _one_transaction(Writer.add_model)
    add_rule = _one_transaction(Writer.add_rule)
    add_capability = _one_transaction(Writer.add_capability)
    set_claim = _one_transaction(Writer.set_claim)
    set_claims = _one_transaction(Writer.set_claims)
    unset_claim = _one_transaction(Writer.unset_claim)
    remove_rule = _one_transaction(Writer.remove_rule)
    move_rule = _one_transaction(Writer.move_rule)
    remove_model = _one_transaction(Writer.remove_model)
    remove_engine = _one_transaction(Writer.remove_engine)


def _start_of(since: object) -> datetime | None:
    if since is None:
        return None
    if isinstance(since, datetime):
        if since.tzinfo is None:
            raise InvalidInput("invalid since: give an aware datetime (or a date)")
        return since
    if isinstance(since, date):
        return datetime.combine(since, time(), UTC)
    raise InvalidInput(f"invalid since {check.describe(since)}: a date or a datetime")


shown_in_package(Registry)
