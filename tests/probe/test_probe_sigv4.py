"""Bedrock probes signed with AWS SigV4, checked by a loopback server that recomputes them.

The server (``providers.ProviderServer(..., sigv4_region=...)``) rebuilds each
signature with botocore for the test credentials and answers 403 when it differs.
The credential chain is botocore's own: environment variables, or a profile in a
shared credentials file (``conftest.no_aws_credentials`` clears both first).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_helpers import failed, ok, ops_runner
from cli_helpers import run as run_cli
from click.testing import Result
from providers import (
    KEY,
    SIGV4_ACCESS_KEY,
    SIGV4_SECRET_KEY,
    SIGV4_TOKEN,
    ProviderServer,
)

REGION = "eu-west-3"
MODEL = "anthropic.claude-sonnet-4-5-20250929-v1:0-ignorer"  # ':' is escaped in the path
SCENARIOS = ("image_input", "tool_result_images", "tool_result_pdf")


@pytest.fixture(scope="module")
def signed() -> Iterator[ProviderServer]:
    server = ProviderServer("bedrock", sigv4_region=REGION).start()
    yield server
    server.stop()


def probe(url: str, server: ProviderServer, *args: str, **env: str | None) -> Result:
    return run_cli(
        ops_runner(**env),
        url,
        *("probe", "bedrock", MODEL, "--base-url", server.base_url, "--quiet", *args),
    )


def rows(result: Result) -> list[list[str]]:
    return [line.split()[:3] for line in result.stdout.splitlines()[2:]]


def test_a_signed_probe_is_accepted(sqlite_url: str, signed: ProviderServer) -> None:
    before = len(signed.requests)
    result = probe(
        sqlite_url,
        signed,
        AWS_ACCESS_KEY_ID=SIGV4_ACCESS_KEY,
        AWS_SECRET_ACCESS_KEY=SIGV4_SECRET_KEY,
        AWS_REGION=REGION,
    )
    assert rows(result) == [[s, "ignored", "200"] for s in SCENARIOS], result.output
    assert ok(result)
    assert len(signed.requests) - before == 3
    assert SIGV4_SECRET_KEY not in result.output


def test_a_session_token_is_signed_and_sent(sqlite_url: str, signed: ProviderServer) -> None:
    result = probe(
        sqlite_url,
        signed,
        "--scenario",
        "image_input",
        AWS_ACCESS_KEY_ID=SIGV4_ACCESS_KEY,
        AWS_SECRET_ACCESS_KEY=SIGV4_SECRET_KEY,
        AWS_SESSION_TOKEN=SIGV4_TOKEN,
        AWS_REGION=REGION,
    )
    assert rows(ok_or_fail(result)) == [["image_input", "ignored", "200"]]


def ok_or_fail(result: Result) -> Result:
    assert result.exit_code == 0, result.output
    return result


def test_credentials_from_a_profile(
    sqlite_url: str, signed: ProviderServer, tmp_path: Path
) -> None:
    credentials = tmp_path / "credentials"
    credentials.write_text(
        f"[probe]\naws_access_key_id = {SIGV4_ACCESS_KEY}\n"
        f"aws_secret_access_key = {SIGV4_SECRET_KEY}\n",
        encoding="utf-8",
    )
    config = tmp_path / "config"
    config.write_text(f"[profile probe]\nregion = {REGION}\n", encoding="utf-8")
    result = probe(
        sqlite_url,
        signed,
        "--scenario",
        "image_input",
        AWS_SHARED_CREDENTIALS_FILE=str(credentials),
        AWS_CONFIG_FILE=str(config),
        AWS_PROFILE="probe",
    )
    assert rows(ok_or_fail(result)) == [["image_input", "ignored", "200"]]


@pytest.mark.parametrize(
    ("env", "status"),
    [
        ({"AWS_SECRET_ACCESS_KEY": "not/the/secret/at/all/0123456789abcdefgh"}, "403"),
        ({"AWS_REGION": "us-west-2"}, "403"),  # signed for another region
        ({"AWS_SESSION_TOKEN": "a-token-of-someone-else"}, "403"),
    ],
)
def test_a_wrong_signature_is_refused(
    sqlite_url: str, signed: ProviderServer, env: dict[str, str], status: str
) -> None:
    good = {
        "AWS_ACCESS_KEY_ID": SIGV4_ACCESS_KEY,
        "AWS_SECRET_ACCESS_KEY": SIGV4_SECRET_KEY,
        "AWS_REGION": REGION,
    }
    result = probe(sqlite_url, signed, "--scenario", "image_input", **{**good, **env})
    assert failed(result, code=1).startswith("Error: 1 of 1 request ended in error")
    assert rows(result) == [["image_input", "error", status]]
    assert "signature we calculated does not match" in result.stdout


def test_the_bearer_key_wins_over_signing(sqlite_url: str, signed: ProviderServer) -> None:
    result = probe(
        sqlite_url,
        signed,
        "--scenario",
        "image_input",
        AWS_BEARER_TOKEN_BEDROCK=KEY,
        AWS_ACCESS_KEY_ID=SIGV4_ACCESS_KEY,
        AWS_SECRET_ACCESS_KEY="wrong-but-unused",
        AWS_REGION=REGION,
    )
    assert rows(ok_or_fail(result)) == [["image_input", "ignored", "200"]]


def test_credentials_without_a_region_are_one_line(sqlite_url: str, signed: ProviderServer) -> None:
    result = probe(
        sqlite_url,
        signed,
        AWS_ACCESS_KEY_ID=SIGV4_ACCESS_KEY,
        AWS_SECRET_ACCESS_KEY=SIGV4_SECRET_KEY,
    )
    assert failed(result, code=1) == (
        "Error: AWS credentials found but no region: set AWS_REGION (or the profile's region)"
    )


def test_the_region_of_an_aws_host_is_used() -> None:
    from toolwire.registry.probe._sigv4 import aws_signer

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AWS_ACCESS_KEY_ID", SIGV4_ACCESS_KEY)
        patch.setenv("AWS_SECRET_ACCESS_KEY", SIGV4_SECRET_KEY)
        patch.setenv("AWS_REGION", "us-east-1")
        sign = aws_signer("https://bedrock-runtime.ap-south-1.amazonaws.com")
        assert sign is not None
        headers = sign(
            "https://bedrock-runtime.ap-south-1.amazonaws.com/model/m/converse", {}, b"{}"
        )
    assert "/ap-south-1/bedrock/aws4_request" in headers["Authorization"]
