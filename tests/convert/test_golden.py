"""Golden corpus: reviewed MCP results and their expected blocks, one JSON file per theme.

Each file in ``golden/`` holds ``cases``; a case has the tool's ``name`` and
``id``, the MCP ``CallToolResult`` in its camelCase JSON form, and a list of
``expect`` entries (``wire``, ``options``, the expected ``block``, or the name of
the ``error`` the conversion raises).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import toolwire.convert
from convert_checks import GOLDEN_WIRES, check_block
from toolwire.convert import ToolResult

GOLDEN = Path(__file__).with_name("golden")
FILES = sorted(GOLDEN.glob("*.json"))


def _expectations() -> list[Any]:
    params = []
    for path in FILES:
        corpus = json.loads(path.read_text(encoding="utf-8"))
        for case in corpus["cases"]:
            for index, expect in enumerate(case["expect"]):
                ident = f"{path.stem}:{case['name']}:{expect['wire']}:{index}"
                params.append(pytest.param(case, expect, id=ident))
    return params


EXPECTATIONS = _expectations()


def test_corpus_is_present_and_covers_every_wire() -> None:
    assert len(FILES) >= 4
    assert {expect["wire"] for _, expect in (p.values for p in EXPECTATIONS)} == set(GOLDEN_WIRES)


@pytest.mark.parametrize(("case", "expect"), EXPECTATIONS)
def test_golden(case: dict[str, Any], expect: dict[str, Any]) -> None:
    result = ToolResult.from_mcp(case["mcp"], id=case["tool"]["id"], name=case["tool"]["name"])
    if "error" in expect:
        with pytest.raises(getattr(toolwire.convert, expect["error"])):
            result.to(expect["wire"], **expect["options"])
        return
    block = result.to(expect["wire"], **expect["options"])
    assert block == expect["block"]
    check_block(expect["wire"], block, expect["options"])
