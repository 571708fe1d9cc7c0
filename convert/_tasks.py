"""MCP tasks as ``ToolResult.from_mcp`` reads them: the handle is refused, the outcome converts.

MCP 2026-07-28 moved tasks into an extension (``io.modelcontextprotocol/tasks``,
SEP-2663). A server may answer ``tools/call`` with a task handle instead of a
result; the client polls ``tasks/get`` until the task reaches a terminal status,
and a completed task carries the tool's result inline. The shapes read here
(camelCase JSON, as ``mcp`` objects dump too):

- A task handle: ``{"resultType": "task", "taskId", "status", ...}``
  (``CreateTaskResult = Result & Task``, flat), the earlier nested form
  ``{"resultType": "task", "task": {"taskId", ...}}``, and 2025-11-25's
  ``CreateTaskResult`` ``{"task": {"taskId", ...}}`` (no ``resultType``). Not a
  tool's output: refused, naming ``tasks/get``.
- A ``tasks/get`` result (``GetTaskResult = Result & DetailedTask``, flat:
  ``{"taskId", "status", ...}``), by its ``status``:

  - ``completed``: its ``result`` is the ``CallToolResult`` the synchronous call
    would have returned; that converts. Without ``result`` (2025-11-25's
    ``tasks/get`` carries none; ``tasks/result`` answers the result itself) it
    is refused.
  - ``failed``: its ``error`` is the JSON-RPC error object of the failure; it
    converts as a JSON-RPC error response does, to a failed result whose text
    is ``MCP error CODE: MESSAGE`` (without ``error``: ``MCP error: task ID
    failed``, with its ``statusMessage``). The model made the call and gets an
    answer to it, as for any failed call.
  - ``cancelled``: a failed result too, ``MCP error: task ID was cancelled``
    (and its ``statusMessage``): the call is over and has no output.
  - ``working``, ``input_required`` or anything else: not settled, refused
    (poll again; answer ``inputRequests`` with ``tasks/update`` first).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import InvalidToolResult, describe

__all__ = ["is_task", "outcome"]

_POLL = "poll it with tasks/get until it completes, then convert that result"


def is_task(data: Mapping[str, Any]) -> bool:
    """Return True when ``data`` (without ``content``) is a task handle or a tasks/get result."""
    if data.get("resultType") == "task":
        return True
    task = data.get("task")
    if isinstance(task, Mapping) and "taskId" in task:
        return True
    return "taskId" in data and "status" in data


def outcome(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """Return what a settled task answers: the ``CallToolResult`` of a completed one,
    or a JSON-RPC error response (``{"error": {...}}``) for a failed or cancelled one.

    :raises InvalidToolResult: for a task handle, a task not settled yet, or a
        completed task without its result.
    """
    nested = data.get("task")
    handle = data.get("resultType") == "task" or isinstance(nested, Mapping)
    task = nested if isinstance(nested, Mapping) else data
    name = _name(task)
    status = task.get("status")
    if handle:
        raise InvalidToolResult(
            f"the tool call answered with a task handle ({name}), not a result: {_POLL}"
        )
    if status == "completed":
        result = task.get("result")
        if not isinstance(result, Mapping):
            raise InvalidToolResult(
                f"the completed {name} carries no 'result' (tasks/get carries it inline;"
                " with 2025-11-25 tasks, fetch it with tasks/result and convert that)"
            )
        return result
    if status == "failed":
        error = task.get("error")
        if isinstance(error, Mapping) and ("code" in error or "message" in error):
            return {"error": error}
        return {"error": {"message": _said(f"{name} failed", task)}}
    if status == "cancelled":
        return {"error": {"message": _said(f"{name} was cancelled", task)}}
    if status == "input_required":
        raise InvalidToolResult(
            f"the {name} needs input: answer its inputRequests with tasks/update, then {_POLL}"
        )
    raise InvalidToolResult(f"the {name} is not settled (status {describe(status)}): {_POLL}")


def _name(task: Mapping[str, Any]) -> str:
    task_id = task.get("taskId")
    return f"task {task_id}" if isinstance(task_id, str) and task_id else "task"


def _said(text: str, task: Mapping[str, Any]) -> str:
    """Return ``text`` with the task's ``statusMessage``, if it has one."""
    message = task.get("statusMessage")
    return f"{text}: {message}" if isinstance(message, str) and message else text
