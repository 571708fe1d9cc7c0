"""``create_app``: the Starlette app, its routes and the middleware around them."""

from __future__ import annotations

import contextlib
import hmac
import json
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send
from toolwire.convert import (
    IdMap,
    ToolwireError,
    convert_tool_results,
    format_tool_results,
)
from toolwire.registry import Registry, Resolution, Resolver
from toolwire.registry.snapshot import (
    SCHEMA_VERSION,
    SnapshotCache,
    capability_entries,
    evidence_inputs,
)

from . import _bodies as body
from ._errors import ServiceError, error_body, status_of
from ._metrics import CONTENT_TYPE_LATEST, Metrics
from ._openapi import openapi_document

__all__ = ["DEFAULT_MAX_BODY", "create_app", "read_token_file", "token_from_env"]

#: The largest request body taken by default (bytes): 32 MiB.
DEFAULT_MAX_BODY = 32 * 1024 * 1024

#: Routes answered without a token (load balancers and orchestrators probe them).
OPEN_PATHS = frozenset({"/healthz", "/readyz"})

log = logging.getLogger("toolwire.server")


def _error(status: int, kind: str, message: str, **headers: str) -> JSONResponse:
    return JSONResponse(error_body(kind, message), status_code=status, headers=headers or None)


class _Service:
    """What the routes share: the registry, its resolver, the snapshot, the limits."""

    def __init__(self, registry: Registry, max_body: int, max_age: float, metrics: Metrics) -> None:
        self.registry = registry
        self.resolver = Resolver(registry, max_age=max_age)
        self.snapshots = SnapshotCache(registry, max_age=max_age)
        self.max_body = max_body
        self.metrics = metrics
        self._matrix: tuple[int, str] | None = None
        self._revision = -1  # the revision the gauge shows

    def resolve(self, engine: str, model: str, wire: str | None = None) -> Resolution:
        resolution = self.resolver.resolve(engine, model, wire=wire)
        if resolution.revision != self._revision:
            self._revision = resolution.revision
            self.metrics.revision.set(resolution.revision)
        return resolution

    # -- routes ------------------------------------------------------------------------

    async def format(self, request: Request) -> Response:
        data = await body.read_json(request, self.max_body)
        engine, model = body.required(data, "engine"), body.required(data, "model")
        map_ids = body.flag(data, "ids")
        body.no_raw_bytes(data.get("raw_bytes"), "raw_bytes")
        sent = body.mapping(data, "already_sent") or None
        results = body.read_results(data)
        resolution = self.resolve(engine, model)
        ids = IdMap() if map_ids else None
        messages = resolution.format(results, ids=ids, already_sent=sent)
        return self._formatted(resolution, results, messages, ids, sent)

    async def reformat(self, request: Request) -> Response:
        data = await body.read_json(request, self.max_body)
        engine, model = body.required(data, "engine"), body.required(data, "model")
        source = body.required(data, "source_wire")
        map_ids = body.flag(data, "ids")
        body.no_raw_bytes(data.get("raw_bytes"), "raw_bytes")
        sent = body.mapping(data, "already_sent") or None
        blocks, names = body.blocks(data), body.names(data)
        resolution = self.resolve(engine, model)
        results = body.results_from_blocks(source, blocks, names)
        ids = IdMap() if map_ids else None
        messages = resolution.reformat(
            source, blocks, names=names or None, ids=ids, already_sent=sent
        )
        return self._formatted(resolution, results, messages, ids, sent)

    @staticmethod
    def _formatted(
        resolution: Resolution,
        results: list[Any],
        messages: list[Any],
        ids: IdMap | None,
        already_sent: dict[str, Any] | None,
    ) -> Response:
        report = resolution.report_json(results, already_sent=already_sent)
        answer: dict[str, Any] = {"wire": resolution.wire, "messages": messages, "report": report}
        mapping = body.mapped_ids(ids)
        if mapping is not None:
            answer["ids"] = mapping
        return JSONResponse(answer)

    async def convert(self, request: Request) -> Response:
        data = await body.read_json(request, self.max_body)
        target = body.required(data, "target_wire")
        options = body.mapping(data, "options")
        body.no_raw_bytes(options.get("raw_bytes"), "options.raw_bytes")
        if "results" in data:
            if "blocks" in data or "source_wire" in data:
                raise ServiceError(
                    400, "InvalidRequest", "give either 'results' or 'source_wire' and 'blocks'"
                )
            messages = format_tool_results(target, body.read_results(data), **options)
        else:
            source = body.required(data, "source_wire")
            names = body.names(data)
            messages = convert_tool_results(
                source, target, body.blocks(data), names=names or None, **options
            )
        return JSONResponse({"wire": target, "messages": messages})

    async def resolve_route(self, request: Request) -> Response:
        engine = request.path_params["engine"]
        model = request.path_params["model"]
        if request.scope["path"].endswith("\n"):  # the route's $ matched before it
            model += "\n"  # so the model id is refused as what it is, not resolved without it
        wire = request.query_params.get("wire") or None
        resolution = self.resolve(engine, model, wire)
        from toolwire.registry.explain import explain_sections, explain_text

        policy, agreeing = evidence_inputs(self.registry, engine, model)
        capabilities = capability_entries(resolution, policy, agreeing)
        for flag, entry in resolution.trace.items():
            capabilities[flag]["stale"] = entry.stale
            capabilities[flag]["evidence"] = entry.claim.evidence if entry.claim else None
        return JSONResponse(
            {
                "engine": resolution.engine,
                "model": resolution.model,
                "revision": resolution.revision,
                "wire": resolution.wire,
                "wire_from": resolution.wire_from,
                "id_rule": resolution.id_rule,
                "options": dict(resolution.options),
                "native_forms": dict(resolution.native_forms),
                "capabilities": capabilities,
                "limits": dict(resolution.limits),
                "explain": explain_sections(self.registry, resolution),
                "explanation": explain_text(self.registry, resolution),
            }
        )

    async def snapshot(self, request: Request) -> Response:
        revision = self.snapshots.revision()
        if revision != self._revision:
            self._revision = revision
            self.metrics.revision.set(revision)
        etag = f'"r{revision}-s{SCHEMA_VERSION}"'
        wanted = request.headers.get("if-none-match")
        if wanted is not None and (wanted == etag or etag in _etags(wanted)):
            return Response(status_code=304, headers={"ETag": etag})
        found = self.snapshots.get()
        return Response(
            found.body,
            media_type="application/json",
            headers={"ETag": found.etag, "Cache-Control": "no-cache"},
        )

    async def snapshot_schema(self, request: Request) -> Response:
        from toolwire.registry.snapshot import schema_text

        return Response(schema_text(), media_type="application/schema+json")

    async def matrix(self, request: Request) -> Response:
        from toolwire.registry.matrix import build, render_html

        revision = self.snapshots.revision()
        page = self._matrix
        if page is None or page[0] != revision:  # built once per revision: it reads it all
            page = self._matrix = (revision, render_html(build(self.registry)))
        return HTMLResponse(page[1])

    async def healthz(self, request: Request) -> Response:
        return JSONResponse({"status": "ok", "pid": os.getpid()})

    async def readyz(self, request: Request) -> Response:
        from toolwire.registry.db import head_revision

        try:
            revision = self.registry.revision()
            schema = self.registry.schema_revision()
        except ToolwireError as exc:
            return _error(503, "NotReady", f"the registry cannot be read: {exc}")
        head = head_revision()
        if schema != head:
            return _error(
                503,
                "NotReady",
                f"the registry's schema is at {schema or 'nothing'}, not {head}: "
                "run `toolwire db upgrade`",
            )
        self.metrics.revision.set(revision)
        return JSONResponse({"status": "ready", "revision": revision, "schema": schema})

    async def metrics_route(self, request: Request) -> Response:
        return Response(self.metrics.exposition(), media_type=CONTENT_TYPE_LATEST)


