"""The strict base64 check's methods: tests that read payloads run under each one.

A module opts in with ``pytestmark = pytest.mark.usefixtures("strict_check")``
(or a fixture that takes ``strict_check``): each of its tests then runs once
with the standard-library ``translate`` method, once with ``pybase64`` (the
``speed`` extra, in the ``test`` extra too) and once with ``compiled``
(toolwire's C helpers, built at install), each skipped with the reason where it
is not installed (``.ci/run`` requires the C helpers: see test_convert_speedups).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from toolwire.convert import _base64


@pytest.fixture(params=["translate", "pybase64", "compiled"])
def strict_check(request: pytest.FixtureRequest) -> Iterator[str]:
    """Run the test with ``_base64.clean`` set to one method; yield its name."""
    name: str = request.param
    if name not in _base64.methods():
        how = "pip install 'toolwire[speed]'" if name == "pybase64" else "a C compiler at install"
        pytest.skip(f"{name} is not installed ({how})")
    before = _base64.clean, _base64._method
    _base64.use(name)
    yield name
    _base64.clean, _base64._method = before
