"""The public surface of toolwire.registry."""

from __future__ import annotations
import __future__

import datetime
import importlib
import pkgutil
import re
import subprocess
import sys
import types
from pathlib import Path

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


def _bad_arguments(r: registry.Registry) -> dict[str, tuple[object, type[Exception], str]]:
    """Calls with an argument of the wrong kind: name -> (call, error, message part)."""
    errors = registry_errors
    claim = {"status": "documented", "evidence": "tests", "recorded_by": "t"}
    return {
        "Resolver(url string)": (
            lambda: registry.Resolver(r.url),  # type: ignore[arg-type]
            errors.InvalidInput,
            "pass a Registry",
        ),
        "Resolver(max_age='1')": (
            lambda: registry.Resolver(r, max_age="1"),  # type: ignore[arg-type]
            errors.InvalidInput,
            "number of seconds",
        ),
        "Resolver(max_age=nan)": (
            lambda: registry.Resolver(r, max_age=float("nan")),
            errors.InvalidInput,
            "number of seconds",
        ),
        "seed(url string)": (
            lambda: registry.seed(r.url),  # type: ignore[arg-type]
            errors.InvalidInput,
            "pass a Registry",
        ),
        "remove_rule(None)": (
            lambda: r.remove_rule("anthropic", None, recorded_by="t"),  # type: ignore[arg-type]
            errors.InvalidRule,
            "pass a rule id",
        ),
        "set_claim(rule=1.0)": (
            lambda: r.set_claim("anthropic", "image_input", True, rule=1.0, **claim),  # type: ignore[arg-type]
            errors.InvalidRule,
            "pass a rule id",
        ),
        "set_claim(rule=True)": (
            lambda: r.set_claim("anthropic", "image_input", True, rule=True, **claim),  # type: ignore[arg-type]
            errors.InvalidRule,
            "pass a rule id",
        ),
        "set_claim(rule=2**63)": (
            lambda: r.set_claim("anthropic", "image_input", True, rule=2**63, **claim),
            errors.InvalidRule,
            "count from 1",
        ),
        "unset_claim(rule=b'1')": (
            lambda: r.unset_claim(
                "anthropic",
                "image_input",
                rule=b"1",  # type: ignore[arg-type]
                evidence="tests",
                recorded_by="t",
            ),
            errors.InvalidRule,
            "pass a rule id",
        ),
        "add_rule(position='2')": (
            lambda: r.add_rule("anthropic", "x-*", regex=False, position="2", created_by="t"),  # type: ignore[arg-type]
            errors.InvalidRule,
            "counts from 1",
        ),
        "add_rule(position=1.5)": (
            lambda: r.add_rule("anthropic", "x-*", regex=False, position=1.5, created_by="t"),  # type: ignore[arg-type]
            errors.InvalidRule,
            "counts from 1",
        ),
        "add_rule(position=nan)": (
            lambda: r.add_rule(
                "anthropic",
                "x-*",
                regex=False,
                position=float("nan"),  # type: ignore[arg-type]
                created_by="t",
            ),
            errors.InvalidRule,
            "counts from 1",
        ),
        "resolve_many(one id)": (
            lambda: registry.Resolver(r).resolve_many("anthropic", "claude-sonnet-4-5"),
            errors.InvalidInput,
            "not one id",
        ),
        "resolve_many(5)": (
            lambda: registry.Resolver(r).resolve_many("anthropic", 5),  # type: ignore[arg-type]
            errors.InvalidInput,
            "list of model ids",
        ),
        "engine_snapshot(models=5)": (
            lambda: r.engine_snapshot("anthropic", models=5),  # type: ignore[arg-type]
            errors.InvalidInput,
            "list of model ids",
        ),
        "set_claims(None)": (
            lambda: r.set_claims(None, recorded_by="t"),  # type: ignore[arg-type]
            errors.InvalidInput,
            "list of claims",
        ),
        "audit(today=date.min)": (
            lambda: r.audit(stale_days=1, today=datetime.date.min),
            errors.InvalidInput,
            "past the year 1",
        ),
        "audit(stale_days=10**5000)": (
            lambda: r.audit(stale_days=10**5000),
            errors.InvalidInput,
            "a large int",
        ),
        "evidence_rank(10**5000)": (
            lambda: registry.evidence_rank(10**5000),  # type: ignore[arg-type]
            errors.InvalidStatus,
            "a large int",
        ),
    }


