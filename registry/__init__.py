"""The capability registry, the ADR 0039 resolver and ``format_for``.

``format_for(engine, model, results)`` resolves which wire and converter
options a model gets (from evidence-backed claims in the registry) and returns
the formatted tool results. The registry lives in an SQLite file in the user's
data directory by default (created, migrated and seeded on first use);
``TOOLWIRE_DATABASE_URL`` points at another database, e.g. PostgreSQL.
"""

from __future__ import annotations

from ._bulk import ClaimInput, ClaimsReport
from ._writer import Writer
from .errors import (
    DatabaseError,
    DatabaseLocked,
    DuplicateEntry,
    InUse,
    InvalidCapability,
    InvalidInput,
    InvalidModelId,
    InvalidRule,
    InvalidSeed,
    InvalidStatus,
    InvalidWire,
    NoRegistry,
    RegistryError,
    UnknownCapability,
    UnknownClaim,
    UnknownEngine,
    UnknownModel,
    UnknownRule,
)
from .models import EVIDENCE_STATUSES, evidence_rank
from .records import (
    Capability,
    ChangeEvent,
    Claim,
    ClaimEvent,
    Engine,
    EngineSnapshot,
    LogEntry,
    Model,
    Rule,
    WireForm,
)
from .resolver import FLAGS, FlagTrace, Resolution, Resolver, format_for, resolve
from .seed import SeedReport, seed
from .store import NATIVE_MEDIA_CAPABILITIES, Registry

__all__ = [
    "EVIDENCE_STATUSES",
    "FLAGS",
    "NATIVE_MEDIA_CAPABILITIES",
    "Capability",
    "ChangeEvent",
    "Claim",
    "ClaimEvent",
    "ClaimInput",
    "ClaimsReport",
    "DatabaseError",
    "DatabaseLocked",
    "DuplicateEntry",
    "Engine",
    "EngineSnapshot",
    "FlagTrace",
    "InUse",
    "InvalidCapability",
    "InvalidInput",
    "InvalidModelId",
    "InvalidRule",
    "InvalidSeed",
    "InvalidStatus",
    "InvalidWire",
    "LogEntry",
    "Model",
    "NoRegistry",
    "Registry",
    "RegistryError",
    "Resolution",
    "Resolver",
    "Rule",
    "SeedReport",
    "UnknownCapability",
    "UnknownClaim",
    "UnknownEngine",
    "UnknownModel",
    "UnknownRule",
    "WireForm",
    "Writer",
    "evidence_rank",
    "format_for",
    "resolve",
    "seed",
]
