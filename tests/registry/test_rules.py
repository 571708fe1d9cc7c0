"""Rule regexes: linear-time matching with RE2, and every pattern error an InvalidRule."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from toolwire.registry import InvalidModelId, InvalidRule, InvalidSeed, Registry, resolve
from toolwire.registry._rules import compile_rule
from toolwire.registry._seed import load_seed

CATASTROPHIC = ("(a+)+$", "(?:[a-z0-9]+-?)+-vision", "(a|aa)+b", "(.*a){20}")


@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_catastrophic_patterns_resolve_in_linear_time(registry: Registry, pattern: str) -> None:
    registry.add_rule("openai", pattern, regex=True, created_by="ops")
    registry.set_claim(
        "openai",
        "image_input",
        False,
        rule=pattern,
        status="inferred",
        evidence="test rule",
        recorded_by="ops",
    )
    # 255 characters that almost match: under backtracking this takes longer than the age
    # of the universe for the first two patterns.
    model = "a" * 255 + "!"
    started = time.perf_counter()
    resolution = resolve("openai", model, registry=registry)
    assert time.perf_counter() - started < 5
    assert resolution.capabilities["image_input"] is True  # the rule did not match
    matching = "a" * 100 + "-vision" if "vision" in pattern else None
    if matching:
        assert resolve("openai", matching, registry=registry).capabilities["image_input"] is False


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("gemini-3(?![0-9]).*", "lookaround is not supported"),
        ("(?<=a)b", "lookaround is not supported"),
        (r"(a)\1", "backreferences are not supported"),
        ("a{4294967295}", "repetition count {4294967295} is over 1000"),
        ("a{2,99999}", "is over 1000"),
        ("[", "missing ]"),
        ("(?P<x>a", "invalid regex"),
    ],
)
def test_patterns_re2_cannot_take_are_refused(
    registry: Registry, pattern: str, reason: str
) -> None:
    before = registry.revision()
    with pytest.raises(InvalidRule, match="invalid regex") as caught:
        registry.add_rule("openai", pattern, regex=True, created_by="ops")
    assert reason in str(caught.value)
    assert "\n" not in str(caught.value)
    assert registry.revision() == before
    assert pattern not in {r.pattern for r in registry.rules("openai")}


def test_inline_flags_and_fullmatch() -> None:
    regex = compile_rule("(?i)minimax-m3(?:[^0-9].*)?")
    assert regex.fullmatch("MiniMax-M3") and regex.fullmatch("minimax-m3-pro")
    assert not regex.fullmatch("minimax-m31") and not regex.fullmatch("xminimax-m3")


def test_seed_patterns_have_no_lookaround_and_compile() -> None:
    for engine in load_seed().engines:
        for rule in engine.get("rule", []):
            if "regex" in rule:
                assert "(?!" not in rule["regex"] and "(?=" not in rule["regex"]
                compile_rule(rule["regex"])


def test_a_seed_file_with_lookaround_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(
        '[[engine]]\nname = "x"\nprovider = "p"\nfamily = "f"\ndefault_wire = "openai"\n'
        "kind = \"shim\"\n[[engine.rule]]\nregex = 'a(?!b)'\n",
        encoding="utf-8",
    )
    with pytest.raises(InvalidSeed, match="lookaround"):
        load_seed([path])


def test_model_ids_are_bounded_and_text(registry: Registry) -> None:
    with pytest.raises(InvalidModelId, match="longer than 256"):
        resolve("openai", "a" * 257, registry=registry)
    with pytest.raises(InvalidModelId):
        resolve("openai", "gpt-4o\udcff", registry=registry)
    assert resolve("openai", "a" * 256, registry=registry).wire == "openai"
