"""Every wire x scenario x behaviour: the probe classifies what each fake model does.

Every probe here records claims, so each case also checks the claims it wrote.
"""

from __future__ import annotations

import pytest
from providers import BEHAVIOURS, DOCUMENT_SCENARIOS, KEY, ProviderServer
from toolwire.registry.probe import default_scenarios, probe
from toolwire.registry.store import Registry

#: The seeded engine whose default wire is each wire.
ENGINES = {
    "anthropic": "anthropic",
    "openai": "openai",
    "responses": "openai-responses",
    "gemini": "gemini",
    "ollama": "ollama",
    "hermes": "aki-openai",
    "bedrock": "bedrock",
}
#: Codes that together use every character of the alphabet.
CHALLENGES = {
    "anthropic": "ACEFHJ",
    "openai": "KMNPRT",
    "responses": "WXY47A",
    "gemini": "KMNPRT",
    "ollama": "WXY47A",
    "hermes": "ACEFHJ",
    "bedrock": "KMNPRT",
}
#: Short for the model that never answers in time, ample for OCR everywhere else.
SHORT, AMPLE = 0.1, 20.0


def expected(wire: str, scenario: str, behaviour: str) -> tuple[str, int | None]:
    """Return the outcome and HTTP status a probe must report."""
    if behaviour == "wrong-key":
        return "error", 401
    if behaviour == "crasher":
        return "error", 500
    if behaviour == "sleeper":
        return "error", None
    if behaviour == "mute":
        return "error", 200
    if behaviour == "ignorer":
        return "ignored", 200
    if behaviour == "rejecter" and scenario in DOCUMENT_SCENARIOS.get(wire, ()):
        return "rejected", 400
    return "read", 200


def test_default_scenarios_follow_the_wire() -> None:
    assert default_scenarios("anthropic") == (
        "image_input",
        "tool_result_images",
        "tool_result_pdf",
        "source_blocks",
    )
    assert default_scenarios("responses") == (
        "image_input",
        "tool_result_images",
        "tool_result_pdf",
    )
    for wire in ("gemini", "bedrock"):
        assert default_scenarios(wire) == ("image_input", "tool_result_images", "tool_result_pdf")
    for wire in ("openai", "ollama", "hermes"):
        assert default_scenarios(wire) == ("image_input",)


@pytest.mark.usefixtures("ocr", "server_checks")
@pytest.mark.parametrize("behaviour", [*BEHAVIOURS, "wrong-key"])
@pytest.mark.parametrize("wire", list(ENGINES))
def test_probe_classifies(
    sqlite_registry: Registry, servers: dict[str, ProviderServer], wire: str, behaviour: str
) -> None:
    server = servers[wire]
    before = len(server.requests)
    model = f"probe-{'reader' if behaviour == 'wrong-key' else behaviour}"
    report = probe(
        sqlite_registry,
        ENGINES[wire],
        model,
        recorded_by="ops",
        base_url=server.base_url,
        api_key="wrong-key-0000" if behaviour == "wrong-key" else KEY,
        challenge=CHALLENGES[wire],
        timeout=SHORT if behaviour == "sleeper" else AMPLE,
        record_claims=True,
    )
    assert report.wire == wire
    assert report.challenge == CHALLENGES[wire]
    scenarios = default_scenarios(wire)
    assert [r.scenario for r in report.results] == list(scenarios)
    assert len(server.requests) - before == len(scenarios)  # one request per scenario
    for result in report.results:
        outcome, status = expected(wire, result.scenario, behaviour)
        assert (result.scenario, result.outcome, result.http_status) == (
            result.scenario,
            outcome,
            status,
        ), result.excerpt
        if outcome == "read":
            assert CHALLENGES[wire] in result.excerpt.replace(" ", "")
        if behaviour == "mute":
            assert result.excerpt == "(no text)"
        assert result.observation.outcome == outcome
        assert result.observation.scenario == result.scenario
        assert result.observation.challenge == CHALLENGES[wire]
        if outcome == "error":  # says nothing about the capability: no claim
            assert result.claim is None
        else:
            assert result.claim is not None
            assert (result.claim.capability, result.claim.value) == (
                result.scenario,
                outcome == "read",
            )
            assert (result.claim.model, result.claim.status, result.claim.source) == (
                model,
                "live-verified",
                "probe",
            )
            assert f"probe observation #{result.observation.id}: {outcome}" in (
                result.claim.evidence
            )
        assert KEY not in result.excerpt and "wrong-key-0000" not in result.excerpt
    written = {c.capability for c in sqlite_registry.claims(engine=ENGINES[wire], model=model)}
    assert written == {r.scenario for r in report.results if r.claim is not None}
    assert report.reached_model is (behaviour not in ("crasher", "sleeper", "mute", "wrong-key"))
