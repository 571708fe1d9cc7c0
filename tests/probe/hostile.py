"""A loopback HTTP server whose replies attack the client reading them.

Each server has one ``mode``:

- ``bomb``: 200, ``content-encoding: gzip``, about 1 MB of gzip that inflates to 1 GiB;
- ``huge``: 200 with a 20 MB body;
- ``drip``: 200 headers, then the body one byte every ``interval`` seconds;
- ``drip-headers``: the status line and headers themselves one byte at a time;
- ``deflate-raw``: 200, ``content-encoding: deflate`` sent raw (no zlib header), a
  small valid chat reply, as some servers do;
- ``brotli``: 200 claiming ``content-encoding: br``, which the client never asked for.

Every request is counted in ``requests``; the server stops writing when the client
goes away.
"""

from __future__ import annotations

import contextlib
import json
import struct
import threading
import zlib
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODES = ("bomb", "huge", "drip", "drip-headers", "deflate-raw", "brotli")
HUGE = 20 * 1024 * 1024
_MIB = 1 << 20


@cache
def gzip_bomb(mebibytes: int = 1024) -> bytes:
    """Return a gzip member that inflates to ``mebibytes`` MiB of zeros (about 1 KB per MiB).

    Deflate blocks ended by a full flush do not refer back, so the block for one MiB
    is compressed once and repeated.
    """
    compressor = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    zeros = bytes(_MIB)
    block = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    end = compressor.flush()
    crc = 0
    for _ in range(mebibytes):
        crc = zlib.crc32(zeros, crc)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    trailer = struct.pack("<II", crc, (mebibytes * _MIB) & 0xFFFFFFFF)
    return header + block * mebibytes + end + trailer


def chat_reply(text: str) -> bytes:
    """Return an OpenAI chat completion carrying ``text``."""
    message = {"role": "assistant", "content": text}
    return json.dumps({"choices": [{"index": 0, "message": message}]}).encode()


class HostileServer:
    """A threaded HTTP server on 127.0.0.1 that answers every POST in its ``mode``."""

    def __init__(self, mode: str, *, interval: float = 0.5) -> None:
        assert mode in MODES
        self.mode = mode
        self.interval = interval
        self.requests = 0
        self._stop = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                self.rfile.read(length)
                server.requests += 1
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    server.answer(self)  # (until the client gives up)
                self.close_connection = True

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def base_url(self) -> str:
        """Return the base URL of an OpenAI-style engine on this server."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> HostileServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def answer(self, request: BaseHTTPRequestHandler) -> None:
        out = request.wfile
        if self.mode == "drip-headers":
            head = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n" + b"x" * 4096
            for byte in head:
                if self._stop.wait(self.interval):
                    return
                out.write(bytes([byte]))
                out.flush()
            return
        if self.mode == "bomb":
            body = gzip_bomb()
            headers = {"content-encoding": "gzip"}
        elif self.mode == "huge":
            body = b'{"choices": "' + b"a" * (HUGE - 20) + b'"}'
            headers = {}
        elif self.mode == "deflate-raw":
            compressor = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
            body = compressor.compress(chat_reply("the code")) + compressor.flush()
            headers = {"content-encoding": "deflate"}
        elif self.mode == "brotli":
            body = b"\x0b\x02\x80hello\x03"
            headers = {"content-encoding": "br"}
        else:  # drip
            body = b" " * 10_000
            headers = {}
        request.send_response(200)
        request.send_header("content-type", "application/json")
        request.send_header("content-length", str(len(body)))
        for name, value in headers.items():
            request.send_header(name, value)
        request.end_headers()
        if self.mode == "drip":
            for index in range(len(body)):
                if self._stop.wait(self.interval):
                    return
                out.write(body[index : index + 1])
                out.flush()
            return
        view = memoryview(body)
        for start in range(0, len(body), 65536):
            out.write(view[start : start + 65536])


__all__ = ["HUGE", "MODES", "HostileServer", "chat_reply", "gzip_bomb"]
