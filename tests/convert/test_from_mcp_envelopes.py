"""from_mcp reads every envelope of a CallToolResult dict alike, the usual short ones included."""

from __future__ import annotations

from typing import Any

import pytest
from convert_samples import PNG_B64
from toolwire.convert import WIRES, InvalidToolResult, ToolResult

TEXT = [{"type": "text", "text": "ok"}]
MEDIA = [*TEXT, {"type": "image", "data": PNG_B64, "mimeType": "image/png"}]

ENVELOPES: list[tuple[dict[str, Any], bool]] = [
    ({"content": TEXT}, False),
    ({"content": TEXT, "isError": False}, False),
    ({"content": TEXT, "isError": True}, True),
    ({"content": TEXT, "isError": 1}, True),  # 0/1 are taken as flags
    ({"content": TEXT, "isError": None}, False),
    ({"content": TEXT, "resultType": "complete"}, False),
    ({"content": MEDIA}, False),
    ({"content": MEDIA, "isError": True}, True),
    ({"content": tuple(TEXT)}, False),
]


@pytest.mark.parametrize(("envelope", "is_error"), ENVELOPES)
def test_each_envelope_builds_what_the_constructor_builds(
    envelope: dict[str, Any], is_error: bool
) -> None:
    built = ToolResult.from_mcp(envelope, id="call_1", name="tool")
    expected = ToolResult(id="call_1", name="tool", content=envelope["content"], is_error=is_error)
    assert built == expected
    assert (built._string, built._texts) == (expected._string, expected._texts)
    for wire in WIRES:
        assert built.to(wire, image_input=True) == expected.to(wire, image_input=True)


@pytest.mark.parametrize(
    "envelope",
    [{"content": "text"}, {"content": TEXT, "isError": "yes"}, {"content": [1]}],
)
def test_a_short_envelope_is_checked_like_any_other(envelope: dict[str, Any]) -> None:
    with pytest.raises(InvalidToolResult):
        ToolResult.from_mcp(envelope, id="call_1", name="tool")


def test_a_short_envelope_keeps_the_argument_checks() -> None:
    with pytest.raises(InvalidToolResult, match="strings"):
        ToolResult.from_mcp({"content": TEXT}, id=1, name="tool")  # type: ignore[arg-type]
