"""toolwire as an HTTP service: an ASGI app (Starlette) for gateway fleets.

``create_app(...)`` returns the app ``toolwire serve`` runs under uvicorn; run it
under any ASGI server (uvicorn, hypercorn, gunicorn with uvicorn workers) with
``toolwire.server:create_app`` as a factory. The routes, bodies and errors are
described by the OpenAPI document the app serves at ``/openapi.json``.
"""

from __future__ import annotations

from ._app import DEFAULT_MAX_BODY, create_app, read_token_file, token_from_env
from ._errors import ServiceError

ServiceError.__module__ = __name__  # its public home

__all__ = [
    "DEFAULT_MAX_BODY",
    "ServiceError",
    "create_app",
    "read_token_file",
    "token_from_env",
]
