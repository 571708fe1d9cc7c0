"""Call ids and tool names: each wire's rule, the typed error, and the pairing-safe id map."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from typing import Any

import pytest
from convert_checks import (
    anthropic_types,
    check_block,
    check_envelope,
    check_typed,
    validate_converse,
)
from convert_samples import PNG_B64
from hypothesis import given, settings
from hypothesis import strategies as st
from toolwire.convert import (
    ID_RULES,
    NAME_RULES,
    WIRES,
    IdMap,
    InvalidId,
    InvalidOption,
    InvalidToolResult,
    ToolResult,
    UnknownWire,
    convert_tool_results,
    format_tool_results,
)

TEXT = [{"type": "text", "text": "ok"}]
#: The strictest reading of each rule, written out from the sources (not read from the
#: package): what every id the map writes must match. Bedrock: botocore's model and
#: AWS's HTML docs, both.
STRICT = {
    "anthropic": [r"[a-zA-Z0-9_-]+"],
    "openai": [r"(?s).{1,40}"],
    "responses": [r"(?s).{1,64}"],
    "bedrock": [r"[a-zA-Z0-9_.:-]{1,64}", r"[a-zA-Z0-9_-]{1,64}"],
    "mistral": [r"[a-zA-Z0-9]{9}"],
    "gemini-interactions": [r"(?s).+"],
}
STRICT_NAMES = {
    "gemini": [r"[A-Za-z_][A-Za-z0-9_.:-]{0,63}"],
    "ollama": [r"(?s).+"],
    "gemini-interactions": [r"[A-Za-z_][A-Za-z0-9_.:-]{0,63}"],
}
#: wire -> (ids it takes, ids it refuses): valid, boundary (64/65) and invalid
IDS: dict[str, tuple[list[str], list[str]]] = {
    "anthropic": (
        ["toolu_01A09q90qw90lq917835lq9", "a", "A-b_9", "x" * 300],
        ["", "functions.bash:0", "call 1", "a|b", "a.b", "\u00e9", "a\nb"],
    ),
    "openai": (["call_1", "functions.bash:0", "x" * 41, "x" * 500, " "], [""]),
    "responses": (["fc_1", "a" * 64, "a b:c.d|e"], ["", "a" * 65]),
    "bedrock": (
        ["tooluse_1", "a.b:c-d_e", "a" * 64, "A"],
        ["", "a" * 65, "call 1", "a|b", "\u00e9", "a/b"],
    ),
    "gemini": (["", "functions.bash:0", "any id \u00e9 | at all", "x" * 500], []),
    "ollama": (["", "call 1", "x" * 500], []),
    "hermes": (["", "call 1", "x" * 500], []),
    # an empty id is refused with its own fix (tests/convert/test_gemini_interactions.py)
    "gemini-interactions": (["functions.bash:0", "any id \u00e9 | at all", "x" * 500], []),
}
#: wire -> (names it takes, names it refuses)
NAMES: dict[str, tuple[list[str], list[str]]] = {
    "gemini": (
        ["get_weather", "_x", "a", "f.n:1-2", "a" * 64],
        ["", "1abc", "-x", ".x", "a" * 65, "a b", "\u00e9t\u00e9", "a/b"],
    ),
    "ollama": (["get_weather", "a b \u00e9", "x" * 500], [""]),
    "hermes": (["", "a b \u00e9"], []),
    "gemini-interactions": (  # optional: an empty name is none sent
        ["", "get_weather", "_x", "f.n:1-2", "a" * 64],
        ["1abc", "-x", "a" * 65, "a b", "\u00e9t\u00e9", "a/b"],
    ),
}


def _result(id_: str = "call_1", name: str = "tool") -> ToolResult:
    return ToolResult(name=name, id=id_, content=TEXT)


# --- the rules, as data --------------------------------------------------------------


def test_id_rules_are_data_beside_each_wire() -> None:
    assert set(ID_RULES) == {
        "anthropic",
        "openai",
        "responses",
        "bedrock",
        "mistral",
        "gemini-interactions",
    }
    assert set(NAME_RULES) == {"gemini", "ollama", "gemini-interactions"}
    for name, rule in {**ID_RULES, **NAME_RULES}.items():
        assert rule.name == name
        re.compile(rule.pattern)
        assert rule.description and "\n" not in rule.description
    assert (ID_RULES["bedrock"].max_length, ID_RULES["responses"].max_length) == (64, 64)
    assert (ID_RULES["openai"].max_length, ID_RULES["mistral"].max_length) == (40, 9)
    assert ID_RULES["anthropic"].max_length is None
    assert "botocore" in ID_RULES["bedrock"].description


@pytest.mark.parametrize("wire", WIRES)
def test_every_wire_takes_the_ids_its_rule_allows(wire: str) -> None:
    valid, _ = IDS[wire]
    for id_ in valid:
        result = _result(id_)
        block = result.to(wire)
        if id_:  # the SDK checks (bedrock's request needs an id on the call it answers)
            check_block(wire, block)
        messages = format_tool_results(wire, [result])
        assert json.dumps(block) in json.dumps(messages)


@pytest.mark.parametrize("wire", WIRES)
def test_every_wire_refuses_the_ids_its_rule_forbids(wire: str) -> None:
    _, invalid = IDS[wire]
    for id_ in invalid:
        result = _result(id_)
        for call in (
            lambda r=result: r.to(wire),
            lambda r=result: r.to(wire, image_input=True, audience=True),
            lambda r=result: format_tool_results(wire, [r]),
            lambda r=result: format_tool_results(wire, [r], hoist=True, image_input=True),
        ):
            with pytest.raises(InvalidId) as caught:
                call()
            error = caught.value
            assert isinstance(error, InvalidToolResult) and isinstance(error, ValueError)
            assert (error.wire, error.value, error.rule, error.kind) == (wire, id_, wire, "id")
            message = str(error)
            assert message.startswith(f"{wire} wire: call id ")
            assert ID_RULES[wire].pattern in message and "pass ids=IdMap()" in message
            assert repr(id_[:79] + "\u2026" if len(id_) > 80 else id_) in message


@pytest.mark.parametrize("wire", WIRES)
def test_names_are_held_to_the_wire_that_sends_them(wire: str) -> None:
    valid, invalid = NAMES.get(wire, (["", "a b \u00e9", "x" * 70], []))
    for name in valid:
        assert _result(name=name).to(wire) is not None
    for name in invalid:
        with pytest.raises(InvalidId, match=f"^{wire} wire: tool name ") as caught:
            format_tool_results(wire, [_result(name=name)])
        assert (caught.value.kind, caught.value.rule) == ("name", wire)


def test_the_offending_value_is_cut_to_80_characters() -> None:
    with pytest.raises(InvalidId) as caught:
        _result("|" * 500).to("anthropic")
    assert "|" * 79 + "\u2026" in str(caught.value) and "|" * 80 not in str(caught.value)
    assert caught.value.value == "|" * 500


def test_convert_tool_results_refuses_what_the_target_rejects() -> None:
    kimi = {"role": "tool", "tool_call_id": "functions.bash:0", "content": "ok"}
    with pytest.raises(InvalidId, match=re.escape("anthropic wire: call id 'functions.bash:0'")):
        convert_tool_results("openai", "anthropic", [kimi])
    with pytest.raises(InvalidId, match="gemini wire: tool name ''"):
        convert_tool_results("openai", "gemini", [kimi])  # no name: gemini needs one
    assert convert_tool_results("openai", "bedrock", [kimi])[0]["content"][0]["toolResult"][
        "toolUseId"
    ] == ("functions.bash:0")  # botocore's model takes it


@pytest.mark.parametrize(
    ("id_", "ok"),
    [("abcDEF123", True), ("abcDEF12", False), ("abcDEF1234", False), ("abc_EF123", False)],
)
def test_an_engine_rule_checks_ids_on_its_wire(id_: str, ok: bool) -> None:
    result = _result(id_)
    for call in (
        lambda: result.to("openai", id_rule="mistral"),
        lambda: format_tool_results("openai", [result], id_rule="mistral"),
        lambda: convert_tool_results("openai", "openai", [result.to("openai")], id_rule="mistral"),
    ):
        if ok:
            assert id_ in json.dumps(call())
        else:
            with pytest.raises(InvalidId, match=r"openai wire: call id .* breaks the mistral rule"):
                call()
    with pytest.raises(InvalidOption, match="id_rule must be one of"):
        result.to("openai", id_rule="kimi")


# --- the id map ----------------------------------------------------------------------


def _strictly_valid(target: str, value: str) -> bool:
    return all(re.fullmatch(pattern, value) for pattern in STRICT[target])


@pytest.mark.parametrize("target", sorted(STRICT))
def test_valid_ids_come_back_unchanged(target: str) -> None:
    m = IdMap()
    for id_ in ("call_1", "toolu_01A", "abcDEF123", "a" * 40, "tooluse-x"):
        if _strictly_valid(target, id_):
            assert m.id(target, id_) == id_
            assert m.original(target, id_) == id_


@pytest.mark.parametrize("target", sorted(STRICT))
def test_invalid_ids_are_mapped_to_strictly_valid_ones(target: str) -> None:
    m = IdMap()
    for id_ in (
        "functions.bash:0",
        "a|b",
        "a:b",
        "call 1/2",
        "\u00e9l\u00e8ve",
        "x" * 41,
        "y" * 65,
        "z" * 500,
        "abc_EF123",
        "-",
    ):
        mapped = m.id(target, id_)
        assert _strictly_valid(target, mapped), (target, id_, mapped)
        assert m.original(target, mapped) == id_
        if not _strictly_valid(target, id_):
            assert mapped != id_
    if target == "bedrock":  # valid under the model, not under the HTML docs: mapped
        assert m.id("bedrock", "a.b:c") != "a.b:c"


def test_mapped_ids_keep_a_readable_prefix_and_mistral_gets_nine_symbols() -> None:
    m = IdMap()
    mapped = m.id("anthropic", "functions.bash:0")
    assert re.fullmatch(r"functions_bash_0_[A-Za-z0-9]{10}", mapped)
    assert len(m.id("openai", "c" * 100)) == 40 and m.id("openai", "c" * 100).startswith("c" * 29)
    assert len(m.id("responses", "c" * 100)) == 64
    assert re.fullmatch(r"[A-Za-z0-9]{9}", m.id("mistral", "call_abc"))
    assert m.id("gemini", "functions.bash:0") == "functions.bash:0"  # no id rule there


def test_an_empty_or_unknown_id_is_an_error() -> None:
    m = IdMap()
    for target in ("anthropic", "mistral", "gemini"):
        with pytest.raises(InvalidId, match="empty call id cannot be mapped"):
            m.id(target, "")
    with pytest.raises(InvalidId, match="empty tool name"):
        m.name("gemini", "")
    with pytest.raises(InvalidId, match="was not given by this map"):
        m.original("anthropic", "toolu_never")
    with pytest.raises(InvalidId):
        m.original_name("gemini", "never")
    with pytest.raises(UnknownWire):
        m.id("kimi", "x")
    with pytest.raises(InvalidId, match="must be a string"):
        m.id("anthropic", 3)  # type: ignore[arg-type]


def test_names_are_mapped_for_gemini() -> None:
    m = IdMap()
    for name in ("1st-tool", "my tool", "\u00e9t\u00e9", "a" * 80, ".x"):
        mapped = m.name("gemini", name)
        assert all(re.fullmatch(p, mapped) for p in STRICT_NAMES["gemini"]), mapped
        assert m.original_name("gemini", mapped) == name
    assert m.name("gemini", "get_weather") == "get_weather"
    assert m.name("anthropic", "my tool") == "my tool"  # no name is sent there


def test_two_fresh_maps_agree() -> None:
    ids = ["functions.bash:0", "a|b", "a:b", "x" * 90, "call_1", "\u00e9"]
    for target in STRICT:
        first, second = IdMap(), IdMap()
        assert [first.id(target, i) for i in ids] == [second.id(target, i) for i in ids]
        # and in another order, as another worker might see them
        assert [first.id(target, i) for i in ids] == [IdMap().id(target, i) for i in ids]


def test_another_process_maps_the_same() -> None:
    ids = ["functions.bash:0", "a|b", "a:b", "x" * 90, "\u00e9l\u00e8ve", "call_1"]
    code = (
        "import json, sys\n"
        "from toolwire.convert import IdMap\n"
        "ids = json.loads(sys.argv[1])\n"
        "m = IdMap()\n"
        "print(json.dumps({t: [m.id(t, i) for i in ids] for t in sys.argv[2:]}))\n"
    )
    targets = sorted(STRICT)
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(ids), *targets],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout
    m = IdMap()
    assert json.loads(out) == {t: [m.id(t, i) for i in ids] for t in targets}


def test_ids_differing_in_a_replaced_character_stay_apart() -> None:
    m = IdMap()
    for target in STRICT:
        group = ["a|b", "a:b", "a b", "a.b", "a_b", "a/b", "a\u00e9b"]
        mapped = [m.id(target, i) for i in group]
        assert len(set(mapped)) == len(group), (target, mapped)


def test_a_mapped_id_given_again_as_an_original_gets_its_own_id() -> None:
    m = IdMap()
    mapped = m.id("anthropic", "a|b")
    again = m.id("anthropic", mapped)  # valid, but taken: hashed again
    assert again != mapped and m.original("anthropic", again) == mapped
    assert m.original("anthropic", mapped) == "a|b"


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(min_size=1, max_size=80),
            st.text(alphabet="ab|:._- ", min_size=1, max_size=6),
            st.text(alphabet="abcXYZ019", min_size=9, max_size=9),
        ),
        min_size=1,
        max_size=60,
        unique=True,
    ),
    st.sampled_from(sorted(STRICT)),
)
def test_the_map_is_collision_free_valid_and_reversible(ids: list[str], target: str) -> None:
    m = IdMap()
    mapped = [m.id(target, i) for i in ids]
    assert len(set(mapped)) == len(ids)
    for original, value in zip(ids, mapped, strict=True):
        assert _strictly_valid(target, value)
        assert m.original(target, value) == original
        assert m.id(target, original) == value  # the same answer again
    taken: set[str] = set()
    for original, value in zip(ids, mapped, strict=True):  # in the order they were mapped
        if _strictly_valid(target, original) and original not in taken:
            assert value == original  # a valid id is kept unless an earlier one took it
        taken.add(value)


# --- ids= on the entry points -------------------------------------------------------


def test_ids_on_to_and_format_tool_results() -> None:
    m = IdMap()
    result = ToolResult(name="1st tool", id="functions.bash:0", content=TEXT)
    block = result.to("anthropic", ids=m)
    assert block["tool_use_id"] == m.id("anthropic", "functions.bash:0")
    check_block("anthropic", block)
    assert format_tool_results("anthropic", [result], ids=m)[0]["content"] == [block]
    gemini = result.to("gemini", ids=m)["functionResponse"]
    assert gemini["name"] == m.name("gemini", "1st tool")
    assert gemini["id"] == "functions.bash:0"  # gemini has no id rule: unchanged
    with pytest.raises(InvalidId):  # ids=None: no map, the rule alone
        result.to("anthropic", ids=None)
    with pytest.raises(InvalidOption, match="ids must be an IdMap"):
        result.to("anthropic", ids={"functions.bash:0": "x"})
    with pytest.raises(InvalidOption, match="ids must be an IdMap"):
        format_tool_results("anthropic", [result], ids="yes")


def test_ids_on_hoisted_results_name_the_mapped_call() -> None:
    m = IdMap()
    result = ToolResult(
        name="snap",
        id="x" * 50,
        content=[{"type": "image", "data": PNG_B64, "mimeType": "image/png"}],
    )
    messages = format_tool_results("openai", [result], ids=m, hoist=True, image_input=True)
    mapped = m.id("openai", "x" * 50)
    assert len(mapped) == 40 and messages[0]["tool_call_id"] == mapped
    assert mapped in messages[1]["content"][0]["text"]


def test_convert_tool_results_maps_only_across_wires() -> None:
    m = IdMap()
    blocks = [{"role": "tool", "tool_call_id": "functions.bash:0", "content": "ok"}]
    out = convert_tool_results("openai", "anthropic", blocks, ids=m)
    assert out[0]["content"][0]["tool_use_id"] == m.id("anthropic", "functions.bash:0")
    # the same wire: ids go back to the provider that minted them untouched
    same = convert_tool_results("openai", "openai", blocks, ids=m)
    assert same[0]["tool_call_id"] == "functions.bash:0"
    gemini = [{"functionResponse": {"name": "t", "id": "abc==sig/+", "response": {}}}]
    again = convert_tool_results("gemini", "gemini", gemini, ids=IdMap())
    assert again[0]["parts"][0]["functionResponse"]["id"] == "abc==sig/+"


# --- pairing: a whole conversation through a gateway ---------------------------------

#: an OpenAI Chat conversation whose call ids other providers refuse (Kimi's form, a
#: long one, one with a character only Bedrock's model allows, one that differs from
#: another only in a replaced character)
CALLS = [
    ("functions.bash:0", "bash", "total 0"),
    ("functions.bash:1", "bash", "file.txt"),
    ("call_" + "Q" * 60, "read_file", "hello"),
    ("a|b", "lookup", "one"),
    ("a:b", "lookup", "two"),
    ("call_plain", "lookup", "three"),
]
OPENAI_TURNS: list[dict[str, Any]] = [
    {"role": "user", "content": "list the files"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": n, "arguments": "{}"}}
            for i, n, _ in CALLS
        ],
    },
    *[{"role": "tool", "tool_call_id": i, "content": out} for i, _, out in CALLS],
]


def _tool_messages() -> list[dict[str, Any]]:
    return [turn for turn in OPENAI_TURNS if turn["role"] == "tool"]


def _calls() -> list[dict[str, Any]]:
    return OPENAI_TURNS[1]["tool_calls"]  # type: ignore[no-any-return]


def test_openai_to_anthropic_conversation_still_pairs() -> None:
    m = IdMap()
    # the gateway maps the assistant's calls with the same map...
    assistant: dict[str, Any] = {
        "role": "assistant",
        "content": [
            {
                "type": "tool_use",
                "id": m.id("anthropic", call["id"]),
                "name": call["function"]["name"],
                "input": {},
            }
            for call in _calls()
        ],
    }
    # ... and toolwire the results
    (user,) = convert_tool_results("openai", "anthropic", _tool_messages(), ids=m)
    check_envelope("anthropic", [user], len(CALLS))
    for message in ({"role": "user", "content": "list the files"}, assistant, user):
        check_typed(message, anthropic_types.MessageParam)
    uses = [block["id"] for block in assistant["content"]]
    results = [block["tool_use_id"] for block in user["content"]]
    assert uses == results and len(set(uses)) == len(CALLS)
    assert all(re.fullmatch(r"[a-zA-Z0-9_-]+", i) for i in uses)
    # the reply goes back to the client under its own ids
    assert [m.original("anthropic", i) for i in results] == [i for i, _, _ in CALLS]
    assert [b["content"][0]["text"] for b in user["content"]] == [o for _, _, o in CALLS]
    # without the map, the conversation would be refused, not sent broken
    with pytest.raises(InvalidId):
        convert_tool_results("openai", "anthropic", _tool_messages())


def test_openai_to_bedrock_conversation_still_pairs_and_botocore_takes_it() -> None:
    m = IdMap()
    uses = [
        {
            "toolUse": {
                "toolUseId": m.id("bedrock", c["id"]),
                "name": c["function"]["name"],
                "input": {},
            }
        }
        for c in _calls()
    ]
    (user,) = convert_tool_results("openai", "bedrock", _tool_messages(), ids=m, raw_bytes=True)
    tools = sorted({name for _, name, _ in CALLS})
    request = {
        "modelId": "anthropic.claude-sonnet-4-5",
        "messages": [
            {"role": "user", "content": [{"text": "list the files"}]},
            {"role": "assistant", "content": uses},
            user,
        ],
        "toolConfig": {
            "tools": [
                {"toolSpec": {"name": t, "inputSchema": {"json": {"type": "object"}}}}
                for t in tools
            ]
        },
    }
    validate_converse(request)
    check_envelope("bedrock", [user], len(CALLS), {"raw_bytes": True})
    sent = [u["toolUse"]["toolUseId"] for u in uses]
    answered = [b["toolResult"]["toolUseId"] for b in user["content"]]
    assert sent == answered and len(set(sent)) == len(CALLS)
    for value in sent:  # botocore's model and AWS's HTML docs alike
        assert _strictly_valid("bedrock", value)
    assert [m.original("bedrock", i) for i in answered] == [i for i, _, _ in CALLS]
    assert sent[-1] == "call_plain"  # valid ids are kept


# --- JSON-RPC responses ----------------------------------------------------------------


def test_a_json_rpc_error_response_is_a_failed_result() -> None:
    response = {"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": "Unknown tool: x"}}
    result = ToolResult.from_mcp(response, id="call_1", name="x")
    assert result.is_error and result.id == "call_1"
    assert [dict(item) for item in result.content] == [
        {"type": "text", "text": "MCP error -32602: Unknown tool: x"}
    ]
    assert result.to("anthropic") == {
        "type": "tool_result",
        "tool_use_id": "call_1",
        "content": [{"type": "text", "text": "MCP error -32602: Unknown tool: x"}],
        "is_error": True,
    }
    bare = ToolResult.from_mcp({"error": {"message": "boom"}})
    assert bare.content[0]["text"] == "MCP error: boom" and bare.is_error
    with pytest.raises(InvalidToolResult):
        ToolResult.from_mcp({"error": "not an object"})


def test_a_json_rpc_request_id_is_never_a_call_id() -> None:
    response = {"jsonrpc": "2.0", "id": 3, "result": {"content": TEXT}}
    assert ToolResult.from_mcp(response).id == ""
    assert ToolResult.from_mcp(response, id="call_7").id == "call_7"
