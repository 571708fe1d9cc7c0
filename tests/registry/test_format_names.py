"""``toolwire format --name ID=NAME``: each result of a list named by its call id."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_helpers import failed, ok, ops_runner, run, unnamed

#: Two openai tool messages: call ids, no tool names.
BLOCKS = [
    {"role": "tool", "tool_call_id": "call_1", "content": "one"},
    {"role": "tool", "tool_call_id": "call_2", "content": "two"},
]


@pytest.fixture
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    path = tmp_path / "registry.sqlite3"
    shutil.copyfile(request.getfixturevalue("seeded_templates").get(request, "sqlite"), path)
    return f"sqlite:///{path}"


def _file(tmp_path: Path, data: object) -> str:
    path = tmp_path / "in.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_each_call_of_a_list_gets_its_own_tool_name(url: str, tmp_path: Path) -> None:
    runner = ops_runner()
    blocks = _file(tmp_path, BLOCKS)
    args = ("format", "ollama", "llava:13b", blocks, "--from", "openai")
    line = failed(run(runner, url, *args), "--name call_1=NAME", code=1)
    assert "result 0 has no tool name" in line
    llava = ("ollama", "llava:13b")  # no model row nor rule: said on stderr
    out = unnamed(
        run(runner, url, *args, "--name", "call_1=search", "--name", "call_2=fetch"), *llava
    )
    assert [m["tool_name"] for m in json.loads(out)] == ["search", "fetch"]
    stamped = unnamed(run(runner, url, *args, "--name", "lookup"), *llava)  # one name on each
    assert [m["tool_name"] for m in json.loads(stamped)] == ["lookup", "lookup"]
    # an id with '=' in it: the name is what follows the last one
    odd = _file(tmp_path, [{**BLOCKS[0], "tool_call_id": "a=b"}])
    named = unnamed(run(runner, url, "format", *llava, odd, "--from", "openai",
                   "--name", "a=b=search"), *llava)  # fmt: skip
    assert json.loads(named)[0]["tool_name"] == "search"


def test_mcp_results_of_a_list_are_named_by_call_id(url: str, tmp_path: Path) -> None:
    entries = [
        {"id": "call_1", "result": {"content": [{"type": "text", "text": "one"}]}},
        {"id": "call_2", "name": "own", "result": {"content": [{"type": "text", "text": "2"}]}},
    ]
    names_given = ("--name", "call_1=search", "--name", "call_2=x")
    path = _file(tmp_path, entries)
    out = ok(run(ops_runner(), url, "format", "gemini", "gemini-3-pro-preview", path, *names_given))
    (message,) = json.loads(out)
    names = [p["functionResponse"]["name"] for p in message["parts"]]
    assert names == ["search", "own"]  # a name the file gives stays


def test_bad_name_options_are_one_line(url: str, tmp_path: Path) -> None:
    runner = ops_runner()
    args = ("format", "ollama", "llava:13b", _file(tmp_path, BLOCKS), "--from", "openai")
    failed(
        run(runner, url, *args, "--name", "call_1=a", "--name", "call_9=b"),
        "no result has call id 'call_9'",
        code=1,
    )
    failed(run(runner, url, *args, "--name", "a", "--name", "b"), "ID=NAME", code=2)
    failed(run(runner, url, *args, "--name", "call_1="), "both non-empty", code=2)
