"""Probe a model live: does it read an image, a PDF or source blocks where it is sent?

``probe(registry, engine, model, recorded_by=...)`` sends one real conversation per
scenario on the engine's wire (built with ``toolwire.convert``), classifies each reply
as ``read`` / ``ignored`` / ``rejected`` / ``error``, records it as an observation
(``toolwire.registry.observations``) and, with ``record_claims``, writes the claim it
supports; ``probe_engine`` does so for every recorded model of an engine, several
requests in flight. Needs the ``probe`` extra (httpx, Pillow): ``pip install 'toolwire[probe]'``;
importing this package does not.
"""

from __future__ import annotations

from ._challenge import ALPHABET, LENGTH, check_challenge, new_challenge, render_pdf, render_png
from ._engine import EngineProbeReport, probe_engine, stale_models
from ._runner import (
    DEFAULT_KEY_ENV,
    ProbeReport,
    ProbeResult,
    ProbeUnavailable,
    classify,
    default_scenarios,
    endpoint_of,
    key_env,
    probe,
    redact,
    retry_after,
)
from ._wires import API, MAX_TOKENS, TOOL_NAME, Turn, WireApi

__all__ = [
    "ALPHABET",
    "API",
    "DEFAULT_KEY_ENV",
    "LENGTH",
    "MAX_TOKENS",
    "TOOL_NAME",
    "EngineProbeReport",
    "ProbeReport",
    "ProbeResult",
    "ProbeUnavailable",
    "Turn",
    "WireApi",
    "check_challenge",
    "classify",
    "default_scenarios",
    "endpoint_of",
    "key_env",
    "new_challenge",
    "probe",
    "probe_engine",
    "redact",
    "render_pdf",
    "render_png",
    "retry_after",
    "stale_models",
]
