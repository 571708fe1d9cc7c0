"""The probe honours the proxy environment, within its deadline and its key rules.

A forwarding proxy on loopback (``proxy.py``) maps the name ``provider.test`` to a
loopback provider server, so a request to that name must go through the proxy (a
name that is not loopback) and can only arrive through it (the name resolves nowhere).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from cli_helpers import failed, ops_runner
from cli_helpers import run as run_cli
from providers import KEY, ProviderServer
from proxy import ForwardProxy, dead_port
from toolwire.registry import Registry
from toolwire.registry.errors import InvalidInput
from toolwire.registry.probe import EndpointRefused, probe
from toolwire.registry.probe._proxy import Proxy, proxy_for

NAME = "provider.test"
VARIABLES = (
    "http_proxy",
    "HTTP_PROXY",
    "https_proxy",
    "HTTPS_PROXY",
    "all_proxy",
    "ALL_PROXY",
    "no_proxy",
    "NO_PROXY",
    "REQUEST_METHOD",
)


@pytest.fixture(autouse=True)
def no_proxy_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start each test with no proxy variable, whatever the machine has set."""
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def server() -> Iterator[ProviderServer]:
    started = ProviderServer("openai").start()
    yield started
    started.stop()


@pytest.fixture
def proxy(server: ProviderServer) -> Iterator[ForwardProxy]:
    port = server._httpd.server_address[1]
    started = ForwardProxy({NAME: ("127.0.0.1", port), "0.0.0.0": ("127.0.0.1", port)}).start()
    yield started
    started.stop()


def port_of(server: ProviderServer) -> int:
    return int(server._httpd.server_address[1])


def run_probe(registry: Registry, base_url: str, **kw: object) -> tuple[str, int | None, str]:
    """Probe image_input on the openai engine at ``base_url``; return outcome, status, excerpt."""
    report = probe(
        registry,
        "openai",
        "gpt-4o",
        recorded_by="ops",
        scenarios=["image_input"],
        base_url=base_url,
        challenge="ACEFHJ",
        **kw,  # type: ignore[arg-type]
    )
    [result] = report.results
    return result.outcome, result.http_status, result.excerpt


# -- choosing the proxy ------------------------------------------------------------------


def test_each_scheme_takes_its_variable_lowercase_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://upper.example:3128")
    monkeypatch.setenv("http_proxy", "plain.example:8080")
    assert proxy_for("https://api.openai.com/v1/chat/completions") == Proxy(
        "http://upper.example:3128", "HTTPS_PROXY"
    )
    assert proxy_for("http://gpu.example/v1") == Proxy("http://plain.example:8080", "http_proxy")
    monkeypatch.setenv("https_proxy", "https://lower.example")
    assert proxy_for("https://api.openai.com/v1") == Proxy(
        "https://lower.example:443", "https_proxy"
    )


def test_all_proxy_serves_a_scheme_without_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALL_PROXY", "http://all.example:1")
    monkeypatch.setenv("HTTP_PROXY", "http://plain.example:2")
    assert proxy_for("https://api.openai.com/v1") == Proxy("http://all.example:1", "ALL_PROXY")
    assert proxy_for("http://gpu.example/v1") == Proxy("http://plain.example:2", "HTTP_PROXY")


