"""The shipped seed: every engine and fact of the engine table, idempotent, operator-safe."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from toolwire.registry import resolve
from toolwire.registry._seed import SEED_ACTOR, apply_seed, load_seed, seed
from toolwire.registry.errors import InvalidSeed
from toolwire.registry.store import Registry

# Every engine named in the engine table the seed is drawn from.
ENGINES = {
    "anthropic": ("anthropic", "first-party"),
    "aki-anthropic": ("anthropic", "shim"),
    "minimax-anthropic": ("anthropic", "shim"),
    "moonshot-anthropic": ("anthropic", "shim"),
    "lmstudio-anthropic": ("anthropic", "shim"),
    "openai": ("openai", "first-party"),
    "openai-responses": ("responses", "first-party"),
    "perplexity": ("responses", "first-party"),
    "gemini": ("gemini", "first-party"),
    "gemini-interactions": ("gemini-interactions", "first-party"),
    "ollama": ("ollama", "self-hosted"),
    "bedrock": ("bedrock", "first-party"),
    "nousresearch": ("openai", "first-party"),
    "aki-openai": ("hermes", "first-party"),
    **{
        name: ("openai", "first-party")
        for name in [
            "deepseek",
            "mistral",
            "xai",
            "groq",
            "cerebras",
            "hetzner",
            "scaleway",
            "tsystems",
            "minimax",
            "moonshot",
        ]
    },
    **{name: ("openai", "gateway") for name in ("openrouter", "huggingface", "replicate")},
    **{
        name: ("openai", "self-hosted")
        for name in ("vllm", "sglang", "llamacpp", "lmstudio-openai", "ollama-openai")
    },
}


def _claim(registry: Registry, engine: str, capability: str) -> tuple[bool, str]:
    snapshot = registry.engine_snapshot(engine)
    claim = snapshot.claims[capability]
    return claim.value, claim.status


def _decided(registry: Registry, engine: str, model_id: str, capability: str) -> bool | None:
    """Return the value the last matching rule (else the engine claim) gives."""
    snapshot = registry.engine_snapshot(engine)
    value = snapshot.claims[capability].value if capability in snapshot.claims else None
    for rule in snapshot.matching_rules(model_id):
        if capability in rule.claims:
            value = rule.claims[capability].value
    return value


def test_every_engine_is_seeded_with_its_wire_and_kind(shared_registry: Registry) -> None:
    seeded = {e.name: (e.default_wire, e.kind) for e in shared_registry.engines()}
    assert seeded == ENGINES


def test_every_seed_claim_carries_evidence_and_source(shared_registry: Registry) -> None:
    claims = shared_registry.claims(recorded_by=SEED_ACTOR)
    assert len(claims) > 60
    for claim in claims:
        assert claim.evidence.strip() and claim.source and claim.source.strip()


def test_anthropic_wire_endpoints(shared_registry: Registry) -> None:
    assert _claim(shared_registry, "anthropic", "source_blocks") == (True, "documented")
    assert _claim(shared_registry, "aki-anthropic", "tool_result_images") == (
        False,
        "live-verified",
    )
    assert _claim(shared_registry, "aki-anthropic", "source_blocks") == (False, "live-verified")
    assert shared_registry.engine_snapshot("aki-anthropic").claims[
        "source_blocks"
    ].verified_at == date(2026, 9, 30)
    assert _claim(shared_registry, "minimax-anthropic", "source_blocks") == (True, "live-verified")
    assert _claim(shared_registry, "minimax-anthropic", "tool_result_pdf") == (
        True,
        "live-verified",
    )
    assert _claim(shared_registry, "minimax-anthropic", "tool_result_images") == (
        True,
        "unverified",
    )
    assert _claim(shared_registry, "moonshot-anthropic", "tool_result_images") == (
        True,
        "documented",
    )
    assert _claim(shared_registry, "moonshot-anthropic", "source_blocks") == (False, "documented")
    assert _claim(shared_registry, "lmstudio-anthropic", "source_blocks") == (False, "inferred")
    assert _claim(shared_registry, "lmstudio-anthropic", "tool_result_images") == (True, "inferred")


def test_responses_wire_endpoints(shared_registry: Registry) -> None:
    assert _claim(shared_registry, "openai-responses", "tool_result_pdf") == (True, "documented")
    assert _claim(shared_registry, "perplexity", "tool_result_images") == (True, "documented")
    assert _claim(shared_registry, "perplexity", "tool_result_pdf") == (False, "documented")


@pytest.mark.parametrize(
    ("engine", "model_id", "capability", "expected"),
    [
        ("anthropic", "claude-3-5-sonnet-20241022", "image_input", True),
        ("anthropic", "claude-sonnet-4-5", "image_input", True),
        ("anthropic", "claude-2.1", "image_input", False),
        ("anthropic", "claude-instant-1.2", "image_input", False),
        ("openai", "gpt-4o", "image_input", True),
        ("openai", "gpt-4", "image_input", False),
        ("openai", "gpt-4-turbo", "image_input", True),
        ("openai", "gpt-4-0125-preview", "image_input", False),
        ("openai", "gpt-3.5-turbo", "image_input", False),
        ("openai", "gpt-4o-realtime-preview", "image_input", False),
        ("openai", "gpt-4o-mini-transcribe", "image_input", False),
        ("openai-responses", "gpt-oss-120b", "image_input", False),
        ("openai-responses", "gpt-5", "image_input", True),
        ("gemini", "gemini-2.5-flash", "image_input", True),
        ("gemini", "gemini-2.5-flash-preview-tts", "image_input", False),
        ("gemini", "gemma-3-1b-it", "image_input", False),
        ("gemini", "gemma-3-27b-it", "image_input", True),
        ("gemini", "gemini-3-flash-preview", "tool_result_images", True),
        ("gemini", "gemini-3.1-pro-preview", "tool_result_pdf", True),
        ("gemini", "gemini-2.5-flash", "tool_result_images", False),
        ("gemini", "gemini-30-future", "tool_result_pdf", False),
        ("gemini-interactions", "gemini-3-flash-preview", "tool_result_images", True),
        # the gemini-3 rule it shares with gemini claims PDFs; the wire, with no PDF
        # form, clears them (test_interactions_resolves_no_pdf below)
        ("gemini-interactions", "gemini-3.1-pro-preview", "tool_result_pdf", True),
        ("gemini-interactions", "gemini-2.5-flash", "tool_result_images", False),
        ("gemini-interactions", "gemma-3-1b-it", "image_input", False),  # gemini's rules
        ("minimax-anthropic", "MiniMax-M3", "image_input", True),
        ("minimax", "MiniMax-M3", "image_input", True),
        ("minimax", "MiniMax-M30", "image_input", False),
        ("minimax", "MiniMax-M2.7", "image_input", False),
        ("moonshot-anthropic", "kimi-k2.6", "image_input", True),
        ("moonshot", "kimi-k2.7-code", "image_input", True),
        ("moonshot", "kimi-k2.5", "image_input", False),
        ("mistral", "pixtral-large-latest", "image_input", True),
        ("mistral", "mistral-small-latest", "image_input", True),
        ("mistral", "codestral-latest", "image_input", False),
        ("xai", "grok-4", "image_input", True),
        ("xai", "grok-4.1-fast", "image_input", True),
        ("xai", "grok-40", "image_input", False),
        ("xai", "grok-3-mini", "image_input", False),
        ("perplexity", "anthropic/claude-sonnet-4-5", "image_input", True),
        ("perplexity", "openai/gpt-oss-120b", "image_input", False),
        ("perplexity", "sonar-pro", "image_input", False),
        ("openrouter", "anything/at-all", "image_input", False),
    ],
)
def test_image_and_media_rules(
    shared_registry: Registry, engine: str, model_id: str, capability: str, expected: bool
) -> None:
    assert _decided(shared_registry, engine, model_id, capability) is expected


def test_interactions_resolves_no_pdf(shared_registry: Registry) -> None:
    resolution = resolve("gemini-interactions", "gemini-3.1-pro-preview", registry=shared_registry)
    assert resolution.capabilities["tool_result_pdf"] is False
    assert resolution.capabilities["tool_result_images"] is True
    assert dict(resolution.options) == {"image_input": True}


@pytest.mark.parametrize(
    ("model_id", "wire"),
    [
        ("NousResearch/Hermes-4-405B", "hermes"),
        ("DeepHermes-3-Llama-3-8B-Preview", "hermes"),
        ("nous-hermes-2-mixtral", "hermes"),
        ("NousResearch/Nous-Hermes-2-Mixtral-8x7B-DPO", "hermes"),
        ("moonshotai/kimi-k2", "openai"),
    ],
)
def test_nousresearch_wire_per_model(shared_registry: Registry, model_id: str, wire: str) -> None:
    snapshot = shared_registry.engine_snapshot("nousresearch")
    chosen = snapshot.engine.default_wire
    for rule in snapshot.matching_rules(model_id):
        chosen = rule.wire or chosen
    assert chosen == wire


def test_reseed_is_a_no_op(registry: Registry) -> None:
    revision = registry.revision()
    events = len(registry.claim_history("anthropic"))
    report = seed(registry)
    assert (report.added, report.updated) == (0, 0)
    assert report.kept > 100
    assert registry.revision() == revision
    assert len(registry.claim_history("anthropic")) == events


def test_reseed_never_overwrites_an_operator_claim(registry: Registry) -> None:
    registry.set_claim(
        "aki-anthropic",
        "tool_result_images",
        True,
        status="live-verified",
        evidence="new probe saw the image",
        recorded_by="ana",
        reason="re-tested",
    )
    report = seed(registry)
    assert report.operator_owned == 1
    claim = registry.engine_snapshot("aki-anthropic").claims["tool_result_images"]
    assert (claim.value, claim.recorded_by) == (True, "ana")


def test_changed_seed_value_updates_seed_owned_claims(registry: Registry, tmp_path: Path) -> None:
    changed = tmp_path / "changed.toml"
    changed.write_text(
        """
