"""What ``resolve --explain`` says about a resolution, built once for the CLI and the service.

``explain_sections`` returns what the explanation adds after the resolver's trace
(``Resolution.explain``): the meaning of each flag, and the latest observation a
probe made of it; ``explain_text`` is the whole text ``toolwire resolve --explain``
prints.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .resolver import Resolution
    from .store import Registry

__all__ = ["EXPLAIN_SECTIONS", "explain_sections", "explain_text"]


def _meanings(registry: Registry, resolution: Resolution) -> dict[str, Any]:
    """What each flag of the resolution means, from the capability vocabulary."""
    known = {c.name: c.description for c in registry.capabilities()}
    names = (*resolution.trace, *resolution.limit_trace)
    return {"flag_meanings": {name: known.get(name, "") for name in names}}


def _observations(registry: Registry, resolution: Resolution) -> dict[str, Any]:
    """The latest observation a probe made of each flag, where there is one."""
    from .observations import describe, latest_for

    latest = latest_for(registry, resolution.engine, resolution.model)
    lines = {
        flag: describe(latest[flag], entry.claim)
        for flag, entry in resolution.trace.items()
        if flag in latest
    }
    return {"observations": lines} if lines else {}


#: What the explanation adds after the trace: each section returns
#: {title: {name: text}}, printed as an indented block or merged into the JSON.
EXPLAIN_SECTIONS: list[Callable[[Registry, Resolution], dict[str, Any]]] = [
    _meanings,
    _observations,
]


def explain_sections(registry: Registry, resolution: Resolution) -> dict[str, dict[str, str]]:
    """Return every section the explanation adds after the trace, merged: {title: {name: text}}.

    :raises DatabaseError: when the registry cannot be read.
    """
    found: dict[str, dict[str, str]] = {}
    for section in EXPLAIN_SECTIONS:
        found.update(section(registry, resolution))
    return found


def explain_text(registry: Registry, resolution: Resolution) -> str:
    """Return the text ``toolwire resolve --explain`` prints for ``resolution``.

    :raises DatabaseError: when the registry cannot be read.
    """
    lines = [resolution.explain()]
    for key, value in explain_sections(registry, resolution).items():
        pad = max(map(len, value), default=0)
        lines.append(f"{key.replace('_', ' ')}:")
        lines.append("\n".join(f"  {k:<{pad}} {v}" for k, v in value.items()))
    return "\n".join(lines)
