"""How much a probe reads back (a leaf module: the client and the runner both use it)."""

from __future__ import annotations

__all__ = ["MAX_REPLY"]

#: The most reply bytes a probe reads, counted compressed and again inflated (1 MB).
MAX_REPLY = 1024 * 1024
