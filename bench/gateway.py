"""Benchmark convert_tool_results against the same re-targeting done by hand.

Run: ``python bench/gateway.py``. For each case of ``bench/convert.py`` (small
text, text + 200 KB PNG, 10 MB PDF, and a batch of 20 text results), the result
is written to a source wire with every native form on, then re-targeted to
another wire two ways, side by side in this one process (interleaved, best of
several repeats), after checking both give equal output:

- ``convert_tool_results(source, target, blocks, **options)``;
- by hand: ``ToolResult.from_wire`` on each block, then ``format_tool_results``.

bedrock blocks are the JSON form (base64 strings), as a gateway receives them.

Printed ratios are convert_tool_results time / by-hand time (target: <= 1.25;
both sides do the same work, so a ratio far from 1 is noise from a busy machine:
rerun).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

from toolwire.convert import ToolResult, convert_tool_results, format_tool_results

_spec = importlib.util.spec_from_file_location(
    "bench_convert", Path(__file__).with_name("convert.py")
)
assert _spec is not None and _spec.loader is not None
bench_convert = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_convert)

NATIVE = {"image_input": True, "native_pdf": True}
#: (source, target): what a gateway in front of each wire typically sends on to
PAIRS = [
    ("anthropic", "gemini"),
    ("anthropic", "openai"),
    ("openai", "anthropic"),
    ("responses", "anthropic"),
    ("gemini", "responses"),
    ("ollama", "openai"),
    ("hermes", "openai"),
    ("anthropic", "bedrock"),
    ("bedrock", "anthropic"),
]
TARGET = 1.25


def _side_by_side(ours: Any, hand: Any, budget: float, rounds: int) -> tuple[float, float]:
    """Return the best per-call times of both, timed interleaved in several rounds.

    Many short rounds rather than a few long ones: on a shared machine a burst of
    load then spoils a few rounds of one side, not the whole measurement.
    """
    a, b = [], []
    for _ in range(rounds):
        a.append(bench_convert.best(ours, budget=budget, repeat=3))
        b.append(bench_convert.best(hand, budget=budget, repeat=3))
    return min(a), min(b)


def main() -> int:
    cases: dict[str, list[ToolResult]] = {
        name: [ToolResult(name="tool", id="call_1", content=content)]
        for name, content in bench_convert.CASES.items()
    }
    cases["d: 20 text results"] = [
        ToolResult(name="tool", id=f"call_{i}", content=[{"type": "text", "text": f"result {i}"}])
        for i in range(20)
    ]
    failures: list[str] = []
    print(f"{'case':24} {'source -> target':22} {'convert us':>11} {'by hand us':>11} {'ratio':>6}")
    for case, results in cases.items():
        for source, target in PAIRS:
            blocks = [result.to(source, **NATIVE) for result in results]

            def ours(b: list[Any] = blocks, s: str = source, t: str = target) -> Any:
                return convert_tool_results(s, t, b, image_input=True, native_pdf=True)

            def hand(b: list[Any] = blocks, s: str = source, t: str = target) -> Any:
                read = [ToolResult.from_wire(s, block) for block in b]
                return format_tool_results(t, read, image_input=True, native_pdf=True)

            if ours() != hand():
                failures.append(f"{case}/{source}->{target}: outputs differ")
                continue
            big = case[0] == "c"
            ours_s, hand_s = _side_by_side(ours, hand, 0.25 if big else 0.02, 4 if big else 12)
            ratio = ours_s / hand_s
            if ratio > TARGET:
                failures.append(f"{case}/{source}->{target}: ratio {ratio:.2f} > {TARGET}")
            print(
                f"{case:24} {source + ' -> ' + target:22} {ours_s * 1e6:11.2f} "
                f"{hand_s * 1e6:11.2f} {ratio:6.2f}"
            )
    print()
    if failures:
        print("TARGETS MISSED:")
        for failure in failures:
            print("  -", failure)
        return 1
    print("all targets met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
