"""Keys stay home: base URLs without credentials, the endpoint rules, host-change warnings.

Refused probes are refused before anything is sent; hosts under ``.invalid`` never
resolve, so no test sends anything beyond loopback even if a rule were broken.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import failed, ok, ops_runner
from cli_helpers import run as run_cli
from click.testing import Result
from providers import KEY, ProviderServer
from toolwire.registry import Registry
from toolwire.registry import _validate as check
from toolwire.registry.errors import InvalidInput
from toolwire.registry.observations import list_observations
from toolwire.registry.probe import (
    EndpointRefused,
    check_endpoint,
    is_loopback,
    join_url,
    shipped_host,
)

SECRET = "hunter2-s3cr3t-value"


def run(url: str, *args: str, **env: str | None) -> Result:
    return run_cli(ops_runner(**{"ANTHROPIC_API_KEY": KEY, **env}), url, *args)


# -- the base URL rule (registry/_validate.py) --------------------------------------------


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (f"https://user:{SECRET}@api.example.com", "credentials do not belong in a URL"),
        (f"https://{SECRET}@api.example.com/v1", "credentials do not belong in a URL"),
        (f"https://api.example.com/v1?api_key={SECRET}", "query parameter 'api_key'"),
        (f"https://api.example.com/v1?key={SECRET}", "query parameter 'key'"),
        (f"https://api.example.com/v1?x=1&accessToken={SECRET}", "'accessToken'"),
        (f"https://api.example.com/v1?X-Amz-Signature={SECRET}", "'X-Amz-Signature'"),
        (f"https://api.example.com/v1?client_secret={SECRET}", "'client_secret'"),
        ("http://127.0.0.1:99999/v1", "port out of range"),
        ("http://[::1/v1", "invalid base_url"),
        ("ftp://api.example.com", "must be http:// or https://"),
        ("https:///v1", "no host"),
        ("https://exämple.com/v1", "the host must be ASCII"),
    ],
)
def test_base_url_refuses_credentials_and_nonsense(value: str, message: str) -> None:
    with pytest.raises(InvalidInput, match="invalid base_url") as raised:
        check.base_url(value)
    assert message in str(raised.value)
    assert SECRET not in str(raised.value)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize(
    "value",
    [
        "https://api.anthropic.com",
        "https://example.openai.azure.com/openai/deployments/d?api-version=2024-10-21",
        "http://localhost:11434",
        "http://[::1]:8000/v1",
    ],
)
def test_base_url_takes_plain_endpoints(value: str) -> None:
    assert check.base_url(value) == value


def test_every_shipped_base_url_passes_the_rule() -> None:
    from toolwire.registry._seed import load_seed

    urls = [t["base_url"] for t in load_seed().engines if t.get("base_url")]
    assert len(urls) > 20
    assert [check.base_url(u) for u in urls] == urls


def test_engine_add_and_update_refuse_a_key_in_the_url(sqlite_url: str) -> None:
    url = sqlite_url
    add = run(
        url,
        *("engine", "add", "gw", "--provider", "Gateway", "--family", "openai"),
        *("--wire", "openai", "--kind", "gateway"),
        *("--base-url", f"https://gw.example.com/v1?api_key={SECRET}"),
    )
    line = failed(add, code=1)
    assert line == (
        "Error: invalid base_url: credentials do not belong in a URL (query parameter "
        "'api_key'); put the key in the engine's key variable"
    )
    update = run(url, "engine", "update", "openai", "--base-url", f"https://u:{SECRET}@x.com")
    assert "credentials do not belong in a URL" in failed(update, code=1)
    assert SECRET not in add.output + update.output
    with Registry(url) as opened:
        assert opened.engine("openai").base_url == "https://api.openai.com/v1"


def test_engine_update_warns_when_the_host_changes(sqlite_url: str) -> None:
    url = sqlite_url
    dry = run(
        url, "engine", "update", "anthropic", "--base-url", "http://evil.invalid", "--dry-run"
    )
    assert dry.exit_code == 0, dry.output
    assert (
        dry.stdout
        == "~ engine anthropic: base_url: https://api.anthropic.com -> http://evil.invalid\n"
    )
    assert dry.stderr.splitlines() == [
        "warning: engine anthropic: base_url host changes from api.anthropic.com to "
        "evil.invalid; toolwire probe sends a key there only with --allow-endpoint",
        "engine anthropic: would change 1 field",
    ]
    with Registry(url) as opened:
        assert opened.engine("anthropic").base_url == "https://api.anthropic.com"
    same_host = run(
        url, "engine", "update", "anthropic", "--base-url", "https://api.anthropic.com/"
    )
    assert same_host.exit_code == 0
    assert "warning" not in same_host.stderr
    moved = run(url, "engine", "update", "anthropic", "--base-url", "https://evil.invalid")
    assert moved.exit_code == 0
    assert moved.stderr.startswith("warning: engine anthropic: base_url host changes")
    with Registry(url) as opened:
        assert opened.engine("anthropic").base_url == "https://evil.invalid"
        latest = opened.log(engine="anthropic", limit=1)[0]
    assert (latest.what, latest.actor) == ("engine update", "ops")
    assert latest.changes["base_url"] == ("https://api.anthropic.com/", "https://evil.invalid")


def test_engine_update_needs_a_field(sqlite_url: str) -> None:
    assert "nothing to change" in failed(run(sqlite_url, "engine", "update", "anthropic"), code=2)


def test_import_warns_when_a_base_url_moves_host(sqlite_url: str, tmp_path: Path) -> None:
    url = sqlite_url
    exported = run(url, "export", "--engine", "anthropic")
    assert exported.exit_code == 0, exported.output
    moved = exported.stdout.replace(
        'base_url = "https://api.anthropic.com"', 'base_url = "http://collector.invalid:8080"'
    )
    assert moved != exported.stdout
    path = tmp_path / "moved.toml"
    path.write_text(moved, encoding="utf-8")
    warning = (
        "warning: engine anthropic: base_url host changes from api.anthropic.com to "
        "collector.invalid; toolwire probe sends a key there only with --allow-endpoint"
    )
    dry = run(url, "import", str(path), "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert warning in dry.stderr.splitlines()
    assert "base_url: https://api.anthropic.com -> http://collector.invalid:8080" in dry.stdout
    with Registry(url) as opened:
        assert opened.engine("anthropic").base_url == "https://api.anthropic.com"
    done = run(url, "import", str(path))
    assert warning in done.stderr.splitlines()
    # and the next probe with a key refuses to send it there
    probe = run(url, "probe", "anthropic", "m", "--scenario", "image_input")
    assert failed(probe, code=1) == (
        "Error: refusing to send the key over plain http to collector.invalid (not this "
        "machine); give --allow-endpoint collector.invalid if that host is meant"
    )


def test_import_refuses_a_key_in_a_base_url(sqlite_url: str, tmp_path: Path) -> None:
    url = sqlite_url
    exported = run(url, "export", "--engine", "anthropic").stdout
    path = tmp_path / "keyed.toml"
    path.write_text(
        exported.replace(
            'base_url = "https://api.anthropic.com"',
            f'base_url = "https://api.anthropic.com?token={SECRET}"',
        ),
        encoding="utf-8",
    )
    result = run(url, "import", str(path))
    assert "credentials do not belong in a URL (query parameter 'token')" in failed(result, code=1)
    assert SECRET not in result.output


# -- the endpoint rules ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("engine", "base"),
    [
        ("anthropic", "https://api.anthropic.com"),
        ("anthropic", "http://127.0.0.1:8080"),
        ("anthropic", "http://127.8.9.10:8080"),
        ("anthropic", "http://localhost:8080"),
        ("anthropic", "http://[::1]:8080"),
        ("openai", "https://api.openai.com/v1"),
        ("bedrock", "https://bedrock-runtime.eu-west-3.amazonaws.com"),
        ("bedrock", "https://bedrock-runtime-fips.us-east-1.amazonaws.com"),
    ],
)
def test_keys_go_home(engine: str, base: str) -> None:
    check_endpoint(engine, base)  # no refusal


@pytest.mark.parametrize(
    ("engine", "base", "message"),
    [
        ("anthropic", "http://api.anthropic.com", "over plain http to api.anthropic.com"),
        ("anthropic", "https://api.openai.com", "engine anthropic ships with api.anthropic.com"),
        ("anthropic", "https://evil.invalid", "to evil.invalid: engine anthropic ships with"),
        ("vllm", "https://vllm.internal.invalid", "vllm is not shipped"),
        ("bedrock", "https://bedrock-runtime.evil.invalid", "ships with bedrock-runtime"),
        ("openai", "http://10.0.0.1/v1", "over plain http to 10.0.0.1 (not this machine)"),
    ],
)
def test_keys_do_not_go_elsewhere(engine: str, base: str, message: str) -> None:
    with pytest.raises(EndpointRefused, match="refusing to send the key") as raised:
        check_endpoint(engine, base)
    assert message in str(raised.value)
    host = base.split("//")[1].split("/")[0]
    check_endpoint(engine, base, [host.upper()])  # --allow-endpoint HOST lets it through
    check_endpoint(engine, base, [f"{host}:443"])  # host:port names the host too
    check_endpoint(engine, base, [base])  # and so does a URL


def test_shipped_hosts_and_loopback() -> None:
    assert shipped_host("anthropic") == "api.anthropic.com"
    assert shipped_host("vllm") is None
    assert shipped_host("nowhere") is None
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("10.0.0.1") and not is_loopback("localhost.evil.invalid")
    assert not is_loopback("evil.localhost")


def test_join_url_keeps_the_query_after_the_path() -> None:
    base = "https://example.openai.azure.com/openai/deployments/d/?api-version=2024-10-21"
    assert join_url(base, "/chat/completions") == (
        "https://example.openai.azure.com/openai/deployments/d/chat/completions"
        "?api-version=2024-10-21"
    )
    assert join_url("http://127.0.0.1:9/v1#frag", "/responses") == "http://127.0.0.1:9/v1/responses"


def test_a_probe_puts_the_path_before_the_base_urls_query(
    sqlite_url: str, servers: dict[str, ProviderServer]
) -> None:
    openai = servers["openai"]
    result = run(
        sqlite_url,
        *("probe", "openai", "m-ignorer", "--scenario", "image_input", "--quiet"),
        *("--base-url", openai.base_url + "?api-version=2024-10-21"),
        OPENAI_API_KEY=KEY,
    )
    assert ok(result).splitlines()[2].split()[:3] == ["image_input", "ignored", "200"]
    assert openai.paths[-1] == "/v1/chat/completions?api-version=2024-10-21"


@pytest.mark.parametrize(
    ("base", "message"),
    [
        (
            "https://evil.invalid",
            "Error: refusing to send the key to evil.invalid: engine "
            "anthropic ships with api.anthropic.com; give --allow-endpoint evil.invalid if that "
            "host is meant",
        ),
        (
            "http://user:pw-secret@127.0.0.1:9",
            "Error: invalid base_url: credentials do not "
            "belong in a URL (user info given); put the key in the engine's key variable",
        ),
        (
            "http://127.0.0.1:99999/v1",
            "Error: invalid base_url 'http://127.0.0.1:99999/v1': port out of range",
        ),
    ],
)
def test_probe_refusals_are_one_line_and_send_nothing(
    sqlite_url: str, servers: dict[str, ProviderServer], base: str, message: str
) -> None:
    sent = sum(len(s.requests) for s in servers.values())
    result = run(sqlite_url, "probe", "anthropic", "m", "--base-url", base)
    assert failed(result, code=1) == message
    assert "pw-secret" not in result.output and KEY not in result.output
    assert sum(len(s.requests) for s in servers.values()) == sent
    with Registry(sqlite_url) as opened:
        assert list_observations(opened) == ()


@pytest.mark.parametrize("key", ["tw-kéy-123", "tw key 123", "tw-key-\x01"])
def test_a_key_that_cannot_go_in_a_header_is_one_line(
    sqlite_url: str, servers: dict[str, ProviderServer], key: str
) -> None:
    result = run(
        sqlite_url,
        *("probe", "anthropic", "m", "--base-url", servers["anthropic"].base_url),
        ANTHROPIC_API_KEY=key,
    )
    assert failed(result, code=1) == (
        "Error: the key has a character that cannot go in an HTTP header (a space, a control "
        "or a non-ASCII character): check the key variable"
    )
    assert key not in result.output


def test_no_key_sends_to_any_host_without_credentials(
    sqlite_url: str, servers: dict[str, ProviderServer]
) -> None:
    anthropic = servers["anthropic"]
    result = run(
        sqlite_url,
        *("probe", "anthropic", "m-ignorer", "--scenario", "image_input", "--quiet"),
        *("--base-url", anthropic.base_url, "--no-key"),
    )
    assert failed(result, code=1).startswith("Error: 1 of 1 request ended in error")
    assert "Incorrect API key provided: None" in result.stdout  # nothing was sent as a key
