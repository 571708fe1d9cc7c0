"""One bounded HTTP POST: a total deadline per request and a cap on the reply's bytes.

Endpoint replies are not trusted. A reply is read as a stream and given up on as
soon as it passes ``MAX_REPLY`` bytes, counted both as they arrive (compressed) and
once inflated, or when the request's deadline passes: memory stays bounded whatever
the server sends, and so does the time. The deadline covers every socket operation
of the request -- connect, TLS, sending, the headers and the body -- so a server
that sends a byte a second cannot keep the probe waiting past it.

Built on httpcore (the connection pool httpx uses), whose network backend is the
one place every socket read and write passes through: the backend here gives each
one the time left before the calling thread's deadline.

A request a proxy carries (``_proxy``) goes through an ``httpcore.HTTPProxy`` pool
on the same backend, so the deadline also covers connecting to the proxy, its
CONNECT tunnel and the TLS inside it, and the reply cap holds as for a direct one.
"""

from __future__ import annotations

import threading
import time
import zlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpcore

from ._limits import MAX_REPLY
from ._proxy import Proxy

__all__ = ["Client", "Reply"]
_ENCODINGS = ("gzip", "x-gzip", "deflate", "identity")
_local = threading.local()


@dataclass(frozen=True, slots=True)
class Reply:
    """What one request got: the status and body, or why there is none (``failure``)."""

    status: int | None
    body: bytes
    headers: Mapping[str, str]
    #: None when the whole reply was read; else why not (timeout, cap, network)
    failure: str | None


def _left(kind: type[Exception], timeout: float | None) -> float | None:
    """Return ``timeout`` cut to the time left before this thread's deadline."""
    deadline: float | None = getattr(_local, "deadline", None)
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise kind("the deadline passed")
    return left if timeout is None else min(timeout, left)


class _Stream(httpcore.NetworkStream):
    """A socket stream whose every read and write ends by the request's deadline."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _left(httpcore.ReadTimeout, timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _left(httpcore.WriteTimeout, timeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: Any,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        wait = _left(httpcore.ConnectTimeout, timeout)
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, wait))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    """httpcore's socket backend, its streams held to the deadline."""

    def __init__(self) -> None:
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore.NetworkStream:
        wait = _left(httpcore.ConnectTimeout, timeout)
        return _Stream(self._inner.connect_tcp(host, port, wait, local_address, socket_options))

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> httpcore.NetworkStream:  # pragma: no cover - the probe speaks TCP only
        raise httpcore.ConnectError("the probe speaks TCP only")

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


class Client:
    """A pool of at most ``connections`` connections sending bounded POSTs."""

    def __init__(self, *, connections: int = 1, max_reply: int = MAX_REPLY) -> None:
        self.max_reply = max_reply
        self._connections = connections
        self._pool = httpcore.ConnectionPool(
            max_connections=connections,
            max_keepalive_connections=connections,
            network_backend=_Backend(),
        )
        self._proxies: dict[Proxy, httpcore.HTTPProxy] = {}
        self._lock = threading.Lock()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self._pool.close()
        for pool in self._proxies.values():
            pool.close()

    def _pool_for(self, proxy: Proxy | None) -> httpcore.ConnectionPool:
        """Return the pool of direct connections, or the one through ``proxy``."""
        if proxy is None:
            return self._pool
        with self._lock:
            pool = self._proxies.get(proxy)
            if pool is None:
                auth = None
                if proxy.auth is not None:
                    auth = (proxy.auth[0].encode("utf-8"), proxy.auth[1].encode("utf-8"))
                pool = self._proxies[proxy] = httpcore.HTTPProxy(
                    proxy_url=proxy.url,
                    proxy_auth=auth,
                    max_connections=self._connections,
                    max_keepalive_connections=self._connections,
                    network_backend=_Backend(),
                )
            return pool

    def post(
        self,
        url: str,
        headers: Mapping[str, str],
        content: bytes,
        deadline: float,
        proxy: Proxy | None = None,
    ) -> Reply:
        """POST ``content`` to ``url``; the whole exchange ends within ``deadline`` seconds.

        With ``proxy`` the request goes through it (a CONNECT tunnel for https). Never
        raises for what the network, the proxy or the server does: a timeout, a refused
        connection or a reply past the cap comes back as ``failure``.
        """
        sent = {**headers, "accept-encoding": "gzip, deflate"}
        pool = self._pool_for(proxy)
        with _deadline(time.monotonic() + deadline):
            status: int | None = None
            got: dict[str, str] = {}
            try:
                with pool.stream(
                    "POST", url, headers=list(sent.items()), content=content
                ) as response:
                    status = response.status
                    got = {
                        k.decode("latin-1").lower(): v.decode("latin-1")
                        for k, v in response.headers
                    }
                    body, failure = self._read(response, got.get("content-encoding", ""))
            except httpcore.TimeoutException:
                return Reply(status, b"", got, f"no complete reply within {deadline:g}s")
            except (httpcore.NetworkError, httpcore.ProtocolError, httpcore.ProxyError) as error:
                reason = str(error) or type(error).__name__
                return Reply(status, b"", got, f"{type(error).__name__}: {reason}")
            except httpcore.UnsupportedProtocol as error:
                return Reply(None, b"", got, f"unsupported URL: {error}")
        return Reply(status, body, got, failure)

    def _read(self, response: httpcore.Response, encoding: str) -> tuple[bytes, str | None]:
        """Return the inflated body, or what was read with why the rest was not."""
        name = encoding.strip().lower()
        if name not in _ENCODINGS and name != "":
            return b"", f"reply in an encoding not asked for: {encoding[:40]!r}"
        inflate = _inflater(name)
        cap = self.max_reply
        body = bytearray()
        raw = 0
        for chunk in response.iter_stream():
            raw += len(chunk)
            if raw > cap:
                return bytes(body), f"reply larger than {_size(cap)}; read no further"
            try:
                body += inflate(chunk, cap - len(body))
            except _TooLarge:
                return bytes(body), f"reply larger than {_size(cap)} inflated; read no further"
            except zlib.error as error:
                return bytes(body), f"reply not valid {name}: {error}"
        return bytes(body), None


class _TooLarge(Exception):
    """The inflated reply passed the cap."""


def _inflater(name: str) -> Any:
    """Return ``inflate(chunk, room)``: the chunk's bytes, raising past ``room``."""
    if name in ("", "identity"):

        def plain(chunk: bytes, room: int) -> bytes:
            if len(chunk) > room:
                raise _TooLarge
            return chunk

        return plain
    # gzip has its header; deflate is zlib-wrapped, though some servers send it raw
    state = {"d": zlib.decompressobj(zlib.MAX_WBITS | 16 if "gzip" in name else zlib.MAX_WBITS)}
    first = [True]

    def inflate(chunk: bytes, room: int) -> bytes:
        d = state["d"]
        try:
            out = d.decompress(chunk, room + 1)
        except zlib.error:
            if not (first[0] and name == "deflate"):
                raise
            state["d"] = d = zlib.decompressobj(-zlib.MAX_WBITS)
            out = d.decompress(chunk, room + 1)
        first[0] = False
        if len(out) > room or d.unconsumed_tail:
            raise _TooLarge
        return bytes(out)

    return inflate


def _size(count: int) -> str:
    return f"{count // (1024 * 1024)} MB" if count % (1024 * 1024) == 0 else f"{count} bytes"


@contextmanager
def _deadline(when: float) -> Iterator[None]:
    before = getattr(_local, "deadline", None)
    _local.deadline = when
    try:
        yield
    finally:
        _local.deadline = before