def test_no_proxy_names_suffixes_and_ports(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("NO_PROXY", "corp.example, .intra.example,api.openai.com:8443")
    assert proxy_for("https://gpu.corp.example/v1") is None
    assert proxy_for("https://corp.example/v1") is None
    assert proxy_for("https://a.b.intra.example/v1") is None
    assert proxy_for("https://api.openai.com:8443/v1") is None
    assert proxy_for("https://api.openai.com/v1") is not None  # port 443, not 8443
    assert proxy_for("https://notcorp.example/v1") is not None
    monkeypatch.setenv("NO_PROXY", "*")
    assert proxy_for("https://api.openai.com/v1") is None


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:8000/v1", "http://127.8.9.1/v1", "https://localhost/v1", "http://[::1]:1/"],
)
def test_loopback_always_goes_direct(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv("ALL_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    assert proxy_for(url) is None


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (
            "socks5://user:hunter2@socks.example:1080",
            "unsupported proxy in HTTPS_PROXY: socks5://***@socks.example:1080",
        ),
        (
            "http://proxy.example:notaport",
            "invalid proxy in HTTPS_PROXY: http://proxy.example:notaport (bad port)",
        ),
        ("http://:3128", "invalid proxy in HTTPS_PROXY: http://:3128 (not a URL with a host)"),
        ("http://pro xy:3128", "invalid proxy in HTTPS_PROXY"),
    ],
)
def test_a_bad_proxy_is_named_in_one_line(
    monkeypatch: pytest.MonkeyPatch, value: str, says: str
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", value)
    with pytest.raises(InvalidInput) as raised:
        proxy_for("https://api.openai.com/v1")
    message = str(raised.value)
    assert message.startswith(says), message
    assert "\n" not in message and "hunter2" not in message


def test_the_cli_refuses_a_bad_proxy_in_one_line(
    monkeypatch: pytest.MonkeyPatch, sqlite_url: str, server: ProviderServer, proxy: ForwardProxy
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "socks5h://ops:hunter2@socks.example:1080")
    result = run_cli(
        ops_runner(),
        sqlite_url,
        *("probe", "openai", "gpt-4o", "--no-key", "--scenario", "image_input"),
        *("--base-url", f"http://{NAME}:{port_of(server)}/v1"),
    )
    message = failed(result)
    assert message == (
        "Error: unsupported proxy in HTTP_PROXY: socks5h://***@socks.example:1080 (the probe "
        "speaks to http:// and https:// proxies; set the variable to one, or add the host "
        "to NO_PROXY)"
    ), message
    assert "hunter2" not in result.output
    assert proxy.seen == []


# -- requests through the proxy ----------------------------------------------------------


def test_an_http_target_goes_through_in_absolute_form(
    monkeypatch: pytest.MonkeyPatch,
    sqlite_registry: Registry,
    server: ProviderServer,
    proxy: ForwardProxy,
) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.url.replace("http://", "http://ops:p%40ss@"))
    before = len(server.requests)
    base = f"http://{NAME}:{port_of(server)}/v1"
    outcome, status, excerpt = run_probe(sqlite_registry, base)
    # no key (the rules allow none in clear text through a proxy): the stand-in says 401
    assert (outcome, status) == ("error", 401), excerpt
    assert len(server.requests) == before + 1
    assert server.requests[-1]["model"] == "gpt-4o"
    [seen] = proxy.seen
    assert (seen.method, seen.target) == ("POST", f"{base}/chat/completions")
    assert seen.headers["proxy-authorization"] == "Basic b3BzOnBAc3M="  # ops:p@ss
    assert "authorization" not in seen.headers


