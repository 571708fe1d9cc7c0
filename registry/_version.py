"""The installed toolwire version, for ``toolwire --version`` and the observation log."""

from __future__ import annotations

from importlib import metadata

__all__ = ["toolwire_version"]


def toolwire_version() -> str:
    """Return the installed toolwire version ("unknown" from a bare checkout)."""
    try:
        return metadata.version("toolwire")
    except metadata.PackageNotFoundError:  # pragma: no cover - not installed
        return "unknown"
