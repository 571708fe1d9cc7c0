"""Locate the per-user data directory (stdlib only)."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

APP_NAME = "toolwire"


def user_data_dir(*, platform: str | None = None, environ: Mapping[str, str] | None = None) -> Path:
    """Return toolwire's per-user data directory for the platform, without creating it.

    Linux and other Unixes: ``$XDG_DATA_HOME/toolwire`` or ``~/.local/share/toolwire``;
    macOS: ``~/Library/Application Support/toolwire``; Windows:
    ``%LOCALAPPDATA%\\toolwire`` (falling back to ``~\\AppData\\Local``).
    """
    platform = sys.platform if platform is None else platform
    env = os.environ if environ is None else environ
    if platform == "win32":
        base = env.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / APP_NAME
    if platform == "darwin":
        return Path.home() / "Library" / "Application Support" / APP_NAME
    xdg = env.get("XDG_DATA_HOME")
    # The XDG spec says relative paths are invalid and must be ignored.
    base_path = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".local" / "share"
    return base_path / APP_NAME
