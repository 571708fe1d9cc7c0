"""The ops commands in-process with CliRunner: vocabulary, retraction, removals, log."""

from __future__ import annotations

import json
from typing import Any

import pytest
from cli_helpers import cli, failed, ok, on_terminal, run, said, unnamed
from click.testing import CliRunner, Result
from test_cli import state
from toolwire.registry import Registry
from toolwire.registry.cli import main

EVIDENCE = ("--status", "documented", "--evidence", "a test")


def as_json(result: Result) -> Any:
    return json.loads(ok(result))


def resolved(runner: CliRunner, url: str, engine: str, model: str) -> dict[str, Any]:
    """Resolve; a model the engine does not know must be said so on stderr, else silence."""
    result = run(runner, url, "resolve", engine, model, "--explain", "--format", "json")
    assert result.exit_code == 0, result.output
    out: dict[str, Any] = json.loads(
        result.stdout if result.stderr == "" else unnamed(result, engine, model)
    )
    assert out["known"] is (result.stderr == "")
    return out


def test_capability_list_show_add(runner: CliRunner, url: str) -> None:
    names = {c["name"] for c in as_json(run(runner, url, "capability", "list", "--format", "json"))}
    assert {"image_input", "hoist_media", "pdf_input", "tool_result_url_sources"} <= names
    shown = as_json(run(runner, url, "capability", "show", "pdf_input", "--format", "json"))
    assert shown[0]["description"] == "the model reads a PDF in a user turn"
    failed(run(runner, url, "capability", "show", "pdf_inputs"), "did you mean 'pdf_input'")
    ok(run(runner, url, "capability", "add", "audio_input", "--description", "reads audio"))
    ok(run(runner, url, "claim", "set", "openai", "audio_input", "true", *EVIDENCE))
    failed(
        run(runner, url, "capability", "add", "audio_input", "--description", "x"),
        "already exists",
    )


def test_an_unknown_capability_is_refused_and_nothing_written(runner: CliRunner, url: str) -> None:
    before = state(url)
    line = failed(
        run(runner, url, "claim", "set", "openai", "image_inputs", "true", *EVIDENCE),
        "unknown capability 'image_inputs'",
        "did you mean 'image_input'",
    )
    assert "capability add" in line
    failed(
        run(runner, url, "claim", "unset", "openai", "tool_result_imagez", "--evidence", "x"),
        "did you mean 'tool_result_images'",
    )
    assert state(url) == before


def test_claim_unset_falls_through_in_resolve(runner: CliRunner, url: str) -> None:
    set_out = run(
        runner, url, "claim", "set", "openai", "image_input", "false", "--model", "lab-9", *EVIDENCE
    )
    assert set_out.exit_code == 0
    assert set_out.stderr == "recorded new model lab-9 on openai\n"
    assert resolved(runner, url, "openai", "lab-9")["trace"]["image_input"]["decided_by"] == (
        "model"
    )
    said(
        cli(
            runner,
            url,
            "claim unset openai image_input --model lab-9 --reason 'recorded on the wrong model'",
        ),
        "retracted the image_input claim (false, documented) on model lab-9 of openai",
    )
    after = resolved(runner, url, "openai", "lab-9")
    assert after["capabilities"]["image_input"] is True
    assert after["trace"]["image_input"]["decided_by"] == "engine"
    history = as_json(
        run(runner, url, "claim", "history", "openai", "--model", "lab-9", "--format", "json")
    )
    assert [(e["action"], e["old_value"], e["new_value"]) for e in history][-1] == (
        "retract",
        False,
        None,
    )
    failed(
        cli(runner, url, "claim unset openai image_input --model lab-9 --evidence again"),
        "no image_input claim",
    )
    # an empty or undecodable reason is refused, naming the option given, and retracts nothing
    for command, option in (
        ("claim unset openai image_input --reason ' '", "'--reason'"),
        ("claim unset openai image_input --evidence ''", "'--evidence'"),
    ):
        failed(cli(runner, url, command), option, "it is empty", code=2)
    undecodable = run(
        runner, url, "claim", "unset", "openai", "image_input", "--reason", "a\udcffb"
    )
    failed(undecodable, "'--reason'", "lone surrogates", code=2)
    assert resolved(runner, url, "openai", "lab-9")["capabilities"]["image_input"] is True
    # a second claim set on a recorded model says nothing on stderr
    ok(
        run(
            runner,
            url,
            "claim",
            "set",
            "openai",
            "image_input",
            "true",
            "--model",
            "lab-9",
            *EVIDENCE,
        )
    )


