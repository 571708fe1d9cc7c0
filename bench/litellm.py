"""Benchmark the LiteLLM callback: ``litellm.acompletion`` with and without it.

Run: ``python bench/litellm.py`` (needs the ``test`` extra: LiteLLM and the loopback
provider servers of ``tests/probe/providers.py``). Each case sends one conversation
through ``litellm.acompletion`` to a loopback provider server, with LiteLLM's callbacks
empty, holding a callback that does nothing, and holding ``ToolwireCallback``,
interleaved in many short rounds in this
one process (each side's best round, and the median of the rounds' paired ratios,
which the target is checked on: a burst of load on a shared machine spoils a round,
not the measurement):

- ``no tool media``: two tool calls (valid ids) and their text results, to Claude on
  the Anthropic API: the callback reads the conversation, resolves (cached), finds
  nothing to change and returns None. Target: <= 1.05x the same request with a
  callback that does nothing (LiteLLM builds its logging payloads for any callback
  installed, which is LiteLLM's cost, not toolwire's; the ratio to LiteLLM with no
  callback at all is printed too).
- ``media, native``: a 200 KB PNG in a tool result to Claude, which reads it: the
  callback reads the part (data URL), reports it native and keeps it.
- ``media, placeholder``: the same to Gemini 2.5, which does not read tool-result
  images: the callback replaces it with the placeholder, so LiteLLM sends less.

For every case the callback's own cost (the hook called alone on the same request,
driven without an event loop) is printed beside LiteLLM's own request time without
the callback, and as a share of it: on a busy machine the end-to-end ratios swing by
more than the hook costs, and the share bounds what the callback adds.
"""

from __future__ import annotations

import asyncio
import base64
import importlib
import importlib.metadata
import os
import statistics
import sys
import tempfile
import time
import zlib
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

# This file bears the package's name: a script run from bench/ (this one, or peers.py)
# has bench/ first on sys.path, where ``import litellm`` would find this file.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]
if __name__ == "litellm":  # imported in the package's place: hand the real one over
    del sys.modules[__name__]
    sys.modules[__name__] = importlib.import_module("litellm")

_TESTS = _HERE.parent / "tests"
TARGET = 1.05
TOOLS = [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}]


def _png(size: int) -> str:
    """Return the base64 of a valid PNG of about ``size`` bytes (incompressible rows)."""
    width = 256
    rows = max(1, size // (width * 3 + 1))
    raw = b"".join(b"\x00" + os.urandom(width * 3) for _ in range(rows))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return len(data).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")

    header = width.to_bytes(4, "big") + rows.to_bytes(4, "big") + b"\x08\x02\x00\x00\x00"
    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 0))
        + chunk(b"IEND", b"")
    )
    return base64.b64encode(png).decode()


def _conversation(tool_content: list[Any] | None) -> list[dict[str, Any]]:
    calls = [
        {"id": f"toolu_01{i}", "type": "function", "function": {"name": "bash", "arguments": "{}"}}
        for i in range(2)
    ]
    return [
        {"role": "user", "content": "run it twice"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        {"role": "tool", "tool_call_id": "toolu_010", "content": tool_content or "first output"},
        {"role": "tool", "tool_call_id": "toolu_011", "content": "second output"},
    ]


def _mean_time(run: Callable[[Coroutine[Any, Any, Any]], Any], make: Any, count: int) -> float:
    start = time.perf_counter()
    for _ in range(count):
        run(make())
    return (time.perf_counter() - start) / count


def _drive(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """Run a coroutine that never awaits, without an event loop (whose own cost per
    task would hide the hook's)."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    raise RuntimeError("the hook awaited something")


def main() -> int:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_TELEMETRY", "False")
    sys.path[:0] = [str(_TESTS / "probe"), str(_TESTS / "convert")]
    import litellm
    from litellm.integrations.custom_logger import CustomLogger
    from litellm.types.utils import CallTypes
    from providers import KEY, ProviderServer
    from toolwire.integrations.litellm import ToolwireCallback
    from toolwire.registry import Registry

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    rounds, per_round = 40, 3
    load = os.getloadavg()
    print(
        f"CPUs: {os.cpu_count()}, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
        f"litellm {importlib.metadata.version('litellm')}; "
        f"{rounds} rounds of {per_round} requests each way, interleaved"
    )
    servers = {
        wire: ProviderServer(wire, converter_checks=False).start()
        for wire in ("anthropic", "gemini")
    }
    runner = asyncio.Runner()
    worst = 0.0
    with (
        tempfile.TemporaryDirectory() as directory,
        Registry(f"sqlite:///{directory}/registry.sqlite3") as registry,
    ):
        callback = ToolwireCallback(registry=registry)
        # LiteLLM does work of its own for any callback installed (its logging
        # payloads): a callback that does nothing shows that cost apart from toolwire's
        sides = {"alone": [], "no-op": [CustomLogger()], "toolwire": [callback]}
        png = _png(200_000)
        media = [
            {"type": "text", "text": "the screen"},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{png}"}},
        ]
        cases = [
            ("no tool media", "anthropic", "anthropic/claude-sonnet-4-5-ignorer", None),
            ("media, native", "anthropic", "anthropic/claude-sonnet-4-5-ignorer", media),
            ("media, placeholder", "gemini", "gemini/gemini-2.5-flash-ignorer", media),
        ]
        for name, wire, model, content in cases:
            server = servers[wire]
            base = server.base_url + ("/v1beta" if wire == "gemini" else "")
            messages = _conversation(content)

            def request(model: str = model, base: str = base, messages: Any = messages) -> Any:
                return litellm.acompletion(
                    model=model,
                    messages=messages,
                    tools=TOOLS,
                    api_base=base,
                    api_key=KEY,
                    max_tokens=16,
                )

            runner.run(request())  # warm: clients, the resolution cache
            times: dict[str, list[float]] = {side: [] for side in sides}
            for _ in range(rounds):
                for side, installed in sides.items():
                    litellm.callbacks = installed
                    times[side].append(_mean_time(runner.run, request, per_round))
            litellm.callbacks = []
            assert not server.failures, server.failures
            kwargs = {"model": model, "messages": messages, "tools": TOOLS}

            def hook(kwargs: dict[str, Any] = kwargs) -> Any:
                return callback.async_pre_call_deployment_hook(kwargs, CallTypes.acompletion)

            hook_alone = min(_mean_time(_drive, hook, 50) for _ in range(5))
            bare, noop, ours = (min(times[side]) for side in sides)
            ratio = ours / noop
            rounds_ratio = statistics.median(
                w / o for w, o in zip(times["toolwire"], times["no-op"], strict=True)
            )
            print(
                f"{name:19} LiteLLM alone {bare * 1e3:7.2f} ms, with a no-op callback "
                f"{noop * 1e3:7.2f} ms, with toolwire's {ours * 1e3:7.2f} ms: "
                f"{ratio:5.3f}x the no-op (median round {rounds_ratio:5.3f}x), "
                f"{ours / bare:5.3f}x alone; the hook alone {hook_alone * 1e3:6.3f} ms "
                f"({hook_alone / bare:.2%} of LiteLLM's request alone)"
            )
            if content is None:  # the paired rounds' median: one lucky round moves a min
                worst = max(worst, rounds_ratio)
    runner.close()
    for server in servers.values():
        server.stop()
    verdict = "ok" if worst <= TARGET else "OVER"
    print(f"without tool media: {worst:.3f}x (target <= {TARGET}x): {verdict}")
    return 0 if worst <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
