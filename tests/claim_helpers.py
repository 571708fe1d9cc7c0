"""Setting a claim in tests with the usual evidence, as the registry tests write them.

Shared by the registry tests (``tests/`` is on the import path: its ``conftest.py``
lives there).
"""

from __future__ import annotations

from typing import Any

from toolwire.registry import Claim, Registry


def set_claim(registry: Registry, engine: str, capability: str, value: Any, **where: Any) -> Claim:
    """Set ``capability`` on ``engine`` to ``value`` (``documented``, "test evidence",
    by "tests" unless ``status`` or ``evidence`` is given); ``where`` names the model or
    rule and any other field ``Registry.set_claim`` takes."""
    return registry.set_claim(
        engine,
        capability,
        value,
        status=where.pop("status", "documented"),
        evidence=where.pop("evidence", "test evidence"),
        recorded_by="tests",
        **where,
    )
