"""``toolwire serve``: the HTTP service (``toolwire.server``) under uvicorn."""

from __future__ import annotations

import ipaddress
import os
import shutil
import signal
import socket
import tempfile
from pathlib import Path

import click

from ._common import Context, echo, pass_ctx

#: What the service needs beyond toolwire itself (the ``server`` extra).
_NEEDS = ("starlette", "uvicorn", "prometheus_client")


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _bindable(host: str, port: int) -> None:
    """Refuse, in one line, a host no address can be found for (before uvicorn starts)."""
    try:
        socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not a host name"
        raise click.BadParameter(f"{host!r}: {reason}", param_hint="--host") from None


@click.command(name="serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8765, show_default=True, help="Port to bind."
)
@click.option(
    "--workers",
    type=click.IntRange(1, 512),
    default=1,
    show_default=True,
    help="Worker processes (each reads the shared registry; metrics add up across them).",
)
@click.option(
    "--database-url",
    metavar="URL",
    default=None,
    help="SQLAlchemy URL of the registry (default: toolwire --database-url, "
    "TOOLWIRE_DATABASE_URL, or the default SQLite file).",
)
@click.option(
    "--token-file",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="TOOLWIRE_TOKEN_FILE",
    default=None,
    help="Require `Authorization: Bearer TOKEN` on every route but /healthz and /readyz; "
    "TOKEN is the file's first line (env TOOLWIRE_TOKEN_FILE; or give the token itself "
    "in TOOLWIRE_TOKEN).",
)
@click.option(
    "--max-body",
    type=click.IntRange(min=1),
    envvar="TOOLWIRE_MAX_BODY",
    default=32 * 1024 * 1024,
    show_default=True,
    metavar="BYTES",
    help="Largest request body (env TOOLWIRE_MAX_BODY); larger ones get 413.",
)
@click.option(
    "--graceful-timeout",
    type=click.IntRange(min=0),
    default=30,
    show_default=True,
    metavar="SECONDS",
    help="On SIGTERM, how long in-flight requests may take to finish.",
)
@click.option(
    "--log-level",
    type=click.Choice(["critical", "error", "warning", "info", "debug"]),
    default="info",
    show_default=True,
    help="uvicorn's log level.",
)
@pass_ctx
def serve_command(
    obj: Context,
    host: str,
    port: int,
    workers: int,
    database_url: str | None,
    token_file: Path | None,
    max_body: int,
    graceful_timeout: int,
    log_level: str,
) -> None:
    """Serve format, reformat, convert, resolve and the snapshot over HTTP (JSON, /v1).

    The registry is only read; a change made with the CLI is used by the next request
    of every worker and replica. Replicas share one PostgreSQL registry
    (--database-url postgresql+psycopg://...). SIGTERM lets in-flight requests finish,
    then exits 0. Routes: see GET /openapi.json, or docs/service.md.
    """
    missing = [name for name in _NEEDS if _absent(name)]
    if missing:
        raise click.ClickException(
            f"toolwire serve needs {', '.join(missing)}: pip install 'toolwire[server]'"
        )
    import uvicorn
    from toolwire.server import read_token_file

    _bindable(host, port)

    if database_url is not None:
        obj = Context(database_url, obj.busy_timeout, explicit=True)
    obj.registry().close()  # the default file is created and seeded here, once, not per worker
    url = obj.registry().url
    if token_file is not None:
        try:
            read_token_file(str(token_file))  # a bad file fails here, in one line
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
        os.environ["TOOLWIRE_TOKEN_FILE"] = str(token_file)
    secured = token_file is not None or bool(os.environ.get("TOOLWIRE_TOKEN"))
    if not secured and not _loopback(host):
        echo(
            f"warning: serving on {host} without a token: anyone who reaches the port may "
            "call it (pass --token-file)",
            err=True,
        )
    os.environ["TOOLWIRE_DATABASE_URL"] = url  # what each worker's create_app() opens
    os.environ["TOOLWIRE_MAX_BODY"] = str(max_body)
    shared = None
    if workers > 1 and not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        shared = tempfile.mkdtemp(prefix="toolwire-metrics-")
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = shared
    # uvicorn drains, then raises the signal again to end the process with it; this
    # handler turns that second signal into a normal return, so SIGTERM exits 0.
    previous = {sig: signal.signal(sig, _stopped) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        uvicorn.run(
            "toolwire.server:create_app",
            factory=True,
            host=host,
            port=port,
            workers=workers,
            log_level=log_level,
            timeout_graceful_shutdown=graceful_timeout,
            server_header=False,
        )
    except _Stopped:
        pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if shared is not None:
            shutil.rmtree(shared, ignore_errors=True)


class _Stopped(Exception):
    """The server was asked to stop (SIGTERM, SIGINT) and has drained."""


def _stopped(signum: int, frame: object) -> None:
    raise _Stopped


def _absent(module: str) -> bool:
    from importlib import import_module

    try:
        import_module(module)
    except ImportError:
        return True
    return False


COMMANDS = [serve_command]