CALLS = list(_bad_arguments(None))  # type: ignore[arg-type]  # only the names


@pytest.mark.parametrize("name", CALLS)
def test_an_argument_of_the_wrong_kind_is_a_toolwire_error(
    registry: registry.Registry, name: str
) -> None:
    call, error, message = _bad_arguments(registry)[name]
    with pytest.raises(error, match=re.escape(message)):
        call()  # type: ignore[operator]
    assert registry.rules("anthropic") == registry.rules("anthropic")  # still readable


@pytest.mark.parametrize("value", [None, "5", float("nan"), float("inf"), -1, True], ids=repr)
def test_a_busy_timeout_that_is_not_seconds_is_refused(tmp_path: Path, value: object) -> None:
    url = f"sqlite:///{tmp_path / 'r.sqlite3'}"
    with pytest.raises(registry_errors.InvalidInput, match=r"busy_timeout .* number of seconds"):
        registry.Registry(url, busy_timeout=value, setup=False)  # type: ignore[arg-type]
    assert not (tmp_path / "r.sqlite3").exists()  # refused before anything is made


def test_a_url_with_a_lone_surrogate_is_refused_as_one_with_nul(tmp_path: Path) -> None:
    with pytest.raises(registry_errors.DatabaseError, match="lone surrogate"):
        registry.Registry(f"sqlite:///{tmp_path}/new\ud800.sqlite3")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_a_whole_number_past_64_bits_is_invalid_input(registry: registry.Registry) -> None:
    for call in (
        lambda: registry.engine(2**63),  # type: ignore[arg-type]
        lambda: registry.log(limit=2**63),
        lambda: registry.model("anthropic", 2**63),  # type: ignore[arg-type]
    ):
        with pytest.raises(registry_errors.InvalidInput, match=r"largest the database holds"):
            call()


def test_a_rule_matches_no_value_that_is_not_a_model_id(registry: registry.Registry) -> None:
    snapshot = registry.engine_snapshot("anthropic")
    assert snapshot.rules  # the seed's rules, regex and exact
    for value in (None, 5, b"claude-sonnet-4-5", ["claude-sonnet-4-5"]):
        assert snapshot.matching_rules(value) == ()  # type: ignore[arg-type]


def test_a_writer_refuses_rule_ids_and_field_values_of_the_wrong_kind(
    registry: registry.Registry,
) -> None:
    rules = registry.rules("anthropic")
    assert rules
    refused = {
        "an id of no rule": (
            lambda w: w.order_rules("anthropic", [10**6], recorded_by="t"),
            registry_errors.UnknownRule,
        ),
        "no list": (
            lambda w: w.order_rules("anthropic", None, recorded_by="t"),
            registry_errors.InvalidInput,
        ),
        "a string": (
            lambda w: w.order_rules("anthropic", "1", recorded_by="t"),
            registry_errors.InvalidInput,
        ),
        "a key that is no name": (
            lambda w: w.update_fields(
                "anthropic", "engine", "anthropic", {5: "x"}, recorded_by="t"
            ),
            registry_errors.InvalidInput,
        ),
        "no mapping": (
            lambda w: w.update_fields("anthropic", "engine", "anthropic", None, recorded_by="t"),
            registry_errors.InvalidInput,
        ),
    }
    # a note is text on the engine, a model and a rule (not a NOT NULL error of the database)
    with registry.batch() as writer:
        writer.add_model("anthropic", "lab-1", note="kept", created_by="t")
    for entity, key in (("engine", "anthropic"), ("model", "lab-1"), ("rule", rules[0].id)):
        for note in (None, 5, "a\x00b"):
            refused[f"{entity} note {note!r}"] = (
                lambda w, e=entity, k=key, n=note: w.update_fields(
                    "anthropic", e, k, {"note": n}, recorded_by="t"
                ),
                registry_errors.InvalidInput,
            )
    for name, (call, error) in refused.items():
        with pytest.raises(error), registry.batch() as writer:
            call(writer)
        assert registry.rules("anthropic") == rules, name  # nothing written
        assert registry.models("anthropic")[0].note == "kept", name
    with registry.batch() as writer:
        assert (
            writer.update_fields("anthropic", "engine", "anthropic", {}, recorded_by="t") is False
        )
        writer.order_rules("anthropic", [rules[-1].id], recorded_by="t")
    assert registry.rules("anthropic")[0].id == rules[-1].id
