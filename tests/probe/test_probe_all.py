"""``toolwire probe ENGINE --all-models``: concurrency, retries, the request cap, --stale.

Each test starts its own loopback OpenAI server (one request per model: the openai wire
has only the image_input scenario), which fails the test when more requests than
``--jobs`` are open at once.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, time, timedelta

import pytest
from cli_helpers import failed, ok, ops_runner
from cli_helpers import run as run_cli
from click.testing import Result
from observe_helpers import observe
from providers import KEY, ProviderServer
from toolwire.registry import Registry, evidence
from toolwire.registry.observations import list_observations
from toolwire.registry.probe import retry_after, stale_models

MODELS = [f"m{n}-ignorer" for n in range(8)]


@pytest.fixture
def server() -> Iterator[ProviderServer]:
    started = ProviderServer("openai", max_in_flight=3, delay=0.15).start()
    yield started
    started.stop()


@pytest.fixture
def loop(sqlite_url: str, server: ProviderServer) -> str:
    """A registry with an engine 'loop' on the server and eight recorded models."""
    with Registry(sqlite_url) as registry:
        registry.add_engine(
            "loop",
            provider="loopback",
            family="openai",
            default_wire="openai",
            kind="self-hosted",
            base_url=server.base_url,
            created_by="ops",
        )
        for model in MODELS:
            registry.add_model("loop", model, created_by="ops")
    return sqlite_url


def run(url: str, *args: str) -> Result:
    return run_cli(ops_runner(OPENAI_API_KEY=KEY), url, "probe", "loop", *args)


def test_no_more_than_jobs_requests_in_flight(loop: str, server: ProviderServer) -> None:
    result = run(loop, "--all-models", "--jobs", "3", "--challenge", "ACEFHJ")
    assert result.exit_code == 0, result.output
    assert server.failures == []
    assert 1 < server.peak <= 3  # concurrent, and never more than --jobs
    lines = result.stdout.splitlines()
    assert lines[0] == f"loop: 8 models, 8 requests at {server.base_url}, challenge ACEFHJ"
    assert lines[1].split() == ["MODEL", "IMAGE_INPUT"]
    assert sorted(line.split()[0] for line in lines[2:]) == MODELS
    assert all(line.split()[1] == "ignored" for line in lines[2:])
    # one progress line per finished request (stderr is no terminal here)
    progress = result.stderr.splitlines()
    assert len(progress) == 8 and progress[-1].startswith("[8/8] ")
    assert all(": ignored (200)" in line for line in progress)
    with Registry(loop) as registry:
        assert len(list_observations(registry, "loop")) == 8


def test_quiet_json_and_record(loop: str, server: ProviderServer) -> None:
    result = run(loop, "--all-models", "--quiet", "--format", "json", "--record")
    assert result.exit_code == 0 and result.stderr == ""
    data = json.loads(result.stdout)
    assert data["requests"] == 8 and data["not_sent"] == []
    assert {r["model"] for r in data["results"]} == set(MODELS)
    assert all(r["claim"]["value"] is False for r in data["results"])


def test_429_and_503_are_retried_after_retry_after(loop: str, server: ProviderServer) -> None:
    with Registry(loop) as registry:
        registry.add_model("loop", "acme-throttled-ignorer", created_by="ops")
        registry.add_model("loop", "acme-swamped", created_by="ops")
    result = run(loop, "--all-models", "--quiet", "--format", "json")
    failed(result, "1 of 10 requests ended in error", code=1)
    data = json.loads(result.stdout)
    outcome = {r["model"]: (r["outcome"], r["http_status"]) for r in data["results"]}
    assert outcome["acme-throttled-ignorer"] == ("ignored", 200)  # after two 429s
    assert outcome["acme-swamped"] == ("error", 503)  # after three retries
    assert server.throttled["acme-throttled-ignorer"] == 3
    assert data["requests"] == 8 + 3 + 4
    swamped = [b for b in server.requests if b.get("model") == "acme-swamped"]
    assert len(swamped) == 4  # one request and at most three retries


def test_max_requests_caps_the_whole_run(loop: str, server: ProviderServer) -> None:
    before = len(server.requests)
    result = run(loop, "--all-models", "--quiet", "--max-requests", "5")
    failed(result, "3 requests not sent: --max-requests 5 reached", code=1)
    assert len(server.requests) - before == 5
    assert result.stdout.count("not sent") == 3
    with Registry(loop) as registry:
        assert len(list_observations(registry, "loop")) == 5


def _observed(registry: Registry, model: str, when: datetime) -> None:
    observe(
        registry,
        engine="loop",
        model=model,
        wire="openai",
        outcome="read",
        endpoint="http://loop",
        latency_ms=1,
        excerpt="ACEFHJ",
        observed_at=when,
    )
    registry.set_claim(
        "loop",
        "image_input",
        True,
        model=model,
        status="live-verified",
        evidence="probe",
        verified_at=when.date(),
        recorded_by="ops",
    )


def test_stale_probes_only_what_is_on_and_unobserved_or_past_policy(
    loop: str, server: ProviderServer
) -> None:
    with Registry(loop) as registry:
        assert stale_models(registry, "loop") == []  # nothing resolves on
        registry.set_claim(
            "loop", "image_input", True, status="inferred", evidence="test", recorded_by="ops"
        )
        assert stale_models(registry, "loop") == sorted(MODELS)  # on, never observed
        now = datetime.combine(evidence.today(), time(12), UTC)  # the tests' frozen day
        _observed(registry, MODELS[1], now - timedelta(days=200))  # past the 90 days
        _observed(registry, MODELS[2], now)  # observed and fresh
        wanted = [m for m in sorted(MODELS) if m != MODELS[2]]
        assert stale_models(registry, "loop") == wanted
    before = len(server.requests)
    result = run(loop, "--all-models", "--stale", "--quiet", "--record")
    assert result.exit_code == 0, result.output
    assert len(server.requests) - before == 7
    with Registry(loop) as registry:  # every model now has a fresh false claim: off
        assert stale_models(registry, "loop") == []
    assert ok(run(loop, "--all-models", "--stale", "--quiet")).startswith("loop: 0 models")


def test_usage_errors(loop: str) -> None:
    assert run(loop).exit_code == 2  # neither MODEL nor --all-models
    assert run(loop, "m0-ignorer", "--all-models").exit_code == 2
    assert run(loop, "m0-ignorer", "--stale").exit_code == 2
    assert run(loop, "m0-ignorer", "--max-requests", "101").exit_code == 2
    bad = run_cli(ops_runner(OPENAI_API_KEY=KEY), loop, "probe", "lop", "--all-models")
    failed(bad, "unknown engine 'lop'", code=1)


def test_retry_after_reads_seconds_and_dates() -> None:
    assert retry_after("2", 1) == 2.0
    assert retry_after(None, 1) == 1.0 and retry_after(None, 3) == 4.0
    assert retry_after("999", 1) == 60.0
    soon = (datetime.now(UTC) + timedelta(seconds=30)).strftime("%a, %d %b %Y %H:%M:%S GMT")
    assert 25 <= retry_after(soon, 1) <= 30
    assert retry_after("soon", 2) == 2.0
