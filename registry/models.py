"""Declarative schema of the registry (SQLAlchemy 2).

The ORM classes describe the tables; the store reads and writes them with Core
statements and hands out frozen records (``toolwire.registry.records``), never these
objects. The migrations in ``toolwire.migrations`` create exactly this schema; a test
compares the two.

Vocabulary shared with the rest of the package lives here too: evidence statuses (in
order, strongest first), match kinds, engine kinds and media kinds.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Date,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.dialects import sqlite
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeEngine

from .errors import InvalidStatus
from .vocab import (
    CHANGE_ACTIONS,
    CHANGE_ENTITIES,
    CLAIM_ACTIONS,
    ENGINE_KINDS,
    EVIDENCE_STATUSES,
    MATCH_KINDS,
    MEDIA_KINDS,
    OBSERVATION_OUTCOMES,
    OBSERVATION_SCENARIOS,
    VALUE_KINDS,
)

__all__ = [
    "ENGINE_KINDS",
    "EVIDENCE_STATUSES",
    "MATCH_KINDS",
    "MEDIA_KINDS",
    "NAMING_CONVENTION",
    "OBSERVATION_OUTCOMES",
    "OBSERVATION_SCENARIOS",
    "Base",
    "CapabilityRow",
    "ChangeEventRow",
    "ClaimEventRow",
    "ClaimRow",
    "EngineRow",
    "ModelRow",
    "ObservationRow",
    "RegistryStateRow",
    "RuleRow",
    "UTCDateTime",
    "WireFormRow",
    "WireRow",
    "evidence_rank",
    "utcnow",
]


NAMING_CONVENTION: dict[str, str] = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def evidence_rank(status: str) -> int:
    """Return the strength of an evidence status: 3 live-verified … 0 unverified.

    :raises InvalidStatus: for a string that is not an evidence status.
    """
    try:
        return len(EVIDENCE_STATUSES) - 1 - EVIDENCE_STATUSES.index(status)
    except ValueError:
        raise InvalidStatus(
            f"unknown evidence status {status!r}; valid: {', '.join(EVIDENCE_STATUSES)}"
        ) from None


def utcnow() -> datetime:
    """Return the current time, timezone-aware, in UTC."""
    return datetime.now(UTC)


def _in(values: tuple[str, ...]) -> str:
    return ", ".join(f"'{v}'" for v in values)


class _SQLiteUTCDateTime(sqlite.DATETIME):
    """SQLite DATETIME read with ``datetime.fromisoformat`` (C) instead of a regex.

    Reading timestamps dominated building a 10,000-model engine snapshot.
    """

    def result_processor(
        self, dialect: Dialect, coltype: object
    ) -> Callable[[Any], datetime | None]:
        """Return a parser of SQLite's stored text into an aware UTC datetime."""

        def process(value: Any) -> datetime | None:
            if value is None:
                return None
            return datetime.fromisoformat(value).replace(tzinfo=UTC)

        return process


class UTCDateTime(TypeDecorator[datetime]):
    """Store aware datetimes as UTC and read them back aware, on every backend.

    SQLite keeps no offset, so values are normalised to UTC on the way in and tagged
    UTC on the way out; PostgreSQL stores ``timestamptz`` natively.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        """Use the fast reader on SQLite, ``timestamptz`` elsewhere."""
        if dialect.name == "sqlite":
            fast = _SQLiteUTCDateTime(timezone=True)  # type: ignore[no-untyped-call]
            return dialect.type_descriptor(fast)
        return dialect.type_descriptor(DateTime(timezone=True))

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """Normalise an aware datetime to UTC; refuse naive ones."""
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given where an aware UTC datetime is required")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        """Return the stored datetime as an aware UTC datetime."""
        if value is None or dialect.name == "sqlite":
            return value  # type: ignore[no-any-return]
        assert isinstance(value, datetime)
        return value.astimezone(UTC)


class Base(DeclarativeBase):
    """Declarative base carrying the constraint naming convention."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {datetime: UTCDateTime(), date: Date()}


class WireRow(Base):
    """One of the wires; the native-form facts come from ``toolwire.convert``."""

    __tablename__ = "wire"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    description: Mapped[str] = mapped_column(Text)