def test_rule_remove_and_move(runner: CliRunner, url: str) -> None:
    (rule,) = as_json(
        run(runner, url, "rule", "add", "openai", "lab-.*", "--regex", "--format", "json")
    )
    ref = rule["ref"]
    ok(run(runner, url, "claim", "set", "openai", "image_input", "false", "--rule", ref, *EVIDENCE))
    assert resolved(runner, url, "openai", "lab-1")["capabilities"]["image_input"] is False
    assert resolved(runner, url, "openai", "lab-1")["trace"]["image_input"]["decided_by"] == (
        f"{ref} regex 'lab-.*'"
    )
    (moved,) = as_json(
        run(runner, url, "rule", "move", "openai", ref, "--position", "1", "--format", "json")
    )
    assert (moved["ref"], moved["position"]) == (ref, 1)
    listed = as_json(run(runner, url, "rule", "list", "openai", "--format", "json"))
    assert listed[0]["ref"] == ref
    said(
        run(runner, url, "rule", "remove", "openai", ref[5:], "--reason", "not a family"),
        f"removed {ref} from openai with 1 claim",
    )
    assert resolved(runner, url, "openai", "lab-1")["capabilities"]["image_input"] is True
    log = as_json(run(runner, url, "log", "--engine", "openai", "--limit", "5", "--format", "json"))
    assert log[0]["what"] == "rule remove" and log[0]["subject"] == ref
    assert log[0]["changes"]["pattern"] == {"old": "lab-.*", "new": None}
    assert any(e["what"] == "rule move" for e in log)
    failed(run(runner, url, "rule", "remove", "openai", ref), "has no rule")


def test_model_remove(runner: CliRunner, url: str) -> None:
    ok(run(runner, url, "model", "add", "openai", "typo-model"))
    said(
        run(runner, url, "model", "remove", "openai", "typo-model"),
        "removed model typo-model from openai with 0 claims",
    )
    failed(run(runner, url, "model", "remove", "openai", "typo-model"), "has no model")


def test_engine_remove_refuses_unless_forced(runner: CliRunner, url: str) -> None:
    before = state(url)
    failed(run(runner, url, "engine", "remove", "openai"), "still has", "--force")
    assert state(url) == before
    ok(run(runner, url, "model", "add", "openai", "lab-1"))
    with Registry(url) as registry:
        snapshot = registry.engine_snapshot("openai")
        claims = len(registry.claims(engine="openai"))
    assert (len(snapshot.models), len(snapshot.rules) > 1, claims > 1) == (1, True, True)
    said(
        run(runner, url, "engine", "remove", "openai", "--force", "--reason", "retired"),
        f"removed engine openai with {claims} claims, 1 model and {len(snapshot.rules)} rules",
    )
    failed(run(runner, url, "engine", "show", "openai"), "unknown engine")
    whats = {
        e["what"]
        for e in as_json(run(runner, url, "log", "--engine", "openai", "--format", "json"))
    }
    assert {"engine remove", "rule remove"} <= whats
    with Registry(url) as registry:
        assert registry.claim_history("openai")[-1].action == "remove"


def test_log_in_three_formats(runner: CliRunner, url: str) -> None:
    assert (
        run(
            runner,
            url,
            "claim",
            "set",
            "gemini",
            "image_input",
            "false",
            "--model",
            "g-1",
            *EVIDENCE,
            "--source",
            "https://example.test",
            "--by",
            "bo",
        ).exit_code
        == 0
    )
    table = ok(run(runner, url, "log", "--by", "bo", "--wide"))
    assert "claim image_input set" in table and "source: - -> https://example.test" in table
    rows = as_json(run(runner, url, "log", "--by", "bo", "--format", "json"))
    assert {r["actor"] for r in rows} == {"bo"}
    csv_out = ok(run(runner, url, "log", "--by", "bo", "--format", "csv"))
    assert csv_out.splitlines()[0].startswith("occurred_at,actor,engine")
    failed(
        run(runner, url, "claim", "set", "gemini", "image_input", "false", *EVIDENCE, "--by", ""),
        "recorded_by",
    )


def test_verified_at_in_the_future_is_refused(runner: CliRunner, url: str) -> None:
    failed(
        run(
            runner,
            url,
            "claim",
            "set",
            "gemini",
            "image_input",
            "false",
            *EVIDENCE,
            "--verified-at",
            "2999-01-01",
        ),
        "in the future",
    )


