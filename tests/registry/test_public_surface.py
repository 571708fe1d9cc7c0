"""The public surface of toolwire.registry."""

from __future__ import annotations
import __future__

import importlib
import pkgutil
import subprocess
import sys
import types

import pytest
import toolwire.registry as registry
import toolwire.registry.errors as registry_errors
from toolwire.convert import ToolwireError

PUBLIC = "toolwire.registry"


def _ruff_order(name: str) -> tuple[int, str]:
    """The order ruff (RUF022) keeps ``__all__`` in: CONSTANTS, Classes, functions."""
    if name.isupper():
        return 0, name
    return (1 if name[0].isupper() else 2), name


def test_all_is_sorted_and_unique() -> None:
    assert list(registry.__all__) == sorted(registry.__all__, key=_ruff_order)
    assert len(set(registry.__all__)) == len(registry.__all__)


def test_all_is_complete() -> None:
    for name in registry.__all__:  # names are imported on first use
        getattr(registry, name)
    public = {
        name
        for name, value in vars(registry).items()
        if not name.startswith("_")
        and not isinstance(value, types.ModuleType)
        and not isinstance(value, __future__._Feature)
    }
    assert set(registry.__all__) == public


def test_every_error_is_a_toolwire_error_and_a_builtin() -> None:
    errors = [
        value
        for value in vars(registry).values()
        if isinstance(value, type) and issubclass(value, Exception)
    ]
    assert registry.RegistryError in errors and len(errors) > 10
    for error in errors:
        assert issubclass(error, ToolwireError), error
        if error is not registry.RegistryError:
            assert issubclass(error, (LookupError, ValueError, RuntimeError)), error
    assert issubclass(registry.UnknownEngine, LookupError)
    assert issubclass(registry.InvalidModelId, ValueError)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'format_four'"):
        registry.format_four  # noqa: B018
    assert "format_for" in dir(registry)


def test_the_cli_imports_neither_sqlalchemy_nor_the_store() -> None:
    # What `toolwire --help` loads: the CLI starts fast because the rest waits.
    code = (
        "import sys; import toolwire.registry.cli; "
        "print(sorted(m for m in ('sqlalchemy', 'alembic', 'toolwire.registry.store') "
        "if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_exported_classes_and_functions_show_their_public_home() -> None:
    shown = 0
    for name in registry.__all__:
        value = getattr(registry, name)
        if isinstance(value, (type, types.FunctionType)):
            assert value.__module__ == PUBLIC, name
            assert value.__qualname__ == name  # so toolwire.registry.<name> finds it
            shown += 1
    assert shown > 40
    # and nothing else claims that home: each such name is exported under it
    for found in pkgutil.iter_modules(registry.__path__, "toolwire.registry."):
        module = importlib.import_module(found.name)
        for name, value in vars(module).items():
            if not name.startswith("_") and getattr(value, "__module__", None) == PUBLIC:
                assert name in registry.__all__, f"{found.name}.{name}"
                assert getattr(registry, name) is value


NOT_NAMES = [None, 1, 1.5, b"anthropic", ["anthropic"], True]


@pytest.mark.parametrize("value", NOT_NAMES, ids=repr)
def test_a_name_that_is_not_a_string_is_a_toolwire_error(
    registry: registry.Registry, value: object
) -> None:
    """No method naming an engine (or a capability) lets a foreign exception out for a
    non-string name (a TypeError from difflib or a dict lookup): one of toolwire's
    errors, or, for a filter, nothing found (None is no filter there)."""
    r = registry
    calls = {
        "engine": lambda: r.engine(value),  # type: ignore[arg-type]
        "models": lambda: r.models(value),  # type: ignore[arg-type]
        "claims": lambda: r.claims(engine=value),  # type: ignore[arg-type]
        "engine_snapshot": lambda: r.engine_snapshot(value),  # type: ignore[arg-type]
        "claim_history": lambda: r.claim_history(value),  # type: ignore[arg-type]
        "rules": lambda: r.rules(value),  # type: ignore[arg-type]
        "model": lambda: r.model(value, "m"),  # type: ignore[arg-type]
        "audit": lambda: r.audit(engine=value),  # type: ignore[arg-type]
        "log": lambda: r.log(engine=value),  # type: ignore[arg-type]
        "add_model": lambda: r.add_model(value, "m", created_by="t"),  # type: ignore[arg-type]
        "add_rule": lambda: r.add_rule(value, "m*", regex=False, created_by="t"),  # type: ignore[arg-type]
        "remove_engine": lambda: r.remove_engine(value, recorded_by="t"),  # type: ignore[arg-type]
        "remove_model": lambda: r.remove_model(value, "m", recorded_by="t"),  # type: ignore[arg-type]
        "remove_rule": lambda: r.remove_rule(value, 1, recorded_by="t"),  # type: ignore[arg-type]
        "move_rule": lambda: r.move_rule(value, 1, 0, recorded_by="t"),  # type: ignore[arg-type]
        "set_claim": lambda: r.set_claim(
            value,  # type: ignore[arg-type]
            "image_input",
            True,
            status="documented",
            evidence="tests",
            recorded_by="t",
        ),
        "unset_claim": lambda: r.unset_claim(
            value,  # type: ignore[arg-type]
            "image_input",
            evidence="tests",
            recorded_by="t",
        ),
        "capability": lambda: r.capability(value),  # type: ignore[arg-type]
    }
    foreign = {}
    for name, call in calls.items():
        try:
            call()
        except ToolwireError:
            continue
        except Exception as error:
            foreign[name] = f"{type(error).__name__}: {error}"
    assert foreign == {}


@pytest.mark.parametrize("value", [1, b"anthropic", ["anthropic"], True], ids=repr)
def test_history_filters_that_are_not_strings_are_refused(
    registry: registry.Registry, value: object
) -> None:
    with pytest.raises(registry_errors.InvalidInput, match="must be a string"):
        registry.claim_history(value)  # type: ignore[arg-type]
    with pytest.raises(registry_errors.InvalidInput, match="must be a string"):
        registry.claim_history("anthropic", model=value)  # type: ignore[arg-type]
    with pytest.raises(registry_errors.InvalidInput, match="must be a string"):
        registry.log(engine=value)  # type: ignore[arg-type]
    with pytest.raises(registry_errors.InvalidInput, match="must be a string"):
        registry.log(by=value)  # type: ignore[arg-type]
    assert registry.log(engine="no-such-engine") == ()  # a name: nothing found
