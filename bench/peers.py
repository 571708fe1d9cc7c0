"""Benchmark toolwire.convert against LiteLLM's converters, in one process, interleaved.

Run: ``python bench/peers.py`` (LiteLLM is a bench-only dependency, never a
runtime one: ``pip install -e '.[bench]'``; without it the comparison is
skipped with the reason, and the sections that need no peer still run).

From the MCP ``CallToolResult`` dict a user holds, on the cases of
``bench/e2e.py`` -- (a) one small text, (b) text + a 200 KB PNG, (c) a 10 MB PDF
resource, (d) 20 small texts -- and the wires anthropic, gemini, responses and
openai, through both entry points:

- toolwire: ``ToolResult.from_mcp(d).to(wire)`` per result, and
  ``format_tool_results(wire, [ToolResult.from_mcp(d), ...])``; media go
  natively (``image_input=True, native_pdf=True``), and on openai
  ``format_tool_results`` hoists them (``hoist=True``: the only path where
  media leave the tool message); ``to("openai")`` sends their placeholders.
- LiteLLM: a minimal MCP -> OpenAI tool message adapter (below: a single text
  as the string, else text / ``image_url`` / ``file`` parts with ``data:``
  URLs), then LiteLLM's own converter for the provider:
  ``convert_to_anthropic_tool_result``, ``convert_to_gemini_tool_call_result``
  (the tool name on the message, the call id forwarded), the Responses
  handler's ``convert_chat_completion_messages_to_responses_api`` and
  ``OpenAIGPTConfig.transform_messages`` (which hoists media out of tool
  messages too). Per result: one message; as a list: every message, in the
  wire's envelope (one user message on anthropic and gemini).

Timing: for each case, every implementation (wire x entry point x side) runs in
a fresh random order each round, each as a batch of at least 10 ms (gc off
inside a batch); the per-call medians over ``ROUNDS`` rounds are shown, and the
ratio is the median of the per-round ratios toolwire / LiteLLM (both measured
in the same round), with its interquartile range as the noise. Targets
(pass/fail per row): every media pair (b, c) <= 1.0x LiteLLM, except where
toolwire checks the base64 that LiteLLM does not (media on responses, and on
openai through hoisting): <= 2.0x; every text pair (a, d) <= 1.2x. Peak memory
(tracemalloc) of one call on (c), in payloads.

Beside it, not judged: on responses, LiteLLM against the floor of any checked
conversion (one copy of the payload, which LiteLLM makes too, plus one read of it
at memory bandwidth), a copy alone and toolwire's strict check alone.

Then two targets against toolwire itself or ``bench/e2e.py``'s builders:
``format_tool_results(w, rs, hoist=True)`` with nothing to hoist <= 1.1x the
call without ``hoist``; media not sent natively (openai, anthropic with the
native options off) <= 6.5x ``bench/e2e.py``'s placeholder builder (L0) through
both entry points (``from_mcp`` alone shown beside them, not judged). Exit 1 when
a target is missed.
"""

from __future__ import annotations

import gc
import os
import random
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from e2e import CASES as E2E_CASES
from e2e import LIMITS, TEXTS, limit_envelope
from toolwire.convert import ToolResult, _base64, format_tool_results

from convert import PDF_B64

# environment: PEERS_ROUNDS, PEERS_ONLY (peers,floor,hoist,placeholders)
ROUNDS = int(os.environ.get("PEERS_ROUNDS", "11"))
BATCH = 0.010  # seconds: the least a batch runs
WIRES = ("anthropic", "gemini", "responses", "openai")
TEXT_TARGET = 1.2  # text pairs (a, d) against LiteLLM
PLACEHOLDER_TARGET = 6.5  # media not sent natively against the placeholder builder

Content = list[dict[str, Any]]
# e2e's one-result cases (a, b, c), by their letter, and its 20 small texts as (d)
CASES: dict[str, list[Content]] = {key[0]: [content] for key, content in E2E_CASES.items()}
CASES["d"] = TEXTS
TITLES = {
    "a": "one small text",
    "b": "text + 200 KB PNG",
    "c": "10 MB PDF resource",
    "d": "20 small texts",
}


def mcp(content: Content) -> dict[str, Any]:
    return {"content": content, "isError": False}


