"""Benchmark the HTTP service against a bare endpoint of the same app, side by side.

Run: ``python bench/serve.py [--requests N] [--concurrency C] [--rss 10000,100000]``.
It starts one uvicorn worker on a free loopback port with ``create_app(bench=True)``
(which adds ``/bench/echo``: parse the JSON body, answer ``size`` bytes; on GET, a
304 with an ETag) over a fresh seeded SQLite registry, and drives it with a pool
of async httpx clients. Each pair of scenarios runs in alternating rounds in this
one run, and the best round of each is kept:

- ``/v1/format`` with (a) one small text result, (b) a text and a 200 KB PNG
  (native on anthropic, so the answer carries the base64), against the bare
  endpoint parsing the same body and answering as many bytes: target throughput
  ratio >= 0.67;
- ``/v1/snapshot`` with a matching ``If-None-Match`` (304) against the bare 304:
  target time ratio <= 1.2;
- the worker's resident memory after the first and the last count of ``--rss``
  format requests: target within 10%.

Besides throughput (which the client, in the same machine, also limits) it prints
the server's own CPU time per request, read from /proc: the cost of the route in
the worker itself.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

TICKS = os.sysconf("SC_CLK_TCK")
SERVER = """
import uvicorn
from toolwire.server import create_app
uvicorn.run(
    create_app(bench=True),
    host="127.0.0.1",
    port={port},
    log_level="warning",
    timeout_keep_alive=120,  # no idle connection closed under the pool's feet between rounds
)
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _png(size: int) -> bytes:
    header = bytes.fromhex("89504e470d0a1a0a0000000d49484452")
    return header + os.urandom(size - len(header))


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


def _rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


async def _run(
    client: httpx.AsyncClient, request: dict[str, Any], total: int, concurrency: int
) -> tuple[float, list[float]]:
    """Send ``total`` requests with ``concurrency`` at a time; return seconds and latencies."""
    latencies: list[float] = []
    expected = request.pop("expect")
    left = [total]

    async def worker() -> None:
        while left[0] > 0:
            left[0] -= 1
            start = time.perf_counter()
            response = await client.request(**request)
            latencies.append(time.perf_counter() - start)
            if response.status_code != expected:
                raise RuntimeError(f"{request['url']}: {response.status_code} {response.text}")

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    request["expect"] = expected
    return time.perf_counter() - start, latencies


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _pair(
    client: httpx.AsyncClient,
    pid: int,
    named: dict[str, dict[str, Any]],
    total: int,
    concurrency: int,
    rounds: int,
) -> dict[str, dict[str, float]]:
    """Run the scenarios in alternating rounds; keep each one's best round."""
    best: dict[str, dict[str, float]] = {}
    for _ in range(rounds):
        for name, request in named.items():
            cpu = _cpu(pid)
            seconds, latencies = await _run(client, request, total, concurrency)
            used = _cpu(pid) - cpu
            found = {
                "rps": total / seconds,
                "p50": _p(latencies, 0.50) * 1000,
                "p99": _p(latencies, 0.99) * 1000,
                "cpu_us": used / total * 1e6,
            }
            if name not in best or found["rps"] > best[name]["rps"]:
                best[name] = {
                    **found,
                    "cpu_us": min(found["cpu_us"], best.get(name, found)["cpu_us"]),
                }
    return best


def _post(url: str, data: dict[str, Any]) -> dict[str, Any]:
    return {
        "method": "POST",
        "url": url,
        "content": json.dumps(data).encode(),
        "headers": {"content-type": "application/json"},
        "expect": 200,
    }


async def _main(args: argparse.Namespace) -> None:
    work = Path(tempfile.mkdtemp(prefix="toolwire-bench-serve-"))
    url = f"sqlite:///{work / 'registry.sqlite3'}"
    from toolwire.registry import Registry

    Registry(url).close()  # created and seeded
    port = _free_port()
    env = {**os.environ, "TOOLWIRE_DATABASE_URL": url}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    server = subprocess.Popen([sys.executable, "-c", SERVER.format(port=port)], env=env)
    base = f"http://127.0.0.1:{port}"
    limits = httpx.Limits(
        max_connections=args.concurrency, max_keepalive_connections=args.concurrency
    )
    try:
        async with httpx.AsyncClient(base_url=base, limits=limits, timeout=60) as client:
            for _ in range(200):
                try:
                    if (await client.get("/healthz")).status_code == 200:
                        break
                except httpx.TransportError:
                    await asyncio.sleep(0.05)
            await _bench(client, server.pid, args)
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