class WireFormRow(Base):
    """Evidence behind a native tool-result form (wire x media kind) that exists."""

    __tablename__ = "wire_form"
    __table_args__ = (
        UniqueConstraint("wire", "kind"),
        CheckConstraint(f"kind IN ({_in(MEDIA_KINDS)})", name="kind"),
        CheckConstraint(f"status IN ({_in(EVIDENCE_STATUSES)})", name="status"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    wire: Mapped[str] = mapped_column(String(32), ForeignKey("wire.name"))
    kind: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))
    evidence: Mapped[str] = mapped_column(Text)
    source: Mapped[str | None] = mapped_column(Text)
    recorded_by: Mapped[str] = mapped_column(String(128))
    recorded_at: Mapped[datetime]


class EngineRow(Base):
    """An endpoint a client talks to."""

    __tablename__ = "engine"
    __table_args__ = (CheckConstraint(f"kind IN ({_in(ENGINE_KINDS)})", name="kind"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    provider: Mapped[str] = mapped_column(String(256))
    family: Mapped[str] = mapped_column(String(32))
    default_wire: Mapped[str] = mapped_column(String(32), ForeignKey("wire.name"))
    base_url: Mapped[str | None] = mapped_column(String(512))
    kind: Mapped[str] = mapped_column(String(16))
    response_tag: Mapped[str | None] = mapped_column(String(64))
    note: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime]
    created_by: Mapped[str] = mapped_column(String(128))


class ModelRow(Base):
    """A model id served by an engine, with an optional wire override."""

    __tablename__ = "model"
    __table_args__ = (UniqueConstraint("engine_id", "model_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    engine_id: Mapped[int] = mapped_column(ForeignKey("engine.id", ondelete="CASCADE"))
    model_id: Mapped[str] = mapped_column(String(256))
    wire: Mapped[str | None] = mapped_column(String(32), ForeignKey("wire.name"))
    note: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime]
    created_by: Mapped[str] = mapped_column(String(128))


class RuleRow(Base):
    """An ordered pattern row of an engine; later positions win."""

    __tablename__ = "model_rule"
    __table_args__ = (
        UniqueConstraint("engine_id", "match", "pattern"),
        CheckConstraint(f"match IN ({_in(MATCH_KINDS)})", name="match"),
        Index(None, "engine_id", "position"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    engine_id: Mapped[int] = mapped_column(ForeignKey("engine.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    match: Mapped[str] = mapped_column(String(8))
    pattern: Mapped[str] = mapped_column(String(512))
    wire: Mapped[str | None] = mapped_column(String(32), ForeignKey("wire.name"))
    note: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime]
    created_by: Mapped[str] = mapped_column(String(128))


class ClaimRow(Base):
    """A claimed capability of an engine, a model row or a rule row, with its evidence.

    ``subject_key`` is ``engine``, ``model:<model_id>`` or ``rule:<rule id>``; being
    non-null it lets one unique constraint cover all three subjects on every backend.
    """

    __tablename__ = "claim"
    __table_args__ = (
        UniqueConstraint("engine_id", "subject_key", "capability"),
        CheckConstraint(f"status IN ({_in(EVIDENCE_STATUSES)})", name="status"),
        CheckConstraint("model_row_id IS NULL OR rule_id IS NULL", name="one_subject"),
        Index(None, "capability"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    engine_id: Mapped[int] = mapped_column(ForeignKey("engine.id", ondelete="CASCADE"))
    subject_key: Mapped[str] = mapped_column(String(300))
    model_row_id: Mapped[int | None] = mapped_column(
        ForeignKey("model.id", ondelete="CASCADE"), index=True
    )
    rule_id: Mapped[int | None] = mapped_column(
        ForeignKey("model_rule.id", ondelete="CASCADE"), index=True
    )
    capability: Mapped[str] = mapped_column(String(64))
    value: Mapped[bool] = mapped_column(Boolean)
    status: Mapped[str] = mapped_column(String(16))
    evidence: Mapped[str] = mapped_column(Text)
    source: Mapped[str | None] = mapped_column(Text)
    verified_at: Mapped[date | None]
    recorded_by: Mapped[str] = mapped_column(String(128))
    recorded_at: Mapped[datetime]


class ClaimEventRow(Base):
    """One change to a claim, append-only; the subject is copied so history outlives it."""

    __tablename__ = "claim_event"
    __table_args__ = (
        Index(None, "engine", "subject_key", "capability"),
        CheckConstraint(f"action IN ({_in(CLAIM_ACTIONS)})", name="action"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    claim_id: Mapped[int | None] = mapped_column(
        ForeignKey("claim.id", ondelete="SET NULL"), index=True
    )
    engine: Mapped[str] = mapped_column(String(64))
    subject_key: Mapped[str] = mapped_column(String(300))
    subject: Mapped[str] = mapped_column(String(600))
    capability: Mapped[str] = mapped_column(String(64))
    old_value: Mapped[bool | None] = mapped_column(Boolean)
    old_status: Mapped[str | None] = mapped_column(String(16))
    old_evidence: Mapped[str | None] = mapped_column(Text)
    new_value: Mapped[bool | None] = mapped_column(Boolean)
    new_status: Mapped[str | None] = mapped_column(String(16))
    new_evidence: Mapped[str | None] = mapped_column(Text)
    old_source: Mapped[str | None] = mapped_column(Text)
    new_source: Mapped[str | None] = mapped_column(Text)
    old_verified_at: Mapped[date | None]
    new_verified_at: Mapped[date | None]
    actor: Mapped[str] = mapped_column(String(128))
    occurred_at: Mapped[datetime] = mapped_column(index=True)
    reason: Mapped[str | None] = mapped_column(Text)
    #: ``set`` (new_* hold the claim), ``retract`` or ``remove`` (new_* are null)
    action: Mapped[str] = mapped_column(String(16), server_default="set")


class CapabilityRow(Base):
    """A capability name claims may use: the vocabulary, with what each one means."""

    __tablename__ = "capability"
    __table_args__ = (CheckConstraint(f"value_kind IN ({_in(VALUE_KINDS)})", name="value_kind"),)

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    description: Mapped[str] = mapped_column(Text)
    value_kind: Mapped[str] = mapped_column(String(16))
    #: the native form it gates (e.g. "tool_result image"), None when it gates none
    gates: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime]
    created_by: Mapped[str] = mapped_column(String(128))


class ChangeEventRow(Base):
    """An engine, model, rule or capability added, removed or moved; append-only.

    ``detail`` is JSON: the fields of the row added or removed, or a move's positions.
    """

    __tablename__ = "change_event"
    __table_args__ = (
        CheckConstraint(f"entity IN ({_in(CHANGE_ENTITIES)})", name="entity"),
        CheckConstraint(f"action IN ({_in(CHANGE_ACTIONS)})", name="action"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    engine: Mapped[str | None] = mapped_column(String(64), index=True)
    entity: Mapped[str] = mapped_column(String(16))
    subject: Mapped[str] = mapped_column(String(600))
    action: Mapped[str] = mapped_column(String(16))
    detail: Mapped[str] = mapped_column(Text)
    actor: Mapped[str] = mapped_column(String(128))
    occurred_at: Mapped[datetime] = mapped_column(index=True)
    reason: Mapped[str | None] = mapped_column(Text)


class RegistryStateRow(Base):
    """The single row whose ``revision`` every write transaction bumps."""

    __tablename__ = "registry_state"
    __table_args__ = (CheckConstraint("id = 1", name="single_row"),)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    revision: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime]


class ObservationRow(Base):
    """One live probe of a model on an endpoint, append-only (``toolwire probe``).

    Engine and model are kept by name, like the claim history, so the log outlives them.
    """

    __tablename__ = "observation"
    __table_args__ = (
        CheckConstraint(f"scenario IN ({_in(OBSERVATION_SCENARIOS)})", name="scenario"),
        CheckConstraint(f"outcome IN ({_in(OBSERVATION_OUTCOMES)})", name="outcome"),
        Index(None, "engine", "model", "scenario"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    engine: Mapped[str] = mapped_column(String(64))
    model: Mapped[str] = mapped_column(String(256))
    wire: Mapped[str] = mapped_column(String(32))
    scenario: Mapped[str] = mapped_column(String(32))
    outcome: Mapped[str] = mapped_column(String(16))
    observed_at: Mapped[datetime]
    recorded_by: Mapped[str] = mapped_column(String(128))
    endpoint: Mapped[str] = mapped_column(String(512))
    http_status: Mapped[int | None] = mapped_column(Integer)
    latency_ms: Mapped[int | None] = mapped_column(Integer)
    excerpt: Mapped[str] = mapped_column(Text)
    request_sha256: Mapped[str] = mapped_column(String(64))
    challenge: Mapped[str] = mapped_column(String(16))
    toolwire_version: Mapped[str] = mapped_column(String(32))
