"""The service's one error shape, and the status each error gets.

Every error is ``{"error": {"type": NAME, "message": TEXT}}``; ``NAME`` is the
exception's class name (``UnknownEngine``, ``InvalidId``, ...) or one of the
service's own below. Exceptions the library raises are mapped by class (the first
entry of ``STATUSES`` the exception is an instance of wins):

- 400: a body that is not JSON or not of the route's shape, an MCP result or a
  wire block the converter cannot read (``InvalidToolResult``, ``InvalidBlock``);
- 401: no or a wrong bearer token;
- 404: an unknown engine or route;
- 413: a body over the limit;
- 415: a compressed body (a ``Content-Encoding``);
- 422: an option, wire, model id or call id the converter or registry refuses;
- 503: the registry cannot be read.

Anything else is a 500 whose message says nothing of the internals (the
traceback goes to the log).
"""

from __future__ import annotations

from typing import Any

from toolwire.convert import (
    InvalidBlock,
    InvalidId,
    InvalidToolResult,
    ToolwireError,
    UnknownOption,
)
from toolwire.registry import DatabaseError, UnknownEngine

__all__ = ["STATUSES", "ServiceError", "error_body", "status_of"]


class ServiceError(Exception):
    """An error the service answers with ``status`` and its own ``kind`` name."""

    def __init__(self, status: int, kind: str, message: str) -> None:
        """Hold the status, the error type name and the one-line message."""
        super().__init__(message)
        self.status = status
        self.kind = kind
        self.message = message


#: Library exception class -> HTTP status, most specific first.
STATUSES: tuple[tuple[type[BaseException], int], ...] = (
    (InvalidId, 422),
    (InvalidToolResult, 400),
    (InvalidBlock, 400),
    (UnknownEngine, 404),
    (DatabaseError, 503),
    (UnknownOption, 422),
    (ToolwireError, 422),
)


def status_of(error: BaseException) -> int | None:
    """Return the status a library exception is answered with, None when it is not one."""
    for kind, status in STATUSES:
        if isinstance(error, kind):
            return status
    return None


def error_body(kind: str, message: str) -> dict[str, Any]:
    """Return the JSON body of an error."""
    return {"error": {"type": kind, "message": message}}
