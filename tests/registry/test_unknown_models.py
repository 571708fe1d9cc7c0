"""A model no recorded model nor rule names: said on stderr, carried by the resolution,
named in the report, an error when strict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run
from click.testing import CliRunner
from toolwire.convert import REASONS, ToolResult
from toolwire.registry import (
    Registry,
    RegistryError,
    Resolver,
    UnknownModel,
    format_for,
    reformat_for,
    resolve,
)
from toolwire.registry import resolver as resolver_module

REPORT = Path(__file__).resolve().parents[2] / "examples" / "report.json"
TYPO = "claude-sonet-4-5"
NOTICE = (
    f"model {TYPO!r} is not recorded for anthropic and no rule names it; "
    "did you mean 'claude-sonnet-4-5'?"
)


@pytest.fixture
def recorded(registry: Registry) -> Registry:
    """The seeded registry with claude-sonnet-4-5 recorded on anthropic."""
    registry.add_model("anthropic", "claude-sonnet-4-5", created_by="tests")
    return registry


def _result() -> ToolResult:
    entry = json.loads(REPORT.read_text(encoding="utf-8"))
    return ToolResult.from_mcp(entry["result"], id=entry["id"], name=entry["name"])


# -- the library ---------------------------------------------------------------------------


def test_an_unknown_model_is_marked_with_the_closest_ids(recorded: Registry) -> None:
    found = Resolver(recorded).resolve("anthropic", TYPO)
    assert found.known is False
    assert found.suggestions == ("claude-sonnet-4-5",)
    assert found.notice == NOTICE
    assert found.as_dict()["known"] is False
    assert found.as_dict()["suggestions"] == ["claude-sonnet-4-5"]
    assert NOTICE in found.explain()


def test_a_recorded_model_and_a_model_a_rule_names_are_known(recorded: Registry) -> None:
    resolver = Resolver(recorded)
    recorded_one = resolver.resolve("anthropic", "claude-sonnet-4-5")
    assert (recorded_one.known, recorded_one.suggestions, recorded_one.notice) == (True, (), None)
    recorded.add_rule("anthropic", "claude-opus-9", regex=False, created_by="tests")
    by_rule = Resolver(recorded).resolve("anthropic", "claude-opus-9")
    assert by_rule.known is True and by_rule.notice is None
    recorded.add_rule("anthropic", "claude-haiku-.*", regex=True, created_by="tests")
    assert Resolver(recorded).resolve("anthropic", "claude-haiku-77").known is True


def test_exact_rule_ids_are_suggested(registry: Registry) -> None:
    registry.add_rule("anthropic", "claude-opus-9", regex=False, created_by="tests")
    found = Resolver(registry).resolve("anthropic", "claude-opsu-9")
    assert not found.known and found.suggestions[0] == "claude-opus-9"


def test_nothing_close_suggests_nothing(recorded: Registry) -> None:
    found = Resolver(recorded).resolve("anthropic", "zzzz")
    assert not found.known and found.suggestions == ()
    assert found.notice == "model 'zzzz' is not recorded for anthropic and no rule names it"


def test_the_report_names_the_unknown_model(recorded: Registry) -> None:
    result = _result()
    unknown = Resolver(recorded).resolve("anthropic", TYPO).report([result])[0]
    image = unknown[1]
    assert (image.type, image.outcome, image.reason) == ("image", "placeholder", "unknown_model")
    assert image.message.endswith(REASONS["unknown_model"])
    assert all(d.reason != "not_read" for d in unknown)
    # the same engine claims for a recorded model that does not read images say not_read
    recorded.set_claim(
        "anthropic",
        "image_input",
        False,
        model="claude-sonnet-4-5",
        status="documented",
        evidence="tests",
        recorded_by="tests",
    )
    known = Resolver(recorded).resolve("anthropic", "claude-sonnet-4-5").report([result])[0]
    assert known[1].reason == "not_read"
    assert [d.outcome for d in known] == [d.outcome for d in unknown]


def test_strict_is_an_unknown_model_error(recorded: Registry) -> None:
    with pytest.raises(UnknownModel) as caught:
        format_for("anthropic", TYPO, [_result()], registry=recorded, strict=True)
    assert str(caught.value) == NOTICE
    assert isinstance(caught.value, RegistryError) and isinstance(caught.value, LookupError)
    assert caught.value.suggestions == ("claude-sonnet-4-5",)
    with pytest.raises(UnknownModel, match="is not recorded for anthropic"):
        reformat_for("anthropic", TYPO, "anthropic", [], registry=recorded, strict=True)
    with pytest.raises(UnknownModel):
        resolve("anthropic", TYPO, registry=recorded, strict=True)
    # a cached resolution is refused the same way, and without strict it is returned
    assert resolve("anthropic", TYPO, registry=recorded).known is False
    with pytest.raises(UnknownModel):
        resolve("anthropic", TYPO, registry=recorded, strict=True)
    # a known model goes through strict
    assert format_for("anthropic", "claude-sonnet-4-5", [_result()], registry=recorded, strict=True)


def test_resolve_many_marks_the_unknown_ones(recorded: Registry) -> None:
    found = Resolver(recorded).resolve_many("anthropic", ["claude-sonnet-4-5", TYPO])
    assert [(r.known, r.suggestions) for r in found] == [
        (True, ()),
        (False, ("claude-sonnet-4-5",)),
    ]


def test_the_recorded_ids_are_read_only_for_an_unknown_model_and_cached(
    recorded: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads: list[str] = []
    real = resolver_module._read_ids

    def counting(registry: Registry, engine: str) -> tuple[str, ...]:
        reads.append(engine)
        return real(registry, engine)

    monkeypatch.setattr(resolver_module, "_read_ids", counting)
    resolver = Resolver(recorded, max_age=60)
    for _ in range(3):
        assert resolver.resolve("anthropic", "claude-sonnet-4-5").known
    assert reads == []
    for _ in range(3):
        assert resolver.resolve("anthropic", TYPO).suggestions == ("claude-sonnet-4-5",)
    assert reads == ["anthropic"]  # once: the fact is cached with the resolution
    assert resolver.resolve("anthropic", "claude-sonet-4-6").suggestions  # ids cached too
    assert reads == ["anthropic"]
    recorded.add_model("anthropic", "claude-sonet-4-5", created_by="tests")
    assert resolver.resolve("anthropic", TYPO).known  # a change is seen at once


# -- the CLI -------------------------------------------------------------------------------


def _cli(runner: CliRunner, registry: Registry, *args: str) -> Any:
    return run(runner, registry.url, *args)


def test_resolve_says_so_on_stderr(runner: CliRunner, recorded: Registry) -> None:
    result = _cli(runner, recorded, "resolve", "anthropic", TYPO)
    assert result.exit_code == 0
    assert result.stderr == NOTICE + "\n"
    assert result.stdout.startswith("wire: anthropic\n")
    quiet = _cli(runner, recorded, "resolve", "anthropic", "claude-sonnet-4-5")
    assert quiet.exit_code == 0 and quiet.stderr == ""
    as_json = _cli(runner, recorded, "resolve", "anthropic", TYPO, "--format", "json")
    assert as_json.exit_code == 0 and as_json.stderr == NOTICE + "\n"
    data = json.loads(as_json.stdout)
    assert data["known"] is False and data["suggestions"] == ["claude-sonnet-4-5"]


def test_format_and_its_report_say_so(runner: CliRunner, recorded: Registry) -> None:
    plain = _cli(runner, recorded, "format", "anthropic", TYPO, str(REPORT))
    assert plain.exit_code == 0 and plain.stderr == NOTICE + "\n"
    table = _cli(runner, recorded, "format", "anthropic", TYPO, str(REPORT), "--report")
    assert table.exit_code == 0
    lines = table.stderr.splitlines()
    assert lines[0] == NOTICE
    image = next(line for line in lines if " image " in line)
    assert "placeholder" in image and REASONS["unknown_model"] in image
    assert REASONS["not_read"] not in table.stderr
    doc = _cli(
        runner, recorded, "format", "anthropic", TYPO, str(REPORT), "--report", "--format", "json"
    )
    assert doc.exit_code == 0 and doc.stderr == NOTICE + "\n"
    items = json.loads(doc.stdout)["report"][0]["items"]
    assert items[1]["reason"] == "unknown_model"


@pytest.mark.parametrize("command", ["resolve", "format"])
def test_strict_models_exits_1_in_one_line(
    runner: CliRunner, recorded: Registry, command: str
) -> None:
    args = [command, "anthropic", TYPO, "--strict-models"]
    if command == "format":
        args.insert(3, str(REPORT))
    result = _cli(runner, recorded, *args)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == f"Error: {NOTICE}\n"
    args[2] = "claude-sonnet-4-5"
    assert _cli(runner, recorded, *args).exit_code == 0
