"""The ``toolwire`` command, run in-process with click's CliRunner on a seeded database."""

from __future__ import annotations

import base64
import csv
import io
import json
import os
import sqlite3
import struct
import subprocess
import sys
import time
import zlib
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import click
import pytest
from cli_helpers import cli, failed, noted, ok, on_terminal, run, unnamed
from click.testing import CliRunner
from options_helpers import flags, limits
from toolwire.registry import Registry
from toolwire.registry import db as registry_db
from toolwire.registry.cli import main


def state(url: str) -> tuple[Any, ...]:
    """Return what a rejected write must not change."""
    with Registry(url) as opened:
        return (
            opened.revision(),
            opened.claims(),
            opened.models(),
            opened.engines(),
            opened.claim_history("minimax-anthropic"),
            opened.rules("anthropic"),
        )


@pytest.fixture
def unchanged(url: str) -> Iterator[None]:
    """Assert the database is the same after the test as before it."""
    before = state(url)
    yield
    assert state(url) == before


# -- help -------------------------------------------------------------------------------


def _commands(
    group: click.Group, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    for name, command in sorted(group.commands.items()):
        yield (*path, name), command
        if isinstance(command, click.Group):
            yield from _commands(command, (*path, name))


ALL_COMMANDS = [((), main), *_commands(main)]


def test_the_command_tree_is_complete() -> None:
    names = {" ".join(path) for path, _ in ALL_COMMANDS}
    assert names >= {
        "",
        "db upgrade",
        "db current",
        "db seed",
        "engine list",
        "engine show",
        "engine add",
        "model list",
        "model show",
        "model add",
        "rule list",
        "rule add",
        "claim set",
        "claim history",
        "audit",
        "resolve",
        "format",
        "engine remove",
        "model remove",
        "rule remove",
        "rule move",
        "claim unset",
        "capability list",
        "capability show",
        "capability add",
        "log",
        "export",
        "import",
        "diff",
        "probe",
        "observation list",
    }


@pytest.mark.parametrize(
    ("path", "command"), ALL_COMMANDS, ids=[" ".join(path) or "main" for path, _ in ALL_COMMANDS]
)
def test_every_command_has_help(
    runner: CliRunner, path: tuple[str, ...], command: click.Command
) -> None:
    assert (command.help or "").strip(), f"{path} has no docstring"
    result = runner.invoke(main, [*path, "--help"])
    out = ok(result)
    assert out.startswith("Usage: ")
    assert command.help.strip().splitlines()[0] in " ".join(out.split())  # type: ignore[union-attr]
    for param in command.params:
        if isinstance(param, click.Option) and param.name not in ("help", "version"):
            assert (param.help or "").strip(), f"{path} {param.opts} has no help"


def test_version(runner: CliRunner) -> None:
    out = ok(runner.invoke(main, ["--version"]))
    assert out.startswith("toolwire, version ")
    assert out.split()[-1][0].isdigit()


# -- db -------------------------------------------------------------------------------


def test_db_current_upgrade_and_seed(runner: CliRunner, url: str) -> None:
    head = registry_db.head_revision()
    current = ok(run(runner, url, "db", "current"))
    assert f"schema:   {head} (head {head}, up to date)" in current
    revision = int(current.split("data revision:")[1])
    assert ok(run(runner, url, "db", "upgrade")).strip() == f"schema at {head}"
    seeded = ok(run(runner, url, "db", "seed"))
    assert seeded.startswith("seeded ") and " 0 added, 0 updated, " in seeded
    assert int(ok(run(runner, url, "db", "current")).split("data revision:")[1]) == revision


def test_db_seed_leaves_operator_claims_alone(runner: CliRunner, url: str) -> None:
    ok(
        cli(
            runner,
            url,
            "claim set minimax-anthropic tool_result_images false --status live-verified "
            "--evidence 'images were ignored in a live call'",
        )
    )
    out = ok(run(runner, url, "db", "seed"))
    assert "1 operator claim left alone" in out
    with Registry(url) as opened:
        (claim,) = opened.claims(engine="minimax-anthropic", capability="tool_result_images")
    assert (claim.value, claim.status, claim.recorded_by) == (False, "live-verified", "ops")


def test_db_upgrade_creates_and_seeds_an_empty_database(
    runner: CliRunner, database_url: str
) -> None:
    failed(run(runner, database_url, "db", "current"), "no toolwire registry at", "db upgrade")
    out = ok(run(runner, database_url, "db", "upgrade"))
    assert out.strip() == f"schema at {registry_db.head_revision()} (was empty)"
    names = [
        row["name"]
        for row in json.loads(ok(run(runner, database_url, "engine", "list", "--format", "json")))
    ]
    assert "anthropic" in names and "nousresearch" in names


def test_first_use_of_the_default_database_creates_and_seeds_it(tmp_path: Path) -> None:
    runner = CliRunner(env={"TOOLWIRE_DATABASE_URL": None, "XDG_DATA_HOME": str(tmp_path)})
    database = tmp_path / "toolwire" / "registry.sqlite3"
    assert not database.exists()
    out = unnamed(
        runner.invoke(main, ["resolve", "minimax-anthropic", "MiniMax-M2.7"]),
        "minimax-anthropic",
        "MiniMax-M2.7",
    )
    assert database.is_file()
    assert "tool_result_pdf: true" in out and "tool_result_images: false" in out
    current = ok(runner.invoke(main, ["db", "current"]))
    assert str(database) in current and "up to date" in current


# -- engines, models, rules -------------------------------------------------------------


def test_engine_list_in_three_formats(runner: CliRunner, url: str) -> None:
    rows = json.loads(ok(run(runner, url, "engine", "list", "--format", "json")))
    names = [row["name"] for row in rows]
    assert names == sorted(names) and len(names) >= 30
    by_name = {row["name"]: row for row in rows}
    assert by_name["aki-openai"]["default_wire"] == "hermes"
    assert by_name["aki-anthropic"] == {
        "name": "aki-anthropic",
        "provider": "AKI.IO /anthropic",
        "family": "anthropic",
        "default_wire": "anthropic",
        "kind": "shim",
        "base_url": "https://aki.io/anthropic",
    }
    parsed = list(
        csv.DictReader(io.StringIO(ok(run(runner, url, "engine", "list", "--format", "csv"))))
    )
    assert [{k: v or None for k, v in row.items()} for row in parsed] == rows
    table = ok(run(runner, url, "engine", "list")).splitlines()
    assert table[0].split() == ["NAME", "PROVIDER", "FAMILY", "DEFAULT_WIRE", "KIND", "BASE_URL"]
    assert [line.split()[0] for line in table[1:]] == names


def test_engine_show_and_add(runner: CliRunner, url: str) -> None:
    shown = json.loads(ok(run(runner, url, "engine", "show", "gemini", "--format", "json")))
    assert shown["name"] == "gemini" and shown["kind"] == "first-party"
    assert {c["capability"] for c in shown["claims"]} >= {"image_input", "tool_result_images"}
    assert shown["rules"][0]["pattern"] == "gemini-3(?:[^0-9].*)?"
    assert "tool_result_images=true" in shown["rules"][0]["claims"]
    table = ok(run(runner, url, "engine", "show", "gemini"))
    assert "engine claims:" in table and "rules (the last matching rule wins):" in table

    added = ok(
        cli(
            runner,
            url,
            "engine add lab --provider 'Lab vLLM' --family openai --wire hermes --kind "
            "self-hosted --base-url http://lab:8000/v1 --response-tag tool_output --format "
            "json",
        )
    )
    assert json.loads(added)[0]["name"] == "lab"
    again = json.loads(ok(run(runner, url, "engine", "show", "lab", "--format", "json")))
    assert again["default_wire"] == "hermes" and again["response_tag"] == "tool_output"
    assert again["created_by"] == "ops" and again["claims"] == [] and again["models"] == []


def test_model_add_list_show(runner: CliRunner, url: str) -> None:
    ok(run(runner, url, "model", "add", "nousresearch", "Hermes-4-405B", "--wire", "openai"))
    listed = json.loads(
        ok(run(runner, url, "model", "list", "--engine", "nousresearch", "--format", "json"))
    )
    assert {
        "engine": "nousresearch",
        "model_id": "Hermes-4-405B",
        "wire": "openai",
        "note": "",
    } in listed
    shown = json.loads(
        ok(run(runner, url, "model", "show", "nousresearch", "Hermes-4-405B", "--format", "json"))
    )
    assert shown["recorded"] is True and shown["wire"] == "openai"
    assert len(shown["matching_rules"]) == 1
    resolved = json.loads(
        ok(run(runner, url, "resolve", "nousresearch", "Hermes-4-405B", "--format", "json"))
    )
    assert resolved["wire"] == "openai" and resolved["wire_from"] == "model"
    unrecorded = ok(run(runner, url, "model", "show", "nousresearch", "Hermes-3-Llama-3.1-8B"))
    assert "not recorded (resolves by rules)" in unrecorded


def test_rule_add_list_then_claim_set_by_reference(runner: CliRunner, url: str) -> None:
    added = json.loads(
        ok(cli(runner, url, "rule add anthropic 'claude-lab-.*' --regex --format json"))
    )[0]
    position = added["position"]
    assert added["ref"].startswith("rule:") and added["ref"][5:].isdigit()
    assert added["match"] == "regex" and added["claims"] == ""
    out = ok(
        run(
            runner,
            url,
            "claim",
            "set",
            "anthropic",
            "image_input",
            "false",
            "--rule",
            added["ref"],
            "--status",
            "documented",
            "--evidence",
            "lab models are text-only",
            "--format",
            "json",
        )
    )
    assert json.loads(out)[0]["subject_key"].startswith("rule:")
    rules = json.loads(ok(run(runner, url, "rule", "list", "anthropic", "--format", "json")))
    assert rules[-1]["pattern"] == "claude-lab-.*" and rules[-1]["position"] == position
    assert rules[-1]["claims"] == "image_input=false"
    resolved = json.loads(
        ok(run(runner, url, "resolve", "anthropic", "claude-lab-1", "--format", "json"))
    )
    assert resolved["capabilities"]["image_input"] is False
    # the rule can be named by its pattern too
    ok(
        cli(
            runner,
            url,
            "claim set anthropic image_input true --rule 'claude-lab-.*' --status inferred "
            "--evidence 'a probe says vision'",
        )
    )
    resolved = json.loads(
        ok(run(runner, url, "resolve", "anthropic", "claude-lab-1", "--format", "json"))
    )
    assert resolved["capabilities"]["image_input"] is True


# -- claims, history, audit ------------------------------------------------------------


def test_claim_set_and_history(runner: CliRunner, url: str) -> None:
    ok(
        cli(
            runner,
            url,
            "claim set minimax-anthropic tool_result_images FALSE --status live-verified "
            "--evidence 'an image in a tool result was ignored' --source 'live 2026-10-01' "
            "--verified-at 2026-10-01 --reason 'live test' --by alice",
        )
    )
    events = json.loads(
        ok(
            cli(
                runner,
                url,
                "claim history minimax-anthropic --capability tool_result_images --format json",
            )
        )
    )
    last = events[-1]
    assert (last["old_value"], last["old_status"]) == (True, "unverified")
    assert (last["new_value"], last["new_status"]) == (False, "live-verified")
    assert (last["actor"], last["reason"]) == ("alice", "live test")
    assert all(e["capability"] == "tool_result_images" for e in events)

    noted(
        cli(
            runner,
            url,
            "claim set minimax-anthropic image_input true --model MiniMax-M2.7-vision "
            "--status documented --evidence docs",
        )
    )
    (event,) = json.loads(
        ok(
            cli(
                runner,
                url,
                "claim history minimax-anthropic --model MiniMax-M2.7-vision --format json",
            )
        )
    )
    assert event["subject_key"] == "model:MiniMax-M2.7-vision"
    assert (event["old_value"], event["new_value"], event["actor"]) == (None, True, "ops")
    table = ok(run(runner, url, "claim", "history", "minimax-anthropic", "--wide"))
    assert table.splitlines()[0].split()[:3] == ["OCCURRED_AT", "ENGINE", "SUBJECT_KEY"]
    assert "model:MiniMax-M2.7-vision" in table
    cut = on_terminal(url, "claim", "history", "minimax-anthropic")
    assert all(len(line) <= 100 for line in cut.splitlines())  # COLUMNS there
    assert "model:MiniMax-M2.7-vision" in cut  # a key column stays whole
    piped = ok(run(runner, url, "claim", "history", "minimax-anthropic"))
    assert piped == table and "…" not in piped  # whole cells into a pipe


def _audit(runner: CliRunner, url: str, *args: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(
        ok(run(runner, url, "audit", *args, "--format", "json"))
    )
    return rows


def test_audit_filters(runner: CliRunner, url: str) -> None:
    live = _audit(runner, url, "--status", "live-verified")
    assert {(r["engine"], r["capability"]) for r in live} == {
        ("aki-anthropic", "tool_result_images"),
        ("aki-anthropic", "source_blocks"),
        ("aki-anthropic", "tool_result_pdf"),
        ("minimax-anthropic", "source_blocks"),
        ("minimax-anthropic", "tool_result_pdf"),
    }
    assert all(r["verified_at"] == "2026-09-30" for r in live)

    enabling = _audit(runner, url, "--enabling")
    assert {
        "engine": "minimax-anthropic",
        "capability": "tool_result_images",
        "value": True,
        "status": "unverified",
    }.items() <= next(
        r
        for r in enabling
        if (r["engine"], r["capability"]) == ("minimax-anthropic", "tool_result_images")
    ).items()
    assert all(r["value"] is True and r["status"] != "live-verified" for r in enabling)
    assert not any(r["engine"] == "aki-anthropic" for r in enabling)

    narrowed = _audit(runner, url, "--engine", "gemini", "--capability", "tool_result_pdf")
    # the engine's own claim and the Gemini 3 rule's
    assert sorted(r["subject_key"].split(":")[0] for r in narrowed) == ["engine", "rule"]
    assert {(r["engine"], r["capability"]) for r in narrowed} == {("gemini", "tool_result_pdf")}
    assert sorted(r["value"] for r in narrowed) == [False, True]

    rows = list(
        csv.DictReader(
            io.StringIO(
                ok(run(runner, url, "audit", "--status", "live-verified", "--format", "csv"))
            )
        )
    )
    assert len(rows) == 5 and {r["value"] for r in rows} == {"true", "false"}


def test_audit_stale_days(runner: CliRunner, url: str) -> None:
    ten_days_ago = (date.today() - timedelta(days=10)).isoformat()
    noted(
        run(
            runner,
            url,
            "claim",
            "set",
            "gemini",
            "tool_result_images",
            "true",
            "--model",
            "gemini-3-flash-preview",
            "--status",
            "live-verified",
            "--evidence",
            "live call",
            "--verified-at",
            ten_days_ago,
        )
    )
    key = "model:gemini-3-flash-preview"
    stale_5 = _audit(runner, url, "--stale-days", "5", "--engine", "gemini")
    stale_20 = _audit(runner, url, "--stale-days", "20", "--engine", "gemini")
    assert key in {r["subject_key"] for r in stale_5}
    assert key not in {r["subject_key"] for r in stale_20}
    cutoff = date.today() - timedelta(days=20)
    assert stale_20 and all(
        r["verified_at"] is None or date.fromisoformat(r["verified_at"]) < cutoff for r in stale_20
    )
    # the seeded documented claims age from the day their documentation was read
    documented = {r["verified_at"] for r in stale_20 if r["status"] == "documented"}
    assert documented == {"2026-09-30"}


# -- resolve and format ------------------------------------------------------------------


def test_resolve_text_explain_and_json(runner: CliRunner, url: str) -> None:
    minimax = ("minimax-anthropic", "MiniMax-M2.7")  # no model row nor rule: the engine's
    text = unnamed(run(runner, url, "resolve", *minimax), *minimax)
    assert text.splitlines() == [
        "wire: anthropic",
        "image_input: false",
        "tool_result_images: false",
        "tool_result_pdf: true",
        "source_blocks: true",
        "pdf_input: false",
        "tool_result_url_sources: false",
        "hoist_media: false",
        "options: image_input=false, native_pdf=true, source_blocks=true",
    ]
    explained = unnamed(run(runner, url, "resolve", *minimax, "--explain"), *minimax)
    assert "cleared: a native image on the anthropic wire needs image_input" in explained
    assert "[live-verified]" in explained and "[unverified]" in explained
    data = json.loads(
        ok(run(runner, url, "resolve", "gemini", "gemini-3.1-pro-preview", "--format", "json"))
    )
    assert data["wire"] == "gemini" and "trace" not in data
    assert flags(data["options"]) == {"image_input": True, "native_pdf": True}
    assert limits(data["options"]) == data["limits"] and data["limits"]["max_pdf_pages"] == 1000
    assert data["capabilities"]["tool_result_pdf"] is True
    traced = json.loads(
        ok(
            cli(
                runner,
                url,
                "resolve gemini gemini-3.1-pro-preview --format json --explain --min-evidence "
                "live-verified",
            )
        )
    )
    assert traced["options"] == {"image_input": False, "native_pdf": False}
    pdf = traced["trace"]["tool_result_pdf"]
    assert (pdf["value"], pdf["decided_by"], pdf["cleared_by"]) == (False, "none", None)
    assert [entry["status"] for entry in pdf["ignored"]] == ["documented", "documented"]
    forced = ok(run(runner, url, "resolve", "anthropic", "claude-sonnet-4-5", "--wire", "openai"))
    assert forced.splitlines()[0] == "wire: openai" and forced.splitlines()[-1] == "options: (none)"


def _png() -> str:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(b"\x00" * 5))
        + chunk(b"IEND", b"")
    )
    return base64.b64encode(png).decode("ascii")


