"""The ADR 0039 resolver: precedence, wire facts, evidence policy, trace, errors and cache."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import time
import weakref
from collections.abc import Callable
from typing import Any

import pytest
from claim_helpers import set_claim as _set
from options_helpers import flags, limits
from toolwire.registry import (
    InvalidModelId,
    InvalidStatus,
    InvalidWire,
    Registry,
    Resolution,
    Resolver,
    UnknownEngine,
    format_for,
    resolve,
)


def _resolve(registry: Registry, engine: str, model: str, **options: Any) -> Resolution:
    """Resolve without any cache, so writes made just before are always seen."""
    return Resolver(registry, max_age=0).resolve(engine, model, **options)


# -- decisions and the trace -----------------------------------------------------------


def test_minimax_m27_gets_the_pdf_but_not_the_image(registry: Registry) -> None:
    found = _resolve(registry, "minimax-anthropic", "MiniMax-M2.7")
    assert (found.wire, found.wire_from) == ("anthropic", "engine")
    assert dict(found.options) == {"image_input": False, "native_pdf": True, "source_blocks": True}
    images = found.trace["tool_result_images"]
    assert (images.value, images.claimed, images.decided_by, images.status) == (
        False,
        True,
        "engine",
        "unverified",
    )
    assert images.cleared_by is not None and "needs image_input" in images.cleared_by
    assert "native_needs_vision" in images.cleared_by
    pdf = found.trace["tool_result_pdf"]
    assert (pdf.value, pdf.status, pdf.cleared_by) == (True, "live-verified", None)
    image_input = found.trace["image_input"]
    assert (image_input.value, image_input.decided_by) == (False, "engine")


def test_minimax_m3_reads_images_by_its_rule(registry: Registry) -> None:
    found = _resolve(registry, "minimax-anthropic", "MiniMax-M3")
    assert found.capabilities["image_input"] and found.capabilities["tool_result_images"]
    assert found.trace["image_input"].decided_by.startswith("rule:")
    assert found.options["image_input"] is True


def test_aki_keeps_images_off_when_a_model_gains_image_input(registry: Registry) -> None:
    _set(registry, "aki-anthropic", "image_input", True, model="qwen3.6-35b", status="inferred")
    found = _resolve(registry, "aki-anthropic", "qwen3.6-35b")
    assert found.trace["image_input"].value is True
    assert found.trace["image_input"].decided_by == "model"
    images = found.trace["tool_result_images"]
    assert (images.value, images.claimed, images.status) == (False, False, "live-verified")
    assert images.cleared_by is None  # off by its own live-negative claim, not by a wire fact
    assert dict(found.options) == {
        "image_input": False,
        "native_pdf": False,
        "source_blocks": False,
    }


@pytest.mark.parametrize(
    ("model", "reads_images"),
    [
        ("gemini-2.5-flash", True),
        ("gemini-3-flash-preview", True),
        ("gemma-3-27b-it", True),
        ("gemini-2.5-flash-preview-tts", False),
        ("gemini-embedding-001", False),
        ("text-embedding-004", False),
        ("gemini-2.5-flash-native-audio-preview", False),
        ("gemini-live-2.5-flash-preview", False),
        ("imagen-4.0-generate-001", False),
        ("gemini-1.0-pro-002", False),
        ("gemma-3-1b-it", False),
    ],
)
def test_gemini_image_input_by_rules(registry: Registry, model: str, reads_images: bool) -> None:
    assert _resolve(registry, "gemini", model).capabilities["image_input"] is reads_images


def test_gemini_tts_on_gemini_3_loses_the_native_form(registry: Registry) -> None:
    found = _resolve(registry, "gemini", "gemini-3-pro-preview-tts")
    assert found.trace["tool_result_images"].claimed is True
    assert found.capabilities == {
        "image_input": False,
        "tool_result_images": False,
        "tool_result_pdf": False,
        "source_blocks": False,
        "pdf_input": False,
        "tool_result_url_sources": False,
        "hoist_media": False,
    }


@pytest.mark.parametrize(
    ("model", "wire"),
    [
        ("Hermes-4-405B", "hermes"),
        ("NousResearch/Hermes-3-Llama-3.1-70B", "hermes"),
        ("DeepHermes-3-Mistral-24B-Preview", "hermes"),
        ("HERMES-4-70B", "hermes"),
        ("Nous-Hermes-2-Mixtral-8x7B-DPO", "hermes"),
        ("Meta-Llama-3.1-405B-Instruct", "openai"),
        ("kimi-k2-hermes", "openai"),
    ],
)
def test_nousresearch_picks_the_wire_per_model(registry: Registry, model: str, wire: str) -> None:
    found = _resolve(registry, "nousresearch", model)
    assert found.wire == wire
    if wire == "hermes":
        assert found.wire_from.startswith("rule:")
    else:
        assert found.wire_from == "engine"
    # no response_tag set; the hermes wire on this OpenAI-compatible endpoint sends call ids
    assert dict(found.options) == ({"call_ids": True} if wire == "hermes" else {})


def test_hermes_engine_with_its_own_tag(registry: Registry) -> None:
    registry.add_engine(
        "hermes-lab",
        provider="a lab server",
        family="openai",
        default_wire="hermes",
        kind="self-hosted",
        response_tag="function_result",
        created_by="tests",
    )
    found = _resolve(registry, "hermes-lab", "Hermes-4-14B")
    assert dict(found.options) == {"response_tag": "function_result", "call_ids": True}
    (message,) = found.format([_text_result()])
    assert message["content"].startswith("<function_result>\n")
    assert message["content"].endswith("\n</function_result>")
    assert message["tool_call_id"] == "call_1"


def test_hermes_call_ids_follow_the_engine_family(registry: Registry) -> None:
    registry.add_engine(
        "hermes-native",
        provider="a server with its own chat API",
        family="hermes",
        default_wire="hermes",
        kind="self-hosted",
        created_by="tests",
    )
    found = _resolve(registry, "hermes-native", "Hermes-4-14B")
    assert dict(found.options) == {}
    (message,) = found.format([_text_result()])
    assert set(message) == {"role", "content"}
    # forced onto hermes, an engine of another family sends no call ids either
    forced = _resolve(registry, "anthropic", "claude-sonnet-4-5", wire="hermes")
    assert forced.wire == "hermes" and "call_ids" not in forced.options
    # and an OpenAI-compatible engine sets the option only where the wire reads it
    assert "call_ids" not in _resolve(registry, "openai", "gpt-4o").options
    assert _resolve(registry, "vllm", "Hermes-4-14B", wire="hermes").options["call_ids"] is True


def _text_result() -> Any:
    from toolwire.convert import ToolResult

    return ToolResult(name="echo", id="call_1", content=[{"type": "text", "text": "hi"}])


def test_an_unrecorded_model_resolves_by_rules_and_defaults(registry: Registry) -> None:
    before = len(registry.models("openai"))
    fresh = _resolve(registry, "openai-responses", "gpt-7-2099-01-01")
    assert fresh.trace["image_input"].decided_by == "engine"
    assert fresh.capabilities["tool_result_images"] is True
    legacy = _resolve(registry, "openai-responses", "gpt-3.5-turbo-0125")
    assert legacy.trace["image_input"].decided_by.startswith("rule:")
    assert "gpt-3" in legacy.trace["image_input"].decided_by
    assert legacy.capabilities["tool_result_images"] is False
    assert len(registry.models("openai")) == before  # resolving records nothing


def test_a_model_claim_beats_every_rule(registry: Registry) -> None:
    _set(registry, "anthropic", "image_input", False, model="claude-sonnet-4-5")
    found = _resolve(registry, "anthropic", "claude-sonnet-4-5")
    assert found.trace["image_input"].decided_by == "model"
    assert found.capabilities["image_input"] is False
    assert found.capabilities["tool_result_images"] is False
    # a sibling without a model claim still follows the rule
    assert _resolve(registry, "anthropic", "claude-sonnet-4-6").capabilities["image_input"]


def test_a_model_wire_override_beats_the_rule_wire(registry: Registry) -> None:
    registry.add_model("nousresearch", "Hermes-4-405B", wire="openai", created_by="tests")
    found = _resolve(registry, "nousresearch", "Hermes-4-405B")
    assert (found.wire, found.wire_from) == ("openai", "model")
    forced = _resolve(registry, "nousresearch", "Hermes-4-405B", wire="hermes")
    assert (forced.wire, forced.wire_from) == ("hermes", "forced")


def test_the_later_rule_wins(registry: Registry) -> None:
    late = registry.add_rule("anthropic", "claude-sonnet-4.*", regex=True, created_by="tests")
    _set(registry, "anthropic", "image_input", False, rule=late.id)
    found = _resolve(registry, "anthropic", "claude-sonnet-4-5")
    assert found.capabilities["image_input"] is False
    assert found.trace["image_input"].decided_by == f"rule:{late.id} regex 'claude-sonnet-4.*'"
    # an earlier rule (inserted first) loses to the later one, even when exact
    early = registry.add_rule(
        "anthropic", "claude-sonnet-4-5", regex=False, position=1, created_by="tests"
    )
    _set(registry, "anthropic", "image_input", True, rule=early.id)
    again = _resolve(registry, "anthropic", "claude-sonnet-4-5")
    assert again.capabilities["image_input"] is False
    assert again.trace["image_input"].decided_by.endswith("regex 'claude-sonnet-4.*'")
    # seeded example: perplexity's openai/gpt-oss rule comes after openai/.*
    assert not _resolve(registry, "perplexity", "openai/gpt-oss-120b").capabilities["image_input"]


def test_a_forced_wire_clears_with_that_wires_facts(registry: Registry) -> None:
    chat = _resolve(registry, "anthropic", "claude-sonnet-4-5", wire="openai")
    assert (chat.wire, chat.wire_from, dict(chat.options)) == ("openai", "forced", {})
    for flag, kind in (("tool_result_images", "image"), ("tool_result_pdf", "pdf")):
        assert chat.trace[flag].claimed is True and chat.trace[flag].value is False
        assert chat.trace[flag].cleared_by == (
            f"the openai wire has no native {kind} form (carries_native is false)"
        )
    # claude-2.1: its PDF is fine on anthropic (no vision needed) but not on responses
    native = _resolve(registry, "anthropic", "claude-2.1")
    assert native.capabilities["tool_result_pdf"] is True
    responses = _resolve(registry, "anthropic", "claude-2.1", wire="responses")
    assert responses.capabilities["tool_result_pdf"] is False
    assert "needs image_input" in (responses.trace["tool_result_pdf"].cleared_by or "")
    assert flags(responses.options) == {"image_input": False, "native_pdf": False}
    assert limits(responses.options)["max_images"] == 100  # the engine's, on any wire


def test_source_blocks_gate_the_pdf_on_the_anthropic_wire(registry: Registry) -> None:
    found = _resolve(registry, "gemini", "gemini-3-flash-preview", wire="anthropic")
    pdf = found.trace["tool_result_pdf"]
    assert (pdf.claimed, pdf.value) == (True, False)
    assert pdf.cleared_by is not None and "source_blocks" in pdf.cleared_by
    assert found.capabilities["tool_result_images"] is True
    assert found.options["source_blocks"] is False


# -- evidence policy ---------------------------------------------------------------------


def test_min_evidence_treats_weaker_claims_as_absent(registry: Registry) -> None:
    found = _resolve(registry, "anthropic", "claude-sonnet-4-5", min_evidence="live-verified")
    assert found.min_evidence == "live-verified"
    for flag in ("image_input", "tool_result_images", "tool_result_pdf", "source_blocks"):
        entry = found.trace[flag]
        assert (entry.claim, entry.claimed, entry.value) == (None, None, False)
        assert entry.decided_by == "none" and entry.cleared_by is None
        ((where, claim),) = entry.ignored  # the one claim there is, set aside
        assert claim.status == "documented" and claim.value is True
        assert where.startswith("rule:" if flag == "image_input" else "engine")
    assert dict(found.options) == {
        "image_input": False,
        "native_pdf": False,
        "source_blocks": False,
    }
    assert "ignored: engine claims true [documented], weaker than live-verified" in (
        found.explain()
    )
    unverified = _resolve(registry, "minimax-anthropic", "MiniMax-M3", min_evidence="documented")
    images = unverified.trace["tool_result_images"]
    assert images.value is False and images.claim is None
    assert [c.status for _, c in images.ignored] == ["unverified"]
    assert unverified.capabilities["image_input"] is True  # documented passes "documented"


def test_min_evidence_falls_through_to_a_less_specific_claim(registry: Registry) -> None:
    """A weak model claim is absent under the policy: the engine's strong claim decides."""
    registry.set_claim(
        "openai-responses",
        "image_input",
        True,
        status="live-verified",
        evidence="probe",
        recorded_by="ops",
    )
    registry.set_claim(
        "openai-responses",
        "image_input",
        False,
        model="gpt-x",
        status="unverified",
        evidence="guess",
        recorded_by="ops",
    )
    plain = _resolve(registry, "openai-responses", "gpt-x")
    assert plain.capabilities["image_input"] is False  # the model claim decides
    strict = _resolve(registry, "openai-responses", "gpt-x", min_evidence="live-verified")
    entry = strict.trace["image_input"]
    assert (entry.value, entry.decided_by) == (True, "engine")
    assert [(where, c.status) for where, c in entry.ignored] == [("model", "unverified")]