[[capability]]
name = "brand_new"
description = "a capability this seed introduces"

[[engine]]
name = "perplexity"
provider = "ignored once the engine exists"
family = "responses"
default_wire = "responses"
kind = "first-party"

[[engine.claim]]
capability = "tool_result_pdf"
value = true
status = "documented"
evidence = "input_file now documented in function call outputs"
source = "Perplexity docs, later release"

[[engine.claim]]
capability = "brand_new"
value = true
status = "inferred"
evidence = "new capability"
source = "test"
""",
        encoding="utf-8",
    )
    with registry.batch() as writer:
        report = apply_seed(writer, load_seed([changed]))
    # added: the capability and its claim; updated: tool_result_pdf; kept: the engine
    assert (report.added, report.updated, report.kept) == (2, 1, 1)
    assert registry.engine("perplexity").provider == "Perplexity Agent API /v1/agent"
    history = registry.claim_history("perplexity", capability="tool_result_pdf")
    assert [(e.old_value, e.new_value, e.actor, e.reason) for e in history][-1] == (
        False,
        True,
        SEED_ACTOR,
        "seed",
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[engine]]\nname = 1\n", "name is required"),
        (
            "[[engine]]\nname='x'\nprovider='p'\nfamily='f'\ndefault_wire='openai'\nkind='shim'\n"
            "colour='red'\n",
            "unknown key",
        ),
        (
            "[[engine]]\nname='x'\nprovider='p'\nfamily='f'\ndefault_wire='openai'\nkind='shim'\n"
            "[[engine.rule]]\nexact='a'\nregex='b'\n",
            "exactly one",
        ),
        (
            "[[engine]]\nname='x'\nprovider='p'\nfamily='f'\ndefault_wire='openai'\nkind='shim'\n"
            "rules_from='nobody'\n",
            "rules_from",
        ),
        (
            "[[engine]]\nname='x'\nprovider='p'\nfamily='f'\ndefault_wire='openai'\nkind='shim'\n"
            "[[engine.claim]]\ncapability='c'\nvalue=true\nstatus='documented'\nevidence='e'\n",
            "missing source",
        ),
        (
            "[[engine]]\nname='x'\nprovider='p'\nfamily='f'\ndefault_wire='openai'\nkind='shim'\n"
            "[[engine.model]]\nnote='no id'\n",
            "model: id is required",
        ),
        ("[[engine]\n", "changed.toml"),
    ],
)
def test_bad_seed_files_are_rejected(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "changed.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InvalidSeed, match=message):
        load_seed([path])


def test_seed_with_unknown_wire_changes_nothing(registry: Registry, tmp_path: Path) -> None:
    from toolwire.registry.errors import InvalidWire

    path = tmp_path / "bad.toml"
    path.write_text(
        "[[engine]]\nname='new-one'\nprovider='p'\nfamily='f'\ndefault_wire='grpc'\nkind='shim'\n",
        encoding="utf-8",
    )
    revision = registry.revision()
    with pytest.raises(InvalidWire), registry.batch() as writer:
        apply_seed(writer, load_seed([path]))
    assert registry.revision() == revision
    assert "new-one" not in {e.name for e in registry.engines()}


_NEW_ENGINES = """
[[engine]]
name = "new-a"
provider = "p"
family = "openai"
default_wire = "openai"
kind = "shim"

