"""The console around files: input shapes, diff's exit 2, the data directory, integrity.

Each CLI test checks the exit code, that the error is one line, and that nothing was
written. Interrupts and broken pipes, which need a real process, are in
``test_console_signals.py``.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import ops_runner, run
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolwire.registry import DatabaseError, Registry, RevisionConflict
from toolwire.registry.cli import main
from toolwire.registry.transfer import export, import_document, read_document

ENGINE = {
    "name": "files-test",
    "provider": "Files",
    "family": "openai",
    "default_wire": "openai",
    "kind": "shim",
}
CLAIM = {"capability": "image_input", "value": True, "status": "documented", "evidence": "x"}


def one_line_error(result: Result, code: int = 1) -> str:
    """Assert ``result`` failed with ``code`` and one ``Error:`` line; return the line."""
    assert result.exit_code == code, (result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.stdout == ""
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1, result.stderr
    return result.stderr[len("Error: ") : -1]


def _revision(url: str) -> int:
    with Registry(url) as registry:
        return registry.revision()


# -- input files are checked by shape ---------------------------------------------------


SHAPES = [
    ('{"engine": 5}', "engine: expected an array of tables, got an integer"),
    ('{"engine": [5]}', "engine[0]: expected a table, got an integer"),
    ("[1, 2]", "expected a table at the top, got an array"),
    ('"text"', 'expected a table at the top, got a string "text"'),
    ('{"engine": [{"name": "x", "claim": {"a": 1}}]}', "engine[0].claim: expected an array"),
    ('{"capability": [[]]}', "capability[0]: expected a table, got an array"),
    ('{"evidence_policy": [{"status": "documented", "max_age_days": "9"}]}', "max_age_days"),
    (
        json.dumps({"engine": [{**ENGINE, "claim": [{**CLAIM, "value": "yes"}]}]}),
        'engine[0].claim[0].value: expected true or false, got a string "yes" '
        "(engine 'files-test')",
    ),
    (
        json.dumps({"engine": [{**ENGINE, "model": [{"id": "m", "claim": [5]}]}]}),
        "engine[0].model[0].claim[0]: expected a table, got an integer (engine 'files-test')",
    ),
    (
        json.dumps({"engine": [{**ENGINE, "claim": [{**CLAIM, "verified_at": "soon"}]}]}),
        "engine[0].claim[0].verified_at: expected a date (YYYY-MM-DD)",
    ),
]
TOML_SHAPES = [
    ("engine = 5\n", "engine: expected an array of tables, got an integer"),
    (
        "[[engine]]\nname='files-test'\nclaim = 5\n",
        "engine[0].claim: expected an array of tables, got an integer",
    ),
    ("[engine]\nname = 'x'\n", "engine: expected an array of tables, got a table"),
    (
        "[[engine]]\nname='files-test'\nprovider='p'\nfamily='f'\ndefault_wire='openai'\n"
        "kind='shim'\n[[engine.claim]]\ncapability='image_input'\nvalue = 5\n"
        "status='documented'\nevidence='x'\n",
        "engine[0].claim[0].value: expected true or false, got an integer (engine 'files-test')",
    ),
    (
        "[[engine]]\nname='files-test'\nprovider='p'\nfamily='f'\ndefault_wire='openai'\n"
        "kind='api'\n",
        "engine[0].kind: expected one of first-party, shim, gateway, self-hosted, got a "
        "string \"api\" (engine 'files-test')",
    ),
]


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [("t.json", t, e) for t, e in SHAPES]
    + [("t.toml", t, e) for t, e in TOML_SHAPES]
    + [("t.export", t, e) for t, e in SHAPES[:3]],
)
def test_import_and_diff_name_the_file_and_the_path(
    runner: CliRunner, url: str, tmp_path: Path, name: str, text: str, expected: str
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    before = _revision(url)
    for args, code in (
        (("import", str(path), "--dry-run"), 1),
        (("import", str(path)), 1),
        (("diff", "--against", str(path)), 2),
    ):
        line = one_line_error(run(runner, url, *args), code)
        assert line.startswith(f"{name}: ") and expected in line, line
    assert _revision(url) == before


def test_a_json_array_is_read_as_json_whatever_the_name(
    runner: CliRunner, url: str, tmp_path: Path
) -> None:
    (tmp_path / "doc").write_text('[{"engine": []}]', encoding="utf-8")
    (tmp_path / "broken").write_text("[1,", encoding="utf-8")
    (tmp_path / "table.txt").write_text("[[engine]]\nname = 5\n", encoding="utf-8")
    assert one_line_error(run(runner, url, "import", str(tmp_path / "doc"), "--dry-run")) == (
        "doc: expected a table at the top, got an array"
    )
    assert one_line_error(run(runner, url, "import", str(tmp_path / "broken"))).startswith(
        "broken: not valid JSON: "
    )
    # "[[engine]]" opens a TOML table: read as TOML, and checked
    assert one_line_error(run(runner, url, "import", str(tmp_path / "table.txt"))) == (
        "table.txt: engine[0].name: expected a string, got an integer"
    )


def test_a_value_the_registry_refuses_names_the_file(
    runner: CliRunner, url: str, tmp_path: Path
) -> None:
    path = tmp_path / "doc.json"
    path.write_text(json.dumps({"engine": [{**ENGINE, "default_wire": "smoke"}]}), "utf-8")
    before = _revision(url)
    line = one_line_error(run(runner, url, "import", str(path)))
    assert line.startswith("doc.json: ") and "'smoke'" in line, line
    assert _revision(url) == before


def test_the_library_reader_says_the_same(tmp_path: Path) -> None:
    from toolwire.registry import InvalidSeed

    path = tmp_path / "t.json"
    path.write_text('{"engine": [5]}', encoding="utf-8")
    with pytest.raises(InvalidSeed, match=r"^t\.json: engine\[0\]: expected a table, got an"):
        read_document(path)


# -- random documents never reach a traceback -------------------------------------------

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=12),
)
_JUNK = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=8,
)


def _maybe(value: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    """Mostly ``value``, sometimes junk in its place."""
    return st.one_of(value, value, value, value, value, _JUNK)


_CLAIM = st.fixed_dictionaries(
    {
        "capability": _maybe(st.sampled_from(["image_input", "pdf_input", "nope", ""])),
        "value": _maybe(st.booleans()),
        "status": _maybe(st.sampled_from(["documented", "inferred", "bogus"])),
        "evidence": _maybe(st.text(max_size=8)),
    },
    optional={
        "source": _maybe(st.text(max_size=8)),
        "verified_at": _maybe(st.sampled_from(["2026-01-02", "2026-13-01", "x"])),
    },
)
_CLAIMS = _maybe(st.lists(_maybe(_CLAIM), max_size=2))
_ENGINE = st.fixed_dictionaries(
    {
        "name": _maybe(st.sampled_from(["openai", "files-test", "Bad Name", ""])),
        "provider": _maybe(st.just("p")),
        "family": _maybe(st.just("openai")),
        "default_wire": _maybe(st.sampled_from(["openai", "gemini", "smoke"])),
        "kind": _maybe(st.sampled_from(["shim", "gateway", "api"])),
    },
    optional={
        "claim": _CLAIMS,
        "rule": _maybe(
            st.lists(
                _maybe(
                    st.fixed_dictionaries(
                        {"exact": _maybe(st.sampled_from(["m-1", "gpt-4o"]))},
                        optional={"regex": _maybe(st.sampled_from(["^x", "(", ".*"]))},
                    )
                ),
                max_size=2,
            )
        ),
        "model": _maybe(
            st.lists(
                _maybe(
                    st.fixed_dictionaries(
                        {"id": _maybe(st.sampled_from(["m-1", "a b", ""]))},
                        optional={"claim": _CLAIMS, "wire": _maybe(st.just("openai"))},
                    )
                ),
                max_size=2,
            )
        ),
        "note": _maybe(st.text(max_size=8)),
    },
)
_DOCUMENTS = st.one_of(
    _JUNK,
    st.fixed_dictionaries(
        {},
        optional={
            "engine": _maybe(st.lists(_maybe(_ENGINE), max_size=2)),
            "capability": _maybe(
                st.lists(
                    _maybe(
                        st.fixed_dictionaries(
                            {"name": _maybe(st.just("new_cap")), "description": _JUNK}
                        )
                    ),
                    max_size=1,
                )
            ),
            "evidence_policy": _maybe(
                st.lists(
                    _maybe(
                        st.fixed_dictionaries(
                            {
                                "status": _maybe(st.just("inferred")),
                                "max_age_days": _maybe(st.integers(-5, 10**6)),
                            }
                        )
                    ),
                    max_size=1,
                )
            ),
        },
    ),
)


def _toml_text(document: object) -> str | None:
    """Return ``document`` as TOML where the export writer can write it (else None)."""
    from toolwire.registry.transfer import dump_toml

    try:
        return dump_toml(document) if isinstance(document, dict) else None  # type: ignore[arg-type]
    except (TypeError, AttributeError):
        return None


@pytest.fixture(scope="module")
def fuzz_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("fuzz") / "registry.sqlite3"
    Registry(f"sqlite:///{path}").close()
    return f"sqlite:///{path}"


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(document=_DOCUMENTS, as_toml=st.booleans())
def test_random_documents_end_in_exit_0_1_or_2_never_a_traceback(
    fuzz_url: str, tmp_path_factory: pytest.TempPathFactory, document: object, as_toml: bool
) -> None:
    text = _toml_text(document) if as_toml else None
    name = "doc.toml" if text is not None else "doc.json"
    if text is None:
        text = json.dumps(document)
    path = tmp_path_factory.mktemp("doc") / name
    path.write_text(text, encoding="utf-8")
    runner = ops_runner()
    before = _revision(fuzz_url)
    imported = run(runner, fuzz_url, "import", str(path), "--dry-run")
    assert imported.exit_code in (0, 1), (text, imported.output, imported.exception)
    if imported.exit_code == 1:
        one_line_error(imported)
    compared = run(runner, fuzz_url, "diff", "--against", str(path))
    # 0 same, 1 they differ, 2 the file cannot be read (a document of the wrong shape)
    assert compared.exit_code in (0, 1, 2), (text, compared.output, compared.exception)
    assert compared.exception is None or isinstance(compared.exception, SystemExit)
    if compared.exit_code == 2:
        one_line_error(compared, 2)
    assert _revision(fuzz_url) == before  # a dry run writes nothing


# -- --expect-revision -----------------------------------------------------------------


def test_import_expect_revision_refuses_a_registry_that_moved(
    runner: CliRunner, url: str, tmp_path: Path
) -> None:
    path = tmp_path / "openai.toml"
    assert run(runner, url, "export", "--engine", "openai", "-o", str(path)).exit_code == 0
    seen = _revision(url)
    with Registry(url) as registry:
        registry.add_model("openai", "moved-1", created_by="someone")
    line = one_line_error(run(runner, url, "import", str(path), "--expect-revision", str(seen)))
    assert line == (
        f"openai.toml: the registry is at revision {seen + 1}, not {seen}: it changed since; "
        "export it again, or import without --expect-revision to overwrite"
    )
    with Registry(url) as registry:
        assert "moved-1" in {m.model_id for m in registry.models("openai")}
        assert registry.revision() == seen + 1
    done = run(runner, url, "import", str(path), "--expect-revision", str(seen + 1))
    assert done.exit_code == 0, done.output
    with Registry(url) as registry:
        assert "moved-1" not in {m.model_id for m in registry.models("openai")}


def test_library_import_expect_revision(registry: Registry, tmp_path: Path) -> None:
    path = tmp_path / "e.json"
    path.write_text(json.dumps({"engine": [{**ENGINE, "claim": [CLAIM]}]}), "utf-8")
    data, _ = read_document(path)
    with pytest.raises(RevisionConflict, match="not 0"):
        import_document(registry, data, source="e.json", by="ops", expect_revision=0)
    assert "files-test" not in {e.name for e in registry.engines()}
    report = import_document(
        registry, data, source="e.json", by="ops", expect_revision=registry.revision()
    )
    assert report.changes and "files-test" in {e.name for e in registry.engines()}


# -- diff exits 2 whenever the other side cannot be opened -------------------------------


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("postgresql refused", "Connection refused"),
        ("mysql without a driver", "database driver"),
        ("sqlite in a missing directory", "no toolwire registry at"),
        ("sqlite file that is no registry", "no toolwire registry at"),
        ("missing file", "No such file or directory"),
        ("a directory", "Is a directory"),
        ("unreadable file", "Permission denied"),
        ("not UTF-8", "not UTF-8 text"),
    ],
)
def test_diff_exits_2_when_the_other_side_cannot_be_read(
    runner: CliRunner, url: str, tmp_path: Path, kind: str, expected: str
) -> None:
    against = {
        "postgresql refused": f"postgresql+psycopg://u@127.0.0.1:{_closed_port()}/x",
        "mysql without a driver": "mysql://u@127.0.0.1/x",
        "sqlite in a missing directory": f"sqlite:///{tmp_path}/no/such/dir/r.sqlite3",
        "sqlite file that is no registry": f"sqlite:///{tmp_path}/empty.sqlite3",
        "missing file": str(tmp_path / "nosuch.toml"),
        "a directory": str(tmp_path),
        "unreadable file": str(tmp_path / "secret.toml"),
        "not UTF-8": str(tmp_path / "latin1.toml"),
    }[kind]
    if kind == "sqlite file that is no registry":
        sqlite3.connect(tmp_path / "empty.sqlite3").close()
    if kind == "unreadable file":
        if os.geteuid() == 0:
            pytest.skip("root reads any file")
        Path(against).write_text("", encoding="utf-8")
        Path(against).chmod(0)
    if kind == "not UTF-8":
        Path(against).write_bytes(b"note = '\xe9'\n")
    line = one_line_error(run(runner, url, "diff", "--against", against), 2)
    assert expected in line, line
    assert not (tmp_path / "no").exists()


def test_diff_exits_2_for_a_missing_postgresql_database(
    runner: CliRunner, url: str, postgres_server: object
) -> None:
    missing = postgres_server.url("toolwire_no_such_database")  # type: ignore[attr-defined]
    line = one_line_error(run(runner, url, "diff", "--against", missing), 2)
    assert 'database "toolwire_no_such_database" does not exist' in line, line


def test_diff_exit_1_means_they_differ(runner: CliRunner, url: str, tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite3"
    with Registry(f"sqlite:///{other}") as registry:
        registry.add_model("openai", "only-there", created_by="ops")
    differ = run(runner, url, "diff", "--against", f"sqlite:///{other}")
    assert differ.exit_code == 1 and "only-there" in differ.stdout, differ.output
    same = run(runner, url, "diff", "--against", url)
    assert same.exit_code == 0 and same.stdout == "", same.output


# -- the data directory ------------------------------------------------------------------


def _python(code: str, env: dict[str, str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": os.environ.get("PATH", "/usr/bin"), **env},
        check=False,
        **kwargs,  # type: ignore[arg-type]
    )


def test_no_writable_home_is_a_toolwire_error_naming_the_fixes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.write_text("", encoding="utf-8")  # HOME is a file: nobody can create under it
    code = (
        "from toolwire.registry import DatabaseError, format_for\n"
        "try:\n"
        "    format_for('openai', 'gpt-4o', [])\n"
        "except DatabaseError as error:\n"
        "    print(isinstance(error, OSError), error.__suppress_context__, error)\n"
    )
    done = _python(code, {"HOME": str(home)})
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        f"False True cannot create the data directory {home}/.local/share/toolwire (Not a "
        f"directory: {home}/.local); set XDG_DATA_HOME to a writable directory, "
        "TOOLWIRE_DATABASE_URL to a registry's database URL, or TOOLWIRE_DATABASE_URL=sqlite:// "
        "for an in-memory registry (seeded at start, gone at exit)\n"
    )
    cli = ops_runner(HOME=str(home), XDG_DATA_HOME=None)
    line = one_line_error(cli.invoke(main, ["engine", "list"]))
    assert line.startswith(f"cannot create the data directory {home}/.local/share/toolwire")
    memory = ops_runner(HOME=str(home), TOOLWIRE_DATABASE_URL="sqlite://")
    listed = memory.invoke(main, ["resolve", "openai", "gpt-4o", "--format", "json"])
    assert listed.exit_code == 0 and json.loads(listed.stdout)["wire"] == "openai", listed.output


def test_as_a_container_user_with_home_nonexistent(tmp_path: Path) -> None:
    import shutil

    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv(1) to run as nobody")
    done = subprocess.run(
        [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--inh-caps=-all",
            sys.executable,
            "-m",
            "toolwire.registry.cli",
            "engine",
            "list",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": os.environ.get("PATH", "/usr/bin"), "HOME": "/nonexistent"},
        cwd="/",
        check=False,
    )
    if "setpriv:" in done.stderr or "Permission denied: '" in done.stderr:
        pytest.skip(f"cannot run as nobody here: {done.stderr[:200]}")
    assert done.returncode == 1 and done.stdout == ""
    assert (
        done.stderr.startswith(
            "Error: cannot create the data directory /nonexistent/.local/share/toolwire "
            "(Permission denied: /nonexistent); set XDG_DATA_HOME"
        )
        and done.stderr.count("\n") == 1
    ), done.stderr


def test_the_data_directory_and_its_parents_are_0700_under_umask_000(tmp_path: Path) -> None:
    code = (
        "import os\n"
        "os.umask(0)\n"
        "from toolwire.registry import db\n"
        "print(db.default_database_url())\n"
    )
    done = _python(code, {"XDG_DATA_HOME": str(tmp_path / "a" / "b")})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"sqlite:///{tmp_path}/a/b/toolwire/registry.sqlite3"
    for level in (tmp_path / "a", tmp_path / "a" / "b", tmp_path / "a" / "b" / "toolwire"):
        assert level.stat().st_mode & 0o777 == 0o700, level
    home = tmp_path / "h"
    home.mkdir()
    assert _python(code, {"HOME": str(home)}).returncode == 0
    for level in (home / ".local", home / ".local" / "share", home / ".local/share/toolwire"):
        assert level.stat().st_mode & 0o777 == 0o700, level


def test_a_shared_default_registry_file_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TOOLWIRE_DATABASE_URL", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    path = tmp_path / "toolwire" / "registry.sqlite3"
    Registry().close()
    assert path.exists()
    path.chmod(0o664)
    with pytest.raises(DatabaseError) as caught:
        Registry()
    assert str(caught.value) == (
        f"refusing the registry file {path}: group or others may write to it (mode 664); "
        f"chmod go-w {path}"
    )
    runner = ops_runner(XDG_DATA_HOME=str(tmp_path))
    assert one_line_error(runner.invoke(main, ["engine", "list"])) == str(caught.value)
    # named explicitly, it is the user's choice
    named = runner.invoke(main, ["--database-url", f"sqlite:///{path}", "engine", "list"])
    assert named.exit_code == 0, named.output
    path.chmod(0o600)
    (tmp_path / "toolwire").chmod(0o777)
    with pytest.raises(DatabaseError, match=r"refusing the data directory .*mode 777"):
        Registry()
    (tmp_path / "toolwire").chmod(0o700)
    if os.geteuid() == 0:
        os.chown(path, 65534, 65534)
        with pytest.raises(DatabaseError, match=r"belongs to uid 65534, not to you \(uid 0\)"):
            Registry()


# -- disk full -----------------------------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path: Path) -> Path:
    """Mount a 2 MiB tmpfs (root only) and return it; unmounted after the test."""
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {done.stderr.strip()[:200]}")
    yield mount  # type: ignore[misc]
    subprocess.run(["umount", str(mount)], check=False)


def test_a_full_disk_is_said_as_such(small_disk: Path, tmp_path: Path) -> None:
    made = tmp_path / "made.sqlite3"
    Registry(f"sqlite:///{made}").close()
    path = small_disk / "registry.sqlite3"
    path.write_bytes(made.read_bytes())
    path.chmod(0o600)
    filler = small_disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while True:
            os.write(fd, b"\0" * 512)
    except OSError:  # ENOSPC: the disk is full now
        pass
    finally:
        os.close(fd)
    url = f"sqlite:///{path}"
    before = path.read_bytes()
    result = run(
        ops_runner(),
        url,
        "claim",
        "set",
        "openai",
        "image_input",
        "false",
        "--model",
        "m" * 200,
        "--status",
        "documented",
        "--evidence",
        "e" * 4000,
    )
    line = one_line_error(result)
    assert "the disk is full" in line, line
    filler.unlink()
    assert path.read_bytes() == before


# -- db check and export's quick_check ----------------------------------------------------


def _corrupt_an_index(path: Path) -> None:
    """Overwrite the first bytes of an index's root page (its b-tree header)."""
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page_size = connection.execute("PRAGMA page_size").fetchone()[0]
    (page,) = connection.execute(
        "SELECT rootpage FROM sqlite_master WHERE type = 'index' AND name LIKE 'ix_%' "
        "ORDER BY rootpage DESC"
    ).fetchone()
    connection.close()
    with path.open("r+b") as handle:
        handle.seek((page - 1) * page_size)
        handle.write(b"\xff" * 64)


