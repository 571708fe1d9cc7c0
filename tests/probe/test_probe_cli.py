"""``toolwire probe``, ``observation list``, the observation audits and ``resolve --explain``.

Run in-process with CliRunner against the loopback provider servers, on SQLite and
PostgreSQL (on SQLite only where the database plays no part).
"""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime
from typing import Any

import pytest
from cli_helpers import failed, noted, ok, ops_runner
from cli_helpers import run as run_cli
from click.testing import CliRunner, Result
from convert_checks import payload_chunks
from providers import KEY, ProviderServer, text_of_database
from toolwire.registry import Registry
from toolwire.registry.cli import main
from toolwire.registry.observations import list_observations
from toolwire.registry.probe import render_pdf, render_png

CODE = "ACEFHJ"
WRONG_KEY = "sk-wrong-9d8c7b6a5f4e3d2c"
SCENARIOS = ["image_input", "tool_result_images", "tool_result_pdf", "source_blocks"]


def run(url: str, *args: str, key: str | None = KEY) -> Result:
    """Run ``toolwire --database-url URL ARGS`` with ``key`` as $ANTHROPIC_API_KEY."""
    return run_cli(ops_runner(ANTHROPIC_API_KEY=key), url, *args)


def probe(url: str, server: ProviderServer, model: str, *args: str, **kw: Any) -> Result:
    """Probe ``model`` on the loopback anthropic server, without progress lines."""
    return run(
        url,
        "probe",
        "anthropic",
        model,
        "--base-url",
        server.base_url,
        "--challenge",
        CODE,
        "--quiet",
        *args,
        **kw,
    )


def claims_of(url: str, model: str) -> dict[str, Any]:
    with Registry(url) as opened:
        return {c.capability: c for c in opened.claims(engine="anthropic", model=model)}


@pytest.fixture
def anthropic(servers: dict[str, ProviderServer]) -> ProviderServer:
    return servers["anthropic"]


def test_probe_prints_one_row_per_scenario(url: str, anthropic: ProviderServer) -> None:
    out = ok(probe(url, anthropic, "claude-sonnet-4-5-ignorer"))
    lines = out.splitlines()
    assert lines[0] == (
        f"anthropic / claude-sonnet-4-5-ignorer on the anthropic wire at "
        f"{anthropic.base_url}, challenge {CODE}"
    )
    assert lines[1].split() == [
        "SCENARIO",
        "OUTCOME",
        "STATUS",
        "LATENCY",
        "OBSERVATION",
        "EXCERPT",
    ]
    rows = [line.split()[:3] for line in lines[2:]]
    assert rows == [[s, "ignored", "200"] for s in SCENARIOS]
    assert all("I cannot see any code." in line for line in lines[2:])
    assert claims_of(url, "claude-sonnet-4-5-ignorer") == {}  # no --record, no claim


def test_probe_json(sqlite_url: str, anthropic: ProviderServer) -> None:
    url = sqlite_url  # the backend does not matter here
    result = probe(url, anthropic, "m-crasher", "--scenario", "image_input", "--format", "json")
    failed(result, code=1)
    data = json.loads(result.stdout)
    assert (data["engine"], data["wire"], data["challenge"]) == ("anthropic", "anthropic", CODE)
    [result] = data["results"]
    assert (result["scenario"], result["outcome"], result["http_status"]) == (
        "image_input",
        "error",
        500,
    )
    assert isinstance(result["observation_id"], int) and result["claim"] is None


def test_an_error_exits_1_and_records_no_claim(url: str, anthropic: ProviderServer) -> None:
    result = probe(url, anthropic, "claude-sonnet-4-5-crasher", "--record")
    line = failed(result, code=1)
    assert line == (
        "Error: 4 of 4 requests ended in error (that says nothing about the capability)"
    )
    assert [r.split()[1] for r in result.stdout.splitlines()[2:]] == ["error"] * 4
    assert claims_of(url, "claude-sonnet-4-5-crasher") == {}
    with Registry(url) as opened:
        found = list_observations(opened, "anthropic", model="claude-sonnet-4-5-crasher")
    assert [(o.outcome, o.http_status) for o in found] == [("error", 500)] * 4


