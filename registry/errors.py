"""Exceptions raised by ``toolwire.registry``.

Every exception also inherits the builtin a caller would naturally catch::

    ToolwireError                                     base of every toolwire error
    └── RegistryError                                 base of this package's errors
        ├── UnknownEngine(RegistryError, LookupError)     no engine of that name
        ├── UnknownModel(RegistryError, LookupError)      no model row of that id (or,
        │                                                 strict, no row nor rule names it)
        ├── UnknownRule(RegistryError, LookupError)       no rule of that id/pattern
        ├── UnknownClaim(RegistryError, LookupError)      no claim there to retract
        ├── InvalidInput(RegistryError, ValueError)       a value the registry refuses
        │   ├── InvalidModelId                                empty, too long, spaces
        │   ├── InvalidCapability                             not [a-z][a-z0-9_]{0,63}
        │   │   └── UnknownCapability                             not in the vocabulary
        │   ├── InvalidStatus                                 not an evidence status
        │   ├── InvalidWire                                   not one of the wires
        │   ├── InvalidRule                                   bad match kind or regex
        │   ├── InvalidSeed                                   a seed file that is wrong
        │   └── InvalidCatalog                                a catalog file of the wrong shape
        ├── DuplicateEntry(RegistryError, ValueError)     the row exists already
        ├── InUse(RegistryError, ValueError)              rows still hang on it
        ├── CatalogUnavailable(RegistryError, LookupError)  no catalog file installed
        ├── RevisionConflict(RegistryError, RuntimeError)   the registry moved since
        └── DatabaseError(RegistryError, RuntimeError)    SQLAlchemy/alembic failure
            ├── DatabaseLocked                                SQLite busy beyond timeout
            ├── NoRegistry                                    no toolwire schema there
            └── ReadOnlyRegistry                              a write on a file opened read-only

Messages are one line, fit for a CLI error. Foreign exceptions are wrapped where they
cross into this package (``raise DatabaseError(...) from exc``), so ``__cause__`` keeps
the original for debugging.
"""

from __future__ import annotations

from collections.abc import Iterable

from toolwire.convert.errors import ToolwireError, describe

from ._public import shown_in_package

__all__ = [
    "CatalogUnavailable",
    "DatabaseError",
    "DatabaseLocked",
    "DuplicateEntry",
    "InUse",
    "InvalidCapability",
    "InvalidCatalog",
    "InvalidInput",
    "InvalidModelId",
    "InvalidRule",
    "InvalidSeed",
    "InvalidStatus",
    "InvalidWire",
    "NoRegistry",
    "ReadOnlyRegistry",
    "RegistryError",
    "RevisionConflict",
    "UnknownCapability",
    "UnknownClaim",
    "UnknownEngine",
    "UnknownModel",
    "UnknownRule",
]


class RegistryError(ToolwireError):
    """Base class of the errors raised by ``toolwire.registry``."""


def _closest(name: object, known: Iterable[str]) -> tuple[tuple[str, ...], str]:
    """Return the closest known names and a "; did you mean ...?" hint (or "": none, or
    ``name`` is not a string)."""
    import difflib  # only on the error path

    if not isinstance(name, str):
        return (), ""
    suggestions = tuple(difflib.get_close_matches(name, sorted(known), n=3))
    return suggestions, _hint(suggestions)


def _hint(suggestions: tuple[str, ...]) -> str:
    """Return "; did you mean 'A' or 'B'?" for ``suggestions`` ("" for none)."""
    if not suggestions:
        return ""
    return "; did you mean " + " or ".join(map(repr, suggestions)) + "?"


class UnknownEngine(RegistryError, LookupError):
    """An engine name the registry does not know; the message names the closest ones."""

    def __init__(self, name: str, known: Iterable[str] = ()) -> None:
        self.name = name
        self.suggestions, hint = _closest(name, known)
        super().__init__(f"unknown engine {describe(name)}{hint}")


