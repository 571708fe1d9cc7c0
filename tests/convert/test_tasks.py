"""MCP tasks in ``ToolResult.from_mcp``: a task handle is refused, a settled task converts."""

from __future__ import annotations

from typing import Any

import pytest
from toolwire.convert import InvalidToolResult, ToolResult

mt = pytest.importorskip("mcp.types")

TIMES = {"createdAt": "2026-07-28T10:30:00Z", "lastUpdatedAt": "2026-07-28T10:31:00Z"}
RESULT = {
    "content": [{"type": "text", "text": "42 rows exported"}],
    "structuredContent": {"rows": 42},
}


def _rpc(result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 7, "result": result}


def _task(status: str, **fields: Any) -> dict[str, Any]:
    """A tasks/get result (GetTaskResult = Result & DetailedTask, flat)."""
    return {"resultType": "complete", "taskId": "t-1", "status": status, **TIMES, **fields}


HANDLES = {
    "flat": {"resultType": "task", "taskId": "t-1", "status": "working", **TIMES, "ttl": 60000},
    "nested": {"resultType": "task", "task": {"taskId": "t-1", "status": "working", **TIMES}},
    "2025-11-25": {"task": {"taskId": "t-1", "status": "working", **TIMES, "ttl": None}},
    "with content": {"resultType": "task", "taskId": "t-1", "status": "working", "content": []},
}


@pytest.mark.parametrize("envelope", [False, True], ids=["result", "json-rpc response"])
@pytest.mark.parametrize("shape", sorted(HANDLES))
def test_a_task_handle_is_refused_naming_tasks_get(shape: str, envelope: bool) -> None:
    handle = HANDLES[shape]
    with pytest.raises(InvalidToolResult, match=r"task handle \(task t-1\).*tasks/get"):
        ToolResult.from_mcp(_rpc(handle) if envelope else handle, id="call_1", name="export")


def test_a_task_handle_of_the_mcp_package_is_refused() -> None:
    task = mt.Task(
        task_id="t-1", status="working", created_at="2026", last_updated_at="2026", ttl=None
    )
    with pytest.raises(InvalidToolResult, match="tasks/get"):
        ToolResult.from_mcp(mt.CreateTaskResult(task=task), id="call_1", name="export")


@pytest.mark.parametrize("envelope", [False, True], ids=["result", "json-rpc response"])
def test_a_completed_task_converts_its_inline_result(envelope: bool) -> None:
    done = _task("completed", result=RESULT)
    result = ToolResult.from_mcp(_rpc(done) if envelope else done, id="call_1", name="export")
    assert result == ToolResult.from_mcp(RESULT, id="call_1", name="export")
    assert result.structured_content == {"rows": 42}
    assert result.to("openai")["content"] == "42 rows exported"


def test_a_completed_task_keeps_the_tools_error_flag() -> None:
    failed_tool = {"content": [{"type": "text", "text": "no such table"}], "isError": True}
    result = ToolResult.from_mcp(_task("completed", result=failed_tool), id="c", name="export")
    assert result.is_error
    assert result.to("anthropic")["is_error"] is True


def test_a_completed_task_without_its_result_is_refused() -> None:
    """2025-11-25's tasks/get carries no result (tasks/result answers it)."""
    with pytest.raises(InvalidToolResult, match=r"carries no 'result'.*tasks/result"):
        ToolResult.from_mcp(_task("completed"), id="c", name="export")
    got = mt.GetTaskResult(
        task_id="t-1", status="completed", created_at="2026", last_updated_at="2026", ttl=None
    )
    with pytest.raises(InvalidToolResult, match="carries no 'result'"):
        ToolResult.from_mcp(got, id="c", name="export")


@pytest.mark.parametrize("envelope", [False, True], ids=["result", "json-rpc response"])
def test_a_failed_task_is_a_failed_result_with_its_error(envelope: bool) -> None:
    failed = _task("failed", error={"code": -32603, "message": "worker crashed"})
    result = ToolResult.from_mcp(_rpc(failed) if envelope else failed, id="c", name="export")
    assert result.is_error
    assert [item["text"] for item in result.content] == ["MCP error -32603: worker crashed"]


def test_a_failed_task_without_an_error_says_its_status_message() -> None:
    result = ToolResult.from_mcp(_task("failed", statusMessage="disk full"), id="c", name="x")
    assert result.is_error
    assert result.content[0]["text"] == "MCP error: task t-1 failed: disk full"


def test_a_cancelled_task_is_a_failed_result() -> None:
    result = ToolResult.from_mcp(_rpc(_task("cancelled")), id="c", name="export")
    assert result.is_error
    assert result.content[0]["text"] == "MCP error: task t-1 was cancelled"
    gemini = result.to("gemini")["functionResponse"]["response"]
    assert gemini == {"result": "MCP error: task t-1 was cancelled"}


@pytest.mark.parametrize(
    ("status", "match"),
    [
        ("working", r"not settled \(status 'working'\).*tasks/get"),
        ("input_required", "inputRequests with tasks/update.*tasks/get"),
        ("paused", r"not settled \(status 'paused'\)"),
    ],
)
def test_a_task_not_settled_is_refused(status: str, match: str) -> None:
    with pytest.raises(InvalidToolResult, match=match):
        ToolResult.from_mcp(_task(status), id="c", name="export")
    with pytest.raises(InvalidToolResult, match=match):
        ToolResult.from_mcp(
            mt.GetTaskResult(
                task_id="t-1", status="working", created_at="a", last_updated_at="a", ttl=None
            )
            if status == "working"
            else _rpc(_task(status)),
            id="c",
            name="export",
        )


def test_a_call_tool_result_answer_is_untouched_by_the_task_rules() -> None:
    """A result that has content is never read as a task, whatever else it holds."""
    plain = {**RESULT, "taskId": "t-1", "status": "completed"}
    assert ToolResult.from_mcp(plain, id="c", name="x") == ToolResult.from_mcp(
        RESULT, id="c", name="x"
    )
