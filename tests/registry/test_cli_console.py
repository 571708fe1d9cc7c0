"""The console's manners: filters that catch typos, exit codes, messages that name the fix.

Run in-process with CliRunner (SQLite and PostgreSQL where the database plays a part);
the read-only registries run the CLI and the library as another user.
"""

from __future__ import annotations

import json
import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import observe_helpers
import pytest
from cli_helpers import failed, ok, ops_runner, run, said
from click.testing import CliRunner
from toolwire.registry import ReadOnlyRegistry, Registry
from toolwire.registry.cli import main

REPO = Path(__file__).resolve().parents[2]
EVIDENCE = ("--status", "documented", "--evidence", "a test")


def observe(url: str, model: str, scenario: str, outcome: str) -> None:
    """Append one observation of ``model`` on anthropic, as a probe would."""
    with Registry(url) as registry:
        observe_helpers.observe(
            registry,
            engine="anthropic",
            model=model,
            wire="anthropic",
            scenario=scenario,
            outcome=outcome,
        )


# -- filters ------------------------------------------------------------------------


#: What ``audit --engine opneai`` and ``model list --engine opneai`` said already.
OPNEAI = "unknown engine 'opneai'; did you mean 'openai' or 'aki-openai'?"


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (("audit", "--engine", "opneai"), OPNEAI),
        (("model", "list", "--engine", "opneai"), OPNEAI),
        (("claim", "history", "opneai"), OPNEAI),
        (("log", "--engine", "opneai"), OPNEAI),
        (("observation", "list", "opneai"), OPNEAI),
        (
            ("audit", "--capability", "tool_result_imgs"),
            "unknown capability 'tool_result_imgs'; did you mean 'tool_result_images'?",
        ),
        (
            ("audit", "--conflicts", "--capability", "tool_result_imgs"),
            "unknown capability 'tool_result_imgs'; did you mean 'tool_result_images'?",
        ),
        (
            ("audit", "--stale", "--capability", "tool_result_imgs"),
            "unknown capability 'tool_result_imgs'; did you mean 'tool_result_images'?",
        ),
        (
            ("audit", "--unobserved", "--capability", "image_inptu"),
            "unknown capability 'image_inptu'; did you mean 'image_input'?",
        ),
        (
            ("claim", "history", "openai", "--capability", "image_inptu"),
            "unknown capability 'image_inptu'; did you mean 'image_input'?",
        ),
        (
            ("audit", "--status", "documnted"),
            "unknown evidence status 'documnted'; did you mean 'documented'?",
        ),
        (
            ("observation", "list", "--scenario", "tool_result_imgs"),
            "unknown scenario 'tool_result_imgs'; did you mean 'tool_result_images'?",
        ),
        (
            ("observation", "list", "--outcome", "reed"),
            "unknown outcome 'reed'; did you mean 'read'?",
        ),
        (
            ("claim", "history", "minimax-anthropic", "--model", "MiniMax-M2.7-visoin"),
            "unknown model 'MiniMax-M2.7-visoin'; did you mean 'MiniMax-M2.7-vision'?",
        ),
    ],
)
def test_a_filter_naming_nothing_known_fails_with_the_closest_names(
    runner: CliRunner, url: str, args: tuple[str, ...], line: str
) -> None:
    if "--model" in args:
        ok(run(runner, url, "model", "add", "minimax-anthropic", "MiniMax-M2.7-vision"))
    shown = failed(run(runner, url, *args), code=1)
    assert shown == f"Error: {line}" or shown.startswith(f"Error: {line[:-1]} or "), shown


def test_a_filter_that_is_known_but_matches_nothing_prints_none(
    runner: CliRunner, url: str
) -> None:
    out = ok(run(runner, url, "observation", "list", "openai", "--outcome", "read"))
    assert out.splitlines()[-1] == "(none)"
    out = ok(run(runner, url, "log", "--engine", "openai", "--by", "nobody-here"))
    assert out.splitlines()[-1] == "(none)"
    observe(url, "claude-observed-only", "image_input", "read")  # observed, never recorded
    found = json.loads(
        ok(
            run(
                runner,
                url,
                *("observation", "list", "--model", "claude-observed-only"),
                *("--outcome", "ignored", "--format", "json"),
            )
        )
    )
    assert found == []


