"""Probe a model live: does it read an image, a PDF or source blocks where it is sent?

``probe(registry, engine, model, recorded_by=...)`` sends one real conversation per
scenario on the engine's wire (built with ``toolwire.convert``), classifies each reply
as ``read`` / ``ignored`` / ``rejected`` / ``error``, records it as an observation
(``toolwire.registry.observations``) and, with ``record_claims``, writes the claim it
supports; ``probe_engine`` does so for every recorded model of an engine, several
requests in flight. Replies are bounded (``MAX_REPLY`` bytes, a deadline per request)
and keys go only where ``check_endpoint`` allows. Needs the ``probe`` extra (httpcore,
Pillow): ``pip install 'toolwire[probe]'``; signing Bedrock requests with SigV4 needs
the ``bedrock`` extra (botocore); importing this package needs neither.
"""

from __future__ import annotations

from ._challenge import ALPHABET, LENGTH, check_challenge, new_challenge, render_pdf, render_png
from ._drift import Drift, DriftEntry, State, drift, flag_states
from ._endpoint import check_endpoint, is_loopback, join_url, shipped_host
from ._engine import EngineProbeReport, probe_engine, stale_models
from ._errors import EndpointRefused, ProbeUnavailable
from ._limits import MAX_REPLY
from ._runner import (
    DEFAULT_KEY_ENV,
    ProbeReport,
    ProbeResult,
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
    "MAX_REPLY",
    "MAX_TOKENS",
    "TOOL_NAME",
    "Drift",
    "DriftEntry",
    "EndpointRefused",
    "EngineProbeReport",
    "ProbeReport",
    "ProbeResult",
    "ProbeUnavailable",
    "State",
    "Turn",
    "WireApi",
    "check_challenge",
    "check_endpoint",
    "classify",
    "default_scenarios",
    "drift",
    "endpoint_of",
    "flag_states",
    "is_loopback",
    "join_url",
    "key_env",
    "new_challenge",
    "probe",
    "probe_engine",
    "redact",
    "render_pdf",
    "render_png",
    "retry_after",
    "shipped_host",
    "stale_models",
]
