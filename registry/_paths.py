"""Locate and create the per-user data directory; say how to install an extra (stdlib only)."""

from __future__ import annotations

import json
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


def make_private_dirs(path: Path) -> None:
    """Create ``path`` and each missing parent, each readable by its owner only (0700).

    ``Path.mkdir(mode=0o700, parents=True)`` gives the parents it creates the default
    mode less the umask (0777 under ``umask 000``), so each level is created here and
    its mode set after, whatever the umask took away.

    :raises OSError: when a level cannot be created (``filename`` names it).
    """
    missing: list[Path] = []
    level = path
    while not os.path.lexists(level):
        missing.append(level)
        if level.parent == level:
            break
        level = level.parent
    for directory in reversed(missing):
        try:
            os.mkdir(directory, 0o700)
        except FileExistsError:  # another process made it meanwhile
            continue
        os.chmod(directory, 0o700)
    if not path.is_dir():
        raise NotADirectoryError(20, "Not a directory", str(path))


def install_hint(extra: str) -> str:
    """Return the pip command that adds the ``extra`` to this installation of toolwire.

    From a checkout (an editable or a local-directory install) that is the checkout's
    path with the extra (``pip install -e '/src/toolwire[probe]'``); from an index,
    ``pip install 'toolwire[probe]'``.
    """
    from importlib import metadata
    from urllib.parse import unquote, urlsplit

    origin: object = {}
    # (a checkout's own toolwire.egg-info, found first from its directory, has no origin)
    for found in metadata.distributions(name="toolwire"):
        raw = found.read_text("direct_url.json")
        if raw:
            try:
                origin = json.loads(raw)
            except ValueError:
                continue
            break
    url = origin.get("url", "") if isinstance(origin, dict) else ""
    dir_info = origin.get("dir_info") if isinstance(origin, dict) else None
    if isinstance(url, str) and url.startswith("file://") and isinstance(dir_info, dict):
        path = unquote(urlsplit(url).path)
        editable = "-e " if dir_info.get("editable") else ""
        return f"pip install {editable}'{path}[{extra}]'"
    return f"pip install 'toolwire[{extra}]'"
