"""Modules imported when a test first reads from them, not when its file is collected.

Every test worker collects every test file, so a module-level import runs once per
worker. The providers' SDKs (anthropic, openai, google-genai, ollama, botocore) and
LiteLLM take seconds to import; the tests that need them run together on one worker
(``tests/conftest.py`` groups them), and the other workers never import them.
"""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """Stands for the module ``name``: reading or setting an attribute imports it first.

    Only public names are read through it: a name starting with ``_`` is an
    ``AttributeError`` without an import, since tools probe any object they find for
    such names (pytest looks for ``_mock_name`` and ``__wrapped__`` on every module
    attribute while collecting).
    """

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "_name", name)

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("_"):
            raise AttributeError(f"{self!r} reads only public names, not {attribute!r}")
        return getattr(importlib.import_module(self._name), attribute)

    def __setattr__(self, attribute: str, value: Any) -> None:
        setattr(importlib.import_module(self._name), attribute, value)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


def load(*modules: LazyModule) -> None:
    """Import ``modules`` now (before a deadline starts, say)."""
    for module in modules:
        importlib.import_module(object.__getattribute__(module, "_name"))
