"""Fixtures of the LiteLLM tests: loopback provider servers, a registry, the callback.

LiteLLM is kept offline before it is imported: its model cost map is the copy in the
wheel (``LITELLM_LOCAL_MODEL_COST_MAP``) and its telemetry is off.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

for _name, _value in {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_TELEMETRY": "False",
    "LITELLM_DONT_SHOW_FEEDBACK_BOX": "True",
    "LITELLM_MODE": "PRODUCTION",
}.items():
    os.environ.setdefault(_name, _value)

_TESTS = Path(__file__).resolve().parent.parent
# the loopback providers (tests/probe/providers.py) and the SDK checks they use
sys.path[:0] = [str(_TESTS / "probe"), str(_TESTS / "convert")]

from litellm_helpers import FEW, HOISTING, litellm  # noqa: E402
from providers import ProviderServer  # noqa: E402
from toolwire.registry import Registry  # noqa: E402

if TYPE_CHECKING:
    from toolwire.integrations.litellm import ToolwireCallback

#: the provider servers, holding requests to the providers' API rules (not to the
#: converter's own output: LiteLLM writes these requests)
WIRES = ("anthropic", "openai", "gemini", "bedrock")


@pytest.fixture(autouse=True, scope="session")
def _quiet_litellm() -> None:
    """Import LiteLLM (tests/lazy.py) with its telemetry and debug hints off."""
    litellm.telemetry = False
    litellm.suppress_debug_info = True


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, ProviderServer]]:
    """Start one loopback server per wire for the module."""
    started = {wire: ProviderServer(wire, converter_checks=False).start() for wire in WIRES}
    yield started
    for server in started.values():
        server.stop()


@pytest.fixture
def server_checks(servers: dict[str, ProviderServer]) -> Iterator[None]:
    """Fail the test when a server found a request its provider's types reject."""
    for server in servers.values():
        server.failures.clear()
        server.requests.clear()
        server.raw.clear()
    yield
    assert [f"{w}: {f}" for w, s in servers.items() for f in s.failures] == []


@pytest.fixture(scope="module")
def registry_url(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> str:
    """Return a seeded SQLite registry in which openai's gpt-4o-ignorer hoists images and
    PDFs, and the models of ``FEW`` take few images (and on anthropic few PDF bytes) per
    request."""
    path = tmp_path_factory.mktemp("registry") / "registry.sqlite3"
    shutil.copyfile(request.getfixturevalue("seeded_templates").get(request, "sqlite"), path)
    url = f"sqlite:///{path}"
    with Registry(url) as opened, opened.batch() as writer:
        for capability in ("hoist_media", "pdf_input"):
            writer.set_claim(
                "openai",
                capability,
                True,
                model=HOISTING,
                status="documented",
                evidence="the model reads images and PDFs in a user turn",
                recorded_by="tests",
            )
        claims: list[tuple[str, str, bool | int]] = [
            ("openai", "hoist_media", True),
            ("openai", "pdf_input", True),
            ("anthropic", "max_pdf_request_bytes", 100),  # two of the 45-byte test PDFs
        ]
        claims += [(engine, "max_images", 3) for engine in FEW]
        for engine, capability, value in claims:
            writer.set_claim(
                engine,
                capability,
                value,
                model=FEW[engine],
                status="documented",
                evidence="a small request budget for the tests",
                recorded_by="tests",
            )
    return url


@pytest.fixture(scope="module")
def registry(registry_url: str) -> Iterator[Registry]:
    """Return the module's registry, open."""
    with Registry(registry_url) as opened:
        yield opened


@pytest.fixture
def callback(registry: Registry) -> Iterator[ToolwireCallback]:
    """Install a ToolwireCallback on the module's registry as LiteLLM's only callback."""
    from toolwire.integrations.litellm import ToolwireCallback

    installed = ToolwireCallback(registry=registry)
    before = litellm.callbacks
    litellm.callbacks = [installed]
    yield installed
    litellm.callbacks = before
