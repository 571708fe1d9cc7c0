"""The registry schema: SQLAlchemy Core tables on one ``MetaData``.

Every read and write is a Core statement against these tables, and rows become frozen
records (``toolwire.registry.records``). The schema is Core rather than declarative
ORM classes because nothing needs ORM objects, and ``sqlalchemy.orm`` alone costs
about as much to import as the rest of a ``toolwire resolve`` (the ORM is never
imported by the registry).

The migrations in ``toolwire.migrations`` build this same schema step by step; a new
database is created from ``metadata`` directly (``bootstrap``), and a test compares
the two, table by table, on SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    Column,
    Date,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.dialects import sqlite
from sqlalchemy.types import TypeEngine

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
    "NAMING_CONVENTION",
    "WIRES",
    "UTCDateTime",
    "capability_table",
    "change_event_table",
    "claim_event_table",
    "claim_table",
    "engine_table",
    "evidence_policy_table",
    "metadata",
    "model_table",
    "observation_table",
    "registry_state_table",
    "rule_table",
    "utcnow",
    "wire_form_table",
    "wire_table",
]


NAMING_CONVENTION: dict[str, str] = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

#: The rows of ``wire`` every registry holds (engines, models and rules name their
#: wire through a foreign key). Migrations 0002, 0004 and 0008 insert their own frozen
#: copies; a test holds the two to the same rows.
WIRES: dict[str, str] = {
    "anthropic": "Anthropic Messages: tool_result blocks inside a user turn",
    "openai": "OpenAI Chat Completions: one role=tool message per result",
    "responses": "OpenAI Responses (also Perplexity Agent API): function_call_output items",
    "gemini": "Google Gemini: functionResponse parts inside a user turn",
    "ollama": "Ollama native /api/chat: role=tool messages with tool_name",
    "hermes": "Hermes function calling: <tool_response> tags in a tool message",
    "bedrock": "Amazon Bedrock Converse: toolResult blocks inside a user turn",
    "gemini-interactions": (
        "Google Gemini Interactions API: function_result steps in the interaction's input"
    ),
}


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


metadata = MetaData(naming_convention=NAMING_CONVENTION)

#: JSON whose Python None is SQL NULL (not the JSON ``null``), so "no value" is NULL.
_JSON = JSON(none_as_null=True)


def _required(name: str, type_: Any, *args: Any, **kwargs: Any) -> Column[Any]:
    """Return a NOT NULL column (Core columns are nullable unless told otherwise)."""
    return Column(name, type_, *args, nullable=False, **kwargs)


def _optional(name: str, type_: Any, *args: Any, **kwargs: Any) -> Column[Any]:
    """Return a nullable column."""
    return Column(name, type_, *args, nullable=True, **kwargs)


def _id() -> Column[Any]:
    return Column("id", Integer, primary_key=True)


def _created() -> tuple[Column[Any], Column[Any]]:
    return _required("created_at", UTCDateTime()), _required("created_by", String(128))


#: One of the wires; the native-form facts come from ``toolwire.convert``.
wire_table = Table(
    "wire",
    metadata,
    Column("name", String(32), primary_key=True),
    _required("description", Text),
)

#: Evidence behind a native tool-result form (wire x media kind) that exists.
wire_form_table = Table(
    "wire_form",
    metadata,
    _id(),
    _required("wire", String(32), ForeignKey("wire.name")),
    _required("kind", String(16)),
    _required("status", String(16)),
    _required("evidence", Text),
    _optional("source", Text),
    _required("recorded_by", String(128)),
    _required("recorded_at", UTCDateTime()),
    UniqueConstraint("wire", "kind"),
    CheckConstraint(f"kind IN ({_in(MEDIA_KINDS)})", name="kind"),
    CheckConstraint(f"status IN ({_in(EVIDENCE_STATUSES)})", name="status"),
)

#: An endpoint a client talks to.
engine_table = Table(
    "engine",
    metadata,
    _id(),
    _required("name", String(64), unique=True),
    _required("provider", String(256)),
    _required("family", String(32)),
    _required("default_wire", String(32), ForeignKey("wire.name")),
    _optional("base_url", String(512)),
    _required("kind", String(16)),
    _optional("response_tag", String(64)),
    _required("note", Text),
    *_created(),
    #: the call-id rule of ``toolwire.convert.ID_RULES`` results must keep (None: the
    #: wire's own); e.g. ``mistral`` for Mistral's API and vLLM serving Mistral models
    _optional("id_rule", String(32)),
    CheckConstraint(f"kind IN ({_in(ENGINE_KINDS)})", name="kind"),
)

#: A model id served by an engine, with an optional wire override.
model_table = Table(
    "model",
    metadata,
    _id(),
    _required("engine_id", Integer, ForeignKey("engine.id", ondelete="CASCADE")),
    _required("model_id", String(256)),
    _optional("wire", String(32), ForeignKey("wire.name")),
    _required("note", Text),
    *_created(),
    UniqueConstraint("engine_id", "model_id"),
)

#: An ordered pattern row of an engine; later positions win.
rule_table = Table(
    "model_rule",
    metadata,
    _id(),
    _required("engine_id", Integer, ForeignKey("engine.id", ondelete="CASCADE")),
    _required("position", Integer),
    _required("match", String(8)),
    _required("pattern", String(512)),
    _optional("wire", String(32), ForeignKey("wire.name")),
    _required("note", Text),
    *_created(),
    UniqueConstraint("engine_id", "match", "pattern"),
    CheckConstraint(f"match IN ({_in(MATCH_KINDS)})", name="match"),
    Index(None, "engine_id", "position"),
)

#: A claimed capability of an engine, a model row or a rule row, with its evidence.
#: ``subject_key`` is ``engine``, ``model:<model_id>`` or ``rule:<rule id>``; being
#: non-null it lets one unique constraint cover all three subjects on every backend.
claim_table = Table(
    "claim",
    metadata,
    _id(),
    _required("engine_id", Integer, ForeignKey("engine.id", ondelete="CASCADE")),
    _required("subject_key", String(300)),
    _optional("model_row_id", Integer, ForeignKey("model.id", ondelete="CASCADE"), index=True),
    _optional("rule_id", Integer, ForeignKey("model_rule.id", ondelete="CASCADE"), index=True),
    _required("capability", String(64)),
    _optional("value", Boolean),
    _required("status", String(16)),
    _required("evidence", Text),
    _optional("source", Text),
    _optional("verified_at", Date),
    _required("recorded_by", String(128)),
    _required("recorded_at", UTCDateTime()),
    #: the value of an ``int`` or ``mimes`` capability (a number, a list of MIME types);
    #: ``value`` holds a ``bool`` capability's, and exactly one of the two is set
    _optional("value_json", _JSON),
    UniqueConstraint("engine_id", "subject_key", "capability"),
    CheckConstraint(f"status IN ({_in(EVIDENCE_STATUSES)})", name="status"),
    CheckConstraint("model_row_id IS NULL OR rule_id IS NULL", name="one_subject"),
    CheckConstraint(
        "(value IS NULL AND value_json IS NOT NULL) OR (value IS NOT NULL AND value_json IS NULL)",
        name="one_value",
    ),
    Index(None, "capability"),
)

#: One change to a claim, append-only; the subject is copied so history outlives it.
#: ``action``: ``set`` (new_* hold the claim), ``retract`` or ``remove`` (new_* null).
claim_event_table = Table(
    "claim_event",
    metadata,
    _id(),
    _optional("claim_id", Integer, ForeignKey("claim.id", ondelete="SET NULL"), index=True),
    _required("engine", String(64)),
    _required("subject_key", String(300)),
    _required("subject", String(600)),
    _required("capability", String(64)),
    _optional("old_value", Boolean),
    _optional("old_status", String(16)),
    _optional("old_evidence", Text),
    _optional("new_value", Boolean),
    _optional("new_status", String(16)),
    _optional("new_evidence", Text),
    _optional("old_source", Text),
    _optional("new_source", Text),
    _optional("old_verified_at", Date),
    _optional("new_verified_at", Date),
    _required("actor", String(128)),
    _required("occurred_at", UTCDateTime(), index=True),
    _optional("reason", Text),
    _required("action", String(16), server_default="set"),
    #: the values of an ``int`` or ``mimes`` capability's claim (as ``claim.value_json``)
    _optional("old_value_json", _JSON),
    _optional("new_value_json", _JSON),
    Index(None, "engine", "subject_key", "capability"),
    CheckConstraint(f"action IN ({_in(CLAIM_ACTIONS)})", name="action"),
)

#: A capability name claims may use: the vocabulary, with what each one means;
#: ``gates`` is the native form it gates (e.g. "tool_result image"), or None.
capability_table = Table(
    "capability",
    metadata,
    Column("name", String(64), primary_key=True),
    _required("description", Text),
    _required("value_kind", String(16)),
    _optional("gates", String(64)),
    *_created(),
    CheckConstraint(f"value_kind IN ({_in(VALUE_KINDS)})", name="value_kind"),
)

#: An engine, model, rule or capability added, removed or moved; append-only.
#: ``detail`` is JSON: the fields of the row added or removed, or a move's positions.
change_event_table = Table(
    "change_event",
    metadata,
    _id(),
    _optional("engine", String(64), index=True),
    _required("entity", String(16)),
    _required("subject", String(600)),
    _required("action", String(16)),
    _required("detail", Text),
    _required("actor", String(128)),
    _required("occurred_at", UTCDateTime(), index=True),
    _optional("reason", Text),
    CheckConstraint(f"entity IN ({_in(CHANGE_ENTITIES)})", name="entity"),
    CheckConstraint(f"action IN ({_in(CHANGE_ACTIONS)})", name="action"),
)

#: The single row whose ``revision`` every write transaction bumps.
registry_state_table = Table(
    "registry_state",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    _required("revision", Integer),
    _required("updated_at", UTCDateTime()),
    CheckConstraint("id = 1", name="single_row"),
)

#: One live probe of a model on an endpoint, append-only (``toolwire probe``).
#: Engine and model are kept by name, like the claim history, so the log outlives them.
observation_table = Table(
    "observation",
    metadata,
    _id(),
    _required("engine", String(64)),
    _required("model", String(256)),
    _required("wire", String(32)),
    _required("scenario", String(32)),
    _required("outcome", String(16)),
    _required("observed_at", UTCDateTime()),
    _required("recorded_by", String(128)),
    _required("endpoint", String(512)),
    _optional("http_status", Integer),
    _optional("latency_ms", Integer),
    _required("excerpt", Text),
    _required("request_sha256", String(64)),
    _required("challenge", String(16)),
    _required("toolwire_version", String(32)),
    CheckConstraint(f"scenario IN ({_in(OBSERVATION_SCENARIOS)})", name="scenario"),
    CheckConstraint(f"outcome IN ({_in(OBSERVATION_OUTCOMES)})", name="outcome"),
    Index(None, "engine", "model", "scenario"),
)

#: How long a claim of each evidence status stays fresh: ``max_age_days`` (null: never
#: ages). One row per status; ``toolwire evidence policy set`` changes them.
evidence_policy_table = Table(
    "evidence_policy",
    metadata,
    Column("status", String(16), primary_key=True),
    _optional("max_age_days", Integer),
    _required("updated_by", String(128)),
    _required("updated_at", UTCDateTime()),
    CheckConstraint(f"status IN ({_in(EVIDENCE_STATUSES)})", name="status"),
    CheckConstraint(
        "max_age_days IS NULL OR (max_age_days >= 0 AND max_age_days <= 36500)",
        name="max_age_days",
    ),
)