def test_history_filters_know_removed_engines(runner: CliRunner, url: str) -> None:
    """History and the log are kept by name: a removed engine is still a known filter."""
    ok(
        run(
            runner,
            url,
            *("engine", "add", "old", "--provider", "p", "--family", "openai"),
            *("--wire", "openai", "--kind", "shim"),
        )
    )
    ok(run(runner, url, "claim", "set", "old", "image_input", "true", *EVIDENCE))
    said(
        run(runner, url, "engine", "remove", "old", "--force"),
        "removed engine old with 1 claim",
    )
    events = json.loads(ok(run(runner, url, "claim", "history", "old", "--format", "json")))
    assert [e["action"] for e in events] == ["set", "remove"]
    out = ok(run(runner, url, "log", "--engine", "old", "--by", "somebody-else"))
    assert out.splitlines()[-1] == "(none)"


def test_a_filter_with_nothing_to_match_says_so(runner: CliRunner, url: str) -> None:
    line = failed(run(runner, url, "observation", "list", "--model", "gpt-4oo"), code=1)
    assert line == "Error: unknown model 'gpt-4oo'; no model is known here"


def test_claim_unset_takes_reason_and_its_old_name_once(runner: CliRunner, url: str) -> None:
    unset = ("claim", "unset", "anthropic", "source_blocks")
    failed(run(runner, url, *unset), "Missing option '--reason'", code=2)
    failed(
        run(runner, url, *unset, "--reason", "a", "--evidence", "b"), "give --reason once", code=2
    )
    help_text = ok(run(runner, url, *unset, "--help"))
    assert "--reason" in help_text and "--evidence" not in help_text  # a hidden alias
    said(
        run(runner, url, *unset, "--reason", "the endpoint dropped them"),
        "retracted the source_blocks claim (true, documented) on engine anthropic",
    )
    with Registry(url) as registry:
        assert registry.claim_history("anthropic", capability="source_blocks")[-1].reason == (
            "the endpoint dropped them"
        )


# -- audit --exit-code ------------------------------------------------------------


def test_audit_exit_code_says_whether_anything_was_listed(runner: CliRunner, url: str) -> None:
    listed = run(runner, url, "audit", "--engine", "openai", "--exit-code")
    assert listed.exit_code == 1 and listed.stdout.count("\n") > 2, listed.output
    assert listed.stderr == ""
    nothing = run(runner, url, "audit", "--conflicts", "--exit-code")
    assert (nothing.exit_code, nothing.stdout.splitlines()[-1]) == (0, "(none)")
    assert run(runner, url, "audit", "--conflicts").exit_code == 0  # as before
    observe(url, "claude-sonnet-4-5", "tool_result_images", "ignored")
    conflicts = run(runner, url, "audit", "--conflicts", "--exit-code", "--format", "json")
    assert conflicts.exit_code == 1
    assert [r["capability"] for r in json.loads(conflicts.stdout)] == ["tool_result_images"]
    assert run(runner, url, "audit", "--conflicts").exit_code == 0  # only with --exit-code
    unobserved = run(runner, url, "audit", "--unobserved", "--engine", "anthropic", "--exit-code")
    assert unobserved.exit_code == 1
    none = run(runner, url, "audit", "--status", "live-verified", "--engine", "openai")
    assert none.stdout.splitlines()[-1] == "(none)"
    none = run(
        runner, url, "audit", "--status", "live-verified", "--engine", "openai", "--exit-code"
    )
    assert (none.exit_code, none.stdout.splitlines()[-1]) == (0, "(none)")


# -- messages -------------------------------------------------------------------------


