"""Limits (int and mimes claims) through the resolver: precedence, evidence policy, options."""

from __future__ import annotations

from datetime import date

import pytest
from claim_helpers import set_claim as _set
from toolwire.convert import wire_options
from toolwire.registry import LIMITS, Registry, Resolver
from toolwire.registry.resolver import _options


def _fresh(registry: Registry) -> Resolver:
    return Resolver(registry, max_age=0)


def test_every_limit_is_an_int_or_mimes_capability_of_the_vocabulary(registry: Registry) -> None:
    kinds = {c.name: c.value_kind for c in registry.capabilities()}
    assert {name: kinds[name] for name in LIMITS} == {
        **{name: "int" for name in LIMITS if name != "image_mimes"},
        "image_mimes": "mimes",
    }


def test_model_beats_rule_beats_engine(registry: Registry) -> None:
    registry.add_engine(
        "limits-test",
        provider="p",
        family="anthropic",
        default_wire="anthropic",
        kind="shim",
        created_by="tests",
    )
    rule = registry.add_rule("limits-test", "big-.*", regex=True, created_by="tests")
    _set(registry, "limits-test", "max_images", 100)
    _set(registry, "limits-test", "max_images", 600, rule=rule.id)
    _set(registry, "limits-test", "max_images", 7, model="big-one")
    _set(registry, "limits-test", "image_mimes", ["image/png"], rule=rule.id)
    resolver = _fresh(registry)

    plain = resolver.resolve("limits-test", "small-one")
    assert plain.limits == {"max_images": 100}
    assert plain.limit_trace["max_images"].decided_by == "engine"

    ruled = resolver.resolve("limits-test", "big-two")
    assert ruled.limits == {"max_images": 600, "image_mimes": ("image/png",)}
    assert ruled.limit_trace["max_images"].decided_by.startswith(f"rule:{rule.id} regex")

    own = resolver.resolve("limits-test", "big-one")
    assert own.limits["max_images"] == 7
    assert own.limit_trace["max_images"].decided_by == "model"
    assert own.limits["image_mimes"] == ("image/png",)  # the rule still decides this one

    # a retracted model claim hands the decision back to the rule
    registry.unset_claim(
        "limits-test", "max_images", model="big-one", evidence="gone", recorded_by="tests"
    )
    assert resolver.resolve("limits-test", "big-one").limits["max_images"] == 600


def test_no_limit_claim_is_no_limit(registry: Registry) -> None:
    resolution = _fresh(registry).resolve("openai", "gpt-4o")
    assert resolution.limits == {}
    assert resolution.limit_trace == {}
    assert not set(resolution.options) & set(LIMITS)


def test_min_evidence_sets_weak_limit_claims_aside(registry: Registry) -> None:
    _set(registry, "xai", "max_images", 3, model="grok-4", status="unverified")
    resolver = _fresh(registry)
    assert resolver.resolve("xai", "grok-4").limits["max_images"] == 3

    strict = resolver.resolve("xai", "grok-4", min_evidence="documented")
    assert "max_images" not in strict.limits
    entry = strict.limit_trace["max_images"]
    assert entry.value is None and entry.claim is None
    assert [(where, c.value) for where, c in entry.ignored] == [("model", 3)]
    # the engine's seeded limit is inferred: also weaker than documented
    assert "max_image_bytes" not in strict.limits
    assert resolver.resolve("xai", "grok-4", min_evidence="inferred").limits["max_image_bytes"] == (
        20 * 1024 * 1024
    )
    assert "ignored: model claims 3 [unverified]" in strict.explain()


def test_a_stale_limit_claim_counts_one_tier_lower(registry: Registry) -> None:
    # live-verified ages after 90 days (the default policy); the tests' day is 2026-12-01
    _set(
        registry,
        "xai",
        "max_images",
        5,
        model="grok-4",
        status="live-verified",
        verified_at=date(2026, 1, 1),
    )
    _set(
        registry,
        "xai",
        "max_images",
        9,
        model="grok-4-fresh",
        status="live-verified",
        verified_at=date(2026, 11, 20),
    )
    resolver = _fresh(registry)
    aged = resolver.resolve("xai", "grok-4", min_evidence="live-verified")
    assert "max_images" not in aged.limits
    assert aged.limit_trace["max_images"].ignored_stale == ("verified 2026-01-01, policy 90 days",)
    assert resolver.resolve("xai", "grok-4", min_evidence="documented").limits["max_images"] == 5
    plain = resolver.resolve("xai", "grok-4")
    assert plain.limit_trace["max_images"].stale == "verified 2026-01-01, policy 90 days"
    fresh = resolver.resolve("xai", "grok-4-fresh", min_evidence="live-verified")
    assert fresh.limits["max_images"] == 9