def test_main_is_importable_without_the_database_layer() -> None:
    import subprocess
    import sys

    code = (
        "import sys, toolwire.registry.cli as c; c.main.commands; "
        "print(sorted(m for m in ('alembic',) if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert main.commands  # every noun is registered


@pytest.mark.parametrize(
    ("command", "printed"),
    [
        (["resolve", "openai", "gpt-4o"], "wire: openai"),
        (["format", "anthropic", "claude-sonnet-4-5", "examples/report.json"], '"tool_result"'),
    ],
)
def test_reading_commands_on_a_ready_database_load_neither_the_orm_nor_alembic(
    url: str, command: list[str], printed: str
) -> None:
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import sys; from toolwire.registry.cli import main\n"
        f"try: main({['--database-url', url, *command]!r})\n"
        "except SystemExit as end: assert not end.code, end.code\n"
        "print(sorted(m for m in ('sqlalchemy.orm', 'alembic') if m in sys.modules))"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root
    )
    assert out.stdout.strip().splitlines()[-1] == "[]"
    assert printed in out.stdout  # the command did its work


def test_columns_and_wide(runner: CliRunner, url: str) -> None:
    out = ok(run(runner, url, "engine", "list", "--columns", "name,kind"))
    assert out.splitlines()[0].split() == ["NAME", "KIND"]
    rows = as_json(run(runner, url, "engine", "list", "--columns", "kind,name", "--format", "json"))
    assert list(rows[0]) == ["kind", "name"]
    failed(run(runner, url, "engine", "list", "--columns", "nope"), "unknown column", "available")
    failed(run(runner, url, "engine", "list", "--columns", ""), "no column", "available")
    twice = ok(run(runner, url, "engine", "list", "--columns", "name,NAME,kind"))
    assert twice.splitlines()[0].split() == ["NAME", "KIND"]  # a column shows once
    cut = on_terminal(url, "audit", "--engine", "openai", columns=60)
    assert all(len(line) <= 60 for line in cut.splitlines())
    assert "EVIDENCE" not in cut.splitlines()[0]  # left out; the key columns whole
    wide = on_terminal(url, "audit", "--engine", "openai", "--wide", columns=60)
    assert "…" not in wide and max(len(line) for line in wide.splitlines()) > 60
    # into a pipe (CliRunner's stdout is none), every cell is whole, as with --wide
    narrow = CliRunner(env={"TOOLWIRE_USER": "ops", "COLUMNS": "60"})
    piped = ok(run(narrow, url, "audit", "--engine", "openai"))
    assert piped == wide


def test_json_output_is_one_document_everywhere(runner: CliRunner, url: str) -> None:
    for args in (
        ("engine", "show", "openai"),
        ("model", "show", "openai", "gpt-4o"),
        ("db", "current"),
        ("log", "--limit", "3"),
        ("capability", "list"),
        ("rule", "list", "openai"),
    ):
        json.loads(ok(run(runner, url, *args, "--format", "json")))


@pytest.mark.parametrize(
    "args",
    [
        ("engine", "show", "open\udcffai"),
        ("model", "show", "openai", "gpt\udcff"),
        ("claim", "set", "openai", "image_input", "true", *EVIDENCE, "--source", "s\udcff"),
        (
            "claim",
            "set",
            "openai",
            "image_input",
            "true",
            "--status",
            "documented",
            "--evidence",
            "e\x00",
        ),
        ("resolve", "openai", "gpt-\udcff"),
        ("claim", "history", "open\udcffai"),
        ("log", "--by", "x\udcff"),
        (
            "engine",
            "add",
            "e1",
            "--provider",
            "p" * 300,
            "--family",
            "f",
            "--wire",
            "openai",
            "--kind",
            "shim",
        ),
    ],
)
def test_text_that_no_backend_stores_is_one_line(
    runner: CliRunner, url: str, args: tuple[str, ...]
) -> None:
    before = state(url)
    failed(run(runner, url, *args))
    assert state(url) == before


@pytest.mark.parametrize(
    "database",
    ["postgresql+psycopg://u@127.0.0.1:notaport/db", "sqlite:///a\x00b", "garbage", "://"],
)
def test_garbage_database_urls_are_one_line(runner: CliRunner, database: str) -> None:
    failed(runner.invoke(main, ["--database-url", database, "engine", "list"]))


def test_audit_and_explain_show_what_capabilities_mean(runner: CliRunner, url: str) -> None:
    args = ("audit", "--engine", "openai", "--capability", "image_input")
    table = ok(run(runner, url, *args, "--legend"))
    assert "capabilities:\n  image_input" in table and "reads images" in table
    assert "capabilities:" not in ok(run(runner, url, *args))  # into a pipe: rows only
    rows = as_json(run(runner, url, "audit", "--engine", "openai", "--format", "json"))
    assert all(r["description"] for r in rows)
    text = unnamed(run(runner, url, "resolve", "openai", "gpt-4o", "--explain"), "openai", "gpt-4o")
    assert "flag meanings:" in text and "natively" in text
    data = resolved(runner, url, "openai", "gpt-4o")
    assert data["flag_meanings"]["source_blocks"].startswith("the endpoint takes document")