def test_an_https_target_goes_through_a_connect_tunnel(
    monkeypatch: pytest.MonkeyPatch,
    sqlite_registry: Registry,
    server: ProviderServer,
    proxy: ForwardProxy,
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", proxy.url)
    before = len(server.requests)
    base = f"https://{NAME}:{port_of(server)}/v1"
    outcome, status, excerpt = run_probe(
        sqlite_registry, base, api_key=KEY, allow_endpoints=[NAME], timeout=5.0
    )
    [seen] = proxy.seen
    assert (seen.method, seen.target) == ("CONNECT", f"{NAME}:{port_of(server)}")
    assert "authorization" not in seen.headers
    # TLS starts inside the tunnel (a handshake record) and the key never shows in it;
    # the stand-in speaks plain http, so the handshake fails and nothing is sent.
    assert proxy.tunnelled[:1] == b"\x16"
    assert KEY.encode() not in proxy.tunnelled
    assert len(server.requests) == before
    assert (outcome, status) == ("error", None), excerpt


def test_no_key_in_clear_text_through_a_proxy(
    monkeypatch: pytest.MonkeyPatch,
    sqlite_registry: Registry,
    server: ProviderServer,
    proxy: ForwardProxy,
) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    base = f"http://{NAME}:{port_of(server)}/v1"
    with pytest.raises(EndpointRefused) as refused:
        run_probe(sqlite_registry, base, api_key=KEY, allow_endpoints=[NAME])
    assert str(refused.value) == (
        f"refusing to send the key in clear text through the proxy {proxy.url} (from "
        f"HTTP_PROXY) to http://{NAME}; use https, or add {NAME} to NO_PROXY to connect "
        "directly"
    )
    assert proxy.seen == []


def test_no_proxy_goes_direct(
    monkeypatch: pytest.MonkeyPatch,
    sqlite_registry: Registry,
    server: ProviderServer,
    proxy: ForwardProxy,
) -> None:
    # 0.0.0.0 is not loopback by name, yet a connection to it reaches this machine
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    base = f"http://0.0.0.0:{port_of(server)}/v1"
    before = len(server.requests)
    assert run_probe(sqlite_registry, base)[:2] == ("error", 401)
    assert [s.target for s in proxy.seen] == [f"{base}/chat/completions"]
    monkeypatch.setenv("NO_PROXY", "0.0.0.0")
    assert run_probe(sqlite_registry, base)[:2] == ("error", 401)
    assert len(proxy.seen) == 1  # the second went direct
    assert len(server.requests) == before + 2


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_loopback_probes_bypass_the_proxy(
    monkeypatch: pytest.MonkeyPatch,
    sqlite_registry: Registry,
    server: ProviderServer,
    proxy: ForwardProxy,
    host: str,
) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    monkeypatch.setenv("ALL_PROXY", proxy.url)
    before = len(server.requests)
    _, status, excerpt = run_probe(
        sqlite_registry, f"http://{host}:{port_of(server)}/v1", api_key=KEY
    )
    assert status == 200, excerpt
    assert len(server.requests) == before + 1
    assert proxy.seen == []


# -- the deadline covers the proxy -------------------------------------------------------


def test_a_dead_proxy_is_an_error_within_the_deadline(
    monkeypatch: pytest.MonkeyPatch, sqlite_registry: Registry
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{dead_port()}")
    started = time.monotonic()
    outcome, status, excerpt = run_probe(sqlite_registry, f"https://{NAME}/v1", timeout=2.0)
    assert time.monotonic() - started < 2.0
    assert (outcome, status) == ("error", None)
    assert excerpt.startswith("ConnectError"), excerpt
    assert "refused" in excerpt, excerpt  # by the proxy port, not a name lookup


@pytest.mark.parametrize("mode", ["drip", "silent"])
@pytest.mark.parametrize("scheme", ["https", "http"])
def test_a_slow_proxy_is_cut_at_the_deadline(
    monkeypatch: pytest.MonkeyPatch, sqlite_registry: Registry, scheme: str, mode: str
) -> None:
    slow = ForwardProxy(mode=mode, interval=0.05).start()
    try:
        monkeypatch.setenv(f"{scheme.upper()}_PROXY", slow.url)
        started = time.monotonic()
        outcome, status, excerpt = run_probe(sqlite_registry, f"{scheme}://{NAME}/v1", timeout=1.0)
        took = time.monotonic() - started
    finally:
        slow.stop()
    assert 1.0 <= took < 2.5, took
    assert (outcome, status, excerpt) == ("error", None, "no complete reply within 1s")
    [seen] = slow.seen
    assert seen.method == ("CONNECT" if scheme == "https" else "POST")
    if mode == "drip":  # it was still sending when the probe gave up
        assert 5 <= slow.dripped < 8192


@pytest.mark.parametrize(
    ("scheme", "status", "says"),
    [
        ("https", None, "ProxyError: 407 Proxy Authentication Required"),
        ("http", 407, ""),
    ],
)
def test_a_proxy_refusal_is_an_error(
    monkeypatch: pytest.MonkeyPatch,
    sqlite_registry: Registry,
    scheme: str,
    status: int | None,
    says: str,
) -> None:
    refusing = ForwardProxy(mode="refuse").start()
    try:
        monkeypatch.setenv(f"{scheme.upper()}_PROXY", refusing.url)
        result = run_probe(sqlite_registry, f"{scheme}://{NAME}/v1", timeout=5.0)
    finally:
        refusing.stop()
    assert result[:2] == ("error", status)
    assert result[2].startswith(says), result[2]
    assert len(refusing.seen) == 1
