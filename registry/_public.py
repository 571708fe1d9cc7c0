"""Show the classes and functions ``toolwire.registry`` re-exports at their public home.

Their ``__module__`` is ``toolwire.registry``, where users import them from (as httpx
does for its own), so reprs, tracebacks and docs name that path, not a private module.
"""

from __future__ import annotations

from typing import Any

__all__ = ["PACKAGE", "shown_in_package"]

PACKAGE = "toolwire.registry"


def shown_in_package(*exported: Any) -> None:
    """Set ``__module__`` of each class or function to the package that exports it."""
    for value in exported:
        value.__module__ = PACKAGE
