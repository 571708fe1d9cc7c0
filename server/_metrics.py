"""Prometheus metrics (prometheus-client): requests by route and status, latency, revision.

Per worker by default: each process counts its own requests in its own registry.
When ``PROMETHEUS_MULTIPROC_DIR`` names a directory (``toolwire serve --workers N``
makes one), prometheus-client writes every worker's values to files there and
``/metrics`` adds up all workers' (``MultiProcessCollector``): any worker answers
for the whole server.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["CONTENT_TYPE_LATEST", "Metrics"]

#: Latency buckets (seconds): a format call takes tens of microseconds to milliseconds.
_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)


def multiprocess_dir() -> str | None:
    """Return the directory prometheus-client shares values through, None per worker."""
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


class Metrics:
    """The service's metrics, in a collector registry of their own."""

    def __init__(self) -> None:
        """Create the counters; in multiprocess mode they write to the shared directory."""
        self.registry = CollectorRegistry(auto_describe=True)
        self.shared = multiprocess_dir() is not None
        self.requests = Counter(
            "toolwire_http_requests",
            "HTTP requests answered, by route template and status.",
            ("route", "method", "status"),
            registry=self.registry,
        )
        self.latency = Histogram(
            "toolwire_http_request_duration_seconds",
            "Time from the request's start to the end of its response, by route template.",
            ("route", "method"),
            buckets=_BUCKETS,
            registry=self.registry,
        )
        gauge: dict[str, Any] = {"multiprocess_mode": "livemax"} if self.shared else {}
        self.revision = Gauge(
            "toolwire_registry_revision",
            "The registry revision this server last read.",
            registry=self.registry,
            **gauge,
        )

    def exposition(self) -> bytes:
        """Return the metrics in the Prometheus text format (every worker's when shared)."""
        if not self.shared:
            return bytes(generate_latest(self.registry))
        from prometheus_client import multiprocess

        merged = CollectorRegistry()
        multiprocess.MultiProcessCollector(merged)  # type: ignore[no-untyped-call]
        return bytes(generate_latest(merged))

    def middleware(self, routes: Iterable[BaseRoute]) -> Callable[[ASGIApp], ASGIApp]:
        """Return an ASGI middleware factory counting every HTTP request by route template."""
        table = tuple(routes)
        requests, latency = self.requests, self.latency

        seen: dict[str, str] = {}  # path -> route template (bounded: paths hold model ids)

        def label(scope: Scope) -> str:
            path = scope["path"]
            found = seen.get(path)
            if found is None:
                found = "unmatched"
                for route in table:
                    match, _ = route.matches(scope)
                    if match is not Match.NONE:
                        found = str(getattr(route, "path", "unmatched")).replace(":path}", "}")
                        break
                if len(seen) >= 1024:
                    seen.clear()
                seen[path] = found
            return found

        def wrap(app: ASGIApp) -> ASGIApp:
            async def counted(scope: Scope, receive: Receive, send: Send) -> None:
                if scope["type"] != "http":
                    await app(scope, receive, send)
                    return
                start = time.perf_counter()
                status = [500]

                async def sending(message: Message) -> None:
                    if message["type"] == "http.response.start":
                        status[0] = message["status"]
                    await send(message)

                try:
                    await app(scope, receive, sending)
                finally:
                    route, method = label(scope), scope["method"]
                    requests.labels(route, method, str(status[0])).inc()
                    latency.labels(route, method).observe(time.perf_counter() - start)

            return counted

        return wrap
