"""A small forwarding HTTP proxy on 127.0.0.1 that records what it sees.

It speaks the two forms a client uses: ``CONNECT host:port`` (a tunnel: it answers
200 and relays bytes both ways, keeping what the client sent in ``tunnelled``) and an
absolute-form request (``POST http://host:port/path``: it sends the request on in
origin form with ``connection: close`` and relays the reply). ``hosts`` maps the names
it is asked for to loopback addresses, so a test reaches a loopback server through a
name that is not loopback. Every request line and its headers go to ``seen``.

A ``mode`` other than ``forward`` answers nothing useful:

- ``drip``: the reply (a CONNECT's 200, or a request's status line and headers)
  one byte every ``interval`` seconds, without end;
- ``silent``: reads the request, then says nothing until the client goes away;
- ``refuse``: 407 Proxy Authentication Required.
"""

from __future__ import annotations

import contextlib
import socket
import socketserver
import threading
from dataclasses import dataclass, field
from typing import Any

MODES = ("forward", "drip", "silent", "refuse")


@dataclass
class Seen:
    """One request the proxy read: its request line's parts, headers and body."""

    method: str
    target: str
    headers: dict[str, str]
    body: bytes = b""


@dataclass
class _State:
    hosts: dict[str, tuple[str, int]]
    mode: str
    interval: float
    seen: list[Seen] = field(default_factory=list)
    tunnelled: bytearray = field(default_factory=bytearray)
    dripped: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    stop: threading.Event = field(default_factory=threading.Event)


class ForwardProxy:
    """A threaded forwarding proxy on 127.0.0.1 (see the module docstring)."""

    def __init__(
        self,
        hosts: dict[str, tuple[str, int]] | None = None,
        *,
        mode: str = "forward",
        interval: float = 0.1,
    ) -> None:
        assert mode in MODES
        self.state = state = _State(dict(hosts or {}), mode, interval)

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                with contextlib.suppress(OSError):
                    _serve(state, self.connection, self.rfile)

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def seen(self) -> list[Seen]:
        return self.state.seen

    @property
    def tunnelled(self) -> bytes:
        return bytes(self.state.tunnelled)

    @property
    def dripped(self) -> int:
        return self.state.dripped

    def start(self) -> ForwardProxy:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.state.stop.set()
        self._server.shutdown()
        self._server.server_close()


def _serve(state: _State, client: socket.socket, rfile: Any) -> None:
    line = rfile.readline(65537).decode("latin-1").rstrip("\r\n")
    if not line:
        return
    method, target, _ = line.split(" ", 2)
    headers: dict[str, str] = {}
    while (header := rfile.readline(65537).decode("latin-1").rstrip("\r\n")) != "":
        name, _, value = header.partition(":")
        headers[name.strip().lower()] = value.strip()
    body = rfile.read(int(headers.get("content-length") or 0)) if method != "CONNECT" else b""
    with state.lock:
        state.seen.append(Seen(method, target, headers, body))
    if state.mode == "silent":
        state.stop.wait(60)
        return
    if state.mode == "refuse":
        client.sendall(
            b"HTTP/1.1 407 Proxy Authentication Required\r\n"
            b'proxy-authenticate: Basic realm="corp"\r\ncontent-length: 0\r\n\r\n'
        )
        return
    if state.mode == "drip":
        reply = b"HTTP/1.1 200 OK\r\n" + b"x-pad: " + b"p" * 8192
        for byte in reply:
            if state.stop.wait(state.interval):
                return
            client.sendall(bytes([byte]))
            state.dripped += 1
        return
    if method == "CONNECT":
        host, _, port = target.rpartition(":")
        upstream = socket.create_connection(state.hosts.get(host, (host, int(port))), timeout=10)
        client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        _relay(state, client, rfile, upstream)
        return
    _, _, rest = target.partition("://")
    authority, slash, path = rest.partition("/")
    host, _, port = authority.rpartition(":")
    upstream = socket.create_connection(state.hosts.get(host, (host, int(port))), timeout=10)
    with upstream:
        forwarded = {k: v for k, v in headers.items() if not k.startswith("proxy-")}
        forwarded["connection"] = "close"
        head = f"{method} {slash}{path} HTTP/1.1\r\n" + "".join(
            f"{k}: {v}\r\n" for k, v in forwarded.items()
        )
        upstream.sendall(head.encode("latin-1") + b"\r\n" + body)
        while chunk := upstream.recv(65536):
            client.sendall(chunk)


def _relay(state: _State, client: socket.socket, rfile: Any, upstream: socket.socket) -> None:
    """Copy bytes both ways until either side closes; keep what the client sent."""

    def back() -> None:
        with contextlib.suppress(OSError):
            while chunk := upstream.recv(65536):
                client.sendall(chunk)
        with contextlib.suppress(OSError):
            client.shutdown(socket.SHUT_WR)

    thread = threading.Thread(target=back, daemon=True)
    thread.start()
    with upstream:
        while chunk := rfile.read1(65536):
            with state.lock:
                state.tunnelled += chunk
            upstream.sendall(chunk)
        with contextlib.suppress(OSError):
            upstream.shutdown(socket.SHUT_WR)
        thread.join(10)


def dead_port() -> int:
    """Return a loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


__all__ = ["MODES", "ForwardProxy", "Seen", "dead_port"]
