"""Appending probe observations in tests, as ``toolwire probe`` records them.

Shared by the registry and probe tests (``tests/`` is on the import path: its
``conftest.py`` lives there).
"""

from __future__ import annotations

from datetime import datetime

from toolwire.registry import Registry
from toolwire.registry.observations import Observation, record_observation


def observe(
    registry: Registry,
    *,
    engine: str,
    model: str,
    wire: str,
    outcome: str,
    scenario: str = "image_input",
    endpoint: str = "http://127.0.0.1:9",
    latency_ms: int = 3,
    excerpt: str = "",
    observed_at: datetime | None = None,
) -> Observation:
    """Append one observation (HTTP 200, challenge ``ACEFHJ``) in a batch of its own."""
    with registry.batch() as writer:
        return record_observation(
            writer,
            engine=engine,
            model=model,
            wire=wire,
            scenario=scenario,
            outcome=outcome,
            recorded_by="ops",
            endpoint=endpoint,
            http_status=200,
            latency_ms=latency_ms,
            excerpt=excerpt,
            request_sha256="0" * 64,
            challenge="ACEFHJ",
            observed_at=observed_at,
        )