def test_min_evidence_keeps_live_verified_claims(registry: Registry) -> None:
    """The MiniMax PDF stays on under live-verified.

    The policy applies to claims only. The anthropic PDF form's own recorded
    evidence is "documented"; the live-verified claim on this endpoint is the
    stronger evidence about that very form there, so it is not cleared.
    """
    found = _resolve(registry, "minimax-anthropic", "MiniMax-M2.7", min_evidence="live-verified")
    assert found.capabilities["tool_result_pdf"] is True
    assert found.capabilities["source_blocks"] is True
    assert found.trace["tool_result_pdf"].cleared_by is None
    assert dict(found.native_forms) == {"image": "documented", "pdf": "documented"}
    # false claims stay false and are not reported as cleared
    aki = _resolve(registry, "aki-anthropic", "gpt-oss-120b", min_evidence="live-verified")
    assert all(entry.cleared_by is None for entry in aki.trace.values())
    assert not any(aki.capabilities.values())


def test_min_evidence_must_be_a_status(registry: Registry) -> None:
    with pytest.raises(InvalidStatus) as caught:
        _resolve(registry, "anthropic", "claude-sonnet-4-5", min_evidence="verified")
    assert isinstance(caught.value, ValueError)
    assert "live-verified" in str(caught.value)


# -- explain and as_dict -----------------------------------------------------------------


