"""The drift report of ``toolwire probe --report`` and ``--fail-on-flip``.

Against the loopback providers (``providers.py``): an ``ignorer`` model contradicts
flags that resolve on, a ``reader`` contradicts a flag that is off. ``source_blocks``
travels as text, so these tests need no OCR.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import ops_runner
from cli_helpers import run as run_cli
from click.testing import Result
from providers import KEY, ProviderServer
from toolwire.registry import Registry

CODE = "ACEFHJ"


def run(url: str, *args: str) -> Result:
    return run_cli(ops_runner(ANTHROPIC_API_KEY=KEY), url, *args)


@pytest.fixture
def anthropic(servers: dict[str, ProviderServer]) -> ProviderServer:
    return servers["anthropic"]


def probe(url: str, server: ProviderServer, engine: str, *args: str) -> Result:
    return run(
        url,
        *("probe", engine, *args, "--base-url", server.base_url, "--challenge", CODE),
        "--quiet",
    )


def image_before_status(entry: dict[str, Any]) -> str:
    return f"[{entry['before']['status']}]"


def report_of(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_a_flag_on_that_the_model_ignores_is_a_flip(
    sqlite_url: str, anthropic: ProviderServer, tmp_path: Path
) -> None:
    url, model = sqlite_url, "claude-sonnet-4-5-ignorer"
    report = tmp_path / "drift.json"
    args = ("--scenario", "image_input", "--scenario", "source_blocks", "--record")
    first = probe(url, anthropic, "anthropic", model, *args, "--report", str(report))
    assert first.exit_code == 0, first.output  # a flip alone fails only with --fail-on-flip
    data = report_of(report)
    assert (data["engine"], data["probed"], data["flips"]) == ("anthropic", 2, 2)
    by_flag = {e["capability"]: e for e in data["entries"]}
    image = by_flag["image_input"]
    assert image["model"] == model
    assert image["before"]["value"] is True and image["before"]["status"] != "live-verified"
    assert image["observation"]["outcome"] == "ignored"
    assert image["observation"]["http_status"] == 200
    assert isinstance(image["observation"]["id"], int)
    assert image["after"] == {
        "value": False,
        "decided_by": "model",
        "status": "live-verified",
        "evidence": image["after"]["evidence"],
    }
    assert image["after"]["evidence"].startswith(f"probe observation #{image['observation']['id']}")
    assert image["flip"] is True and by_flag["source_blocks"]["flip"] is True
    table = first.stderr.splitlines()
    assert table[0].split() == ["MODEL", "CAPABILITY", "BEFORE", "OUTCOME", "AFTER", "FLIP"]
    assert table[1].split()[:2] == [model, "image_input"]
    before = image_before_status(image)
    assert table[1].split()[2:] == ["on", before, "ignored", "off", "[live-verified]", "FLIP"]
    assert table[-1] == f"drift: 2 probed flags, 2 flips; report in {report}"
    # probed again, the recorded claims agree: no flip, and --fail-on-flip passes
    again = probe(url, anthropic, "anthropic", model, *args, "--fail-on-flip")
    assert again.exit_code == 0, again.output
    assert again.stderr.splitlines()[-1] == "drift: 2 probed flags, 0 flips"


def test_fail_on_flip_exits_1_with_the_flips_named(
    sqlite_url: str, anthropic: ProviderServer, tmp_path: Path
) -> None:
    url, model = sqlite_url, "claude-sonnet-4-5-ignorer"
    report = tmp_path / "drift.json"
    result = probe(
        url,
        anthropic,
        "anthropic",
        model,
        *("--scenario", "source_blocks", "--fail-on-flip", "--report", str(report)),
    )
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == (
        f"Error: 1 observation contradicts the registry (--fail-on-flip): "
        f"{model} source_blocks ignored"
    )
    assert report_of(report)["flips"] == 1
    with Registry(url) as opened:  # without --record nothing but the observation is written
        assert [c for c in opened.claims(engine="anthropic", model=model)] == []


def test_a_flag_off_that_the_model_reads_is_a_flip(
    sqlite_url: str, anthropic: ProviderServer, tmp_path: Path
) -> None:
    url, model = sqlite_url, "claude-sonnet-4-5-reader"
    set_off = run(
        url,
        *("claim", "set", "anthropic", "source_blocks", "false", "--model", model),
        *("--status", "documented", "--evidence", "The docs say it does not."),
    )
    assert set_off.exit_code == 0, set_off.output
    report = tmp_path / "drift.json"
    result = probe(
        url,
        anthropic,
        "anthropic",
        model,
        *("--scenario", "source_blocks", "--record", "--report", str(report), "--fail-on-flip"),
    )
    assert result.exit_code == 1, result.output
    [entry] = report_of(report)["entries"]
    assert (entry["before"]["value"], entry["before"]["status"]) == (False, "documented")
    assert entry["before"]["evidence"] == "The docs say it does not."
    assert entry["observation"]["outcome"] == "read"
    assert (entry["after"]["value"], entry["after"]["status"]) == (True, "live-verified")
    assert entry["flip"] is True


def test_all_models_report_and_errors_are_no_flips(
    sqlite_url: str, anthropic: ProviderServer, tmp_path: Path
) -> None:
    url = sqlite_url
    added = run(
        url,
        *("engine", "add", "drifty", "--provider", "Drift test", "--family", "anthropic"),
        *("--wire", "anthropic", "--kind", "self-hosted", "--base-url", anthropic.base_url),
    )
    assert added.exit_code == 0, added.output
    for model in ("m-reader", "m-ignorer", "m-crasher"):
        assert run(url, "model", "add", "drifty", model).exit_code == 0
    report = tmp_path / "drift.json"
    result = probe(
        url,
        anthropic,
        "drifty",
        *("--all-models", "--scenario", "source_blocks", "--record"),
        *("--report", str(report), "--fail-on-flip"),
    )
    assert result.exit_code == 1
    data = report_of(report)
    outcomes = {
        e["model"]: (e["before"]["value"], e["observation"]["outcome"], e["flip"])
        for e in data["entries"]
    }
    assert outcomes == {
        "m-reader": (False, "read", True),  # off by default, read: a flip
        "m-ignorer": (False, "ignored", False),
        "m-crasher": (False, "error", False),  # an error says nothing about the flag
    }
    assert data["flips"] == 1
    assert "Error: 1 observation contradicts the registry (--fail-on-flip): m-reader" in (
        result.stderr
    )


def test_no_report_without_asking(sqlite_url: str, anthropic: ProviderServer) -> None:
    result = probe(sqlite_url, anthropic, "anthropic", "m-ignorer", "--scenario", "source_blocks")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""


def test_a_report_in_a_missing_directory_is_refused_before_sending(
    sqlite_url: str, anthropic: ProviderServer, tmp_path: Path
) -> None:
    target = tmp_path / "missing" / "drift.json"
    sent = len(anthropic.requests)
    result = probe(
        sqlite_url,
        anthropic,
        "anthropic",
        "m-ignorer",
        *("--scenario", "source_blocks", "--report", str(target)),
    )
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        f"Error: Invalid value for --report: no directory {str(target.parent)!r}"
    )
    assert len(anthropic.requests) == sent
