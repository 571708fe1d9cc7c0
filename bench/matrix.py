"""Benchmark the capability matrix page: 10,000 models to one HTML file, and the page itself.

Targets (issue 16): the file is written in at most 2 s for an engine with 10,000
recorded models (each with a claim of its own), and the page stays usable: in
chromium (Debian's, through Playwright, when it is installed) the page is ready,
a filter keystroke and a page turn each take well under the 100 ms a person notices.

Beside each time: ``toolwire export --format json`` of the same registry (reading the
same rows and writing one document) for scale, and the ratio to the target.

Run: ``python bench/matrix.py`` (exit 1 when a target is missed).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from toolwire.registry import ClaimInput, Registry
from toolwire.registry.matrix import build, render_html
from toolwire.registry.transfer import dump_json, export

MODELS = 10_000
ENGINE = "bench-big"
CHROMIUM = Path(os.environ.get("TOOLWIRE_CHROMIUM", "/usr/bin/chromium"))


def _fill(registry: Registry) -> None:
    registry.add_engine(
        ENGINE,
        provider="bench",
        family="anthropic",
        default_wire="anthropic",
        kind="self-hosted",
        created_by="bench",
    )
    registry.set_claims(
        [
            ClaimInput(
                ENGINE,
                "image_input" if n % 3 else "tool_result_images",
                n % 2 == 0,
                ("inferred", "documented", "unverified")[n % 3],
                f"bench claim {n}",
                model=f"model-{n:05d}",
            )
            for n in range(MODELS)
        ],
        recorded_by="bench",
    )


def _best(fn: object, repeat: int = 5) -> list[float]:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - started)
    return times


def _browser(path: Path) -> list[tuple[str, float, float]]:
    """Return (what, median seconds, limit) for the page in chromium, or [] without it."""
    if not CHROMIUM.exists():
        print(f"   chromium skipped: {CHROMIUM} not found")
        return []
    from playwright.sync_api import sync_playwright

    rows: list[tuple[str, float, float]] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox"] if os.geteuid() == 0 else []
        )
        page = browser.new_page()
        loads = []
        for _ in range(3):
            started = time.perf_counter()
            page.goto(path.as_uri())
            page.wait_for_selector("body[data-ready=true]")
            loads.append(time.perf_counter() - started)
        rows.append(("page ready in chromium", statistics.median(loads), 2.0))
        keys = []
        for needle in ("model-0", "model-01", "model-012", "model-0123", ""):
            keys.append(
                page.evaluate(
                    """needle => {
                      const box = document.getElementById("filter");
                      const started = performance.now();
                      box.value = needle;
                      box.dispatchEvent(new Event("input"));
                      document.body.offsetHeight;  // layout included
                      return (performance.now() - started) / 1000;
                    }""",
                    needle,
                )
            )
        rows.append(("filter keystroke (10,000 rows)", statistics.median(keys), 0.1))
        turns = []
        for _ in range(5):
            turns.append(
                page.evaluate(
                    """() => {
                      const started = performance.now();
                      document.getElementById("next").click();
                      document.body.offsetHeight;
                      return (performance.now() - started) / 1000;
                    }"""
                )
            )
        rows.append(("next page", statistics.median(turns), 0.1))
        browser.close()
    return rows


def main() -> int:
    """Build the registry, time the page, print the table; exit 1 when a target is missed."""
    with tempfile.TemporaryDirectory() as directory:
        url = f"sqlite:///{Path(directory) / 'bench.sqlite3'}"
        out = Path(directory) / "matrix.html"
        with Registry(url) as registry:
            _fill(registry)

            def write_page() -> None:
                out.write_text(render_html(build(registry)), encoding="utf-8")

            def write_export() -> None:
                (Path(directory) / "export.json").write_text(dump_json(export(registry)))

            page = _best(write_page)
            plain = _best(write_export)
        size = out.stat().st_size
        print(f"capability matrix of {MODELS:,} models (+ the seed), SQLite, {size / 1e6:.1f} MB")
        targets = [("matrix to a file", statistics.median(page), 2.0)]
        print(
            f"   matrix to a file  median {statistics.median(page):.3f} s, min {min(page):.3f} s"
            f"   | export --format json of the same registry {statistics.median(plain):.3f} s"
            f" (matrix / export {statistics.median(page) / statistics.median(plain):.2f}x)"
        )
        targets += _browser(out)
    print(f"\n{'target':34} {'measured':>10} {'limit':>8} {'ratio':>6}  result")
    missed = 0
    for name, seconds, limit in targets:
        met = seconds <= limit
        missed += not met
        print(
            f"{name:34} {seconds * 1000:8.1f} ms {limit * 1000:6.0f} ms {seconds / limit:6.2f}  "
            f"{'pass' if met else 'FAIL'}"
        )
    print(f"\n{len(targets) - missed} of {len(targets)} targets met")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
