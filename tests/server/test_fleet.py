"""A claim changed with the CLI is used by the next request of every worker and replica."""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import ExitStack

import httpx
import pytest
from served import Served, cli

BODY = {
    "engine": "openai-responses",
    "model": "gpt-5",
    "results": [
        {
            "id": "call_1",
            "name": "shot",
            "content": [
                {"type": "image", "data": "iVBORw0KGgoAAAANSUhEUgAA", "mimeType": "image/png"}
            ],
        }
    ],
}


def _outcome(client: httpx.Client) -> str:
    answer = client.post("/v1/format", json=BODY)
    assert answer.status_code == 200, answer.text
    return str(answer.json()["report"][0]["items"][0]["outcome"])


def _format_requests(client: httpx.Client) -> float:
    """Return how many POST /v1/format requests /metrics counts, over every worker."""
    metrics = client.get("/metrics").text
    line = next(
        line
        for line in metrics.splitlines()
        if line.startswith('toolwire_http_requests_total{method="POST",route="/v1/format"')
    )
    return float(line.rsplit(" ", 1)[1])


def _set_images(url: str, value: str) -> None:
    cli(
        url,
        "claim",
        "set",
        "openai-responses",
        "tool_result_images",
        value,
        "--model",
        "gpt-5",
        "--status",
        "documented",
        "--evidence",
        "fleet test",
        "--by",
        "tests",
    )


def _one_client_per_worker(base: str, workers: int, stack: ExitStack) -> list[httpx.Client]:
    """Open keep-alive connections until each of ``workers`` processes holds one."""
    found: dict[int, httpx.Client] = {}
    deadline = time.monotonic() + 30  # the second worker may still be starting
    while time.monotonic() < deadline:
        client = stack.enter_context(httpx.Client(base_url=base, timeout=30))
        pid = client.get("/healthz").json()["pid"]
        if pid in found:
            client.close()
            continue
        found[pid] = client
        if len(found) == workers:
            return list(found.values())
    pytest.fail(f"only {len(found)} of {workers} workers answered new connections in 30 s")


def _seen_by_all(clients: list[httpx.Client], expected: str, within: float) -> None:
    """Assert every client's next request (or one within ``within`` s) sees ``expected``."""
    for client in clients:
        deadline = time.monotonic() + within
        while (found := _outcome(client)) != expected:
            assert time.monotonic() < deadline, f"still {found!r}, not {expected!r}"
            time.sleep(0.02)


def test_two_workers_on_one_sqlite_file(
    server_factory: Callable[..., Served], seeded_sqlite: str
) -> None:
    served = server_factory(seeded_sqlite, "--workers", "2")
    with ExitStack() as stack:
        clients = _one_client_per_worker(served.base, 2, stack)
        _set_images(seeded_sqlite, "false")
        _seen_by_all(clients, "placeholder", within=0)  # exact: the very next request
        for _ in range(3):  # cached now in both
            assert {_outcome(c) for c in clients} == {"placeholder"}
        _set_images(seeded_sqlite, "true")
        _seen_by_all(clients, "native", within=0)
        # every worker's requests, added up; a worker counts a request once its answer is
        # sent, so the last one may still be on its way into the count
        deadline = time.monotonic() + 5
        while (counted := _format_requests(clients[0])) < 2 * 5:
            assert time.monotonic() < deadline, f"{counted} requests counted, not 10"
            time.sleep(0.02)
    assert served.stop() == 0


def test_two_servers_on_one_postgresql(
    server_factory: Callable[..., Served], seeded_postgres: str
) -> None:
    first = server_factory(seeded_postgres)
    # the second names its registry with the flag, which wins over TOOLWIRE_DATABASE_URL
    elsewhere = "sqlite:////nonexistent/registry.sqlite3"
    second = server_factory(elsewhere, "--database-url", seeded_postgres)
    with ExitStack() as stack:
        clients = [
            stack.enter_context(httpx.Client(base_url=s.base, timeout=30)) for s in (first, second)
        ]
        _set_images(seeded_postgres, "false")
        _seen_by_all(clients, "placeholder", within=1.0)  # NOTIFY arrives right after commit
        for _ in range(3):
            assert {_outcome(c) for c in clients} == {"placeholder"}
        _set_images(seeded_postgres, "true")
        _seen_by_all(clients, "native", within=1.0)
        etags = {c.get("/v1/snapshot").headers["etag"] for c in clients}
        assert len(etags) == 1  # one registry, one revision
    for served in (first, second):
        assert served.stop() == 0
