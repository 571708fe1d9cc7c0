"""Fixtures of the service tests: ``toolwire serve`` run as a user runs it.

``seeded_sqlite`` and ``seeded_postgres`` are copies of the session's seeded registry,
with a few models recorded so the snapshot and the resolve routes have something to
show; the servers themselves are started by ``served.start_server``.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from served import LIMIT, MODELS, TOKEN, Served, cli, start_server


@pytest.fixture(scope="module")
def server_factory(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Callable[..., Served]]:
    """Start servers for the module; every one still running is stopped at its end."""
    started: list[Served] = []
    directory = tmp_path_factory.mktemp("servers")

    def start(url: str, *args: str, **kwargs: Any) -> Served:
        served = start_server(url, directory, *args, **kwargs)
        started.append(served)
        return served

    yield start
    for served in started:
        served.stop()


def _record_models(url: str) -> None:
    for engine, model, extra in MODELS:
        cli(url, "model", "add", engine, model, *extra, "--by", "tests")


def _seeded_copy(request: pytest.FixtureRequest, directory: Path) -> str:
    templates = request.getfixturevalue("seeded_templates")
    path = directory / "registry.sqlite3"
    shutil.copyfile(templates.get(request, "sqlite"), path)
    url = f"sqlite:///{path}"
    _record_models(url)
    return url


@pytest.fixture(scope="module")
def seeded_sqlite(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """Return the URL of a seeded SQLite registry with the test models recorded."""
    return _seeded_copy(request, tmp_path_factory.mktemp("registry"))


@pytest.fixture(scope="session")
def shared_sqlite(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """Return the registry ``shared_server`` serves (tests must leave it as they found it)."""
    return _seeded_copy(request, tmp_path_factory.mktemp("shared"))


@pytest.fixture(scope="session")
def shared_server(shared_sqlite: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """Return one server for the session: ``TOKEN`` from a token file, a ``LIMIT`` body limit."""
    directory = tmp_path_factory.mktemp("shared-server")
    token_file = directory / "token"
    token_file.write_text(TOKEN + "\n")
    served = start_server(
        shared_sqlite, directory, "--token-file", str(token_file), "--max-body", str(LIMIT)
    )
    yield served
    served.stop()


@pytest.fixture
def seeded_postgres(request: pytest.FixtureRequest) -> Iterator[str]:
    """Return the URL of a seeded PostgreSQL registry with the test models recorded."""
    server = request.getfixturevalue("postgres_server")
    templates = request.getfixturevalue("seeded_templates")
    name = templates.copies(request).take()
    url = str(server.url(name))
    _record_models(url)
    yield url
    server.execute(f"DROP DATABASE {name} WITH (FORCE)")