def validated(case: str, wire: str, entry: str) -> bool:
    """True where toolwire runs the strict base64 check and LiteLLM checks nothing."""
    return case in "bc" and (wire == "responses" or (wire == "openai" and entry == "format"))


# --- the LiteLLM side ---------------------------------------------------------------


def adapt(d: dict[str, Any], call_id: str, name: str | None = None) -> dict[str, Any]:
    """The minimal MCP CallToolResult -> OpenAI tool message adapter LiteLLM needs."""
    parts: list[dict[str, Any]] = []
    for item in d["content"]:
        kind = item["type"]
        if kind == "text":
            parts.append({"type": "text", "text": item["text"]})
        elif kind == "image":
            url = f"data:{item['mimeType']};base64,{item['data']}"
            parts.append({"type": "image_url", "image_url": {"url": url}})
        elif kind == "resource":
            res = item["resource"]
            data = f"data:{res['mimeType']};base64,{res['blob']}"
            filename = res["uri"].rsplit("/", 1)[-1]
            parts.append({"type": "file", "file": {"file_data": data, "filename": filename}})
    message: dict[str, Any] = {"role": "tool", "tool_call_id": call_id}
    if name is not None:
        message["name"] = name
    message["content"] = parts[0]["text"] if len(parts) == 1 and "text" in parts[0] else parts
    return message


Converters = dict[str, tuple[Callable[..., Any], Callable[..., Any]]]


