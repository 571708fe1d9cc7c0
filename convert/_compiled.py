"""The compiled helpers, where they were built: ``speedups`` is the ``_speedups`` module or None.

``_speedups`` (``_speedups.c``) is built at install where a C compiler is there,
and left out where it is not (the install goes on): every helper in it has a pure
form that is the reference, and the tests hold each pair to each other.
``TOOLWIRE_PURE=1`` in the environment makes toolwire ignore it (every path is
then the pure one), read once, at import.
"""

from __future__ import annotations

import os
from types import ModuleType

__all__ = ["speedups"]

speedups: ModuleType | None = None
if not os.environ.get("TOOLWIRE_PURE"):
    try:
        from . import _speedups as speedups
    except ImportError:  # not built: the pure forms
        speedups = None