def test_explain_names_the_claim_and_the_wire_fact(registry: Registry) -> None:
    text = _resolve(registry, "anthropic", "claude-2.1").explain()
    lines = text.splitlines()
    assert lines[0] == "anthropic / claude-2.1: wire anthropic (from engine)"
    (images,) = [n for n, line in enumerate(lines) if line.strip().startswith("tool_result_images")]
    assert " off " in lines[images] and "engine claims true [documented]" in lines[images]
    assert lines[images + 1].strip() == (
        "cleared: a native image on the anthropic wire needs image_input (native_needs_vision)"
    )
    assert any("rule:" in line and "claude-2.1" in line for line in lines)
    assert lines[-1].startswith(
        "converter options: image_input=false, native_pdf=true, source_blocks=true, "
    )
    assert "max_images=100" in lines[-1]  # the engine's limits, with the flags

    forced = _resolve(registry, "anthropic", "claude-sonnet-4-5", wire="openai").explain()
    assert "(from forced)" in forced and "carries_native is false" in forced
    assert forced.splitlines()[-1] == "converter options: (none)"

    policy = _resolve(registry, "gemini", "gemini-3-flash-preview", min_evidence="live-verified")
    explained = policy.explain()
    assert "claims weaker than live-verified count as absent" in explained
    assert "no claim meets the evidence policy (absent = off)" in explained
    assert "ignored: engine claims true [documented], weaker than live-verified" in explained