def litellm_side() -> tuple[Converters, str] | str:
    """Return LiteLLM's converter per wire (one message list in, the wire's output out)
    and its version, or the reason it cannot run."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network at import
    try:
        import importlib.metadata

        from litellm.completion_extras.litellm_responses_transformation.transformation import (
            LiteLLMResponsesTransformationHandler,
        )
        from litellm.litellm_core_utils.prompt_templates.factory import (
            convert_to_anthropic_tool_result,
            convert_to_gemini_tool_call_result,
        )
        from litellm.llms.openai.chat.gpt_transformation import OpenAIGPTConfig
    except ImportError as exc:
        return f"LiteLLM is not installed ({exc}); pip install -e '.[bench]'"
    responses = LiteLLMResponsesTransformationHandler()
    openai = OpenAIGPTConfig()

    def gemini_one(m: dict[str, Any]) -> Any:
        return convert_to_gemini_tool_call_result(m, None, forward_function_call_id=True)

    def anthropic(messages: list[dict[str, Any]]) -> Any:
        return [
            {"role": "user", "content": [convert_to_anthropic_tool_result(m) for m in messages]}
        ]

    def gemini(messages: list[dict[str, Any]]) -> Any:
        parts: list[Any] = []
        for m in messages:
            part = gemini_one(m)
            parts.extend(part if isinstance(part, list) else [part])
        return [{"role": "user", "parts": parts}]

    def responses_(messages: list[dict[str, Any]]) -> Any:
        return responses.convert_chat_completion_messages_to_responses_api(messages)[0]

    def openai_(messages: list[dict[str, Any]]) -> Any:
        return openai.transform_messages(messages, model="gpt-4o")

    converters = {
        # wire: (one tool message -> its block, the tool messages -> the wire's messages);
        # responses and openai convert lists only: one message is a list of one
        "anthropic": (convert_to_anthropic_tool_result, anthropic),
        "gemini": (gemini_one, gemini),
        "responses": (lambda m: responses_([m]), responses_),
        "openai": (lambda m: openai_([m]), openai_),
    }
    return converters, importlib.metadata.version("litellm")


# --- measuring ----------------------------------------------------------------------


class Timed:
    """One implementation: a callable, its batch size, and its per-call time per round."""

    def __init__(self, fn: Callable[[], object]) -> None:
        self.fn = fn
        self.number = 1
        while self._batch() < BATCH:
            self.number *= 2
        self.times: list[float] = []

    def _batch(self) -> float:
        fn = self.fn
        gc.disable()
        try:
            start = time.perf_counter()
            for _ in range(self.number):
                fn()
            return time.perf_counter() - start
        finally:
            gc.enable()

    def run(self) -> None:
        self.times.append(self._batch() / self.number)

    @property
    def median(self) -> float:
        return statistics.median(self.times)


def interleaved(timed: list[Timed]) -> None:
    """Run every implementation once per round, in a fresh random order each round."""
    for _ in range(ROUNDS):
        order = timed[:]
        random.shuffle(order)
        for each in order:
            each.run()
        gc.collect()


def ratio(ours: Timed, peer: Timed) -> tuple[float, float, float]:
    """Median and interquartile range of the per-round ratios ours / peer."""
    ratios = sorted(a / b for a, b in zip(ours.times, peer.times, strict=True))
    if len(ratios) < 2:  # one round (PEERS_ROUNDS=1): no spread to show
        return ratios[0], ratios[0], ratios[0]
    quartiles = statistics.quantiles(ratios, n=4)
    return statistics.median(ratios), quartiles[0], quartiles[2]


def peak(fn: Callable[[], object]) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


class Report:
    def __init__(self) -> None:
        self.failures: list[str] = []
        self.spreads: list[float] = []

    def verdict(self, what: str, value: tuple[float, float, float], target: float) -> str:
        """Pass/fail of a median ratio (and its quartiles, kept as the noise)."""
        middle, low, high = value
        self.spreads.append((high - low) / middle)
        if middle <= target:
            return "pass"
        self.failures.append(f"{what}: {middle:.2f}x > {target:g}x")
        return "FAIL"


def ours_call(wire: str, entry: str, each: list[tuple[dict[str, Any], str]]) -> Callable[[], Any]:
    """toolwire's side of a pair: the options as a caller writes them (keywords, not a
    ``**`` dict); on openai ``to`` sends media as placeholders whatever is given, and
    ``format`` hoists them."""
    hoisting = wire == "openai"
    if entry == "to":

        def ours(w: str = wire, plain: bool = hoisting, pairs: Any = each) -> Any:
            if plain:
                return [ToolResult.from_mcp(d, id=i, name="tool").to(w) for d, i in pairs]
            return [
                ToolResult.from_mcp(d, id=i, name="tool").to(w, image_input=True, native_pdf=True)
                for d, i in pairs
            ]

        return ours

    def ours_format(w: str = wire, hoist: bool = hoisting, pairs: Any = each) -> Any:
        results = [ToolResult.from_mcp(d, id=i, name="tool") for d, i in pairs]
        if hoist:
            return format_tool_results(w, results, hoist=True, image_input=True, native_pdf=True)
        return format_tool_results(w, results, image_input=True, native_pdf=True)

    return ours_format


def peer_call(
    converters: Converters, wire: str, entry: str, each: list[tuple[dict[str, Any], str]]
) -> Callable[[], Any]:
    """LiteLLM's side of a pair: the adapter, then its converter (per message for ``to``)."""
    one, many = converters[wire]
    name = "tool" if wire == "gemini" else None
    if entry == "to":

        def peer(c: Callable[..., Any] = one, n: Any = name, pairs: Any = each) -> Any:
            return [c(adapt(d, i, n)) for d, i in pairs]

        return peer

    def peer_format(c: Callable[..., Any] = many, n: Any = name, pairs: Any = each) -> Any:
        return c([adapt(d, i, n) for d, i in pairs])

    return peer_format


def calls(case: str) -> list[tuple[dict[str, Any], str]]:
    """The (MCP dict, call id) of each result of ``case``."""
    return [(mcp(content), f"call_{i}") for i, content in enumerate(CASES[case])]


def target(case: str, wire: str, entry: str) -> float:
    return TEXT_TARGET if case in "ad" else 2.0 if validated(case, wire, entry) else 1.0


def shown(wire: str, entry: str) -> str:
    return "openai+hoist" if wire == "openai" and entry == "format" else wire


