"""The strict base64 check's methods: tests that read payloads run under each one.

A module opts in with ``pytestmark = pytest.mark.usefixtures("strict_check")``
(or a fixture that takes ``strict_check``): each of its tests then runs once
with the standard-library ``translate`` method and once with ``pybase64`` (the
``speed`` extra, in the ``test`` extra too), skipped with the reason where it is
not installed.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from toolwire.convert import _base64


@pytest.fixture(params=["translate", "pybase64"])
def strict_check(request: pytest.FixtureRequest) -> Iterator[str]:
    """Run the test with ``_base64.clean`` set to one method; yield its name."""
    name: str = request.param
    if name not in _base64.methods():
        pytest.skip(f"{name} is not installed (pip install 'toolwire[speed]')")
    before = _base64.clean, _base64._method
    _base64.use(name)
    yield name
    _base64.clean, _base64._method = before