def test_explain_and_json_show_the_limits(registry: Registry) -> None:
    resolution = _fresh(registry).resolve("bedrock", "anthropic.claude-sonnet-4-5-v1:0")
    text = resolution.explain()
    assert "limits (no claim: the converter's default for the wire):" in text
    assert "image_mimes             image/gif,image/jpeg,image/png,image/webp  engine claims" in (
        text
    )
    data = resolution.as_dict()
    assert data["limits"]["image_mimes"] == ["image/gif", "image/jpeg", "image/png", "image/webp"]
    assert data["limits"]["max_image_bytes"] == 3932160
    assert data["limit_trace"]["max_image_bytes"]["decided_by"].startswith("rule:")


def test_options_carry_the_limits_the_wire_reads_by_their_own_names(registry: Registry) -> None:
    snapshot = registry.engine_snapshot("anthropic", models=())
    flags = dict.fromkeys(
        (
            "tool_result_images",
            "tool_result_pdf",
            "source_blocks",
            "image_input",
            "pdf_input",
            "tool_result_url_sources",
            "hoist_media",
        ),
        False,
    )
    limits = {"max_images": 100, "image_mimes": ("image/png",), "max_pdf_pages": 100}
    options = _options("anthropic", flags, snapshot, limits)
    reads = wire_options("anthropic")
    assert {k: v for k, v in options.items() if k in LIMITS} == {
        k: v for k, v in limits.items() if k in reads
    }


WEBP = "image/webp"


@pytest.mark.parametrize(
    ("engine", "model", "option", "value"),
    [
        ("anthropic", "claude-sonnet-4-5", "max_image_bytes", 7864320),
        ("anthropic", "claude-sonnet-4-5", "max_images", 100),
        ("anthropic", "claude-sonnet-4-5", "many_images", 20),
        ("anthropic", "claude-sonnet-4-5", "many_images_max_side", 2000),
        ("anthropic", "claude-sonnet-4-5", "max_pdf_request_bytes", 25165824),
        ("bedrock", "anthropic.claude-sonnet-4-5-v1:0", "max_pdf_bytes", 4718592),
        (
            "bedrock",
            "anthropic.claude-sonnet-4-5-v1:0",
            "image_mimes",
            ("image/gif", "image/jpeg", "image/png", "image/webp"),
        ),
        ("gemini", "gemini-3-flash-preview", "image_mimes", ("image/jpeg", "image/png", WEBP)),
        ("gemini", "gemini-3-flash-preview", "max_pdf_pages", 1000),
    ],
)
def test_the_converter_gets_each_limit_it_reads(
    registry: Registry, engine: str, model: str, option: str, value: object
) -> None:
    resolution = _fresh(registry).resolve(engine, model)
    assert resolution.limits[option] == value
    if option not in wire_options(resolution.wire):
        pytest.skip(f"the installed converter does not read {option} on the {resolution.wire} wire")
    assert resolution.options[option] == value


def test_a_wire_that_reads_the_limits_gets_them_all_as_options(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Stands in for a converter that reads every limit on the anthropic wire, so the
    # mapping is tested whatever the installed converter reads.
    from toolwire.registry import resolver as module

    real = module.wire_options
    monkeypatch.setattr(module, "wire_options", lambda wire: real(wire) | frozenset(LIMITS))
    resolution = _fresh(registry).resolve("anthropic", "claude-sonnet-4-5")
    assert {k: v for k, v in resolution.options.items() if k in LIMITS} == {
        "max_image_bytes": 7864320,
        "max_image_side": 8000,
        "max_images": 100,
        "many_images": 20,
        "many_images_max_side": 2000,
        "max_pdf_pages": 100,
        "max_pdf_request_bytes": 25165824,
    }
    assert resolution.options["image_input"] is True  # the flags are as before
    assert "converter options: image_input=true" in resolution.explain()
    assert "max_images=100" in resolution.explain()