PNG_B64 = _png()
CALL_RESULT = {
    "content": [
        {"type": "text", "text": "a chart"},
        {"type": "image", "data": PNG_B64, "mimeType": "image/png"},
    ],
    "isError": False,
}


def test_format_a_file_with_id_and_name(runner: CliRunner, url: str, tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_text(json.dumps(CALL_RESULT), encoding="utf-8")
    out = ok(
        run(
            runner,
            url,
            "format",
            "anthropic",
            "claude-sonnet-4-5",
            str(path),
            "--id",
            "toolu_1",
            "--name",
            "chart",
        )
    )
    (message,) = json.loads(out)
    (block,) = message["content"]
    assert block["tool_use_id"] == "toolu_1"
    assert block["content"][1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64},
    }
    text_only = ok(run(runner, url, "format", "anthropic", "claude-2.1", str(path), "--id", "t"))
    (message,) = json.loads(text_only)
    assert message["content"][0]["content"][1]["text"].startswith("[image] image/png (")
    assert PNG_B64 not in text_only
    # without an id (or, where the wire names the tool, a name) it says which option helps
    failed(run(runner, url, "format", "anthropic", "claude-2.1", str(path)), "no id", "--id")
    failed(
        run(runner, url, "format", "gemini", "gemini-3-flash-preview", str(path), "--id", "c"),
        "no tool name",
        "--name",
    )
    # --id and --name override the file's values
    path.write_text(json.dumps({**CALL_RESULT, "id": "from-file"}), encoding="utf-8")
    out = ok(run(runner, url, "format", "anthropic", "claude-2.1", str(path), "--id", "mine"))
    assert json.loads(out)[0]["content"][0]["tool_use_id"] == "mine"


