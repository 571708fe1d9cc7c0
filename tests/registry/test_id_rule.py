"""An engine's call-id rule: seeded, recorded, moved, and applied by the resolver and the CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import failed, ok, run, unnamed
from click.testing import CliRunner
from toolwire.convert import IdMap, InvalidId, ToolResult
from toolwire.registry import Registry, format_for, reformat_for, transfer


def _mapping(result: Any) -> Any:
    """Return the --map-ids mapping on stderr, after the line saying the model is unknown."""
    lines = result.stderr.splitlines()
    assert all(" is not recorded for " in line for line in lines[:-1]), lines
    return json.loads(lines[-1])


TEXT = [{"type": "text", "text": "ok"}]


def test_the_seeded_mistral_engine_keeps_mistral_ids(registry: Registry) -> None:
    assert registry.engine("mistral").id_rule == "mistral"
    assert registry.engine("openai").id_rule is None


def test_format_for_checks_the_engine_rule_or_maps_with_ids(registry: Registry) -> None:
    ok_result = ToolResult(name="t", id="abcDEF123", content=TEXT)
    (message,) = format_for("mistral", "mistral-large-latest", [ok_result], registry=registry)
    assert message["tool_call_id"] == "abcDEF123"
    openai_id = ToolResult(name="t", id="call_abc", content=TEXT)
    with pytest.raises(InvalidId, match="openai wire: call id 'call_abc' breaks the mistral rule"):
        format_for("mistral", "mistral-large-latest", [openai_id], registry=registry)
    # another engine on the same wire takes it
    assert format_for("openai", "gpt-4o", [openai_id], registry=registry)
    m = IdMap()
    (mapped,) = format_for("mistral", "mistral-large-latest", [openai_id], registry=registry, ids=m)
    assert re.fullmatch(r"[a-zA-Z0-9]{9}", mapped["tool_call_id"])
    assert mapped["tool_call_id"] == m.id("mistral", "call_abc")
    assert m.original("mistral", mapped["tool_call_id"]) == "call_abc"


def test_reformat_for_maps_to_the_engine_rule(registry: Registry) -> None:
    blocks = [{"type": "tool_result", "tool_use_id": "toolu_01ABC", "content": "ok"}]
    with pytest.raises(InvalidId, match="mistral rule"):
        reformat_for("mistral", "mistral-large-latest", "anthropic", blocks, registry=registry)
    m = IdMap()
    (message,) = reformat_for(
        "mistral", "mistral-large-latest", "anthropic", blocks, registry=registry, ids=m
    )
    assert m.original("mistral", message["tool_call_id"]) == "toolu_01ABC"


def test_engine_add_show_and_a_bad_rule(runner: CliRunner, url: str) -> None:
    args = ("--provider", "p", "--family", "openai", "--wire", "openai", "--kind", "self-hosted")
    ok(run(runner, url, "engine", "add", "vllm-mistral", *args, "--id-rule", "mistral"))
    shown = json.loads(ok(run(runner, url, "engine", "show", "vllm-mistral", "--format", "json")))
    assert shown["id_rule"] == "mistral"
    table = ok(run(runner, url, "engine", "show", "vllm-mistral", "--wide")).splitlines()
    assert "ID_RULE" in table[0].split() and "mistral" in table[1].split()
    failed(run(runner, url, "engine", "add", "x", *args, "--id-rule", "kimi"), "kimi")


def test_export_import_and_diff_carry_the_rule(
    registry: Registry, second_database_url: str, tmp_path: Path
) -> None:
    document = transfer.export(registry, ["mistral"])
    text = transfer.dump_toml(document)
    assert 'id_rule = "mistral"' in text
    path = tmp_path / "mistral.toml"
    path.write_text(text.replace('id_rule = "mistral"', 'id_rule = "bedrock"'), encoding="utf-8")
    data, changed = transfer.read_document(path)
    assert [c for c in transfer.diff(document, changed) if "id_rule" in str(c)]
    transfer.import_document(registry, data, source=str(path), by="ops")
    assert registry.engine("mistral").id_rule == "bedrock"
    path.write_text(text, encoding="utf-8")
    data, _ = transfer.read_document(path)
    other = Registry(second_database_url)
    try:
        transfer.import_document(other, data, source=str(path), by="ops")
        assert other.engine("mistral").id_rule == "mistral"
        assert transfer.dump_toml(transfer.export(other, ["mistral"])) == text
    finally:
        other.close()


def test_format_map_ids_prints_the_mapping_on_stderr(runner: CliRunner, url: str) -> None:
    result = {"content": TEXT}
    args = ("format", "anthropic", "claude-sonnet-4-5", "-", "--id", "functions.bash:0")
    refused = run(runner, url, *args, input=json.dumps(result))
    failed(refused, "breaks the anthropic rule")
    assert refused.output.rstrip().endswith(
        "; pass --map-ids to map it (the mapping goes to stderr)"
    )
    assert "IdMap" not in refused.output  # the CLI names its flag, not the library's keyword
    done = run(runner, url, *args, "--map-ids", input=json.dumps(result))
    assert done.exit_code == 0, done.output
    (message,) = json.loads(done.stdout)
    sent = message["content"][0]["tool_use_id"]
    assert _mapping(done) == {"ids": {"functions.bash:0": sent}, "names": {}}
    assert sent == IdMap().id("anthropic", "functions.bash:0")  # what the caller can redo
    gemini = run(
        runner,
        url,
        "format",
        "gemini",
        "gemini-3-flash-preview",
        "-",
        "--id",
        "c1",
        "--name",
        "1st tool",
        "--map-ids",
        input=json.dumps(result),
    )
    assert gemini.exit_code == 0, gemini.output
    name = json.loads(gemini.stdout)[0]["parts"][0]["functionResponse"]["name"]
    assert _mapping(gemini)["names"] == {"1st tool": name}


def test_format_from_a_wire_maps_ids_only_when_the_wire_changes(
    runner: CliRunner, url: str
) -> None:
    blocks = [{"role": "tool", "tool_call_id": "functions.bash:0", "content": "ok"}]
    args = ("format", "anthropic", "claude-sonnet-4-5", "-", "--from", "openai", "--map-ids")
    done = run(runner, url, *args, input=json.dumps(blocks))
    assert done.exit_code == 0, done.output
    sent = json.loads(done.stdout)[0]["content"][0]["tool_use_id"]
    assert _mapping(done)["ids"] == {"functions.bash:0": sent} and sent != blocks[0]["tool_call_id"]
    same = ("format", "openai", "gpt-4o", "-", "--from", "openai", "--map-ids")
    done = run(runner, url, *same, input=json.dumps(blocks))
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)[0]["tool_call_id"] == "functions.bash:0"
    assert _mapping(done) == {"ids": {}, "names": {}}


def test_format_reads_json_rpc_responses_without_taking_their_id(
    runner: CliRunner, url: str
) -> None:
    response = {"jsonrpc": "2.0", "id": 3, "result": {"content": TEXT}}
    failed(run(runner, url, "format", "openai", "gpt-4o", "-", input=json.dumps(response)), "no id")
    out = unnamed(
        run(
            runner, url, "format", "openai", "gpt-4o", "-", "--id", "c", input=json.dumps(response)
        ),
        "openai",
        "gpt-4o",
    )
    assert json.loads(out) == [{"role": "tool", "tool_call_id": "c", "content": "ok"}]
    error = {"jsonrpc": "2.0", "id": 4, "error": {"code": -32602, "message": "Unknown tool: x"}}
    out = ok(
        run(runner, url, "format", "anthropic", "claude-sonnet-4-5", "-", "--id", "c",
            input=json.dumps(error))
    )  # fmt: skip
    (block,) = json.loads(out)[0]["content"]
    assert block["is_error"] is True
    assert block["content"] == [{"type": "text", "text": "MCP error -32602: Unknown tool: x"}]


def test_same_wire_to_an_engine_with_its_own_rule_maps_with_ids(
    registry: Registry, runner: CliRunner, url: str
) -> None:
    """Kimi's ids on the openai wire, routed to Mistral (openai wire, mistral rule): the
    ids were not minted by the engine behind the route, so the map applies; a Mistral id
    comes back unchanged."""
    blocks = [
        {"role": "tool", "tool_call_id": "functions.bash:0", "content": "ok"},
        {"role": "tool", "tool_call_id": "D681PevKs", "content": "ok"},
    ]
    args = ("mistral", "mistral-large-latest", "openai", blocks)
    with pytest.raises(InvalidId, match="mistral rule"):
        reformat_for(*args, registry=registry)
    m = IdMap()
    first, second = reformat_for(*args, registry=registry, ids=m)
    assert re.fullmatch("[a-zA-Z0-9]{9}", first["tool_call_id"])
    assert m.original("mistral", first["tool_call_id"]) == "functions.bash:0"
    assert second["tool_call_id"] == "D681PevKs"
    cli = ("format", "mistral", "mistral-large-latest", "-", "--from", "openai", "--map-ids")
    done = run(runner, url, *cli, input=json.dumps(blocks))
    assert done.exit_code == 0, done.output
    sent = [message["tool_call_id"] for message in json.loads(done.stdout)]
    assert sent == [first["tool_call_id"], "D681PevKs"]
    assert _mapping(done)["ids"]["functions.bash:0"] == sent[0]


def test_an_engine_rule_looser_than_its_wire_is_named(runner: CliRunner, url: str) -> None:
    """An id mapped under an engine's rule must still pass the wire's: when it cannot,
    the error says so instead of sending what the API refuses."""
    result = ToolResult(id="functions.bash:0", name="bash", content=[{"type": "text", "text": "x"}])
    with pytest.raises(InvalidId, match="at least as strict as its wire's"):
        result.to("anthropic", ids=IdMap(), id_rule="openai")
    assert re.fullmatch(
        "[a-zA-Z0-9]{9}", result.to("anthropic", ids=IdMap(), id_rule="mistral")["tool_use_id"]
    )
    add = ("engine", "add", "loose", "--provider", "acme", "--family", "anthropic")
    ok(run(runner, url, *add, "--wire", "anthropic", "--kind", "shim", "--id-rule", "openai"))
    refused = run(
        runner, url, "format", "loose", "m", "-", "--id", "functions.bash:0", "--map-ids",
        input=json.dumps({"content": TEXT}),
    )  # fmt: skip
    failed(refused, "at least as strict as its wire's")


def test_a_list_of_json_rpc_responses_needs_a_call_id_each(runner: CliRunner, url: str) -> None:
    """--id names one call: a list of JSON-RPC responses (whose ids are request ids)
    cannot share it, so each entry must carry its own."""
    responses = [{"jsonrpc": "2.0", "id": n, "result": {"content": TEXT}} for n in (1, 2)]
    refused = run(runner, url, "format", "openai", "gpt-4o", "-", "--id", "c1",
                  input=json.dumps(responses))  # fmt: skip
    failed(refused, 'give each entry its call id: {"id": CALL_ID')
    wrapped = [{"id": f"c{n}", "name": "t", "result": r} for n, r in enumerate(responses)]
    out = unnamed(
        run(runner, url, "format", "openai", "gpt-4o", "-", input=json.dumps(wrapped)),
        "openai",
        "gpt-4o",
    )
    assert [m["tool_call_id"] for m in json.loads(out)] == ["c0", "c1"]