def test_as_dict_is_json_with_wire_options_capabilities_and_trace(registry: Registry) -> None:
    data = _resolve(registry, "perplexity", "openai/gpt-5").as_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["wire"] == "responses"
    assert data["options"] == {"image_input": True, "native_pdf": False}
    assert data["capabilities"] == {
        "image_input": True,
        "tool_result_images": True,
        "tool_result_pdf": False,
        "source_blocks": False,
        "pdf_input": False,
        "tool_result_url_sources": False,
        "hoist_media": False,
    }
    assert set(data["trace"]) == set(data["capabilities"])
    pdf = data["trace"]["tool_result_pdf"]
    assert pdf["value"] is False and pdf["status"] == "documented"
    assert "input_file" in pdf["evidence"]
    assert data["trace"]["source_blocks"]["decided_by"] == "none"
    assert data["trace"]["source_blocks"]["status"] is None


def test_resolution_is_read_only(registry: Registry) -> None:
    found = _resolve(registry, "openai", "gpt-4o")
    with pytest.raises(TypeError):
        found.options["image_input"] = True  # type: ignore[index]
    with pytest.raises(AttributeError):
        found.wire = "anthropic"  # type: ignore[misc]


# -- errors ------------------------------------------------------------------------------


def test_unknown_engine_is_a_lookup_error_with_a_hint(registry: Registry) -> None:
    with pytest.raises(UnknownEngine) as caught:
        resolve("antropic", "claude-sonnet-4-5", registry=registry)
    assert isinstance(caught.value, LookupError)
    assert str(caught.value).startswith("unknown engine 'antropic'; did you mean 'anthropic'")
    assert caught.value.suggestions[0] == "anthropic"
    with pytest.raises(LookupError, match="did you mean 'gemini'"):
        format_for("gemini-x", "gemini-3-flash-preview", [], registry=registry)


