"""The capability registry, the ADR 0039 resolver and ``format_for``.

``format_for(engine, model, results)`` resolves which wire and converter
options a model gets (from evidence-backed claims in the registry) and returns
the formatted tool results; ``reformat_for(engine, model, source_wire, blocks)``
does the same for tool-result blocks of another wire (a gateway). The registry
lives in an SQLite file in the user's data directory by default (created,
migrated and seeded on first use); ``TOOLWIRE_DATABASE_URL`` points at another
database, e.g. PostgreSQL.
"""

from __future__ import annotations

from ._writer import Writer
from .errors import (
    DatabaseError,
    DatabaseLocked,
    DuplicateEntry,
    InvalidCapability,
    InvalidInput,
    InvalidModelId,
    InvalidRule,
    InvalidSeed,
    InvalidStatus,
    InvalidWire,
    RegistryError,
    UnknownEngine,
    UnknownModel,
    UnknownRule,
)
from .models import EVIDENCE_STATUSES, evidence_rank
from .records import Claim, ClaimEvent, Engine, EngineSnapshot, Model, Rule, WireForm
from .resolver import FLAGS, FlagTrace, Resolution, Resolver, format_for, reformat_for, resolve
from .seed import SeedReport, seed
from .store import NATIVE_MEDIA_CAPABILITIES, Registry

__all__ = [
    "EVIDENCE_STATUSES",
    "FLAGS",
    "NATIVE_MEDIA_CAPABILITIES",
    "Claim",
    "ClaimEvent",
    "DatabaseError",
    "DatabaseLocked",
    "DuplicateEntry",
    "Engine",
    "EngineSnapshot",
    "FlagTrace",
    "InvalidCapability",
    "InvalidInput",
    "InvalidModelId",
    "InvalidRule",
    "InvalidSeed",
    "InvalidStatus",
    "InvalidWire",
    "Model",
    "Registry",
    "RegistryError",
    "Resolution",
    "Resolver",
    "Rule",
    "SeedReport",
    "UnknownEngine",
    "UnknownModel",
    "UnknownRule",
    "WireForm",
    "Writer",
    "evidence_rank",
    "format_for",
    "reformat_for",
    "resolve",
    "seed",
]
