"""The OpenAPI document is the contract: generated requests to the running server.

schemathesis reads ``/openapi.json`` of a ``toolwire serve`` subprocess and sends
generated bodies, paths and headers to every route (a bounded number of examples):
no answer may be a 5xx, and every answer must match the document (status, content
type, headers, body schema).
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from served import TOKEN, Served
from toolwire.server._openapi import openapi_document


@pytest.fixture
def contract_server(shared_server: Served) -> Served:
    return shared_server


@pytest.fixture(scope="session")
def api_schema(shared_server: Served) -> Any:
    return schemathesis.openapi.from_url(
        shared_server.base + "/openapi.json",
        headers={"Authorization": f"Bearer {TOKEN}"},
    )


CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]

#: Every (method, path) the document names: the test runs once per route.
ROUTES = [
    (method.upper(), path)
    for path, methods in openapi_document(auth=True)["paths"].items()
    for method in methods
]


@pytest.mark.parametrize(("method", "path"), ROUTES, ids=[f"{m} {p}" for m, p in ROUTES])
def test_every_route_keeps_to_the_document(
    api_schema: Any, contract_server: Served, method: str, path: str
) -> None:
    operation = api_schema[path][method]

    @given(case=operation.as_strategy())
    @settings(
        max_examples=10,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
        database=None,
    )
    def check(case: Any) -> None:
        case.call_and_validate(
            base_url=contract_server.base,
            headers={"Authorization": f"Bearer {TOKEN}"},
            checks=CHECKS,
        )

    check()