@pytest.mark.parametrize(
    "model", ["", " ", "   ", "gpt-4o\n", "gpt\x00-4o", "a b", "\t", "x\u200b"]
)
def test_malformed_model_ids_are_value_errors(registry: Registry, model: str) -> None:
    with pytest.raises(InvalidModelId):
        resolve("openai", model, registry=registry)
    with pytest.raises(ValueError, match="invalid model id"):
        format_for("openai", model, [], registry=registry)


@pytest.mark.parametrize("wire", ["chat", "Anthropic", "", "openai "])
def test_an_invalid_forced_wire_is_a_value_error(registry: Registry, wire: str) -> None:
    with pytest.raises(InvalidWire) as caught:
        resolve("openai", "gpt-4o", wire=wire, registry=registry)
    assert isinstance(caught.value, ValueError)
    assert "responses" in str(caught.value)


# -- cache -------------------------------------------------------------------------------


def _count(monkeypatch: pytest.MonkeyPatch, registry: Registry, method: str) -> Callable[[], int]:
    calls: list[object] = []
    original = getattr(registry, method)

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(registry, method, counting)
    return lambda: len(calls)


def test_resolutions_are_cached(registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    snapshots = _count(monkeypatch, registry, "engine_snapshot")
    revisions = _count(monkeypatch, registry, "revision")
    resolver = Resolver(registry, max_age=60)
    first = resolver.resolve("anthropic", "claude-sonnet-4-5")
    assert (snapshots(), revisions()) == (1, 1)
    assert resolver.resolve("anthropic", "claude-sonnet-4-5") is first
    assert (snapshots(), revisions()) == (1, 1)  # no query at all
    other = resolver.resolve("anthropic", "claude-2.1")
    assert snapshots() == 2  # each model reads the engine with only its own row
    assert other.capabilities["image_input"] is False
    forced = resolver.resolve("anthropic", "claude-sonnet-4-5", wire="openai")
    assert forced is not first and snapshots() == 2  # same model: its rows are cached
    resolver.clear()
    assert resolver.resolve("anthropic", "claude-sonnet-4-5") == first
    assert snapshots() == 3


def test_a_change_drops_the_cache(registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    snapshots = _count(monkeypatch, registry, "engine_snapshot")
    resolver = Resolver(registry, max_age=0)
    assert resolver.resolve("openai", "gpt-4o").capabilities["image_input"] is True
    assert resolver.resolve("openai", "gpt-4o").capabilities["image_input"] is True
    assert snapshots() == 1  # revision unchanged: the snapshot is kept
    _set(registry, "openai", "image_input", False, model="gpt-4o")
    changed = resolver.resolve("openai", "gpt-4o")
    assert changed.capabilities["image_input"] is False
    assert changed.trace["image_input"].decided_by == "model"
    assert snapshots() == 2


def test_a_registry_given_to_format_for_can_be_collected(seeded_database_url: str) -> None:
    opened = Registry(seeded_database_url)
    assert format_for("openai", "gpt-4o", [], registry=opened) == []
    alive = weakref.ref(opened)
    opened.close()
    del opened
    gc.collect()
    assert alive() is None


_CHILD = """
import sys, time
from toolwire.registry.cli import main
main(sys.argv[1:], prog_name="toolwire", standalone_mode=False)
print(time.time(), flush=True)
"""


def test_a_change_from_another_process_is_seen_by_the_next_call(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, model = "minimax-anthropic", "MiniMax-M2.7"
    resolver = Resolver(registry, max_age=3600)  # no poll: only the change watch can tell
    before = resolver.resolve(engine, model)
    assert before.capabilities["tool_result_images"] is False
    revisions = _count(monkeypatch, registry, "revision")
    assert resolver.resolve(engine, model) is before
    assert revisions() == 0, "a warm call without a change reads nothing"
    argv = [
        *("--database-url", registry.url, "claim", "set", engine, "image_input", "true"),
        *("--model", model, "--status", "documented", "--evidence", "vision in the docs"),
        *("--by", "ops"),
    ]
    child = subprocess.run(
        [sys.executable, "-c", _CHILD, *argv], capture_output=True, text=True, timeout=120
    )
    assert child.returncode == 0, child.stderr
    found = resolver.resolve(engine, model)  # at once: no sleep, no retry
    if registry.url.startswith("postgresql") and not found.capabilities["tool_result_images"]:
        # The server passes NOTIFY on to listeners right after the commit, not with it.
        deadline = time.monotonic() + 2
        while not found.capabilities["tool_result_images"] and time.monotonic() < deadline:
            time.sleep(0.001)
            found = resolver.resolve(engine, model)
    assert found.capabilities["tool_result_images"] is True
    assert found.trace["image_input"].decided_by == "model"
    assert found.options["image_input"] is True
    assert revisions() == 1
    assert resolver.resolve(engine, model) is found
    assert revisions() == 1


def test_a_change_in_this_process_is_seen_by_the_next_call(registry: Registry) -> None:
    resolver = Resolver(registry, max_age=3600)
    assert resolver.resolve("openai", "gpt-4o").capabilities["image_input"] is True
    with Registry(registry.url, setup=False) as other:  # another connection pool
        _set(other, "openai", "image_input", False, model="gpt-4o")
    assert resolver.resolve("openai", "gpt-4o").capabilities["image_input"] is False


def test_without_a_change_watch_the_revision_is_polled(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(registry, "watch_changes", lambda: None)
    revisions = _count(monkeypatch, registry, "revision")
    resolver = Resolver(registry, max_age=3600)
    resolver.resolve("openai", "gpt-4o")
    resolver.resolve("openai", "gpt-4o")
    assert revisions() == 1  # within max_age the cache is trusted
    _set(registry, "openai", "image_input", False, model="gpt-4o")
    assert resolver.resolve("openai", "gpt-4o").capabilities["image_input"] is True
    resolver.max_age = 0
    assert resolver.resolve("openai", "gpt-4o").capabilities["image_input"] is False
