"""The registry's fixed vocabularies, importable without the database layer.

``toolwire.registry.models`` re-exports them; the CLI reads them from here to build
its option choices without importing SQLAlchemy.
"""

from __future__ import annotations

from toolwire.convert import KINDS

__all__ = ["ENGINE_KINDS", "EVIDENCE_STATUSES", "MATCH_KINDS", "MEDIA_KINDS"]

#: Evidence statuses, strongest first.
EVIDENCE_STATUSES: tuple[str, ...] = ("live-verified", "documented", "inferred", "unverified")
MATCH_KINDS: tuple[str, ...] = ("exact", "regex")
ENGINE_KINDS: tuple[str, ...] = ("first-party", "shim", "gateway", "self-hosted")
MEDIA_KINDS: tuple[str, ...] = KINDS  # the media kinds toolwire.convert knows