def test_format_a_list_from_stdin(runner: CliRunner, url: str) -> None:
    batch = [
        {"id": "call_1", "name": "chart", "result": CALL_RESULT},
        {"id": "call_2", "name": "echo", "content": [{"type": "text", "text": "hi"}]},
    ]
    out = unnamed(
        run(runner, url, "format", "openai-responses", "gpt-4o", "-", input=json.dumps(batch)),
        "openai-responses",
        "gpt-4o",
    )
    first, second = json.loads(out)
    assert first["call_id"] == "call_1"
    assert first["output"][1] == {
        "type": "input_image",
        "image_url": f"data:image/png;base64,{PNG_B64}",
    }
    assert second == {"type": "function_call_output", "call_id": "call_2", "output": "hi"}
    hermes = ok(
        run(runner, url, "format", "nousresearch", "Hermes-4-405B", "-", input=json.dumps(batch))
    )
    messages = json.loads(hermes)
    assert [m["role"] for m in messages] == ["tool", "tool"]
    assert (
        messages[1]["content"]
        == '<tool_response>\n{"content":"hi","name":"echo"}\n</tool_response>'
    )


# -- bad input ---------------------------------------------------------------------------


SET = ("claim", "set", "minimax-anthropic")
EVIDENCE = ("--status", "documented", "--evidence", "docs")