class UnknownModel(RegistryError, LookupError):
    """A model id with no row on that engine.

    With ``suggestions`` (a strict resolution): neither a recorded model nor a rule of
    the engine names the id; the message is ``unnamed_model``'s, with the closest ids.
    """

    def __init__(
        self, engine: str, model_id: str, *, suggestions: tuple[str, ...] | None = None
    ) -> None:
        self.engine = engine
        self.model_id = model_id
        self.suggestions = suggestions or ()
        if suggestions is None:
            super().__init__(f"engine {describe(engine)} has no model {describe(model_id)}")
        else:
            super().__init__(unnamed_model(engine, model_id, suggestions))


def closest_models(model_id: str, known: Iterable[str]) -> tuple[str, ...]:
    """Return the ids of ``known`` closest to ``model_id`` (difflib), best first."""
    return _closest(model_id, known)[0]


def unnamed_model(engine: str, model_id: str, suggestions: tuple[str, ...]) -> str:
    """Return the one line saying no recorded model nor rule of ``engine`` names ``model_id``."""
    hint = _hint(suggestions)
    return f"model {describe(model_id)} is not recorded for {engine} and no rule names it{hint}"


class UnknownRule(RegistryError, LookupError):
    """A rule id or pattern with no row on that engine."""

    def __init__(self, engine: str, rule: int | str) -> None:
        self.engine = engine
        self.rule = rule
        super().__init__(f"engine {describe(engine)} has no rule {describe(rule)}")


class UnknownClaim(RegistryError, LookupError):
    """No claim of that capability on that subject (nothing to retract)."""


class InUse(RegistryError, ValueError):
    """A row that others still hang on (an engine with models, rules or claims)."""


class InvalidInput(RegistryError, ValueError):
    """A value the registry refuses to store."""


class InvalidModelId(InvalidInput):
    """A model id that is empty, longer than 256 characters or contains whitespace."""


class InvalidCapability(InvalidInput):
    """A capability name outside ``[a-z][a-z0-9_]{0,63}``."""


class UnknownCapability(InvalidCapability):
    """A capability name that is not in the vocabulary; the message names the closest ones."""

    def __init__(self, name: str, known: Iterable[str] = ()) -> None:
        self.name = name
        self.suggestions, hint = _closest(name, known)
        super().__init__(
            f"unknown capability {describe(name)}{hint} "
            f"(add it with: toolwire capability add {name} --description TEXT)"
        )


class InvalidStatus(InvalidInput):
    """An evidence status other than live-verified, documented, inferred, unverified."""


class InvalidWire(InvalidInput):
    """A wire name that is not one of ``toolwire.convert.WIRES``."""


class InvalidRule(InvalidInput):
    """A rule with an unknown match kind or a regex that does not compile."""


class InvalidSeed(InvalidInput):
    """A seed file that is not valid TOML or does not follow the seed format."""


class InvalidCatalog(InvalidInput):
    """A catalog file that does not have its catalog's shape; the message names where."""


class CatalogUnavailable(RegistryError, LookupError):
    """No catalog file given and none installed (the message says which file to pass)."""


class DuplicateEntry(RegistryError, ValueError):
    """A row that already exists (engine name, model id, rule pattern)."""


class DatabaseError(RegistryError, RuntimeError):
    """A failure of the database or of a migration, wrapped at the boundary."""


class DatabaseLocked(DatabaseError):
    """SQLite stayed locked by another writer for longer than the busy timeout."""


class NoRegistry(DatabaseError):
    """The database does not exist or holds no toolwire schema (and was not created)."""


class ReadOnlyRegistry(DatabaseError):
    """A write to an SQLite registry this process may only read (opened read-only)."""

    def __init__(
        self,
        path: object,
        reason: str,
        fix: str = "reads work; a write needs write access to the file and its directory",
    ) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"the registry at {path} is read-only ({reason}); {fix}")


class RevisionConflict(RegistryError, RuntimeError):
    """The registry changed since the revision a write was prepared against."""


shown_in_package(*(globals()[name] for name in __all__))