async def _bench(client: httpx.AsyncClient, pid: int, args: argparse.Namespace) -> None:
    text = {
        "id": "toolu_1",
        "name": "lookup",
        "content": [{"type": "text", "text": "21 °C, sunny"}],
    }
    png = base64.b64encode(_png(200 * 1024)).decode()
    image = {
        "id": "toolu_2",
        "name": "shot",
        "content": [
            {"type": "text", "text": "the chart"},
            {"type": "image", "data": png, "mimeType": "image/png"},
        ],
    }
    cases = {"small text": [text], "text + 200 KB PNG": [image]}
    rows = []
    for label, results in cases.items():
        body = {"engine": "anthropic", "model": "claude-sonnet-4-5", "results": results}
        answer = await client.post("/v1/format", json=body)
        answer.raise_for_status()
        size = len(answer.content)
        named = {
            "format": _post("/v1/format", body),
            "bare": _post("/bench/echo", {**body, "size": size}),
        }
        total = args.requests if label == "small text" else max(args.requests // 10, 50)
        best = await _pair(client, pid, named, total, args.concurrency, args.rounds)
        rows.append(
            (f"/v1/format, {label} ({size} B answer)", best["format"], best["bare"], "rps", 0.67)
        )
    etag = (await client.get("/v1/snapshot")).headers["etag"]
    named = {
        "snapshot": {
            "method": "GET",
            "url": "/v1/snapshot",
            "headers": {"if-none-match": etag},
            "expect": 304,
        },
        "bare": {"method": "GET", "url": "/bench/echo", "expect": 304},
    }
    best = await _pair(client, pid, named, args.requests, args.concurrency, args.rounds)
    rows.append(("/v1/snapshot, If-None-Match (304)", best["snapshot"], best["bare"], "time", 1.2))

    print(
        f"toolwire serve bench: {os.cpu_count()} CPUs, 1 worker, {args.concurrency} connections, "
        f"best of {args.rounds} alternating rounds"
    )
    head = (
        f"{'scenario':<48} {'route rps':>10} {'bare rps':>10} {'ratio':>6} {'target':>9} "
        f"{'p99 ms':>7} {'bare p99':>8} {'cpu us':>7} {'bare cpu':>8} {'cpu ratio':>9}"
    )
    print(head)
    print("-" * len(head))
    for name, route, bare, kind, target in rows:
        if kind == "rps":
            ratio, goal = route["rps"] / bare["rps"], f">= {target}"
        else:
            ratio, goal = bare["rps"] / route["rps"], f"<= {target}"
        print(
            f"{name:<48} {route['rps']:>10.0f} {bare['rps']:>10.0f} {ratio:>6.2f} {goal:>9} "
            f"{route['p99']:>7.2f} {bare['p99']:>8.2f} {route['cpu_us']:>7.0f} "
            f"{bare['cpu_us']:>8.0f} {route['cpu_us'] / bare['cpu_us']:>9.2f}"
        )
    counts = sorted(int(n) for n in args.rss.split(","))
    body = _post(
        "/v1/format", {"engine": "anthropic", "model": "claude-sonnet-4-5", "results": [text]}
    )
    done, seen = 0, []
    for count in counts:
        await _run(client, body, count - done, args.concurrency)
        done = count
        seen.append((count, _rss(pid)))
    first, last = seen[0][1], seen[-1][1]
    marks = ", ".join(f"{n} requests: {r / 2**20:.1f} MiB" for n, r in seen)
    print(f"worker RSS: {marks}; growth {100 * (last - first) / first:+.1f}% (target within 10%)")


def main() -> None:
    """Parse the flags and run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--requests", type=int, default=4000, help="requests per round (small cases)"
    )
    parser.add_argument("--concurrency", type=int, default=16, help="connections in the pool")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds per pair")
    parser.add_argument("--rss", default="10000,100000", help="request counts to read the RSS at")
    asyncio.run(_main(parser.parse_args()))


if __name__ == "__main__":
    main()