def _etags(header: str) -> set[str]:
    """Return the entity tags an If-None-Match header lists (weak ones compared as strong)."""
    return {tag.strip().removeprefix("W/") for tag in header.split(",")}


def _bench_echo(limit: int) -> Callable[[Request], Awaitable[Response]]:
    """Return the bench route: parse the JSON body, answer ``size`` bytes (``bench/serve.py``).

    ``GET`` answers 304 with an ETag, the baseline of a snapshot request that matches.
    """

    async def echo(request: Request) -> Response:
        if request.method == "GET":  # the baseline of a 304: an empty answer with a tag
            return Response(status_code=304, headers={"ETag": '"r0-s1"'})
        data = await body.read_json(request, limit)
        size = data.get("size", 0)
        if type(size) is not int or not 0 <= size <= limit:
            raise ServiceError(400, "InvalidRequest", "'size' must be a byte count")
        return Response(b"{" + b" " * max(size - 2, 0) + b"}", media_type="application/json")

    return echo


def _bearer(token: str) -> Callable[[ASGIApp], ASGIApp]:
    """Return middleware refusing, with 401, requests without ``Authorization: Bearer TOKEN``."""
    expected = f"Bearer {token}".encode()
    refusal = json.dumps(error_body("Unauthorized", "a valid bearer token is required")).encode()

    def wrap(app: ASGIApp) -> ASGIApp:
        async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http" or scope["path"] in OPEN_PATHS:
                await app(scope, receive, send)
                return
            given = b""
            for name, value in scope["headers"]:
                if name == b"authorization":
                    given = value
                    break
            if hmac.compare_digest(given, expected):
                await app(scope, receive, send)
                return
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(refusal)).encode()),
                        (b"www-authenticate", b"Bearer"),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": refusal})

        return guarded

    return wrap


