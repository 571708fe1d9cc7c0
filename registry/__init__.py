"""The capability registry, the ADR 0039 resolver and ``format_for``.

``format_for(engine, model, results)`` resolves which wire and converter
options a model gets (from evidence-backed claims in the registry) and returns
the formatted tool results; ``reformat_for(engine, model, source_wire, blocks)``
does the same for tool-result blocks of another wire (a gateway). The registry
lives in an SQLite file in the user's data directory by default (created,
migrated and seeded on first use); ``TOOLWIRE_DATABASE_URL`` points at another
database, e.g. PostgreSQL.

Names are imported on first use, so a program that needs only part of the
package (the CLI printing its help, say) does not pay for the rest.
"""

from __future__ import annotations

import importlib
import typing

if typing.TYPE_CHECKING:
    from ._seed import SeedReport, seed
    from ._write.claims import ClaimInput, ClaimsReport
    from ._writer import Writer
    from .catalog import CatalogReport, CatalogRow
    from .errors import (
        CatalogUnavailable,
        DatabaseError,
        DatabaseLocked,
        DuplicateEntry,
        InUse,
        InvalidCapability,
        InvalidCatalog,
        InvalidInput,
        InvalidModelId,
        InvalidRule,
        InvalidSeed,
        InvalidStatus,
        InvalidWire,
        NoRegistry,
        ReadOnlyRegistry,
        RegistryError,
        RevisionConflict,
        UnknownCapability,
        UnknownClaim,
        UnknownEngine,
        UnknownModel,
        UnknownRule,
    )
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
    from .resolver import (
        FLAGS,
        LIMITS,
        FlagTrace,
        LimitTrace,
        Resolution,
        Resolver,
        format_for,
        reformat_for,
        resolve,
    )
    from .store import NATIVE_MEDIA_CAPABILITIES, Registry
    from .vocab import EVIDENCE_STATUSES, evidence_rank

__all__ = [
    "EVIDENCE_STATUSES",
    "FLAGS",
    "LIMITS",
    "NATIVE_MEDIA_CAPABILITIES",
    "Capability",
    "CatalogReport",
    "CatalogRow",
    "CatalogUnavailable",
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
    "InvalidCatalog",
    "InvalidInput",
    "InvalidModelId",
    "InvalidRule",
    "InvalidSeed",
    "InvalidStatus",
    "InvalidWire",
    "LimitTrace",
    "LogEntry",
    "Model",
    "NoRegistry",
    "ReadOnlyRegistry",
    "Registry",
    "RegistryError",
    "Resolution",
    "Resolver",
    "RevisionConflict",
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
    "reformat_for",
    "resolve",
    "seed",
]

# Where each public name lives (relative to this package).
_HOME: dict[str, str] = {
    "EVIDENCE_STATUSES": ".vocab",
    "FLAGS": ".resolver",
    "LIMITS": ".resolver",
    "NATIVE_MEDIA_CAPABILITIES": ".store",
    "Capability": ".records",
    "CatalogReport": ".catalog",
    "CatalogRow": ".catalog",
    "CatalogUnavailable": ".errors",
    "ChangeEvent": ".records",
    "Claim": ".records",
    "ClaimEvent": ".records",
    "ClaimInput": "._write.claims",
    "ClaimsReport": "._write.claims",
    "DatabaseError": ".errors",
    "DatabaseLocked": ".errors",
    "DuplicateEntry": ".errors",
    "Engine": ".records",
    "EngineSnapshot": ".records",
    "FlagTrace": ".resolver",
    "InUse": ".errors",
    "InvalidCapability": ".errors",
    "InvalidCatalog": ".errors",
    "InvalidInput": ".errors",
    "InvalidModelId": ".errors",
    "InvalidRule": ".errors",
    "InvalidSeed": ".errors",
    "InvalidStatus": ".errors",
    "InvalidWire": ".errors",
    "LimitTrace": ".resolver",
    "LogEntry": ".records",
    "Model": ".records",
    "NoRegistry": ".errors",
    "ReadOnlyRegistry": ".errors",
    "Registry": ".store",
    "RegistryError": ".errors",
    "RevisionConflict": ".errors",
    "Resolution": ".resolver",
    "Resolver": ".resolver",
    "Rule": ".records",
    "SeedReport": "._seed",
    "UnknownCapability": ".errors",
    "UnknownClaim": ".errors",
    "UnknownEngine": ".errors",
    "UnknownModel": ".errors",
    "UnknownRule": ".errors",
    "WireForm": ".records",
    "Writer": "._writer",
    "evidence_rank": ".vocab",
    "format_for": ".resolver",
    "reformat_for": ".resolver",
    "resolve": ".resolver",
    "seed": "._seed",
}


def __getattr__(name: str) -> typing.Any:
    """Import a public name on first use (PEP 562)."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """List the public names, imported or not."""
    return sorted({*globals(), *__all__})
