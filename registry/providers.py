"""Which registry engine serves a catalog's or a gateway's provider (one table for both).

The table is the one ``toolwire catalog import`` reads, ``data/catalog/engines.toml``
(through ``catalog.engine_map``): per source (``models.dev``, ``litellm``,
``openrouter``), provider -> engines. A gateway that routes ``PROVIDER/MODEL`` (LiteLLM's
``anthropic/claude-…``, ``bedrock/…``, ``gemini/…``) asks :func:`engine_for` which
engine's claims decide what that model is sent; the import and the gateway can never
disagree, since neither has a copy of its own.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType

from .catalog import engine_map

__all__ = ["engine_for", "engines_for"]


@functools.cache
def _table(source: str) -> Mapping[str, tuple[str, ...]]:
    """Return the shipped provider -> engines table of ``source`` (read once)."""
    return MappingProxyType(engine_map(source))


def engines_for(source: str, provider: str) -> tuple[str, ...]:
    """Return the engines that serve ``provider``'s models in ``source``'s naming.

    Empty when the table names none (the provider has no engine).

    :raises InvalidInput: for an unknown source.
    """
    return _table(source).get(provider, ())


def engine_for(source: str, provider: str) -> str | None:
    """Return the engine a request routed to ``provider`` goes to (the table's first).

    The first engine listed is the provider's default endpoint (``openai`` before
    ``openai-responses``); None when the table names none.

    :raises InvalidInput: for an unknown source.
    """
    engines = engines_for(source, provider)
    return engines[0] if engines else None