def test_db_check_and_export_refuse_a_corrupt_file(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "registry.sqlite3"
    Registry(f"sqlite:///{path}").close()
    url = f"sqlite:///{path}"
    fine = run(runner, url, "db", "check")
    assert fine.exit_code == 0, fine.output
    assert fine.stdout == f"ok: integrity_check found no problem in {path}\n"
    _corrupt_an_index(path)
    damaged = path.read_bytes()
    checked = run(runner, url, "db", "check")
    assert checked.exit_code == 1 and checked.stdout, checked.output
    assert checked.stderr.startswith("Error: integrity_check found ") and (
        checked.stderr.count("\n") == 1
    )
    output = tmp_path / "out.toml"
    exported = run(runner, url, "export", "-o", str(output))
    line = one_line_error(exported)
    assert line.startswith(f"refusing to export {url}: the file is corrupt (quick_check: ")
    assert line.endswith("run 'toolwire db check'")
    assert not output.exists() and path.read_bytes() == damaged
    with Registry(url) as registry, pytest.raises(DatabaseError, match="quick_check"):
        export(registry)


def test_db_check_on_postgresql_says_it_runs_nothing(
    runner: CliRunner, seeded_database_url: str, backend: str
) -> None:
    checked = run(runner, seeded_database_url, "db", "check")
    assert checked.exit_code == 0, checked.output
    if backend == "postgresql":
        assert checked.stdout == (
            "postgresql: nothing to run (the server checks its own pages); nothing checked\n"
        )
    else:
        assert checked.stdout.startswith("ok: integrity_check found no problem in ")


# -- format's input ------------------------------------------------------------------------


def test_format_takes_a_bare_call_tool_result_where_the_wire_has_no_id_rule(
    runner: CliRunner, url: str, tmp_path: Path
) -> None:
    path = tmp_path / "result.json"
    path.write_text('{"content": [{"type": "text", "text": "hi"}]}', encoding="utf-8")
    done = run(runner, url, "format", "gemini", "gemini-2.5-pro", str(path), "--name", "search")
    assert done.exit_code == 0, done.output
    (message,) = json.loads(done.stdout)
    assert message["parts"] == [
        {"functionResponse": {"name": "search", "response": {"result": "hi"}}}
    ]
    unnamed = run(runner, url, "format", "gemini", "gemini-2.5-pro", str(path))
    assert one_line_error(unnamed) == (
        "the result has no tool name, which the gemini wire needs: give one with --name"
    )
    # a wire that pairs by id still needs one
    assert one_line_error(run(runner, url, "format", "openai", "gpt-4o", str(path))) == (
        "the result has no id: give one with --id"
    )


# -- in a container --------------------------------------------------------------------------


def test_an_in_memory_registry_is_one_database_for_every_thread() -> None:
    import threading

    with Registry("sqlite://") as registry:
        registry.add_model("openai", "memory-1", created_by="ops")
        found: list[object] = []

        def read() -> None:
            try:
                found.append({m.model_id for m in registry.models("openai")})
            except Exception as error:  # reported by the assertion below
                found.append(error)

        threads = [threading.Thread(target=read) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert found == [{"memory-1"}] * 4
        with Registry("sqlite://") as other:  # another in-memory registry is another one
            assert "memory-1" not in {m.model_id for m in other.models("openai")}


def test_the_cli_creates_and_seeds_an_in_memory_registry() -> None:
    runner = ops_runner(TOOLWIRE_DATABASE_URL="sqlite://")
    listed = runner.invoke(main, ["engine", "list", "--format", "json"])
    assert listed.exit_code == 0, listed.output
    assert "openai" in {row["name"] for row in json.loads(listed.stdout)}


def test_a_registry_baked_into_a_read_only_image_serves_a_container_user(
    tmp_path: Path,
) -> None:
    import shutil
    import tempfile

    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root (mount, setpriv) to build the container's view")
    top = Path(tempfile.mkdtemp(prefix="toolwire-image-"))
    top.chmod(0o755)
    image, view = top / "image", top / "view"
    image.mkdir(mode=0o755)
    view.mkdir(mode=0o755)
    path = image / "registry.sqlite3"
    with Registry(f"sqlite:///{path}") as registry:
        registry.add_model("openai", "baked-1", created_by="ops")
    path.chmod(0o644)
    mounted = subprocess.run(
        ["mount", "--bind", "-o", "ro", str(image), str(view)], capture_output=True, check=False
    )
    if mounted.returncode != 0:
        shutil.rmtree(top)
        pytest.skip("cannot bind-mount read-only here")
    url = f"sqlite:///{view / 'registry.sqlite3'}"
    env = {"PATH": os.environ.get("PATH", "/usr/bin"), "HOME": "/nonexistent"}
    as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all"]

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*as_nobody, sys.executable, "-m", "toolwire.registry.cli", *args],
            capture_output=True,
            text=True,
            timeout=120,
            env={**env, "TOOLWIRE_DATABASE_URL": url},
            cwd="/",
            check=False,
        )

    try:
        library = subprocess.run(
            [
                *as_nobody,
                sys.executable,
                "-c",
                "from toolwire.convert import ToolResult\n"
                "from toolwire.registry import format_for\n"
                "print(format_for('openai', 'gpt-4o', [ToolResult(name='t', id='c1', "
                "content=[])]))",
            ],
            capture_output=True,
            text=True,
            timeout=120,
            env={**env, "TOOLWIRE_DATABASE_URL": url},
            cwd="/",
            check=False,
        )
        if "Permission denied: '" in library.stderr:
            pytest.skip("this Python cannot run as nobody here")
        assert library.returncode == 0, library.stderr
        assert "'tool_call_id': 'c1'" in library.stdout
        models = cli("model", "list", "--engine", "openai", "--format", "json")
        assert [m["model_id"] for m in json.loads(models.stdout)] == ["baked-1"], models.stderr
        checked = cli("db", "check")
        assert (
            checked.stdout == f"ok: integrity_check found no problem in {view}/registry.sqlite3\n"
        )
        write = cli(
            "claim",
            "set",
            "openai",
            "image_input",
            "false",
            "--status",
            "documented",
            "--evidence",
            "x",
        )
        assert write.returncode == 1 and write.stderr.count("\n") == 1
        assert "is read-only (on a read-only file system)" in write.stderr
    finally:
        subprocess.run(["umount", str(view)], check=False)
        shutil.rmtree(top)


