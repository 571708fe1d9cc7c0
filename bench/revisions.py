"""Time the converter at two git revisions side by side, in CPU time.

Run: ``python bench/revisions.py [BEFORE [AFTER]]`` (default ``HEAD~1`` and the working
tree, ``.``). Each revision's ``convert/`` package is extracted with ``git archive``
into a temporary directory and imported under its own name, so both run in one
process on the same inputs: ``bench/peers.py``'s cases (one small text; 20 small
texts; text + a 200 KB PNG; a 10 MB PDF resource) through ``from_mcp`` and the
calls the peers bench times.

Timing: each round runs every case for both revisions in a random order, each as a
batch of at least 10 ms of the thread's CPU time (``time.thread_time``: time the
scheduler gives other processes on a shared machine is not counted, where wall
clock would count it); the ratio shown is the median of the per-round ratios
AFTER / BEFORE, with its interquartile range. Nothing is judged: this shows what a
change does, ``bench/peers.py`` holds the targets.
"""

from __future__ import annotations

import gc
import importlib
import io
import os
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from e2e import CASES as E2E_CASES  # noqa: E402
from e2e import TEXTS  # noqa: E402

ROUNDS = int(os.environ.get("REVISIONS_ROUNDS", "15"))
BATCH = 0.010  # seconds of CPU time a batch runs at least
CONTENT = {key[0]: content for key, content in E2E_CASES.items()}
NATIVE = {"image_input": True, "native_pdf": True}


def load(revision: str, into: str, name: str) -> Any:
    """Import ``convert/`` at ``revision`` (``.``: the working tree) as package ``name``."""
    target = os.path.join(into, name)
    if revision == ".":
        os.symlink(os.path.join(ROOT, "convert"), target)
    else:
        archive = subprocess.run(
            ["git", "-C", ROOT, "archive", revision, "convert"],
            check=True,
            capture_output=True,
        ).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(into, filter="data")
        os.rename(os.path.join(into, "convert"), target)
    return importlib.import_module(name)


def cases(convert: Any) -> dict[str, Callable[[], object]]:
    """The calls timed, for one revision's package."""
    from_mcp, fmt = convert.ToolResult.from_mcp, convert.format_tool_results
    text = {"content": CONTENT["a"], "isError": False}
    texts = [
        ({"content": content, "isError": False}, f"call_{i}") for i, content in enumerate(TEXTS)
    ]
    png = {"content": CONTENT["b"], "isError": False}
    pdf = {"content": CONTENT["c"], "isError": False}
    return {
        "a: from_mcp": lambda: from_mcp(text, id="call_0", name="tool"),
        "a: anthropic to": lambda: from_mcp(text, id="call_0", name="tool").to(
            "anthropic", **NATIVE
        ),
        "a: anthropic format": lambda: fmt(
            "anthropic", [from_mcp(text, id="call_0", name="tool")], **NATIVE
        ),
        "d: anthropic to": lambda: [
            from_mcp(d, id=i, name="tool").to("anthropic", **NATIVE) for d, i in texts
        ],
        "d: openai+hoist format": lambda: fmt(
            "openai", [from_mcp(d, id=i, name="tool") for d, i in texts], hoist=True, **NATIVE
        ),
        "b: responses to": lambda: from_mcp(png, id="call_0", name="tool").to(
            "responses", **NATIVE
        ),
        "b: openai+hoist format": lambda: fmt(
            "openai", [from_mcp(png, id="call_0", name="tool")], hoist=True, **NATIVE
        ),
        "c: responses to": lambda: from_mcp(pdf, id="call_0", name="tool").to(
            "responses", **NATIVE
        ),
    }


def batch(call: Callable[[], object]) -> float:
    """Return the CPU time of one call, over a batch of at least ``BATCH`` seconds."""
    count, spent = 0, 0.0
    gc.disable()
    try:
        start = time.thread_time()
        while spent < BATCH:
            call()
            count += 1
            spent = time.thread_time() - start
    finally:
        gc.enable()
    return spent / count


def main() -> None:
    before = sys.argv[1] if len(sys.argv) > 1 else "HEAD~1"
    after = sys.argv[2] if len(sys.argv) > 2 else "."
    with tempfile.TemporaryDirectory() as into:
        sys.path.insert(0, into)
        sides = [cases(load(rev, into, f"rev_{n}")) for n, rev in enumerate((before, after))]
        times: dict[str, tuple[list[float], list[float]]] = {key: ([], []) for key in sides[0]}
        for _ in range(ROUNDS):
            for key in sides[0]:
                order = [0, 1]
                random.shuffle(order)
                for side in order:
                    times[key][side].append(batch(sides[side][key]))
    print(f"{before} -> {after}: {ROUNDS} rounds, CPU time per call (median), ratio after/before")
    print(f"{'case':24} {'before us':>10} {'after us':>10} {'ratio':>6} {'IQR':>11}")
    for key, (old, new) in times.items():
        ratios = sorted(b / a for a, b in zip(old, new, strict=True))
        quarter = len(ratios) // 4
        print(
            f"{key:24} {statistics.median(old) * 1e6:10.2f} {statistics.median(new) * 1e6:10.2f}"
            f" {statistics.median(ratios):6.3f} {ratios[quarter]:.2f}-{ratios[-1 - quarter]:.2f}"
        )


if __name__ == "__main__":
    main()