async def _service_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ServiceError)
    return _error(exc.status, exc.kind, exc.message)


async def _library_error(request: Request, exc: Exception) -> Response:
    status = status_of(exc)
    if status is None:
        return await _internal_error(request, exc)
    if status == 503:
        log.warning("registry unavailable: %s", exc)
        return _error(503, "RegistryUnavailable", "the registry cannot be read; see the log")
    return _error(status, type(exc).__name__, str(exc))


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    kinds = {404: "NotFound", 405: "MethodNotAllowed"}
    message = {404: f"no route {request.url.path}", 405: f"{request.method} is not allowed here"}
    headers = dict(exc.headers or {})
    return _error(
        exc.status_code,
        kinds.get(exc.status_code, "HTTPError"),
        message.get(exc.status_code, str(exc.detail)),
        **headers,
    )


async def _internal_error(request: Request, exc: Exception) -> Response:
    log.error("internal error on %s %s", request.method, request.url.path, exc_info=exc)
    return _error(500, "InternalError", "internal error; see the server log")


def create_app(
    database_url: str | None = None,
    *,
    registry: Registry | None = None,
    token: str | None = None,
    max_body: int | None = None,
    max_age: float = 0.5,
    bench: bool = False,
) -> Starlette:
    """Return the toolwire service as an ASGI app.

    ``registry`` (else one opened at ``database_url``, else ``TOOLWIRE_DATABASE_URL``
    or the default SQLite file) is read, never written; it must hold a registry
    already (``toolwire db upgrade``). ``token`` (else the first line of the file
    ``TOOLWIRE_TOKEN_FILE`` names, else ``TOOLWIRE_TOKEN``): every route but
    ``/healthz`` and ``/readyz`` then needs ``Authorization: Bearer TOKEN``.
    ``max_body`` (else ``TOOLWIRE_MAX_BODY``, else 32 MiB): the largest request body
    in bytes. ``max_age``: how stale the
    cached registry may get where the database gives no exact change signal.
    ``bench`` adds ``POST /bench/echo`` (parse a JSON body, answer ``size`` bytes),
    the baseline ``bench/serve.py`` measures the routes against.

    :raises DatabaseError: when the registry cannot be opened.
    :raises ValueError: for a ``max_body`` under 1 or an empty or unreadable token.
    """
    if max_body is None:
        max_body = _env_size("TOOLWIRE_MAX_BODY", DEFAULT_MAX_BODY)
    if type(max_body) is not int or max_body < 1:
        raise ValueError(f"invalid max_body {max_body!r}: a positive number of bytes")
    if token is None:
        token = token_from_env()
    if token is not None and not token:
        raise ValueError("the token is empty")
    opened = registry is None
    if registry is None:
        registry = Registry(database_url, setup=False, create=False)
    metrics = Metrics()
    service = _Service(registry, max_body, max_age, metrics)
    routes = [
        Route("/v1/format", service.format, methods=["POST"]),
        Route("/v1/reformat", service.reformat, methods=["POST"]),
        Route("/v1/convert", service.convert, methods=["POST"]),
        Route("/v1/resolve/{engine}/{model:path}", service.resolve_route, methods=["GET"]),
        Route("/v1/snapshot", service.snapshot, methods=["GET"]),
        Route("/v1/snapshot/schema", service.snapshot_schema, methods=["GET"]),
        Route("/v1/matrix", service.matrix, methods=["GET"]),
        Route("/healthz", service.healthz, methods=["GET"]),
        Route("/readyz", service.readyz, methods=["GET"]),
        Route("/metrics", service.metrics_route, methods=["GET"]),
    ]
    if bench:
        routes.append(Route("/bench/echo", _bench_echo(max_body), methods=["GET", "POST"]))
    document = json.dumps(openapi_document(bench=bench, auth=token is not None)).encode()

    async def openapi(request: Request) -> Response:
        return Response(document, media_type="application/json")

    routes.append(Route("/openapi.json", openapi, methods=["GET"]))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        service.snapshots.close()
        if opened:
            registry.close()

    app = Starlette(
        routes=routes,
        exception_handlers={
            ServiceError: _service_error,
            ToolwireError: _library_error,
            HTTPException: _http_error,
            Exception: _internal_error,
        },
        lifespan=lifespan,
    )
    if token is not None:
        app.add_middleware(_Wrapped, wrap=_bearer(token))
    app.add_middleware(_Wrapped, wrap=metrics.middleware(routes))  # outermost: counts 401s
    app.state.service = service
    return app