def peers_table(report: Report, converters: Converters) -> None:
    print(
        f"{'case':22} {'wire':10} {'entry':7} {'toolwire us':>12} {'LiteLLM us':>11} "
        f"{'ratio':>6} {'IQR':>11} {'target':>6}  result  notes"
    )
    for case in CASES:
        each = calls(case)
        pairs: list[tuple[str, str, Timed, Timed, str]] = []
        for wire in WIRES:
            for entry in ("to", "format"):
                ours = ours_call(wire, entry, each)
                peer = peer_call(converters, wire, entry, each)
                notes = ""
                if case == "c":
                    size = len(PDF_B64)
                    notes = f"peak {peak(ours) / size:.2f} / {peak(peer) / size:.2f} payloads"
                pairs.append((wire, entry, Timed(ours), Timed(peer), notes))
        interleaved([timed for pair in pairs for timed in pair[2:4]])
        label = f"{case}: {TITLES[case]}"
        for wire, entry, ours_t, peer_t, notes in pairs:
            middle, low, high = found = ratio(ours_t, peer_t)
            goal = target(case, wire, entry)
            named = shown(wire, entry)
            result = report.verdict(f"{case}/{named}/{entry} vs LiteLLM", found, goal)
            print(
                f"{label:22} {named:12.12} {entry:7} {ours_t.median * 1e6:10.2f} "
                f"{peer_t.median * 1e6:11.2f} {middle:6.2f} {low:5.2f}-{high:<5.2f} "
                f"{goal:5g}x  {result:6}  {notes}"
            )


def hoist_table(report: Report) -> None:
    """format_tool_results(w, rs, hoist=True) with nothing to hoist against no hoist."""
    print(f"{'case':22} {'wire':8} {'hoist us':>9} {'plain us':>9} {'ratio':>6} {'IQR':>11}")
    for case in ("a", "d"):
        for wire in ("openai", "ollama"):
            results = [
                ToolResult.from_mcp(mcp(c), id=f"call_{i}", name="tool")
                for i, c in enumerate(CASES[case])
            ]
            with_hoist = Timed(
                lambda w=wire, rs=results: format_tool_results(
                    w, rs, hoist=True, image_input=True, native_pdf=True
                )
            )
            plain = Timed(
                lambda w=wire, rs=results: format_tool_results(
                    w, rs, image_input=True, native_pdf=True
                )
            )
            interleaved([with_hoist, plain])
            middle, low, high = found = ratio(with_hoist, plain)
            result = report.verdict(f"{case}/{wire} hoist with nothing to hoist", found, 1.1)
            print(
                f"{case + ': ' + TITLES[case]:22} {wire:8} {with_hoist.median * 1e6:9.2f} "
                f"{plain.median * 1e6:9.2f} {middle:6.2f} {low:5.2f}-{high:<5.2f}  <= 1.1x "
                f"{result}"
            )


def floor_table(converters: Converters) -> None:
    """What the strict check adds on responses, against what no check can go below.

    LiteLLM copies the payload once (the ``data:`` URL) and checks nothing; any
    strict check reads the payload once more, so the floor of a checked
    conversion is that copy plus one read at memory bandwidth (``str.find`` of a
    NUL, which no payload holds). Shown, not judged.
    """
    one = converters["responses"][0]
    print(f"{'case':22} {'what':34} {'us':>10} {'/ LiteLLM':>10}")
    for case in ("b", "c"):
        content = CASES[case][0]
        d = mcp(content)
        item = content[-1]
        data = item["data"] if item["type"] == "image" else item["resource"]["blob"]
        mime = item.get("mimeType") or item["resource"]["mimeType"]
        rows = {
            "LiteLLM (adapter + converter)": Timed(lambda d=d: one(adapt(d, "call_0"))),
            "floor: one copy + one read": Timed(
                lambda data=data, mime=mime: (data.find("\0"), f"data:{mime};base64,{data}")
            ),
            "one copy (the data: URL)": Timed(
                lambda data=data, mime=mime: f"data:{mime};base64,{data}"
            ),
            "toolwire's strict check": Timed(lambda data=data: _base64.clean(data, True)),
            "toolwire from_mcp(d).to(responses)": Timed(
                lambda d=d: ToolResult.from_mcp(d, id="call_0", name="tool").to(
                    "responses", image_input=True, native_pdf=True
                )
            ),
        }
        interleaved(list(rows.values()))
        peer = rows["LiteLLM (adapter + converter)"]
        for what, timed in rows.items():
            middle = ratio(timed, peer)[0]
            label = f"{case}: {TITLES[case]}"
            print(f"{label:22} {what:34} {timed.median * 1e6:10.1f} {middle:9.2f}x")


