"""A JavaScript client (Node's built-in fetch) formats a result through the service."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from served import TOKEN, Served

SCRIPT = Path(__file__).with_name("node") / "format_client.mjs"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_node_client_formats_a_result(shared_server: Served) -> None:
    served = shared_server
    done = subprocess.run(
        ["node", str(SCRIPT), served.base, TOKEN],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["block"] == {
        "role": "tool",
        "tool_call_id": "call_node",
        "content": "sunny, 21 °C",
    }
    assert found["error"] == "UnknownEngine"
