"""reformat_for and ``toolwire format --from`` on seeded SQLite and PostgreSQL registries.

A gateway receives tool results in the wire its client speaks and sends them on
in the wire of the model behind the route; the registry decides what that model
gets, exactly as ``format_for`` does for MCP results.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from test_format_for import PDF_B64, PNG_B64, RESULT
from toolwire.convert import InvalidBlock, ToolResult
from toolwire.registry import Registry, UnknownEngine, format_for, reformat_for
from toolwire.registry.cli import main

NATIVE = {"image_input": True, "native_pdf": True}
#: (engine, model, wire, image sent natively, PDF sent natively) per the seeded claims
ROUTES = [
    ("anthropic", "claude-sonnet-4-5", "anthropic", True, True),
    ("aki-anthropic", "qwen3.6-35b", "anthropic", False, False),
    ("openai", "gpt-4o", "openai", False, False),
    ("openai-responses", "gpt-4o", "responses", True, True),
    ("perplexity", "anthropic/claude-sonnet-4-5", "responses", True, False),
    ("gemini", "gemini-3-flash-preview", "gemini", True, True),
    ("gemini", "gemini-30-future", "gemini", False, False),
    ("ollama", "llava:13b", "ollama", False, False),
    ("aki-openai", "qwen3.6-35b", "hermes", False, False),
    ("bedrock", "anthropic.claude-sonnet-4-5", "bedrock", True, True),
]
#: what a client on each source wire sends: RESULT as toolwire writes it there, all native
SOURCES = ("anthropic", "responses", "gemini", "bedrock")


def _wire_of(payload: list[Any]) -> str:
    message = payload[0]
    if message.get("role") == "user":
        if "parts" in message:
            return "gemini"
        return "bedrock" if "toolResult" in message["content"][0] else "anthropic"
    if message.get("type") == "function_call_output":
        return "responses"
    if str(message.get("content", "")).startswith("<tool_response>"):
        return "hermes"
    return "ollama" if "tool_name" in message else "openai"


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize(("engine", "model", "wire", "image", "pdf"), ROUTES)
def test_reformat_for_lets_the_registry_decide(
    registry: Registry,
    source: str,
    engine: str,
    model: str,
    wire: str,
    image: bool,
    pdf: bool,
) -> None:
    block = RESULT.to(source, **NATIVE)
    names = {"call_01": "get_report"}
    payload = reformat_for(engine, model, source, [block], names=names, registry=registry)
    assert _wire_of(payload) == wire
    text = json.dumps(payload)
    assert (PNG_B64 in text) is image
    assert (PDF_B64 in text) is pdf
    # the same as reading the block by hand and calling format_for
    read = ToolResult.from_wire(source, block, name="get_report")
    assert payload == format_for(engine, model, [read], registry=registry)
    assert "get_report" in text or wire in ("anthropic", "openai", "responses", "bedrock")


def test_a_string_source_gives_no_media_even_to_a_vision_model(registry: Registry) -> None:
    block = RESULT.to("openai")
    payload = reformat_for("anthropic", "claude-sonnet-4-5", "openai", [block], registry=registry)
    (message,) = payload
    (result,) = message["content"]
    assert [b["type"] for b in result["content"]] == ["text"]
    assert "[image] image/png" in result["content"][0]["text"]


def test_reformat_for_forced_wire_policy_and_errors(registry: Registry) -> None:
    block = RESULT.to("anthropic", **NATIVE)
    forced = reformat_for(
        "anthropic", "claude-sonnet-4-5", "anthropic", [block], wire="openai", registry=registry
    )
    assert _wire_of(forced) == "openai" and PNG_B64 not in json.dumps(forced)
    strict = reformat_for(
        "gemini",
        "gemini-3-flash-preview",
        "anthropic",
        [block],
        names={RESULT.id: RESULT.name},  # gemini needs the name the anthropic block lacks
        registry=registry,
        min_evidence="live-verified",
    )
    assert PNG_B64 not in json.dumps(strict)  # the gemini forms are documented, not live
    with pytest.raises(UnknownEngine):
        reformat_for("nope", "m", "anthropic", [block], registry=registry)
    with pytest.raises(InvalidBlock, match=r"blocks\[0\]: openai block"):
        reformat_for("openai", "gpt-4o", "openai", [block], registry=registry)


# --- the CLI ------------------------------------------------------------------------


def _format(url: str, *args: str, input: str | None = None) -> Any:
    runner = CliRunner(env={"TOOLWIRE_USER": "ops", "TOOLWIRE_DATABASE_URL": None})
    return runner.invoke(main, ["--database-url", url, "format", *args], input=input)


def test_format_from_a_wire(seeded_database_url: str, tmp_path: Path) -> None:
    path = tmp_path / "blocks.json"
    blocks = [RESULT.to("anthropic", **NATIVE)]
    path.write_text(json.dumps(blocks), encoding="utf-8")
    out = _format(
        seeded_database_url,
        "gemini",
        "gemini-3-flash-preview",
        str(path),
        "--from",
        "anthropic",
        "--name",
        "get_report",
    )
    assert out.exit_code == 0, out.output
    payload = json.loads(out.stdout)
    assert payload == reformat_for_url(seeded_database_url, blocks)
    call = payload[0]["parts"][0]["functionResponse"]
    assert (call["name"], call["id"]) == ("get_report", "call_01")
    assert [p["inlineData"]["mimeType"] for p in call["parts"]] == ["image/png", "application/pdf"]


def reformat_for_url(url: str, blocks: list[Any]) -> list[Any]:
    with Registry(url) as opened:
        return reformat_for(
            "gemini",
            "gemini-3-flash-preview",
            "anthropic",
            blocks,
            names={"call_01": "get_report"},
            registry=opened,
        )


def test_format_from_hermes_on_stdin(seeded_database_url: str) -> None:
    tagged = RESULT.to("hermes", response_tag="function_response")
    out = _format(
        seeded_database_url,
        "openai",
        "gpt-4o",
        "-",
        "--from",
        "hermes",
        "--id",
        "call_7",
        input=json.dumps(tagged),
    )
    assert out.exit_code == 0, out.output
    (message,) = json.loads(out.stdout)
    assert message["tool_call_id"] == "call_7"
    assert message["content"] == RESULT.to("openai")["content"]


@pytest.mark.parametrize(
    ("document", "wire", "fragment"),
    [
        ('{"role": "tool", "content": "x"}', "anthropic", "blocks.json: anthropic block"),
        ('[{"type": "tool_result"}, 3]', "anthropic", "blocks.json[1]: anthropic block"),
        ('"<tool_response>\\n{}"', "hermes", "does not close"),
        ("[]", "openai", "no tool-result blocks"),
        ("{", "openai", "not JSON"),
    ],
)
def test_format_from_rejects_bad_blocks_in_one_line(
    seeded_database_url: str, tmp_path: Path, document: str, wire: str, fragment: str
) -> None:
    path = tmp_path / "blocks.json"
    path.write_text(document, encoding="utf-8")
    out = _format(seeded_database_url, "openai", "gpt-4o", str(path), "--from", wire)
    assert out.exit_code == 1 and isinstance(out.exception, SystemExit)
    (line,) = out.stderr.strip().splitlines()
    assert line.startswith("Error: ") and fragment in line, line


def test_format_from_rejects_an_unknown_wire(seeded_database_url: str, tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    path.write_text("{}", encoding="utf-8")
    out = _format(seeded_database_url, "openai", "gpt-4o", str(path), "--from", "bedrok")
    assert out.exit_code == 2 and "--from" in out.stderr


def test_format_from_bedrock_to_anthropic(seeded_database_url: str, tmp_path: Path) -> None:
    path = tmp_path / "blocks.json"
    block = RESULT.to("bedrock", **NATIVE)
    path.write_text(json.dumps(block), encoding="utf-8")
    out = _format(
        seeded_database_url, "anthropic", "claude-sonnet-4-5", str(path), "--from", "bedrock"
    )
    assert out.exit_code == 0, out.output
    ((result,),) = [m["content"] for m in json.loads(out.stdout)]
    assert result["tool_use_id"] == "call_01"
    sources = [b["source"]["type"] for b in result["content"] if "source" in b]
    assert sources == ["base64", "base64"]  # the image and the PDF, as bedrock carried them


def test_format_from_a_nameless_wire_needs_a_name_where_the_target_sends_one(
    seeded_database_url: str, tmp_path: Path
) -> None:
    path = tmp_path / "blocks.json"
    path.write_text(json.dumps(RESULT.to("openai")), encoding="utf-8")
    out = _format(seeded_database_url, "ollama", "llava:13b", str(path), "--from", "openai")
    assert out.exit_code == 1
    assert "no tool name" in out.stderr and "--name" in out.stderr
    named = _format(
        seeded_database_url, "ollama", "llava:13b", str(path), "--from", "openai", "--name", "r"
    )
    assert named.exit_code == 0, named.output
    assert json.loads(named.stdout)[0]["tool_name"] == "r"
