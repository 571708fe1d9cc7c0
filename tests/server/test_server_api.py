"""The public surface of ``toolwire.server``, and the app created in-process."""

from __future__ import annotations

import inspect

import pytest
import toolwire.server as server
from openapi_spec_validator import validate
from toolwire.server._openapi import openapi_document


def test_all_is_sorted_and_complete() -> None:
    assert list(server.__all__) == sorted(server.__all__)
    public = {
        name
        for name, value in vars(server).items()
        if not name.startswith("_") and not inspect.ismodule(value) and name != "annotations"
    }
    assert set(server.__all__) == public
    assert server.ServiceError.__module__ == "toolwire.server"


@pytest.mark.parametrize("bench", [False, True])
@pytest.mark.parametrize("auth", [False, True])
def test_every_form_of_the_document_is_valid_openapi(bench: bool, auth: bool) -> None:
    document = openapi_document(bench=bench, auth=auth)
    validate(document)
    assert ("/bench/echo" in document["paths"]) is bench
    assert ("security" in document) is auth


@pytest.mark.parametrize("max_body", [0, -1, 1.5])
def test_create_app_refuses_a_bad_body_limit(max_body: object, shared_sqlite: str) -> None:
    with pytest.raises(ValueError, match="max_body"):
        server.create_app(shared_sqlite, max_body=max_body)  # type: ignore[arg-type]