@pytest.mark.usefixtures("ocr", "server_checks")
def test_record_writes_exactly_the_claims(url: str, anthropic: ProviderServer) -> None:
    model = "claude-sonnet-4-5-rejecter"
    with Registry(url) as opened:
        before = set(opened.claims())
        events_before = len(opened.claim_history("anthropic"))
    out = ok(probe(url, anthropic, model, "--record"))
    assert [line.split()[:3] for line in out.splitlines()[2:6]] == [
        ["image_input", "read", "200"],
        ["tool_result_images", "read", "200"],
        ["tool_result_pdf", "rejected", "400"],
        ["source_blocks", "rejected", "400"],
    ]
    assert out.splitlines()[6:] == [
        f"recorded: image_input=true on model {model} [live-verified]",
        f"recorded: tool_result_images=true on model {model} [live-verified]",
        f"recorded: tool_result_pdf=false on model {model} [live-verified]",
        f"recorded: source_blocks=false on model {model} [live-verified]",
    ]
    with Registry(url) as opened:
        added = set(opened.claims()) - before
        observations = {o.scenario: o for o in list_observations(opened, model=model)}
        history = opened.claim_history("anthropic", model=model)
        assert len(opened.claim_history("anthropic")) == events_before + 4
    assert {(c.subject_key, c.capability, c.value) for c in added} == {
        (f"model:{model}", "image_input", True),
        (f"model:{model}", "tool_result_images", True),
        (f"model:{model}", "tool_result_pdf", False),
        (f"model:{model}", "source_blocks", False),
    }
    for claim in added:
        seen = observations[claim.capability]
        day = seen.observed_at.date()
        assert claim.status == "live-verified" and claim.source == "probe"
        assert claim.verified_at == day and claim.recorded_by == "ops"
        assert claim.evidence == (
            f"probe observation #{seen.id}: {seen.outcome} on {day.isoformat()} "
            f"(anthropic wire, {anthropic.base_url})"
        )
    assert [(e.capability, e.new_status, e.old_value) for e in history] == [
        (s, "live-verified", None) for s in SCENARIOS
    ]


def test_conflicts_follow_the_latest_observation(url: str, anthropic: ProviderServer) -> None:
    model = "claude-sonnet-4-5-ignorer"
    ok(probe(url, anthropic, model))
    rows = json.loads(
        ok(run(url, "audit", "--conflicts", "--engine", "anthropic", "--format", "json"))
    )
    assert {(r["model"], r["capability"], r["value"], r["outcome"]) for r in rows} == {
        (model, s, True, "ignored") for s in SCENARIOS
    }
    decided = {r["capability"]: r["decided_by"] for r in rows}
    assert decided["tool_result_images"] == "engine"
    assert decided["image_input"].startswith("rule:1 ")
    ok(probe(url, anthropic, model, "--record"))  # the model's own claims now agree
    assert json.loads(ok(run(url, "audit", "--conflicts", "--format", "json"))) == []
    ok(
        run(
            url,
            *("claim", "set", "anthropic", "tool_result_images", "true", "--model", model),
            *("--status", "documented", "--evidence", "the docs say so"),
        )
    )
    rows = json.loads(ok(run(url, "audit", "--conflicts", "--format", "json")))
    assert [(r["capability"], r["decided_by"], r["status"]) for r in rows] == [
        ("tool_result_images", "model", "documented")
    ]
    table = ok(run(url, "audit", "--conflicts", "--capability", "tool_result_images", "--wide"))
    assert table.splitlines()[1].split()[:5] == [
        "anthropic",
        model,
        "tool_result_images",
        "true",
        "documented",
    ]


def test_unobserved_lists_native_media_on_without_observation(
    url: str, anthropic: ProviderServer
) -> None:
    model = "claude-opus-4-ignorer"
    ok(run(url, "model", "add", "anthropic", model))
    rows = json.loads(
        ok(run(url, "audit", "--unobserved", "--engine", "anthropic", "--format", "json"))
    )
    assert {r["capability"] for r in rows if r["model"] == model} == set(SCENARIOS)
    ok(probe(url, anthropic, model, "--scenario", "tool_result_images"))
    rows = json.loads(
        ok(run(url, "audit", "--unobserved", "--engine", "anthropic", "--format", "json"))
    )
    assert {r["capability"] for r in rows if r["model"] == model} == set(SCENARIOS) - {
        "tool_result_images"
    }
    failed(probe(url, anthropic, "claude-opus-4-crasher", "--scenario", "image_input"), code=1)
    rows = json.loads(
        ok(run(url, "audit", "--unobserved", "--capability", "image_input", "--format", "json"))
    )
    # probed, but an error is no observation behind the flag
    assert {r["model"] for r in rows} >= {model, "claude-opus-4-crasher"}