[[engine.rule]]
exact = "a-1"
wire = "hermes"

[[engine.rule]]
regex = "a-.*"

[[engine.rule.claim]]
capability = "image_input"
value = true
status = "documented"
evidence = "rule claim"
source = "test"

[[engine.rule]]
exact = "a-1"

[[engine.model]]
id = "a-1"
note = "first"

[[engine]]
name = "new-b"
provider = "p"
family = "openai"
default_wire = "openai"
kind = "shim"
rules_from = "new-a"

[[engine.rule]]
exact = "b-1"

[[engine]]
name = "perplexity"
provider = "p"
family = "responses"
default_wire = "responses"
kind = "first-party"

[[engine.rule]]
exact = "sonar-new"
"""


def test_seed_adds_in_bulk_with_the_events_and_positions_of_single_adds(
    registry: Registry, tmp_path: Path
) -> None:
    path = tmp_path / "new.toml"
    path.write_text(_NEW_ENGINES, encoding="utf-8")
    before = len(registry.log(by=SEED_ACTOR))
    end = max((r.position for r in registry.engine_snapshot("perplexity").rules), default=0)
    with registry.batch() as writer:
        report = apply_seed(writer, load_seed([path]))
    # added: 2 engines, 2 + 3 + 1 rules, 1 model, 2 rule claims; kept: perplexity and
    # the rule listed twice on each of new-a and new-b
    assert (report.added, report.kept) == (11, 3)
    a = registry.engine_snapshot("new-a")
    b = registry.engine_snapshot("new-b")
    assert [(r.position, r.match, r.pattern, r.wire) for r in a.rules] == [
        (1, "exact", "a-1", "hermes"),
        (2, "regex", "a-.*", None),
    ]
    assert [(r.position, r.pattern) for r in b.rules] == [(1, "a-1"), (2, "a-.*"), (3, "b-1")]
    assert [(r.position, r.pattern) for r in registry.engine_snapshot("perplexity").rules][-1] == (
        end + 1,
        "sonar-new",
    )
    assert a.rules[1].claims["image_input"].value is True
    assert b.rules[1].claims["image_input"].value is True
    assert a.models["a-1"].note == "first"
    entries = registry.log(by=SEED_ACTOR)[: len(registry.log(by=SEED_ACTOR)) - before]
    added = sorted((e.engine, e.subject) for e in entries if e.what.endswith(" add"))
    assert added == sorted(
        [
            ("new-a", "engine new-a"),
            *(("new-a", f"rule:{r.id}") for r in a.rules),
            ("new-a", "model a-1"),
            ("new-b", "engine new-b"),
            *(("new-b", f"rule:{r.id}") for r in b.rules),
            ("perplexity", f"rule:{registry.engine_snapshot('perplexity').rules[-1].id}"),
        ]
    )
    revision = registry.revision()
    with registry.batch() as writer:
        again = apply_seed(writer, load_seed([path]))
    assert (again.added, again.updated) == (0, 0)
    assert registry.revision() == revision
