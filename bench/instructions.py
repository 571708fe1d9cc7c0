"""Count the instructions of the text pairs of ``bench/peers.py`` (valgrind's callgrind).

Run: ``python bench/instructions.py`` (needs ``valgrind`` on the PATH and LiteLLM, the
``bench`` extra; exit 2 when either is missing).

Wall-clock ratios of two microsecond-scale calls swing by a third between runs on a
shared machine (``bench/peers.py`` prints that noise); instruction counts do not. This
script runs the text pairs of the peers bench -- (a) one small text and (d) 20 small
texts, on anthropic, gemini, responses and openai, through ``to`` and ``format``, from
the same MCP dicts, with the same adapter and converters for LiteLLM -- in one process
per side under callgrind, and prints per result the instructions of toolwire and of
LiteLLM, their ratio and the peers bench's target (1.2x).

Each pair runs ``ROUNDS`` times in a loop, after 50 warm-up calls (the interpreter
specialises its code on the first few), with the garbage collector off (as the peers
bench's batches). Before each loop and after the last the child calls ``math.comb``, and
callgrind writes a dump before each such call, so a pair's count holds its loop alone,
nothing of the imports or the set-up (the script checks the number of dumps, so another
caller of ``math.comb`` is an error, not a shifted table). The count of the same loop
around a function that does nothing is taken off. Dictionary layouts follow the string
hash seed, so each side runs under several fixed ``PYTHONHASHSEED`` values and the
median ratio is judged (the lowest and highest shown beside it). The media pairs are
left to the peers bench: their time is memory bandwidth, which instructions do not
measure.

Environment: ``INSTRUCTIONS_SEEDS`` (default ``0,1,2``), ``INSTRUCTIONS_ROUNDS``
(default 30). The runs (one per side and seed) go in parallel, one per CPU; the
LiteLLM side takes a few minutes each, most of it LiteLLM's import under valgrind.
Exit 1 when a target is missed.
"""

from __future__ import annotations

import gc
import importlib.util
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CASES = ("a", "d")
ENTRIES = ("to", "format")
SIDES = ("toolwire", "LiteLLM")
WARM_UP = 50  # calls of each pair before the counted ones
# The C function of ``math.comb``, called between the pairs and nowhere else: callgrind
# writes a dump before each call of it, so each pair's loop is one dump.
MARKER = "math_comb"


def child(side: str, rounds: int) -> None:
    """Run every text pair of ``side``, each pair's loop between two marker calls."""
    sys.path.insert(0, str(HERE))
    import peers

    if side == "toolwire":
        make = peers.ours_call
    else:
        found = peers.litellm_side()
        if isinstance(found, str):
            raise SystemExit(found)
        converters = found[0]

        def make(wire: str, entry: str, each: list[tuple[dict[str, Any], str]]) -> Any:
            return peers.peer_call(converters, wire, entry, each)

    made = [
        make(wire, entry, peers.calls(case))
        for case in CASES
        for wire in peers.WIRES
        for entry in ENTRIES
    ]

    def nothing() -> None:
        return None

    for call in (nothing, *made):  # past the interpreter's warm-up (specialising)
        for _ in range(WARM_UP):
            call()
    gc.disable()
    for call in (nothing, *made):  # one dump each, in this order
        math.comb(1, 1)  # the marker: callgrind dumps what came before
        for _ in range(rounds):
            call()
    math.comb(1, 1)


def counted(side: str, seed: str, rounds: int, folder: str) -> list[int]:
    """Run ``side`` under callgrind with ``seed``; return the count of each dump, in order."""
    out = os.path.join(folder, f"{side}.{seed}")
    command = [
        "valgrind",
        "--tool=callgrind",
        f"--dump-before={MARKER}",
        f"--callgrind-out-file={out}.%p",
        sys.executable,
        __file__,
        "--child",
        side,
        str(rounds),
    ]
    env = {**os.environ, "PYTHONHASHSEED": seed, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{side} (seed {seed}) failed:\n{done.stderr[-2000:]}")
    dumps = sorted(
        Path(folder).glob(f"{side}.{seed}.*.*"), key=lambda path: int(path.name.split(".")[-1])
    )
    counts = []
    for dump in dumps[1:]:  # the first: from the start to the first marker
        for line in dump.read_text().splitlines():
            if line.startswith("totals:") or line.startswith("summary:"):
                counts.append(int(line.split()[1]))
                break
    return counts


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]))
        return 0
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (Debian: apt install valgrind)", file=sys.stderr)
        return 2
    if importlib.util.find_spec("litellm") is None:
        print("LiteLLM is not installed; pip install -e '.[bench]'", file=sys.stderr)
        return 2
    sys.path.insert(0, str(HERE))
    import peers

    seeds = os.environ.get("INSTRUCTIONS_SEEDS", "0,1,2").split(",")
    rounds = int(os.environ.get("INSTRUCTIONS_ROUNDS", "30"))
    pairs = [(case, wire, entry) for case in CASES for wire in peers.WIRES for entry in ENTRIES]
    print(
        f"CPUs: {os.cpu_count()}; callgrind, {rounds} rounds per pair, "
        f"PYTHONHASHSEED {', '.join(seeds)}; instructions per result"
    )
    jobs = [(side, seed) for seed in seeds for side in SIDES]
    with tempfile.TemporaryDirectory() as folder, ThreadPoolExecutor(os.cpu_count()) as pool:
        runs: dict[tuple[str, str], list[int]] = dict(
            zip(jobs, pool.map(lambda job: counted(*job, rounds, folder), jobs), strict=True)
        )
    per_result: dict[tuple[str, str], list[float]] = {}
    for (side, seed), counts in runs.items():
        if len(counts) != len(pairs) + 1:  # something else called the marker
            raise SystemExit(
                f"{side} (seed {seed}): {len(counts)} counted parts, not {len(pairs) + 1}: "
                f"{MARKER} was called elsewhere, or its symbol is not visible to valgrind"
            )
        empty = counts[0]
        per_result[side, seed] = [
            (count - empty) / rounds / len(peers.calls(case))
            for count, (case, _, _) in zip(counts[1:], pairs, strict=True)
        ]
    print(
        f"{'case':22} {'wire':12} {'entry':7} {'toolwire':>9} {'LiteLLM':>9} "
        f"{'ratio':>6} {'low-high':>11} {'target':>6}  result"
    )
    missed = []
    for index, (case, wire, entry) in enumerate(pairs):
        ratios = [
            per_result["toolwire", seed][index] / per_result["LiteLLM", seed][index]
            for seed in seeds
        ]
        ours = statistics.median(per_result["toolwire", seed][index] for seed in seeds)
        theirs = statistics.median(per_result["LiteLLM", seed][index] for seed in seeds)
        middle = statistics.median(ratios)
        goal = peers.target(case, wire, entry)
        named = peers.shown(wire, entry)
        result = "pass" if middle <= goal else "FAIL"
        if result == "FAIL":
            missed.append(f"{case}/{named}/{entry}: {middle:.3f}x > {goal:g}x")
        print(
            f"{case + ': ' + peers.TITLES[case]:22} {named:12} {entry:7} {ours:9.0f} "
            f"{theirs:9.0f} {middle:6.3f} {min(ratios):5.3f}-{max(ratios):<5.3f} "
            f"{goal:5g}x  {result}"
        )
    print()
    if missed:
        print("TARGETS MISSED:")
        for line in missed:
            print("  -", line)
        return 1
    print("all targets met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
