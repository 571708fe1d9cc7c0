"""One module per wire; ``TABLE`` maps each wire name to what its module declares."""

from __future__ import annotations

from types import MappingProxyType

from .._options import Wire
from . import anthropic, gemini, hermes, ollama, openai, responses

__all__ = ["TABLE"]

TABLE: MappingProxyType[str, Wire] = MappingProxyType(
    {
        module.WIRE.name: module.WIRE
        for module in (anthropic, openai, responses, gemini, ollama, hermes)
    }
)
