"""Fixtures of the probe tests: one loopback provider server per wire, sqlite registries."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# The strict SDK checks of the converter tests (tests/convert/convert_checks.py).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "convert"))

from providers import ProviderServer, all_servers, missing_ocr_tools
from toolwire.registry.store import Registry


@pytest.fixture(autouse=True)
def no_aws_credentials(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Keep the AWS credential chain to what a test sets: no files, no instance metadata."""
    nowhere = tmp_path_factory.getbasetemp() / "no-aws"
    for name in ("AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"):
        monkeypatch.setenv(name, str(nowhere / name.lower()))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    for name in (
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_PROFILE",
        "AWS_REGION",
        "AWS_DEFAULT_REGION",
        "AWS_BEARER_TOKEN_BEDROCK",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def servers() -> Iterator[dict[str, ProviderServer]]:
    """Start one provider server per wire for the session."""
    started = all_servers()
    yield started
    for server in started.values():
        server.stop()


@pytest.fixture
def server_checks(servers: dict[str, ProviderServer]) -> Iterator[None]:
    """Fail the test when a server found a request its SDK types reject."""
    for server in servers.values():
        server.failures.clear()
    yield
    failures = [f"{w}: {f}" for w, s in servers.items() for f in s.failures]
    assert failures == []


@pytest.fixture
def ocr() -> None:
    """Skip, with the reason, where the OCR tools are not installed (CI installs them)."""
    missing = missing_ocr_tools()
    if missing:
        pytest.skip(
            f"OCR tools missing: {', '.join(missing)} (apt-get install tesseract-ocr poppler-utils)"
        )


@pytest.fixture
def sqlite_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Return the URL of a fresh seeded SQLite registry."""
    path = tmp_path / "registry.sqlite3"
    shutil.copyfile(request.getfixturevalue("seeded_templates").get(request, "sqlite"), path)
    return f"sqlite:///{path}"


@pytest.fixture
def sqlite_registry(sqlite_url: str) -> Iterator[Registry]:
    """Return a seeded Registry on SQLite."""
    with Registry(sqlite_url) as opened:
        yield opened