def test_stale_days_count_from_the_latest_observation(url: str, anthropic: ProviderServer) -> None:
    model = "claude-haiku-4-ignorer"
    noted(
        run(
            url,
            *("claim", "set", "anthropic", "image_input", "true", "--model", model),
            *("--status", "documented", "--evidence", "old check", "--verified-at", "2020-01-01"),
        )
    )

    def stale() -> set[str]:
        rows = json.loads(
            ok(run(url, "audit", "--stale-days", "30", "--engine", "anthropic", "--format", "json"))
        )
        return {r["capability"] for r in rows if r["subject_key"] == f"model:{model}"}

    assert stale() == {"image_input"}
    ok(probe(url, anthropic, model, "--scenario", "image_input"))
    assert stale() == set()  # observed today, though the claim says 2020
    # an error says nothing: it does not make a claim fresh
    crasher = model.replace("ignorer", "crasher")
    noted(
        run(
            url,
            *("claim", "set", "anthropic", "image_input", "true", "--model", crasher),
            *("--status", "documented", "--evidence", "old check", "--verified-at", "2020-01-01"),
        )
    )
    failed(probe(url, anthropic, crasher, "--scenario", "image_input"), code=1)
    rows = json.loads(ok(run(url, "audit", "--stale-days", "30", "--format", "json")))
    assert f"model:{crasher}" in {r["subject_key"] for r in rows}


def test_explain_names_the_latest_observation(url: str, anthropic: ProviderServer) -> None:
    model = "claude-sonnet-4-5-ignorer"
    ok(probe(url, anthropic, model, "--scenario", "tool_result_images"))
    with Registry(url) as opened:
        [seen] = list_observations(opened, model=model)
    out = ok(run(url, "resolve", "anthropic", model, "--explain"))
    day = seen.observed_at.date().isoformat()
    line = (
        f"#{seen.id} ignored on {day} (anthropic wire, {anthropic.base_url}); "
        "contradicts the true claim"
    )
    block = out.split("\nobservations:\n", 1)[1].splitlines()
    assert block[0].split(None, 1) == ["tool_result_images", line]
    assert out.count(f"#{seen.id} ignored") == 1
    data = json.loads(ok(run(url, "resolve", "anthropic", model, "--explain", "--format", "json")))
    assert data["observations"] == {"tool_result_images": line}
    assert "observations" not in json.loads(
        ok(run(url, "resolve", "anthropic", model, "--format", "json"))
    )


def test_observation_list_filters(url: str, anthropic: ProviderServer) -> None:
    ok(probe(url, anthropic, "m-ignorer", "--scenario", "image_input"))
    failed(probe(url, anthropic, "m-crasher", "--scenario", "image_input"), code=1)
    rows = json.loads(ok(run(url, "observation", "list", "anthropic", "--format", "json")))
    assert [(r["model"], r["outcome"]) for r in rows] == [
        ("m-ignorer", "ignored"),
        ("m-crasher", "error"),
    ]
    assert set(rows[0]) >= {"request_sha256", "challenge", "toolwire_version", "endpoint"}
    assert rows[0]["challenge"] == CODE and len(rows[0]["request_sha256"]) == 64
    rows = json.loads(ok(run(url, "observation", "list", "--outcome", "error", "--format", "json")))
    assert [r["model"] for r in rows] == ["m-crasher"]
    assert ok(run(url, "observation", "list", "gemini")).splitlines()[-1] == "(none)"
    table = ok(
        run(
            url,
            *("observation", "list", "--model", "m-ignorer", "--scenario", "image_input", "--wide"),
        )
    )
    assert table.splitlines()[1].split()[2:7] == [
        "anthropic",
        "m-ignorer",
        "anthropic",
        "image_input",
        "ignored",
    ]


@pytest.mark.usefixtures("ocr")
def test_keys_and_base64_never_reach_the_database_or_output(
    url: str, anthropic: ProviderServer
) -> None:
    wrong = probe(url, anthropic, "claude-sonnet-4-5-rejecter", key=WRONG_KEY)
    assert failed(wrong, code=1).startswith("Error: 4 of 4")
    assert [r.split()[1:3] for r in wrong.stdout.splitlines()[2:]] == [["error", "401"]] * 4
    assert "[key]" in wrong.stdout  # the server echoed it; the excerpt says so, redacted
    right = probe(url, anthropic, "claude-sonnet-4-5-rejecter", "--record", "--format", "json")
    outputs = wrong.output + right.output
    stored = text_of_database(url)
    for secret in (WRONG_KEY, KEY):
        assert secret not in outputs and secret not in stored
        assert secret[:12] not in outputs and secret[:12] not in stored
    payloads = [
        base64.b64encode(render_png(CODE)).decode(),
        base64.b64encode(render_pdf(CODE)).decode(),
    ]
    rejected = [r for r in json.loads(right.stdout)["results"] if r["outcome"] == "rejected"]
    assert rejected and all("Unsupported content type: document" in r["excerpt"] for r in rejected)
    for payload in payloads:
        for chunk in payload_chunks(payload, 16):
            assert chunk not in outputs and chunk not in stored


