"""export / import / diff, through the library and the CLI, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from cli_helpers import failed, noted, ok, run, said
from click.testing import CliRunner
from toolwire.registry import NoRegistry, Registry
from toolwire.registry.cli import main
from toolwire.registry.transfer import diff, dump_toml, export, import_document, read_document

EVIDENCE = ("--status", "documented", "--evidence", "a test")


def _operate(runner: CliRunner, url: str) -> None:
    """Make registry A differ from the seed in every kind of way."""
    ok(run(runner, url, "capability", "add", "audio_input", "--description", "reads audio"))
    noted(
        run(
            runner,
            url,
            "claim",
            "set",
            "openai",
            "audio_input",
            "true",
            "--model",
            "gpt-x",
            *EVIDENCE,
            "--verified-at",
            "2026-11-02",
            "--source",
            'quote " and \\ back',
        )
    )
    rule = json.loads(
        ok(run(runner, url, "rule", "add", "openai", "lab-.*", "--regex", "--format", "json"))
    )[0]
    ok(
        run(
            runner,
            url,
            "claim",
            "set",
            "openai",
            "image_input",
            "false",
            "--rule",
            rule["ref"],
            *EVIDENCE,
        )
    )
    ok(run(runner, url, "rule", "move", "openai", rule["ref"], "--position", "2"))
    first = json.loads(ok(run(runner, url, "rule", "list", "gemini", "--format", "json")))[0]
    held = len(first["claims"].split(", ")) if first["claims"] else 0
    said(
        run(runner, url, "rule", "remove", "gemini", first["ref"]),
        f"removed {first['ref']} from gemini with {held} claim" + ("" if held == 1 else "s"),
    )
    # --evidence: the option's old name, still taken
    said(
        run(runner, url, "claim", "unset", "anthropic", "source_blocks", "--evidence", "gone"),
        "retracted the source_blocks claim (true, documented) on engine anthropic",
    )


def test_export_import_export_is_byte_identical(
    runner: CliRunner, seeded_database_url: str, second_database_url: str, tmp_path: Path
) -> None:
    a, b = seeded_database_url, second_database_url
    _operate(runner, a)
    first = tmp_path / "a.toml"
    ok(run(runner, a, "export", "-o", str(first)))
    ok(run(runner, b, "db", "upgrade"))
    result = run(runner, b, "import", str(first), "--by", "mover")
    assert result.exit_code == 0, result.output
    assert "a.toml: changed" in result.stderr
    second = ok(run(runner, b, "export"))
    assert second == first.read_text(encoding="utf-8")
    # the same file again changes nothing
    with Registry(b) as registry:
        revision, events = registry.revision(), len(registry.log())
    again = run(runner, b, "import", str(first))
    assert again.exit_code == 0 and again.stdout == ""
    assert "changed 0 entries" in again.stderr
    with Registry(b) as registry:
        assert (registry.revision(), len(registry.log())) == (revision, events)
        history = registry.claim_history("openai", model="gpt-x")
        assert history[-1].reason == "import a.toml" and history[-1].actor == "mover"
    # json round trip
    as_json = json.loads(ok(run(runner, a, "export", "--format", "json", "--engine", "openai")))
    assert [e["name"] for e in as_json["engine"]] == ["openai"]
    assert ok(run(runner, a, "diff", "--against", b)) == ""


def test_a_dry_run_prints_and_writes_nothing(
    runner: CliRunner, seeded_database_url: str, tmp_path: Path
) -> None:
    url = seeded_database_url
    path = tmp_path / "one.toml"
    ok(run(runner, url, "export", "--engine", "openai", "-o", str(path)))
    text = path.read_text(encoding="utf-8").replace(
        'evidence = "GPT-3.5 models are text-only"', 'evidence = "GPT-3.5 reads no images"'
    )
    path.write_text(text, encoding="utf-8")
    with Registry(url) as registry:
        before = (registry.revision(), registry.claims(engine="openai"))
    result = run(runner, url, "import", str(path), "--dry-run")
    assert result.exit_code == 0
    assert "evidence: GPT-3.5 models are text-only -> GPT-3.5 reads no images" in result.stdout
    assert "would change 1 entry" in result.stderr
    with Registry(url) as registry:
        assert (registry.revision(), registry.claims(engine="openai")) == before
    assert run(runner, url, "diff", "--against", str(path)).exit_code == 1
    assert run(runner, url, "import", str(path)).exit_code == 0
    assert ok(run(runner, url, "diff", "--against", str(path))) == ""


def test_diff_against_the_seed(runner: CliRunner, seeded_database_url: str) -> None:
    url = seeded_database_url
    assert ok(run(runner, url, "diff", "--seed")) == ""
    ok(run(runner, url, "claim", "set", "openai", "image_input", "false", *EVIDENCE))
    result = run(runner, url, "diff", "--seed")
    assert result.exit_code == 1
    assert result.stdout.startswith("~ claim openai engine image_input: ")
    listed = json.loads(run(runner, url, "diff", "--seed", "--format", "json").stdout)
    assert listed == [
        {
            "kind": "changed",
            "entity": "claim",
            "subject": "openai engine image_input",
            "detail": listed[0]["detail"],
        }
    ]
    failed(run(runner, url, "diff"), "--against")


def test_diff_exits_2_when_it_cannot_compare(
    runner: CliRunner, seeded_database_url: str, tmp_path: Path
) -> None:
    url = seeded_database_url
    missing = run(runner, url, "diff", "--against", str(tmp_path / "nosuch.toml"))
    assert missing.exit_code == 2 and missing.stderr.count("\n") == 1, missing.stderr
    broken = tmp_path / "broken.toml"
    broken.write_text("[[engine]\n", encoding="utf-8")
    garbled = run(runner, url, "diff", "--against", str(broken))
    assert garbled.exit_code == 2 and garbled.stderr.startswith("Error: "), garbled.stderr
    both = run(runner, url, "diff", "--seed", "--against", str(broken))
    assert both.exit_code == 2 and "not both" in both.stderr
    nameless = tmp_path / "nameless.toml"  # a model table without its id
    nameless.write_text(
        "[[engine]]\nname = 'e1'\nprovider = 'P'\nfamily = 'openai'\n"
        "default_wire = 'openai'\nkind = 'shim'\n[[engine.model]]\nnote = 'x'\n",
        encoding="utf-8",
    )
    no_id = run(runner, url, "diff", "--against", str(nameless))
    assert no_id.exit_code == 2 and no_id.stderr.count("\n") == 1, no_id.stderr
    assert "model: id is required" in no_id.stderr


def test_library_diff_and_import(registry: Registry, tmp_path: Path) -> None:
    before = export(registry)
    registry.add_model("openai", "m-1", created_by="ops")
    after = export(registry)
    (change,) = diff(before, after)
    assert (change.kind, change.entity, change.subject) == ("added", "model", "openai m-1")
    path = tmp_path / "before.toml"
    path.write_text(dump_toml(before), encoding="utf-8")
    data, _ = read_document(path)
    report = import_document(registry, data, source="before.toml", by="ops")
    assert [str(c) for c in report.changes] == ["- model openai m-1"]
    assert registry.model("openai", "m-1") is None
    assert export(registry) == before


MISSING_READS = [
    ("engine", "list"),
    ("engine", "show", "openai"),
    ("model", "list"),
    ("rule", "list", "openai"),
    ("capability", "list"),
    ("audit",),
    ("resolve", "openai", "gpt-4o"),
    ("log",),
    ("diff", "--seed"),
    ("export",),
    ("db", "current"),
    ("claim", "history", "openai"),
]


@pytest.mark.parametrize("args", MISSING_READS, ids=[" ".join(a) for a in MISSING_READS])
def test_read_commands_leave_a_missing_database_missing(
    runner: CliRunner, tmp_path: Path, args: tuple[str, ...]
) -> None:
    path = tmp_path / "typo.sqlite3"
    result = runner.invoke(main, ["--database-url", f"sqlite:///{path}", *args])
    failed(result, "no toolwire registry at", "toolwire db upgrade")
    assert not path.exists() and list(tmp_path.iterdir()) == []
    env = CliRunner(env={"TOOLWIRE_DATABASE_URL": f"sqlite:///{path}"})
    failed(env.invoke(main, list(args)), "no toolwire registry at")
    assert not path.exists()


def test_a_foreign_database_is_never_migrated_into(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "app.sqlite3"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE users (id INTEGER)")
    url = f"sqlite:///{path}"
    failed(run(runner, url, "engine", "list"), "no toolwire schema")
    failed(run(runner, url, "db", "upgrade"), "other tables (users)", "--force")
    with sqlite3.connect(path) as connection:
        tables = {r[0] for r in connection.execute("SELECT name FROM sqlite_master")}
    assert tables == {"users"}
    with pytest.raises(NoRegistry):
        Registry(url)
    ok(run(runner, url, "db", "upgrade", "--force"))
    assert "openai" in ok(run(runner, url, "engine", "list"))


def test_the_library_still_sets_up_a_new_file(tmp_path: Path) -> None:
    path = tmp_path / "app-registry.sqlite3"
    with Registry(f"sqlite:///{path}") as registry:
        assert registry.engine("openai").name == "openai"
    with pytest.raises(NoRegistry):
        Registry(f"sqlite:///{tmp_path / 'other.sqlite3'}", create=False)
    assert not (tmp_path / "other.sqlite3").exists()


def test_a_new_registry_is_private_and_symlinks_are_refused(tmp_path: Path) -> None:
    import os
    import stat

    env = {
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "TOOLWIRE_USER": "ops",
        "TOOLWIRE_DATABASE_URL": None,
    }
    ok(CliRunner(env=env).invoke(main, ["engine", "list", "--columns", "name"]))
    directory = tmp_path / "data" / "toolwire"
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert stat.S_IMODE((directory / "registry.sqlite3").stat().st_mode) == 0o600
    real = tmp_path / "real.sqlite3"
    with Registry(f"sqlite:///{real}"):
        pass
    link = tmp_path / "link.sqlite3"
    os.symlink(real, link)
    runner = CliRunner(env={"TOOLWIRE_USER": "ops"})
    failed(run(runner, f"sqlite:///{link}", "engine", "list"), "symlinked database file")
    fresh = tmp_path / "fresh.sqlite3"
    os.symlink(tmp_path / "elsewhere", tmp_path / "fresh.sqlite3.lock")
    failed(run(runner, f"sqlite:///{fresh}", "db", "upgrade"), "symlinked lock file")
    assert not (tmp_path / "elsewhere").exists()


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_a_closed_pipe_exits_quietly(seeded_database_url: str) -> None:
    import os
    import subprocess
    import sys

    from toolwire.registry import ClaimInput

    with Registry(seeded_database_url) as registry:
        registry.set_claims(
            [
                ClaimInput("openai", "image_input", True, "inferred", "x" * 200, model=f"m{n}")
                for n in range(2000)
            ],
            recorded_by="bulk",
        )
    for args in (["log", "--wide"], ["export"], ["audit", "--format", "json"]):
        process = subprocess.Popen(
            [sys.executable, "-m", "toolwire.registry.cli", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "TOOLWIRE_DATABASE_URL": seeded_database_url},
        )
        assert process.stdout is not None and process.stderr is not None
        assert process.stdout.readline()
        process.stdout.close()  # as `| head -1` does
        err = process.stderr.read().decode()
        process.wait(timeout=60)
        process.stderr.close()
        assert "Traceback" not in err and "Broken pipe" not in err and "BrokenPipe" not in err
        assert err == "", err


def test_a_pipe_closed_before_the_first_line_ends_every_command_quietly(
    seeded_database_url: str,
) -> None:
    import os
    import subprocess
    import sys

    commands = (
        ["resolve", "anthropic", "claude-sonnet-4-5"],
        ["resolve", "anthropic", "claude-sonnet-4-5", "--explain"],
        ["engine", "show", "anthropic"],
        ["model", "list", "--engine", "openai"],
        ["capability", "list"],
    )
    for args in commands:
        read, write = os.pipe()
        os.close(read)  # every write now fails with EPIPE, whatever its size
        try:
            done = subprocess.run(
                [sys.executable, "-m", "toolwire.registry.cli", *args],
                stdout=write,
                stderr=subprocess.PIPE,
                text=True,
                env={**os.environ, "TOOLWIRE_DATABASE_URL": seeded_database_url},
                timeout=60,
            )
        finally:
            os.close(write)
        assert done.stderr == "", (args, done.stderr)


def test_a_registry_on_a_read_only_file_system_can_be_read(tmp_path: Path) -> None:
    """In a private mount namespace: build a registry on a tmpfs, remount it read-only."""
    import shutil
    import subprocess
    import sys

    if shutil.which("unshare") is None:
        pytest.skip("unshare(1) is not installed")
    mount = tmp_path / "ro"
    mount.mkdir()
    url = f"sqlite:///{mount / 'r.sqlite3'}"
    cli = f"{sys.executable} -m toolwire.registry.cli --database-url {url}"
    script = (
        f"mount -t tmpfs -o size=8m tmpfs {mount} || exit 77\n"
        f"{cli} db upgrade >/dev/null || exit 2\n"
        f"mount -o remount,ro {mount} || exit 77\n"
        f"{cli} engine list --columns name --format json || exit 3\n"
        f"{cli} claim set openai image_input true --status documented --evidence x\n"
        "echo write-exit=$?\n"
    )
    done = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "TOOLWIRE_USER": "ops", "HOME": str(tmp_path)},
        check=False,
    )
    if done.returncode == 77 or "unshare failed" in done.stderr:
        pytest.skip(f"no private mount namespace here: {done.stderr.strip()[:200]}")
    assert done.returncode == 0, done.stderr
    names = [row["name"] for row in json.loads(done.stdout.split("write-exit=")[0])]
    assert "openai" in names
    assert "write-exit=1" in done.stdout
    assert "is read-only (on a read-only file system)" in done.stderr
    assert "Traceback" not in done.stderr


def test_import_updates_engine_model_and_rule_fields(registry: Registry, tmp_path: Path) -> None:
    registry.add_model("openai", "noted", note="old note", created_by="ops")
    document = export(registry, ["openai"])
    table = document["engine"][0]
    table["note"] = "the Chat Completions endpoint"
    next(m for m in table["model"] if m["id"] == "noted")["note"] = "new note"
    table["rule"][0]["wire"] = "responses"
    path = tmp_path / "edited.toml"
    path.write_text(dump_toml(document), encoding="utf-8")
    data, _ = read_document(path)
    report = import_document(registry, data, source="edited.toml", by="ops")
    assert {c.entity for c in report.changes} == {"engine", "model", "rule"}
    assert export(registry, ["openai"]) == document
    updates = [e for e in registry.log(engine="openai", limit=5) if e.what.endswith("update")]
    assert {e.what for e in updates} == {"engine update", "model update", "rule update"}
    model_update = next(e for e in updates if e.what == "model update")
    assert model_update.changes["note"] == ("old note", "new note")
    again = import_document(registry, data, source="edited.toml", by="ops")
    assert again.changes == ()


def test_an_import_that_describes_a_capability_otherwise_keeps_it_and_says_so(
    runner: CliRunner, seeded_database_url: str, tmp_path: Path
) -> None:
    url = seeded_database_url
    with Registry(url) as registry:
        held = registry.capability("hoist_media")
    assert held.value_kind == "bool"
    changed = tmp_path / "cap.toml"
    changed.write_text(
        '[[capability]]\nname = "hoist_media"\ndescription = "changed"\nvalue_kind = "int"\n',
        encoding="utf-8",
    )
    result = run(runner, url, "import", str(changed))
    warning = (
        "capability hoist_media: kept as the registry holds it, not the file's "
        "description, value_kind (an import adds capabilities, it does not change them)"
    )
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr == f"warning: {warning}\ncap.toml: changed 0 entries\n"
    with Registry(url) as registry:
        assert registry.capability("hoist_media") == held
        data, _ = read_document(changed)
        report = import_document(registry, data, source="cap.toml", by="ops")
        assert report.warnings == (warning,)
        whole = tmp_path / "whole.toml"  # the registry's own export: nothing differs
        whole.write_text(dump_toml(export(registry)), encoding="utf-8")
    assert run(runner, url, "import", str(whole)).stderr == "whole.toml: changed 0 entries\n"
