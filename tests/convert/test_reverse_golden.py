"""Reading blocks back: over the golden corpus, ``to`` after ``from_wire`` is the identity.

For every golden input, every wire W and every option set (those the corpus
lists plus the usual combinations), ``from_wire(W, r.to(W, **o))`` written again
to W with the same options gives the same block, and written to any other wire
it loses nothing W kept: W's texts, W's media payloads (where the other wire
carries that kind), W's call id, tool name and error flag.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from convert_checks import (
    WIRES,
    check_block,
    native_payloads,
    native_urls,
    split_hermes,
    string_forms,
)
from toolwire.convert import ID_RULES, ToolResult

GOLDEN = Path(__file__).with_name("golden")
OPTION_SETS: list[dict[str, Any]] = [
    {},
    {"image_input": True},
    {"native_pdf": True},
    {"image_input": True, "native_pdf": True},
    {"native_pdf": False},
    {"image_input": True, "source_blocks": False},
    {"response_tag": "function_response"},
    {"image_input": True, "native_pdf": True, "url_sources": True},
    {"image_input": True, "native_pdf": True, "raw_bytes": True},
]
#: Options that let every wire send all it can natively.
RICHEST = {"image_input": True, "native_pdf": True, "url_sources": True}
CARRIES_ID = {
    "anthropic",
    "openai",
    "responses",
    "gemini",
    "ollama",
    "bedrock",
    "gemini-interactions",
}
CARRIES_NAME = {"gemini", "ollama", "hermes", "gemini-interactions"}


def _cases() -> list[Any]:
    params = []
    for path in sorted(GOLDEN.glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            listed = [e["options"] for e in case["expect"] if "block" in e]
            sets = listed + [o for o in OPTION_SETS if o not in listed]
            for wire in WIRES:
                if not case["tool"]["id"] and wire in ID_RULES:
                    continue  # the wire requires an id: refused, nothing to read back
                for index, options in enumerate(sets):
                    ident = f"{path.stem}:{case['name']}:{wire}:{index}"
                    params.append(pytest.param(case, wire, options, id=ident))
    return params


CASES = _cases()


def _result(case: dict[str, Any]) -> ToolResult:
    return ToolResult.from_mcp(case["mcp"], id=case["tool"]["id"], name=case["tool"]["name"])


def test_every_golden_case_and_wire_is_covered() -> None:
    seen = {(p.values[0]["name"], p.values[1]) for p in CASES}
    names = {p.values[0]["name"] for p in CASES}
    assert len(names) >= 10
    empty = {p.values[0]["name"] for p in CASES if not p.values[0]["tool"]["id"]}
    assert empty  # the corpus holds a result without an id
    refused = {(name, wire) for name in empty for wire in ID_RULES}
    assert seen == {(name, wire) for name in names for wire in WIRES} - refused


@pytest.mark.parametrize(("case", "wire", "options"), CASES)
def test_to_after_from_wire_is_the_identity(
    case: dict[str, Any], wire: str, options: dict[str, Any]
) -> None:
    block = _result(case).to(wire, **options)
    again = ToolResult.from_wire(wire, block)
    if wire == "anthropic" and native_urls(wire, block) and not options.get("url_sources"):
        # an Anthropic-native image or document by URL passed through is read as a
        # resource_link, which the writer sends by URL only with url_sources (and a
        # PDF only with native_pdf, which a native block passed through does not need)
        assert again.to(wire, **{**options, "url_sources": True, "native_pdf": True}) == block
    else:
        assert again.to(wire, **options) == block
    if not options.get("raw_bytes"):  # bytes have no JSON form
        # the block read back as JSON (what a gateway receives) reads the same
        assert ToolResult.from_wire(wire, json.loads(json.dumps(block))) == again


@pytest.mark.parametrize(("case", "wire", "options"), CASES)
def test_a_richer_wire_loses_nothing_the_wire_kept(
    case: dict[str, Any], wire: str, options: dict[str, Any]
) -> None:
    original = _result(case)
    block = original.to(wire, **options)
    # the block's wire may carry no id or name (hermes, anthropic): given as a gateway
    # gives them, from the assistant's tool call
    again = ToolResult.from_wire(wire, block, id=original.id, name=original.name)
    kept_lines = _lines(_visible(wire, block, options))
    kept_media = native_payloads(wire, block)
    kept_urls = native_urls(wire, block)
    if wire in CARRIES_ID:
        assert again.id == original.id
    if wire in CARRIES_NAME:
        assert again.name == original.name
    if wire in ("anthropic", "bedrock", "gemini-interactions"):
        assert again.is_error == original.is_error
    for target in WIRES:
        if not original.id and target in ID_RULES:
            continue  # refused on the target (test_golden holds that)
        before = original.to(target, **RICHEST)
        after = again.to(target, **RICHEST)
        check_block(target, after, RICHEST)
        shown_before = "\n".join(_visible(target, before, RICHEST))
        shown_after = "\n".join(_visible(target, after, RICHEST))
        for line in kept_lines:  # what W kept and the target shows, it still shows
            if line in shown_before:
                assert line in shown_after, (target, line)
        media_before, media_after = native_payloads(target, before), native_payloads(target, after)
        for payload in kept_media:
            if payload in media_before:
                assert payload in media_after, (target, payload[0])
        assert all(payload in kept_media for payload in media_after)  # none invented
        urls_before, urls_after = native_urls(target, before), native_urls(target, after)
        for url in kept_urls:  # a URL source W sent goes on by URL where it did before
            if url in urls_before:
                assert url in urls_after, (target, url)
        assert all(url in kept_urls for url in urls_after)


def test_text_from_a_string_wire_never_becomesnative_payloads() -> None:
    for path in sorted(GOLDEN.glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            for wire in ("openai", "ollama", "hermes"):
                tool = case["tool"]
                if not tool["id"] and wire in ID_RULES:
                    continue
                block = _result(case).to(wire, **RICHEST)
                again = ToolResult.from_wire(wire, block, id=tool["id"], name=tool["name"])
                for target in WIRES if tool["id"] else set(WIRES) - set(ID_RULES):
                    assert native_payloads(target, again.to(target, **RICHEST)) == []
                assert all(item["type"] == "text" for item in again.content)


def _lines(texts: list[str]) -> list[str]:
    return [line for text in texts for line in text.split("\n") if line.strip()]


def _visible(wire: str, block: Any, options: dict[str, Any]) -> list[str]:
    """Return the model-visible texts of a block, JSON bodies decoded."""
    if wire in ("openai", "ollama"):
        return [block["content"]]
    if wire == "hermes":
        return [split_hermes(block, options.get("response_tag", "tool_response"))["content"]]
    if wire == "gemini":
        response = block["functionResponse"]["response"]
        if set(response) == {"result"} and isinstance(response["result"], str):
            return [response["result"]]
        return [json.dumps(response, sort_keys=True, separators=(",", ":"), ensure_ascii=False)]
    return string_forms(wire, block)