def test_a_bare_path_is_told_the_sqlite_url(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "reg.sqlite3"
    line = failed(runner.invoke(main, ["--database-url", str(path), "engine", "list"]), code=1)
    assert line == (
        f"Error: cannot open database: {str(path)!r} is not a database URL; for an SQLite "
        f"file give sqlite:///{path} (the URL came from --database-url)"
    )
    assert f"sqlite:////{str(path).lstrip('/')}" in line  # four slashes: an absolute path


def test_a_file_that_is_no_database_is_named_with_where_the_url_came_from(
    tmp_path: Path,
) -> None:
    path = tmp_path / "notes.sqlite3"
    path.write_text("these are notes, not a database\n" * 100)
    runner = ops_runner(TOOLWIRE_DATABASE_URL=f"sqlite:///{path}")
    line = failed(runner.invoke(main, ["engine", "list"]), code=1)
    assert line == (
        f"Error: cannot open database: {path} is not an SQLite database (file is not a "
        "database); point the URL at a toolwire registry (the URL came from "
        "TOOLWIRE_DATABASE_URL)"
    )


def test_the_install_hint_names_the_checkout_it_was_installed_from() -> None:
    from importlib import metadata

    from toolwire.registry._paths import install_hint

    found = [d.read_text("direct_url.json") for d in metadata.distributions(name="toolwire")]
    raw = next((r for r in found if r), "{}")
    if not json.loads(raw).get("dir_info", {}).get("editable"):
        pytest.skip("toolwire is not installed editable from this checkout here")
    assert install_hint("probe") == f"pip install -e '{REPO}[probe]'"


def test_counts_agree_with_their_nouns(runner: CliRunner, url: str) -> None:
    ok(
        run(
            runner,
            url,
            *("engine", "add", "solo", "--provider", "p", "--family", "openai"),
            *("--wire", "openai", "--kind", "shim"),
        )
    )
    ok(run(runner, url, "claim", "set", "solo", "image_input", "true", *EVIDENCE))
    line = failed(run(runner, url, "engine", "remove", "solo"), code=1)
    assert "still has 1 claim;" in line
    line = failed(
        run(runner, url, "claim", "set", "solo", "pdf_input", "true", *EVIDENCE, "--by", "x" * 129)
    )
    assert line.endswith("at most 128 characters")


#: ``{count} nouns`` in an f-string: the count may be 1 (write ``plural(count, "noun")``).
_COUNTED = re.compile(
    r"\{(?:len\([^{}]*\)|[a-z_][a-z0-9_.]*)\} "
    r"(?:claims|models|rules|engines|entries|requests|scenarios|observations|changes|items"
    r"|rows|events|results|capabilities|days|characters|seconds|files)\b(?! \{)"
)  # (not the verb: "{where} claims {value}")
#: Counts that are limits, never 1.
_LIMITS = ("longer than {longest} characters",)
#: ``at most N`` with nothing after the number: at most 128 what?
_UNITLESS = re.compile(r"at most (?:\d+|\{[^{}]*\})[\"')]")


def test_no_message_counts_without_agreeing_or_without_a_unit() -> None:
    slips = []
    for path in sorted((REPO / "registry").rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if any(limit in line for limit in _LIMITS):
                continue
            if _COUNTED.search(line) or _UNITLESS.search(line):
                slips.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert slips == []
    # the patterns do catch the slips they are for
    assert _COUNTED.search('f"still has {n} claims"') and _COUNTED.search('f"{len(x)} entries"')
    assert not _COUNTED.search('f"{where} claims {value}"')
    assert _UNITLESS.search('"one line, at most 128")') and not _UNITLESS.search("at most 5 s")


# -- read-only registries ---------------------------------------------------------


def _other_user() -> dict[str, int]:
    """Return the uid and gid of a user who is not root ({} when this is not root)."""
    if os.geteuid() != 0:
        return {}
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv(1) to run as another user")
    for name in ("nobody", "daemon"):
        try:
            record = pwd.getpwnam(name)
        except KeyError:
            continue
        return {"user": record.pw_uid, "group": record.pw_gid}
    pytest.skip("running as root with no unprivileged user (nobody, daemon) to run as")


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A directory another user can reach (pytest's tmp_path is private to root)."""
    top = Path(tempfile.mkdtemp(prefix="toolwire-ro-"))
    top.chmod(0o755)
    yield top
    for path in (top, *top.rglob("*")):
        if path.is_dir():
            path.chmod(0o755)
    shutil.rmtree(top)


def _built(directory: Path) -> Path:
    directory.mkdir()
    path = directory / "registry.sqlite3"
    with Registry(f"sqlite:///{path}") as registry:
        registry.add_model("openai", "ops-model", created_by="ops")
    names = {p.name for p in directory.iterdir()}
    assert names == {"registry.sqlite3", "registry.sqlite3.lock"}  # no -wal or -shm
    path.chmod(0o444)
    return path


def _as_other_user(*argv: str) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` as the user of ``_other_user``, without any capability (setpriv)."""
    user = _other_user()
    prefix = []
    if user:
        prefix = [
            "setpriv",
            f"--reuid={user['user']}",
            f"--regid={user['group']}",
            "--clear-groups",
            "--inh-caps=-all",
        ]
    done = subprocess.run(
        [*prefix, *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": os.environ.get("PATH", "/usr/bin"), "TOOLWIRE_USER": "reader"},
        cwd="/",
        check=False,
    )
    if done.returncode == 127 or "setpriv:" in done.stderr:
        pytest.skip(f"cannot run as another user here: {done.stderr.strip()[:200]}")
    return done


def _cli(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return _as_other_user(
        sys.executable, "-m", "toolwire.registry.cli", "--database-url", url, *args
    )


@pytest.mark.parametrize(
    ("layout", "reason", "side_files"),
    [
        ("file 0444, directory 0555", "the file is not writable", False),
        ("file 0444, directory the reader's", "the file is not writable", True),
        ("file the reader's, directory 0555", "its directory {dir} is not writable", False),
    ],
)
def test_a_registry_the_user_cannot_write_is_read_and_refuses_writes(
    shared_dir: Path, layout: str, reason: str, side_files: bool
) -> None:
    directory = shared_dir / "registry"
    path = _built(directory)
    user = _other_user()
    if layout.endswith("directory 0555"):
        directory.chmod(0o555)
    if layout.startswith("file the reader's"):
        path.chmod(0o644)
        if user:
            os.chown(path, user["user"], user["group"])
    if layout.endswith("the reader's") and user:
        os.chown(directory, user["user"], user["group"])
    url = f"sqlite:///{path}"
    before = path.read_bytes()
    engines = _cli(url, "engine", "list", "--format", "json")
    assert engines.returncode == 0, engines.stderr
    assert "openai" in {row["name"] for row in json.loads(engines.stdout)}
    models = _cli(url, "model", "list", "--engine", "openai", "--format", "json")
    assert [m["model_id"] for m in json.loads(models.stdout)] == ["ops-model"]
    resolved = _cli(url, "resolve", "anthropic", "claude-sonnet-4-5", "--format", "json")
    assert json.loads(resolved.stdout)["wire"] == "anthropic", resolved.stderr
    audit = _cli(url, "audit", "--engine", "openai")
    assert audit.returncode == 0 and "image_input" in audit.stdout, audit.stderr
    write = _cli(url, "claim", "set", "openai", "image_input", "false", *EVIDENCE)
    assert write.returncode == 1 and write.stdout == ""
    assert write.stderr == (
        f"Error: the registry at {path} is read-only ({reason.format(dir=directory)}); reads "
        "work; a write needs write access to the file and its directory\n"
    )
    assert path.read_bytes() == before
    leftovers = {p.name for p in directory.iterdir()} - {
        "registry.sqlite3",
        "registry.sqlite3.lock",
    }
    # mode=ro where SQLite may make its -wal/-shm files, immutable where it may not
    assert leftovers <= {"registry.sqlite3-wal", "registry.sqlite3-shm"}
    if not side_files:
        assert leftovers == set()


def test_the_library_reads_a_read_only_registry_too(shared_dir: Path) -> None:
    path = _built(shared_dir / "registry")
    (shared_dir / "registry").chmod(0o555)
    script = (
        "import os\n"
        "from toolwire.registry import ReadOnlyRegistry, Registry, format_for\n"
        f"print(os.geteuid() != 0, os.access({str(path)!r}, os.W_OK))\n"
        f"registry = Registry({f'sqlite:///{path}'!r})\n"
        "print(sorted(m.model_id for m in registry.models('openai')))\n"
        "print(format_for('openai', 'gpt-4o', [], registry=registry))\n"
        "try:\n"
        "    registry.add_model('openai', 'x', created_by='reader')\n"
        "except ReadOnlyRegistry as error:\n"
        "    print(type(error).__name__, isinstance(error, RuntimeError), error)\n"
    )
    done = _as_other_user(sys.executable, "-c", script)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "True False",  # not root, and no right to write the file
        "['ops-model']",
        "[]",
        f"ReadOnlyRegistry True the registry at {path} is read-only (the file is not "
        "writable); reads work; a write needs write access to the file and its directory",
    ]
    assert issubclass(ReadOnlyRegistry, RuntimeError)


# -- format --report --------------------------------------------------------------------


def _big_png_result(tmp_path: Path) -> Path:
    import base64
    import struct
    import zlib

    def chunk(tag: bytes, data: bytes) -> bytes:
        body = tag + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b"")
    png += b"\x00" * (10 * 1024 * 1024 - len(png) + 5)  # padded past anthropic's limit
    result = {
        "content": [
            {"type": "text", "text": "the chart"},
            {"type": "image", "mimeType": "image/png", "data": base64.b64encode(png).decode()},
        ]
    }
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"id": "toolu_9", "name": "chart", "result": result}))
    return path


def test_format_report_says_why_an_item_became_a_placeholder(
    runner: CliRunner, url: str, tmp_path: Path
) -> None:
    path = _big_png_result(tmp_path)
    plain = run(runner, url, "format", "anthropic", "claude-sonnet-4-5", str(path))
    reported = run(runner, url, "format", "anthropic", "claude-sonnet-4-5", str(path), "--report")
    assert reported.exit_code == 0 and reported.stdout == plain.stdout  # the payload as before
    assert "[image] image/png (10485" in reported.stdout
    lines = reported.stderr.splitlines()
    assert lines[0].split() == ["RESULT", "ITEM", "TYPE", "MIME", "SIZE", "OUTCOME", "REASON"]
    assert lines[1].split() == ["toolu_9", "0", "text", "text"]
    image = lines[2].split(None, 6)
    assert image[:4] == ["toolu_9", "1", "image", "image/png"]
    assert image[4].startswith("10485") and image[5:] == [
        "bytes",
        "placeholder  over the provider's size limit",
    ]
    document = json.loads(
        ok(
            run(
                runner,
                url,
                *("format", "anthropic", "claude-sonnet-4-5", str(path)),
                *("--report", "--format", "json"),
            )
        )
    )
    assert set(document) == {"messages", "report"}
    assert document["messages"] == json.loads(plain.stdout)
    (entry,) = document["report"]
    assert (entry["result"], entry["id"], entry["name"]) == (0, "toolu_9", "chart")
    assert [(i["type"], i["outcome"], i["reason"]) for i in entry["items"]] == [
        ("text", "text", None),
        ("image", "placeholder", "too_large"),
    ]
    assert entry["items"][1]["message"] == (
        "image (image/png) not shown to the model (a placeholder instead): "
        "over the provider's size limit"
    )
    # --format json without --report: the payload, as before
    assert (
        ok(
            run(
                runner,
                url,
                "format",
                "anthropic",
                "claude-sonnet-4-5",
                str(path),
                "--format",
                "json",
            )
        )
        == plain.stdout
    )