@pytest.mark.usefixtures("unchanged")
@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (("resolve", "antropic", "claude-sonnet-4-5"), ("unknown engine 'antropic'", "anthropic")),
        (("engine", "show", "gemni"), ("did you mean 'gemini'",)),
        ((*SET[:2], "antropic", "image_input", "true", *EVIDENCE), ("unknown engine",)),
        ((*SET, "image_input", "maybe", *EVIDENCE), ("'maybe'",)),
        (
            (*SET, "image_input", "true", "--status", "confirmed", "--evidence", "x"),
            ("'confirmed'",),
        ),
        ((*SET, "Image-Input", "true", *EVIDENCE), ("invalid capability 'Image-Input'",)),
        ((*SET, "image_input", "true", "--status", "documented"), ("--evidence",)),
        ((*SET, "image_input", "true", *EVIDENCE, "--rule", "99999"), ("has no rule 99999",)),
        ((*SET, "image_input", "true", *EVIDENCE, "--rule", "rule:x"), ("rule:N",)),
        ((*SET, "image_input", "true", *EVIDENCE, "--rule", "nope-.*"), ("no rule",)),
        ((*SET, "image_input", "true", *EVIDENCE, "--model", "a b"), ("invalid model id",)),
        ((*SET, "image_input", "true", *EVIDENCE, "--model", "M", "--rule", "1"), ("not both",)),
        ((*SET, "image_input", "true", *EVIDENCE, "--verified-at", "30/09/2026"), ("30/09/2026",)),
        ((*SET, "image_input", "true", "--status", "documented", "--evidence", " "), ("evidence",)),
        (
            (
                "engine",
                "add",
                "anthropic",
                "--provider",
                "p",
                "--family",
                "f",
                "--wire",
                "anthropic",
                "--kind",
                "shim",
            ),
            ("anthropic",),
        ),
        (
            (
                "engine",
                "add",
                "Bad Name",
                "--provider",
                "p",
                "--family",
                "f",
                "--wire",
                "openai",
                "--kind",
                "shim",
            ),
            ("invalid engine name",),
        ),
        (
            (
                "engine",
                "add",
                "x",
                "--provider",
                "p",
                "--family",
                "f",
                "--wire",
                "chat",
                "--kind",
                "shim",
            ),
            ("'chat'",),
        ),
        (("model", "add", "openai", "gpt 4o"), ("invalid model id",)),
        (("model", "add", "nousresearch", "Hermes-4-405B", "--wire", "xml"), ("'xml'",)),
        (("rule", "add", "openai", "gpt-(", "--regex"), ("invalid regex",)),
        (("rule", "add", "openai", "gpt-4\no", "--regex"), ("control characters",)),
        (("rule", "add", "openai", "gpt-4o", "--position", "0"), ("position",)),
        (("resolve", "openai", "gpt-4o", "--wire", "chat"), ("'chat'",)),
        (("resolve", "openai", " "), ("invalid model id",)),
        (("resolve", "openai", "gpt-4o", "--min-evidence", "verified"), ("'verified'",)),
        (("audit", "--status", "confirmed"), ("'confirmed'",)),
        (("audit", "--stale-days", "-1"), ("-1",)),
        (("audit", "--stale-days", "99999999"), ("99999999",)),
        (("--busy-timeout", "nan", "engine", "list"), ("--busy-timeout", "not a number")),
        (("--busy-timeout", "inf", "engine", "list"), ("inf",)),
        (
            ("probe", "openai", "gpt-4o", "--no-key", "--timeout", "nan"),
            ("--timeout", "not a number"),
        ),
        (("log", "--limit", "99999999999999999999999"), ("--limit", "99999999999999999999999")),
        (("probe", "openai", "gpt-4o", "--no-key", "--base-url", ""), ("--base-url", "empty")),
        (("serve", "--host", "bad\udc80host"), ("--host", "not a host name")),
        (("probe", "openai", "gpt-4o", "--api-key-env", " "), ("--api-key-env", "empty")),
        (
            (
                "engine",
                "add",
                "h",
                "--provider",
                "p",
                "--family",
                "f",
                "--wire",
                "hermes",
                "--kind",
                "shim",
                "--response-tag",
                "ns:resp",
            ),
            ("invalid response tag 'ns:resp'",),
        ),
        (("audit", "--engine", "nope"), ("unknown engine 'nope'",)),
        (("format", "openai", "gpt-4o", "/nonexistent/result.json"), ("/nonexistent/result.json",)),
        (("db", "nuke"), ("nuke",)),
    ],
    ids=lambda value: " ".join(value)[:60] if isinstance(value, tuple) else str(value),
)
def test_bad_input_is_one_line_and_changes_nothing(
    runner: CliRunner, url: str, args: tuple[str, ...], fragments: tuple[str, ...]
) -> None:
    failed(run(runner, url, *args), *fragments)