def test_a_missing_key_is_refused_unless_no_key_says_so(
    sqlite_url: str, anthropic: ProviderServer
) -> None:
    url = sqlite_url  # the backend does not matter here
    sent = len(anthropic.requests)
    refused = probe(url, anthropic, "m-ignorer", "--scenario", "image_input", key=None)
    assert failed(refused, code=1) == (
        "Error: no key: $ANTHROPIC_API_KEY is not set (give --no-key to probe without one)"
    )
    assert len(anthropic.requests) == sent
    result = probe(url, anthropic, "m-ignorer", "--scenario", "image_input", "--no-key", key=KEY)
    assert failed(result, code=1).startswith("Error: 1 of 1")
    assert "401" in result.stdout and KEY not in result.output  # --no-key sends none at all
    assert len(anthropic.requests) == sent + 1


def test_another_key_variable(sqlite_url: str, anthropic: ProviderServer) -> None:
    url = sqlite_url  # the backend does not matter here
    env = {"TOOLWIRE_USER": "ops", "TOOLWIRE_DATABASE_URL": None, "MY_KEY": KEY}
    result = CliRunner(env=env).invoke(
        main,
        [
            *("--database-url", url, "probe", "anthropic", "m-ignorer"),
            *("--base-url", anthropic.base_url, "--scenario", "image_input"),
            *("--api-key-env", "MY_KEY", "--quiet"),
        ],
    )
    assert ok(result).splitlines()[2].split()[:3] == ["image_input", "ignored", "200"]


def test_bedrock_reads_its_key_from_the_bedrock_variable(
    sqlite_url: str, servers: dict[str, ProviderServer]
) -> None:
    url = sqlite_url  # the backend does not matter here
    bedrock = servers["bedrock"]
    model = "anthropic.claude-sonnet-4-5-20250929-v1:0-ignorer"  # ':' is escaped in the path
    env = {"TOOLWIRE_USER": "ops", "TOOLWIRE_DATABASE_URL": None}
    args = ["--database-url", url, "probe", "bedrock", model, "--base-url", bedrock.base_url]
    args.append("--quiet")
    before = len(bedrock.requests)
    result = CliRunner(env={**env, "AWS_BEARER_TOKEN_BEDROCK": KEY}).invoke(main, args)
    rows = [line.split()[:3] for line in ok(result).splitlines()[2:]]
    assert rows == [
        [scenario, "ignored", "200"]
        for scenario in ("image_input", "tool_result_images", "tool_result_pdf")
    ]
    assert len(bedrock.requests) - before == 3
    assert all("modelId" not in body for body in bedrock.requests[before:])
    missing = CliRunner(env={**env, "AWS_BEARER_TOKEN_BEDROCK": None}).invoke(main, args)
    assert failed(missing, code=1).startswith(
        "Error: no Bedrock credentials: set AWS_BEARER_TOKEN_BEDROCK, or AWS credentials"
    )
    assert len(bedrock.requests) - before == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("anthropic", "m", "--challenge", "ACE0HJ"), "invalid challenge 'ACE0HJ'"),
        (
            ("openai", "gpt-4o", "--no-key", "--scenario", "tool_result_pdf"),
            "no native form for tool_result_pdf",
        ),
        (("anthropic", "m", "--max-requests", "2"), "4 scenarios need 4 requests"),
        (("vllm", "m", "--no-key"), "engine 'vllm' has no base URL: give --base-url"),
        (("nowhere", "m"), "unknown engine 'nowhere'"),
        (
            ("gemini-interactions", "gemini-3-flash-preview", "--no-key"),
            "the gemini-interactions wire has no probe yet",
        ),
    ],
)
def test_refused_probes_send_and_write_nothing(
    sqlite_url: str, servers: dict[str, ProviderServer], args: tuple[str, ...], message: str
) -> None:
    url = sqlite_url  # the backend does not matter here
    sent = sum(len(s.requests) for s in servers.values())
    base = ("--base-url", servers["anthropic"].base_url) if args[0] != "vllm" else ()
    line = failed(run(url, "probe", *args, *base), code=1)
    assert message in line
    assert sum(len(s.requests) for s in servers.values()) == sent
    with Registry(url) as opened:
        assert list_observations(opened) == ()


def test_conflicts_and_unobserved_take_only_engine_and_capability(sqlite_url: str) -> None:
    url = sqlite_url  # the backend does not matter here
    failed(run(url, "audit", "--conflicts", "--status", "documented"), code=2)
    failed(run(url, "audit", "--conflicts", "--unobserved"), code=2)


def test_recorded_at_is_utc_now(sqlite_url: str, anthropic: ProviderServer) -> None:
    url = sqlite_url  # the backend does not matter here
    before = datetime.now(UTC)
    ok(probe(url, anthropic, "m-ignorer", "--scenario", "image_input"))
    with Registry(url) as opened:
        [seen] = list_observations(opened)
    assert before <= seen.observed_at <= datetime.now(UTC)
    assert seen.recorded_by == "ops" and seen.endpoint == anthropic.base_url