_CONTENT_ITEM = st.fixed_dictionaries(
    {"type": _maybe(st.sampled_from(["text", "image", "resource", "resource_link", "audio"]))},
    optional={
        "text": _maybe(st.text(max_size=6)),
        "data": _maybe(st.sampled_from(["aGk=", "!!", ""])),
        "mimeType": _maybe(st.sampled_from(["image/png", "application/pdf", "x"])),
        "resource": _JUNK,
    },
)
_CALL_TOOL_RESULT = st.fixed_dictionaries(
    {"content": _maybe(st.lists(_maybe(_CONTENT_ITEM), max_size=3))},
    optional={"isError": _maybe(st.booleans()), "structuredContent": _JUNK},
)
_FORMAT_INPUT = st.one_of(
    _JUNK,
    _CALL_TOOL_RESULT,
    st.fixed_dictionaries(
        {"id": _maybe(st.just("call-1")), "name": _maybe(st.just("t")), "result": _CALL_TOOL_RESULT}
    ),
    st.lists(_maybe(_CALL_TOOL_RESULT), max_size=2),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=_FORMAT_INPUT, wire=st.sampled_from(["openai", "gemini"]))
def test_random_format_input_ends_in_exit_0_or_1_never_a_traceback(
    fuzz_url: str, tmp_path_factory: pytest.TempPathFactory, data: object, wire: str
) -> None:
    path = tmp_path_factory.mktemp("result") / "result.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    engine, model = {"openai": ("openai", "gpt-4o"), "gemini": ("gemini", "gemini-2.5-pro")}[wire]
    done = run(ops_runner(), fuzz_url, "format", engine, model, str(path))
    assert done.exit_code in (0, 1), (data, done.output, done.exception)
    if done.exit_code == 1:
        one_line_error(done)
    else:
        json.loads(done.stdout)


def test_unknown_keys_are_named_by_path_and_cut_short(
    runner: CliRunner, url: str, tmp_path: Path
) -> None:
    path = tmp_path / "catalog.json"  # a catalog given to import by mistake
    path.write_text(json.dumps({f"model-{n:04d}": {} for n in range(3000)}), "utf-8")
    assert one_line_error(run(runner, url, "import", str(path))) == (
        'catalog.json: unknown key(s) "model-0000", "model-0001", "model-0002", '
        '"model-0003", "model-0004" and 2995 more'
    )
    claim = {**CLAIM, "bogus": 1}
    path.write_text(json.dumps({"engine": [{**ENGINE, "claim": [claim]}]}), "utf-8")
    assert one_line_error(run(runner, url, "diff", "--against", str(path)), 2) == (
        "catalog.json: engine[0].claim[0]: unknown key(s) \"bogus\" (engine 'files-test')"
    )