def read_token_file(path: str) -> str:
    """Return the token in the file at ``path`` (its first line, without surrounding blanks).

    :raises ValueError: when the file cannot be read or holds no token.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read the token file {path}: {exc}") from None
    token = text.strip().splitlines()[0].strip() if text.strip() else ""
    if not token:
        raise ValueError(f"the token file {path} is empty")
    return token


def token_from_env() -> str | None:
    """Return the token ``TOOLWIRE_TOKEN_FILE`` or ``TOOLWIRE_TOKEN`` give, None without either.

    :raises ValueError: when the file cannot be read or holds no token.
    """
    path = os.environ.get("TOOLWIRE_TOKEN_FILE")
    if path:
        return read_token_file(path)
    return os.environ.get("TOOLWIRE_TOKEN") or None


def _env_size(name: str, default: int) -> int:
    value = os.environ.get(name)
    if not value:
        return default
    if not value.strip().isdigit() or int(value) < 1:
        raise ValueError(f"invalid {name} {value!r}: a positive number of bytes")
    return int(value)


class _Wrapped:
    """Adapter: a function wrapping an ASGI app, as Starlette's ``add_middleware`` class."""

    def __init__(self, app: ASGIApp, wrap: Callable[[ASGIApp], ASGIApp]) -> None:
        self._app = wrap(app)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._app(scope, receive, send)
