"""Properties of the limits and the request budget over random calls (hypothesis).

Deterministic, non-mutating, the report agrees with the output, no payload where a
placeholder stands, and whatever goes natively keeps every limit (with what was sent).
"""

from __future__ import annotations

import copy
import io
import json
from typing import Any
from unittest import mock

from convert_samples import PDF, b64
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from PIL import Image
from toolwire.convert import ToolResult, _budget, format_tool_results, report, report_call


def _image(width: int, height: int, fmt: str) -> dict[str, Any]:
    out = io.BytesIO()
    Image.new("RGB" if fmt != "GIF" else "P", (width, height)).save(out, fmt)
    mime = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}
    return {"type": "image", "data": b64(out.getvalue()), "mimeType": mime[fmt]}


def _pdf(pages: int) -> dict[str, Any]:
    if pages == 1:
        raw = PDF
    else:
        out = io.BytesIO()
        sheets = [Image.new("RGB", (10, 10)) for _ in range(pages)]
        sheets[0].save(out, "PDF", save_all=True, append_images=sheets[1:])
        raw = out.getvalue()
    blob = {"uri": f"file:///p{pages}.pdf", "mimeType": "application/pdf", "blob": b64(raw)}
    return {"type": "resource", "resource": blob}


#: item -> (kind, longest side or page count, decoded bytes)
POOL: list[tuple[dict[str, Any], str, int, int]] = []
for _w, _h, _fmt in [(10, 10, "PNG"), (40, 12, "PNG"), (12, 33, "JPEG"), (25, 25, "WEBP"),
                     (8, 50, "GIF")]:  # fmt: skip
    _item = _image(_w, _h, _fmt)
    POOL.append((_item, "image", max(_w, _h), len(_item["data"]) // 4 * 3))
for _pages in (1, 2, 3):
    _item = _pdf(_pages)
    POOL.append((_item, "pdf", _pages, 0))
POOL.append(({"type": "text", "text": "some text"}, "text", 0, 0))
PAYLOADS = {id(item): item.get("data") or item.get("resource", {}).get("blob") for item, *_ in POOL}

maybe = st.none() | st.integers(0, 6)
options_strategy = st.fixed_dictionaries(
    {
        "max_images": maybe,
        "many_images": maybe,
        "many_images_max_side": st.none() | st.integers(10, 60),
        "max_pdf_pages": maybe,
        "max_image_side": st.none() | st.integers(10, 60),
        "max_pdf_request_bytes": st.none() | st.integers(1, 3000),
    }
)
sent_strategy = st.fixed_dictionaries(
    {"images": st.integers(0, 3), "pdf_pages": st.integers(0, 3), "pdf_bytes": st.integers(0, 900)}
)
calls = st.lists(st.lists(st.integers(0, len(POOL) - 1), max_size=4), min_size=1, max_size=4)
wires = st.sampled_from(["anthropic", "gemini", "responses", "bedrock", "openai"])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wires, calls, options_strategy, sent_strategy)
def test_the_budget_keeps_every_limit(
    wire: str, call: list[list[int]], limits: dict[str, Any], already: dict[str, int]
) -> None:
    contents = [[copy.deepcopy(POOL[n][0]) for n in picks] for picks in call]
    given_contents = copy.deepcopy(contents)
    results = [
        ToolResult(name="tool", id=f"call_{k}", content=content)
        for k, content in enumerate(contents)
    ]
    options = {"image_input": True, "native_pdf": True, **limits}
    if wire == "openai":
        options["hoist"] = True
    given_options, given_sent = dict(options), dict(already)

    out = format_tool_results(wire, results, **options, already_sent=already)
    decisions = report_call(wire, results, **options, already_sent=already)
    assert format_tool_results(wire, results, **options, already_sent=already) == out
    assert report_call(wire, results, **options, already_sent=already) == decisions
    assert contents == given_contents and options == given_options and already == given_sent

    text = json.dumps(out)
    images = pages = pdf_bytes = 0
    sides = []
    went_out: dict[str, int] = {}  # payload -> how many times the report says it went
    for picks, per_result in zip(call, decisions, strict=True):
        for n, decision in zip(picks, per_result, strict=True):
            item, kind, extent, _ = POOL[n]
            if kind == "text":
                continue
            payload = PAYLOADS[id(item)]
            went_out.setdefault(payload, 0)
            event(f"reason: {decision.reason}")
            if decision.outcome not in ("native", "hoisted"):
                continue
            went_out[payload] += 1
            if kind == "image":
                images += 1
                sides.append(extent)
            else:
                pages += extent
                pdf_bytes += decision.size
    for payload, times in went_out.items():  # the report says what the output holds
        assert text.count(payload) == times
    if limits["max_images"] is not None:
        assert already["images"] + images <= limits["max_images"] or images == 0
    many, many_side = limits["many_images"], limits["many_images_max_side"]
    if many is not None and many_side is not None and already["images"] + images > many:
        assert all(side <= many_side for side in sides)
    if limits["max_image_side"] is not None:
        assert all(side <= limits["max_image_side"] for side in sides)
    if limits["max_pdf_pages"] is not None and pages:
        assert already["pdf_pages"] + pages <= limits["max_pdf_pages"]
    if limits["max_pdf_request_bytes"] is not None and pdf_bytes:
        assert already["pdf_bytes"] + pdf_bytes <= limits["max_pdf_request_bytes"]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wires, calls, options_strategy, sent_strategy, st.booleans())
def test_a_call_within_every_limit_is_sent_as_the_full_count_sends_it(
    wire: str, call: list[list[int]], limits: dict[str, Any], already: dict[str, int], one: bool
) -> None:
    """The budget skips counting a call that no limit can reach (read from the items'
    kinds): whatever it skips, the full count would have denied nothing either."""
    contents = [[copy.deepcopy(POOL[n][0]) for n in picks] for picks in call]
    options = {"image_input": True, "native_pdf": True, **limits}
    if wire == "openai":
        options["hoist"] = True

    def convert() -> Any:
        # fresh results: a payload's strict check is remembered by its item
        fresh = [
            ToolResult(name="tool", id=f"call_{k}", content=content)
            for k, content in enumerate(contents)
        ]
        if one:  # each result's own budget (``to``, ``report``), else the call's
            return [(r.to(wire, **options), report(wire, r, **options)) for r in fresh]
        return (
            format_tool_results(wire, fresh, **options, already_sent=already),
            report_call(wire, fresh, **options, already_sent=already),
        )

    shortcut = convert()
    with mock.patch.object(_budget, "_roomy", return_value=False) as roomy:
        assert convert() == shortcut
    event(f"counted in full: {roomy.called}")