def placeholder_table(report: Report) -> None:
    """Media not sent natively against bench/e2e.py's placeholder builder (L0)."""
    print(
        f"{'case':22} {'wire':14} {'entry':7} {'toolwire us':>12} {'L0 us':>8} "
        f"{'ratio':>6} {'IQR':>11}"
    )
    for case in ("b", "c"):
        d = mcp(CASES[case][0])
        timed: list[tuple[str, str, Timed, Timed]] = []
        for wire, native, label in (
            ("openai", True, "openai"),
            ("anthropic", False, "anthropic-off"),
        ):
            build = LIMITS[wire]
            ours_to = Timed(
                lambda w=wire, n=native, d=d: ToolResult.from_mcp(d, id="call_1").to(
                    w, image_input=n, native_pdf=n
                )
            )
            limit_to = Timed(lambda b=build, n=native, d=d: b("call_1", d, n, False))
            ours_format = Timed(
                lambda w=wire, n=native, d=d: format_tool_results(
                    w, [ToolResult.from_mcp(d, id="call_0")], image_input=n, native_pdf=n
                )
            )
            limit_format = Timed(lambda w=wire, n=native, d=d: limit_envelope(w, [d], n, False))
            timed += [
                (label, "to", ours_to, limit_to),
                (label, "format", ours_format, limit_format),
            ]
        # not judged: building the checked, read-only result alone, before any wire
        alone = Timed(lambda d=d: ToolResult.from_mcp(d, id="call_1"))
        interleaved([alone, *(t for row in timed for t in row[2:])])
        _, _, first_limit = timed[0][1:]
        print(
            f"{case + ': ' + TITLES[case]:22} {'(from_mcp alone, against the openai builder)':45} "
            f"{alone.median * 1e6:6.2f} {first_limit.median * 1e6:8.2f} "
            f"{ratio(alone, first_limit)[0]:6.2f}"
        )
        for label, entry, ours, limit in timed:
            if ours.fn() != limit.fn():
                report.failures.append(f"{case}/{label}/{entry}: differs from the builder")
            middle, low, high = found = ratio(ours, limit)
            result = report.verdict(
                f"{case}/{label}/{entry} vs the placeholder builder", found, PLACEHOLDER_TARGET
            )
            print(
                f"{case + ': ' + TITLES[case]:22} {label:14} {entry:7} {ours.median * 1e6:12.2f} "
                f"{limit.median * 1e6:8.2f} {middle:6.2f} {low:5.2f}-{high:<5.2f}  "
                f"<= {PLACEHOLDER_TARGET:g}x {result}"
            )


def main() -> int:
    report = Report()
    load = os.getloadavg()
    print(
        f"CPUs: {os.cpu_count()}, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
        f"{ROUNDS} rounds, batches >= {BATCH * 1e3:g} ms; "
        f"strict base64 check: {_base64.method() if hasattr(_base64, 'method') else 'translate'}"
    )
    sections = os.environ.get("PEERS_ONLY", "peers,floor,hoist,placeholders").split(",")
    wanted = "peers" in sections or "floor" in sections
    side = litellm_side() if wanted else "not asked for (PEERS_ONLY)"
    print()
    if isinstance(side, str):
        print(f"toolwire vs LiteLLM: skipped: {side}")
    else:
        converters, version = side
        print(f"toolwire vs LiteLLM {version} (LiteLLM after the MCP -> OpenAI message adapter)")
        if "peers" in sections:
            peers_table(report, converters)
        if "floor" in sections:
            print()
            print("media on responses: the strict check against the least any check adds:")
            floor_table(converters)
    if "hoist" in sections:
        print()
        print("hoist=True with nothing to hoist, against the same call without it:")
        hoist_table(report)
    if "placeholders" in sections:
        print()
        print("media not sent natively, against bench/e2e.py's placeholder builder:")
        placeholder_table(report)
    print()
    if report.spreads:
        spreads = sorted(report.spreads)
        print(
            f"noise: interquartile range of the per-round ratios, relative to the median: "
            f"median {statistics.median(spreads):.0%}, worst {spreads[-1]:.0%}"
        )
    if report.failures:
        print("TARGETS MISSED:")
        for failure in report.failures:
            print("  -", failure)
        return 1
    print("all targets met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
