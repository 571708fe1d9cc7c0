"""The converter options a resolution carries, told apart: flags and limits."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolwire.registry import LIMITS


def flags(options: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``options`` without the limits (``LIMITS``), which tests of flags check apart."""
    return {name: value for name, value in options.items() if name not in LIMITS}


def limits(options: Mapping[str, Any]) -> dict[str, Any]:
    """Return the limits among ``options``."""
    return {name: value for name, value in options.items() if name in LIMITS}