@pytest.mark.usefixtures("unchanged")
@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ('{"content": [', ("stdin: not JSON",)),
        ("", ("not JSON",)),
        ("[]", ("no tool results",)),
        ("42", ("expected an object, not int",)),
        ('{"content": "just text"}', ("stdin:", "content")),
        ('[{"id": "a", "result": {"content": [{"text": "no type"}]}}]', ("stdin[0]:",)),
        ('[{"id": "a", "content": []}, "b"]', ("stdin[1]: expected an object, not str",)),
        ("[" * 100_000 + "]" * 100_000, ("stdin: unusable JSON",)),
        ('{"content": [], "n": ' + "9" * 5000 + "}", ("stdin: unusable JSON",)),
    ],
)
def test_bad_tool_results_are_one_line_errors(
    runner: CliRunner, url: str, text: str, fragments: tuple[str, ...]
) -> None:
    failed(run(runner, url, "format", "openai", "gpt-4o", "-", input=text), *fragments)


def test_a_file_that_is_not_utf8_is_an_error(runner: CliRunner, url: str, tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_bytes(b'{"content": [{"type": "text", "text": "\xff\xfe"}]}')
    failed(run(runner, url, "format", "openai", "gpt-4o", str(path)), "not UTF-8")


@pytest.mark.parametrize(
    "database", ["nosuchdriver://x/y", "sqlite:////nonexistent-dir/for/toolwire.sqlite3"]
)
def test_an_unusable_database_url_is_one_line(runner: CliRunner, database: str) -> None:
    failed(runner.invoke(main, ["--database-url", database, "engine", "list"]))


def test_the_url_can_come_from_the_environment(url: str) -> None:
    runner = CliRunner(env={"TOOLWIRE_DATABASE_URL": url})
    data = json.loads(ok(runner.invoke(main, ["engine", "show", "perplexity", "--format", "json"])))
    assert data["default_wire"] == "responses"


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_a_locked_sqlite_database(runner: CliRunner, url: str) -> None:
    """A write while another connection holds the write lock fails in one line, cleanly.

    ``--busy-timeout 0.3`` (default 5 s) makes the failure come quickly.
    """
    before = state(url)
    holder = sqlite3.connect(url.removeprefix("sqlite:///"), isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        holder.execute("UPDATE registry_state SET revision = revision WHERE id = 1")
        # reads do not wait for the writer (WAL)
        assert "tool_result_pdf: true" in unnamed(
            run(runner, url, "resolve", "minimax-anthropic", "MiniMax-M2.7"),
            "minimax-anthropic",
            "MiniMax-M2.7",
        )
        started = time.monotonic()
        result = runner.invoke(
            main,
            [
                "--database-url",
                url,
                "--busy-timeout",
                "0.3",
                *SET,
                "image_input",
                "true",
                *EVIDENCE,
                "--model",
                "MiniMax-M2.7",
            ],
        )
        waited = time.monotonic() - started
        failed(result, "database is locked", "try again")
        assert result.exit_code == 1
        assert 0.25 < waited < 3
    finally:
        holder.rollback()
        holder.close()
    assert state(url) == before
    noted(run(runner, url, *SET, "image_input", "true", *EVIDENCE, "--model", "MiniMax-M2.7"))
    assert state(url)[0] == before[0] + 1


def test_an_unavailable_driver_is_one_line(runner: CliRunner) -> None:
    result = runner.invoke(main, ["--database-url", "mysql://nobody@localhost/x", "engine", "list"])
    failed(result, "database driver MySQLdb is not installed", "driver that URL names")


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_a_lone_surrogate_is_printed_escaped(url: str) -> None:
    """A real process: its stdout encodes strictly as UTF-8 (CliRunner's does not)."""
    body = json.dumps({"content": [{"type": "text", "text": "a\ud800b"}]})
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "toolwire.registry.cli",
            "format",
            "openai",
            "gpt-4o",
            "-",
            "--id",
            "c",
        ],
        input=body.encode(),
        capture_output=True,
        env={**os.environ, "TOOLWIRE_DATABASE_URL": url, "PYTHONIOENCODING": "utf-8"},
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    # The converter replaces a lone surrogate with U+FFFD when the result is built.
    assert json.loads(done.stdout)[0]["content"] == "a\ufffdb"
