"""``toolwire matrix``: the page's data, its escaping, and the page in a real browser.

The browser tests drive Debian's chromium (``/usr/bin/chromium``, or
``$TOOLWIRE_CHROMIUM``) with Playwright; where it is missing they are skipped with
the reason, unless ``TOOLWIRE_REQUIRE_BROWSER=1`` (CI), which makes that a failure.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import observe_helpers
import pytest
from cli_helpers import failed, ok, ops_runner, run
from toolwire.registry import Registry, evidence
from toolwire.registry.matrix import LEGEND, MARKS, STATES, Matrix, build, render_html, shown_url

CHROMIUM = Path(os.environ.get("TOOLWIRE_CHROMIUM", "/usr/bin/chromium"))
#: A model id and an evidence text that run script if anything parses them as HTML.
HOSTILE_MODEL = "<img/src=x/onerror=window.__pwned=1>"
HOSTILE_EVIDENCE = '<script>window.__pwned=2</script><img src=x onerror="window.__pwned=3">'
#: A model id a spreadsheet would run as a formula.
FORMULA_MODEL = "=cmd|'/C-calc'!A0"


def observe(registry: Registry, model: str, scenario: str, outcome: str) -> None:
    """Append one observation of ``model`` on anthropic, as a probe would."""
    observe_helpers.observe(
        registry,
        engine="anthropic",
        model=model,
        wire="anthropic",
        scenario=scenario,
        outcome=outcome,
    )


@pytest.fixture
def sample(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Registry]:
    """A seeded SQLite registry with a conflict, a stale claim and hostile text."""
    path = tmp_path / "registry.sqlite3"
    shutil.copyfile(request.getfixturevalue("seeded_templates").get(request, "sqlite"), path)
    with Registry(f"sqlite:///{path}") as registry:
        registry.add_model("anthropic", "claude-sonnet-4-5", created_by="ops")
        observe(registry, "claude-sonnet-4-5", "tool_result_images", "ignored")  # a conflict
        registry.set_claim(
            "anthropic",
            "source_blocks",
            True,
            model="claude-old-9",
            status="live-verified",
            evidence="checked once, long ago",
            verified_at=date(2020, 1, 2),
            recorded_by="ops",
        )
        registry.set_claim(
            "anthropic",
            "image_input",
            True,
            model=HOSTILE_MODEL,
            status="inferred",
            evidence=HOSTILE_EVIDENCE,
            source="</script><script>window.__pwned=4</script>",
            recorded_by="ops",
        )
        registry.set_claim(
            "anthropic",
            "tool_result_pdf",
            False,
            model=FORMULA_MODEL,
            status="inferred",
            evidence="a test",
            recorded_by="ops",
        )
        yield registry


def _row(matrix: Matrix, engine: str, name: str) -> Any:
    return next(r for r in matrix.rows if (r.engine, r.name) == (engine, name))


def _cell(matrix: Matrix, engine: str, name: str, capability: str) -> Any:
    return next(c for c in _row(matrix, engine, name).cells if c.capability == capability)


# -- the data -------------------------------------------------------------------------


def on_day(monkeypatch: pytest.MonkeyPatch, day: date) -> None:
    """Freeze the day the evidence policy counts ages to."""
    monkeypatch.setattr(evidence, "today", lambda: day)


def test_cells_carry_the_resolution_and_its_state(
    sample: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    on_day(monkeypatch, date(2026, 12, 1))
    matrix = build(sample)
    assert matrix.revision == sample.revision() and matrix.url == sample.url
    engine_row = _row(matrix, "anthropic", "")
    assert engine_row.kind == "engine"
    conflict = _cell(matrix, "anthropic", "claude-sonnet-4-5", "tool_result_images")
    assert (conflict.value, conflict.state, conflict.decided_by) == (True, "conflict", "engine")
    assert conflict.observation is not None and conflict.observation.outcome == "ignored"
    stale = _cell(matrix, "anthropic", "claude-old-9", "source_blocks")
    assert (stale.state, stale.status, stale.verified_at) == (
        "stale",
        "live-verified",
        date(2020, 1, 2),
    )
    assert matrix.stale_days is None and matrix.policy["live-verified"] == 90
    on_day(monkeypatch, date(2020, 3, 31))  # 89 days after it was verified: fresh
    fresh = _cell(build(sample), "anthropic", "claude-old-9", "source_blocks")
    assert fresh.state == "live-verified"
    # --stale-days: one limit for every status instead of the policy
    flat = build(sample, stale_days=30, today=date(2020, 3, 31))
    assert _cell(flat, "anthropic", "claude-old-9", "source_blocks").state == "stale"
    assert _cell(flat, "anthropic", "claude-2.1", "image_input").state == "documented"
    pdf = _cell(matrix, "anthropic", "claude-sonnet-4-5", "tool_result_pdf")
    assert (pdf.value, pdf.state, pdf.unobserved) == (True, "documented", True)
    none = _cell(matrix, "anthropic", "claude-sonnet-4-5", "hoist_media")
    assert (none.value, none.state, none.decided_by) == (False, "none", "none")
    rules = [r for r in matrix.rows if r.engine == "anthropic" and r.kind == "rule"]
    assert [r.name.split()[0] for r in rules] == [f"rule:{x.id}" for x in sample.rules("anthropic")]
    exact = {r.name for r in matrix.rows if r.engine == "anthropic" and r.kind == "model"}
    assert {"claude-2.1", "claude-old-9", HOSTILE_MODEL} <= exact  # exact rules name models


def test_build_takes_engines_capabilities_and_the_evidence_policy(sample: Registry) -> None:
    matrix = build(sample, engines=["anthropic"], capabilities=["image_input"])
    assert {r.engine for r in matrix.rows} == {"anthropic"}
    assert matrix.capabilities == ("image_input",)
    strict = build(sample, engines=["anthropic"], min_evidence="live-verified")
    cell = _cell(strict, "anthropic", "claude-sonnet-4-5", "tool_result_images")
    assert (cell.value, cell.state) == (False, "none")  # the documented engine claim set aside


def test_shown_url_drops_the_credentials() -> None:
    assert shown_url("postgresql+psycopg://ops:s3cret@db.example:5432/reg") == (
        "postgresql+psycopg://db.example:5432/reg"
    )
    assert (
        shown_url("sqlite:////var/lib/toolwire/r.sqlite3")
        == "sqlite:////var/lib/toolwire/r.sqlite3"
    )


def test_the_page_is_self_contained_and_escapes_everything(sample: Registry) -> None:
    page = render_html(build(sample))
    before, rest = page.split('<script type="application/json" id="matrix-data">')
    data, after = rest.split("</script>", 1)
    assert "__pwned" not in before + after  # the hostile text is only in the data
    assert "<" not in data and ">" not in data  # which cannot end its element
    decoded = json.loads(data)
    assert any(row[2] == HOSTILE_MODEL for row in decoded["rows"])
    assert any(d["evidence"] == HOSTILE_EVIDENCE for d in decoded["details"])
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", page)
    assert "Content-Security-Policy" in page and "default-src 'none'" in page.replace("&#x27;", "'")


def test_the_page_holds_no_raw_control_character(sample: Registry) -> None:
    evidence = "read \x1b]52;c;aGk=\x07 then \x9b2J"
    sample.set_claim("openai", "image_input", True, model="gpt-x", status="inferred",
                     evidence=evidence, recorded_by="ops")  # fmt: skip
    page = render_html(build(sample, engines=["openai"]))
    assert not any(raw in page for raw in ("\x1b", "\x07", "\x9b"))  # safe on a terminal too
    data = page.split('id="matrix-data">')[1].split("</script>")[0]
    assert any(d["evidence"] == evidence for d in json.loads(data)["details"])  # exact


def test_cli_writes_the_page_and_refuses_unknown_names(sample: Registry, tmp_path: Path) -> None:
    runner = ops_runner()
    out = tmp_path / "matrix.html"
    result = run(runner, sample.url, "matrix", "-o", str(out), "--engine", "anthropic")
    assert result.exit_code == 0, result.output
    models = sum(1 for r in build(sample, engines=["anthropic"]).rows if r.kind == "model")
    assert result.stderr == f"wrote {out}: 1 engine, {models} models\n"
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    piped = ok(run(runner, sample.url, "matrix", "--capability", "image_input"))
    assert piped.startswith("<!DOCTYPE html>")
    assert '<button type="button">image_input</button></th>' in piped
    assert '<button type="button">tool_result_pdf</button>' not in piped
    failed(
        run(runner, sample.url, "matrix", "--engine", "anthropik"),
        "unknown engine 'anthropik'; did you mean 'anthropic'",
        code=1,
    )
    failed(
        run(runner, sample.url, "matrix", "--capability", "tool_result_imgs"),
        "unknown capability 'tool_result_imgs'; did you mean 'tool_result_images'",
        code=1,
    )
    failed(
        run(runner, sample.url, "matrix", "--min-evidence", "documnted"),
        "unknown evidence status 'documnted'; did you mean 'documented'?",
        code=1,
    )


# -- the page in chromium ---------------------------------------------------------------


@pytest.fixture(scope="module")
def _tab() -> Iterator[Any]:
    """Launch Debian's chromium through Playwright once for the module, with one tab.

    Every test loads its page into that tab: a new tab starts a renderer, about a
    second of CPU, and loading a page into an open tab starts none.
    """
    if not CHROMIUM.exists():
        reason = f"chromium not found at {CHROMIUM} (Debian: apt-get install chromium)"
        if os.environ.get("TOOLWIRE_REQUIRE_BROWSER") == "1":
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox"] if os.geteuid() == 0 else [],  # root: no user namespace
        )
        yield browser.new_page()
        browser.close()


class Tab:
    """The module's tab for one test: the listeners the test adds go when it ends."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.listeners: list[tuple[str, Any]] = []

    def listen(self, event: str, handler: Any) -> None:
        self.page.on(event, handler)
        self.listeners.append((event, handler))


@pytest.fixture
def chromium(_tab: Any) -> Iterator[Tab]:
    """The module's tab, for this test's pages."""
    tab = Tab(_tab)
    yield tab
    for event, handler in tab.listeners:
        _tab.remove_listener(event, handler)


class Page:
    """A page of the matrix open in chromium, with what it logged and requested."""

    def __init__(self, tab: Tab, path: Path, width: int = 1400, height: int = 900) -> None:
        self.page = tab.page
        self.page.set_viewport_size({"width": width, "height": height})
        self.page.mouse.move(0, 0)  # not over the page: no hover left by an earlier test
        self.problems: list[str] = []
        self.requests: list[str] = []
        tab.listen(
            "console",
            lambda m: self.problems.append(m.text) if m.type in ("error", "warning") else None,
        )
        tab.listen("pageerror", lambda error: self.problems.append(str(error)))
        tab.listen("request", lambda r: self.requests.append(r.url))
        self.page.goto(path.as_uri())
        self.page.wait_for_selector("body[data-ready=true]")

    def rows(self) -> list[str]:
        """Return the rows on the page, each as 'engine name'."""
        return list(
            self.page.eval_on_selector_all(
                "#rows tr.row",
                "rows => rows.map(r => r.children[0].textContent + ' ' +"
                " r.children[1].textContent)",
            )
        )

    def cell(self, engine: str, name: str, capability: str) -> Any:
        row = self.page.locator("#rows tr.row").filter(
            has=self.page.locator("td.engine", has_text=re.compile(f"^{re.escape(engine)}$"))
        )
        row = row.filter(has=self.page.get_by_role("button", name=name, exact=True))
        return row.locator(f'td.cell[data-capability="{capability}"]')

    def pwned(self) -> Any:
        return self.page.evaluate("window.__pwned")


def _written(registry: Registry, tmp_path: Path, **options: Any) -> tuple[Matrix, Path]:
    matrix = build(registry, **options)
    path = tmp_path / "matrix.html"
    path.write_text(render_html(matrix), encoding="utf-8")
    return matrix, path


def test_the_page_shows_the_legend_colours_and_tooltips(
    chromium: Tab, sample: Registry, tmp_path: Path
) -> None:
    matrix, path = _written(sample, tmp_path, engines=["anthropic", "openai"])
    view = Page(chromium, path)
    legend = view.page.locator("#legend li b").all_text_contents()
    assert legend == list(LEGEND)
    assert set(LEGEND) - {"unobserved"} == set(STATES) and set(MARKS) == set(LEGEND)
    header = " ".join((view.page.locator("header").text_content() or "").split())
    assert f"registry {sample.url}, revision {matrix.revision}" in header
    assert matrix.written_at.strftime("%Y-%m-%d %H:%M:%S UTC") in header
    assert "a claim a claim" not in header.lower() and "A claim past its evidence policy" in header
    # the colour says the value; the state is a small mark, conflict and stale framed
    conflict = view.cell("anthropic", "claude-sonnet-4-5", "tool_result_images")
    assert conflict.text_content() == "on" + MARKS["conflict"]
    on_colour = "rgb(172, 238, 187)"
    assert _style(conflict, "backgroundColor") == on_colour
    assert "rgb(207, 34, 46)" in _style(conflict, "boxShadow")  # the red frame
    assert _style(view.page.locator("#values .v-on"), "backgroundColor") == on_colour
    documented = view.cell("anthropic", "claude-sonnet-4-5", "tool_result_pdf")
    assert documented.text_content() == "on" + MARKS["documented"] + MARKS["unobserved"]
    assert _style(documented, "backgroundColor") == on_colour
    assert (
        _style(documented, "outlineStyle") == "none" and _style(documented, "boxShadow") == "none"
    )
    off = view.cell("anthropic", FORMULA_MODEL, "tool_result_pdf")
    assert off.text_content() == "off" + MARKS["inferred"]
    none = view.cell("anthropic", "claude-sonnet-4-5", "hoist_media")
    assert none.text_content() == "\u2013" and none.get_attribute("data-value") == "none"
    colours = {_style(c, "backgroundColor") for c in (conflict, off, none)}
    assert len(colours) == 3  # on, off and no claim each their own
    stale = view.cell("anthropic", "claude-old-9", "source_blocks")
    assert stale.get_attribute("data-state") == "stale" and "stale" in (
        stale.get_attribute("class") or ""
    )
    assert _style(stale, "boxShadow") != "none"
    tip = conflict.get_attribute("title") or ""
    claim = next(
        c
        for c in sample.claims(engine="anthropic")
        if c.subject_key == "engine" and c.capability == "tool_result_images"
    )
    (seen,) = [o for o in _observations(sample) if o.scenario == "tool_result_images"]
    assert tip.splitlines() == [
        "tool_result_images: on (conflict)",
        "decided by: engine",
        "evidence status: documented",
        f"evidence: {claim.evidence}",
        *([f"source: {claim.source}"] if claim.source else []),
        "verified: never" if claim.verified_at is None else f"verified: {claim.verified_at}",
        f"latest observation: #{seen.id} ignored on {seen.observed_at.date()} "
        "(anthropic wire, http://127.0.0.1:9)",
    ]
    conflict.hover()  # the tooltip is the title: chromium shows it natively
    engines = view.page.locator("#rows td.engine")
    heights = set(engines.evaluate_all("cells => cells.map(c => c.getBoundingClientRect().height)"))
    assert len(heights) == 1  # no engine name wraps
    assert view.problems == [] and view.requests == [path.as_uri()]


def _style(locator: Any, name: str) -> str:
    return str(locator.evaluate(f"c => getComputedStyle(c).{name}"))


def _observations(registry: Registry) -> Any:
    from toolwire.registry.observations import list_observations

    return list_observations(registry)


def test_the_filter_box_and_the_status_boxes_pick_the_rows(
    chromium: Tab, sample: Registry, tmp_path: Path
) -> None:
    with sample.batch() as writer:  # rows for more than one page
        for n in range(150):
            writer.add_model("openai", f"bulk-{n:03d}", created_by="ops")
    matrix, path = _written(sample, tmp_path)
    view = Page(chromium, path)
    everything = len(matrix.rows)
    assert everything > 200
    assert view.page.locator("#page-info").text_content() == (
        f"rows 1\u2013100 of {everything} matching ({everything} in all), page 1 of "
        f"{-(-everything // 100)}"
    )
    assert len(view.rows()) == 100
    view.page.fill("#filter", "claude-2")
    wanted = [
        f"{r.engine} {r.name}" for r in matrix.rows if "claude-2" in f"{r.engine} {r.name}".lower()
    ]
    assert len(wanted) == 2  # the exact rule and the model it names
    shown = view.rows()
    assert len(shown) == len(wanted)
    assert [s.replace("(engine claims)", "") for s in shown] == wanted
    view.page.fill("#filter", "ANTHROPIC claude-sonnet")  # case does not matter
    assert view.rows() == ["anthropic claude-sonnet-4-5"]
    view.page.fill("#filter", "")
    for state in LEGEND:
        if state != "conflict":
            view.page.uncheck(f'input[data-state="{state}"]')
    assert view.rows() == ["anthropic claude-sonnet-4-5"]
    view.page.check('input[data-state="stale"]')
    assert sorted(view.rows()) == ["anthropic claude-old-9", "anthropic claude-sonnet-4-5"]
    view.page.uncheck('input[data-state="conflict"]')
    view.page.uncheck('input[data-state="stale"]')
    assert view.rows() == [] and view.page.locator("#page-info").text_content() == "no rows match"
    view.page.check('input[data-state="none"]')
    unclaimed = sum(1 for r in matrix.rows if any(c.state == "none" for c in r.cells))
    assert unclaimed > 100
    view.page.click("#next")  # the second page of the rows with an unclaimed flag
    assert view.page.locator("#page-info").text_content() == (
        f"rows 101\u2013{min(200, unclaimed)} of {unclaimed} matching ({everything} in all), "
        f"page 2 of {-(-unclaimed // 100)}"
    )
    assert len(view.rows()) == min(200, unclaimed) - 100
    assert view.problems == []


def test_injected_text_is_shown_as_text_and_runs_nothing(
    chromium: Tab, sample: Registry, tmp_path: Path
) -> None:
    _, path = _written(sample, tmp_path, engines=["anthropic"])
    view = Page(chromium, path)
    view.page.fill("#filter", "onerror")
    assert view.rows() == [f"anthropic {HOSTILE_MODEL}"]
    view.page.get_by_role("button", name=HOSTILE_MODEL, exact=True).click()
    detail = view.page.locator("#rows tr.detail")
    assert detail.count() == 1
    text = detail.text_content() or ""
    assert HOSTILE_EVIDENCE in text and "</script><script>window.__pwned=4</script>" in text
    cell = view.cell("anthropic", HOSTILE_MODEL, "image_input")
    assert f"evidence: {HOSTILE_EVIDENCE}" in (cell.get_attribute("title") or "")
    cell.hover()
    assert view.page.evaluate("document.querySelectorAll('img, #rows script').length") == 0
    assert view.pwned() is None
    view.page.get_by_role("button", name=HOSTILE_MODEL, exact=True).click()  # closes it again
    assert view.page.locator("#rows tr.detail").count() == 0
    assert view.problems == [] and view.requests == [path.as_uri()]


def test_every_column_sorts(chromium: Tab, sample: Registry, tmp_path: Path) -> None:
    matrix, path = _written(sample, tmp_path, engines=["anthropic", "openai"])
    view = Page(chromium, path)
    order = view.rows()
    view.page.click("thead th.model button")
    names = [r.name for r in matrix.rows]
    by_name = sorted(range(len(names)), key=lambda i: (names[i].lower(), i))
    assert [row.split(" ", 1)[1] for row in view.rows()] == [
        "(engine claims)" if not names[i] else names[i] for i in by_name
    ]
    assert view.page.locator("thead th.model").get_attribute("aria-sort") == "ascending"
    view.page.click("thead th.model button")  # again: the other way
    assert view.page.locator("thead th.model").get_attribute("aria-sort") == "descending"
    assert view.rows()[0].split(" ", 1)[1] == max(names, key=str.lower)
    view.page.click('thead th[data-column="5"] button')  # tool_result_pdf: on first
    capability = matrix.capabilities[2]
    values = view.page.eval_on_selector_all(
        f'#rows td.cell[data-capability="{capability}"]', "cells => cells.map(c => c.dataset.value)"
    )
    rank = {"on": 0, "off": 1, "none": 2}
    assert values == sorted(values, key=rank.__getitem__) and values[0] == "on"
    view.page.click("thead th.engine button")
    assert sorted(view.rows()) == sorted(order)  # the same rows, only reordered
    assert view.problems == []


def test_a_capability_value_picks_the_rows(chromium: Tab, sample: Registry, tmp_path: Path) -> None:
    matrix, path = _written(sample, tmp_path)
    view = Page(chromium, path)
    view.page.select_option("#cap", "tool_result_pdf")
    view.page.select_option("#cap-value", "on")
    view.page.uncheck("#claim-rows")  # models only: "every model where tool_result_pdf is on"
    wanted = [
        f"{r.engine} {r.name}"
        for r in matrix.rows
        if r.kind == "model" and next(c for c in r.cells if c.capability == "tool_result_pdf").value
    ]
    assert wanted and len(wanted) < sum(r.kind == "model" for r in matrix.rows)
    assert view.rows() == wanted[:100]
    view.page.select_option("#cap-value", "none")
    unclaimed = [
        f"{r.engine} {r.name}"
        for r in matrix.rows
        if r.kind == "model"
        and next(c for c in r.cells if c.capability == "tool_result_pdf").status is None
        and not next(c for c in r.cells if c.capability == "tool_result_pdf").value
    ]
    assert view.rows() == unclaimed[:100]
    view.page.select_option("#cap", "")
    assert len(view.rows()) == min(100, sum(r.kind == "model" for r in matrix.rows))
    assert view.problems == []


def test_the_rows_shown_download_as_formula_safe_csv(
    chromium: Tab, sample: Registry, tmp_path: Path
) -> None:
    import csv
    import io

    from toolwire.registry._output import FORMULA_START

    matrix, path = _written(sample, tmp_path, engines=["anthropic"])
    view = Page(chromium, path)
    view.page.uncheck("#claim-rows")
    view.page.fill("#filter", "c")
    with view.page.expect_download() as caught:
        view.page.click("#download")
    download = caught.value
    assert download.suggested_filename == "toolwire-matrix.csv"
    text = Path(download.path()).read_text(encoding="utf-8")
    table = list(csv.reader(io.StringIO(text)))
    header, rows = table[0], table[1:]
    assert header[:4] == ["engine", "row", "model", "wire"]
    assert header[4:6] == [matrix.capabilities[0], f"{matrix.capabilities[0]} evidence"]
    shown = [r for r in matrix.rows if r.kind == "model" and "c" in f"{r.engine} {r.name}".lower()]
    assert len(rows) == len(shown) == len(view.page.locator("#rows tr.row").all())
    by_model = {row[2]: row for row in rows}
    assert "'" + FORMULA_MODEL in by_model  # quoted, as --format csv quotes it
    assert not any(cell.startswith(tuple(FORMULA_START)) for row in table for cell in row)
    hostile = by_model[HOSTILE_MODEL]
    cell = _cell(matrix, "anthropic", HOSTILE_MODEL, "image_input")
    column = header.index("image_input")
    evidence = cell.state + (" unobserved" if cell.unobserved else "")
    assert hostile[column : column + 2] == ["on" if cell.value else "off", evidence]
    assert view.problems == []


def test_header_engine_and_model_stay_while_the_table_scrolls(
    chromium: Tab, sample: Registry, tmp_path: Path
) -> None:
    _, path = _written(sample, tmp_path)
    view = Page(chromium, path, width=900)
    scroller = view.page.locator("#scroller")
    assert scroller.evaluate("s => s.scrollWidth > s.clientWidth")  # it does scroll at 900 px
    first = view.page.locator("#rows tr.row").first
    engine, model = first.locator("td.engine"), first.locator("td.model")
    capability = first.locator("td.cell").last
    before = [box(engine), box(model), box(capability)]
    scroller.evaluate("s => { s.scrollLeft = 600; }")
    after = [box(engine), box(model), box(capability)]
    assert after[0]["x"] == before[0]["x"] and after[1]["x"] == before[1]["x"]
    assert after[2]["x"] < before[2]["x"] - 300  # the capabilities moved under them
    assert after[1]["x"] >= after[0]["x"] + after[0]["width"] - 1  # side by side, not stacked
    head = view.page.locator("thead th.engine")
    top = box(head)["y"]
    scroller.evaluate("s => { s.scrollTop = 800; }")
    assert box(head)["y"] == top and box(engine)["y"] < top  # the header stayed, rows went up
    assert view.problems == []


def box(locator: Any) -> dict[str, float]:
    found = locator.bounding_box()
    assert found is not None
    return dict(found)


#: The reference picture of the small matrix below, at 900 x 560 px.
REFERENCE = Path(__file__).with_name("matrix_reference.png")


def _small_matrix() -> Matrix:
    """A fixed matrix: every value, every state, a long model id and an engine row."""
    from datetime import datetime

    from toolwire.registry.matrix import Cell, Row

    def cell(capability: str, value: bool, state: str, unobserved: bool = False) -> Cell:
        status = (
            state
            if state in ("live-verified", "documented", "inferred", "unverified")
            else (None if state == "none" else "documented")
        )
        return Cell(capability, value, state, unobserved, status, "engine" if status else "none",
                    "evidence" if status else None, None, None, None, None)  # fmt: skip

    caps = ("image_input", "tool_result_images", "tool_result_pdf", "source_blocks")
    pattern = [
        ("live-verified", True), ("documented", True), ("inferred", False), ("none", False),
        ("conflict", True), ("stale", False), ("unverified", True), ("documented", False),
    ]  # fmt: skip
    rows = [Row("anthropic", "engine", "", "anthropic", tuple(
        cell(c, v, s) for c, (s, v) in zip(caps, pattern[1:5], strict=True)))]  # fmt: skip
    models = ["claude-sonnet-4-5", "claude-haiku-4-5-20251001", "claude-opus-4-1", "claude-2.1"]
    for n, model in enumerate(models):
        rows.append(Row("anthropic", "model", model, "anthropic", tuple(
            cell(c, pattern[(n + i) % 8][1], pattern[(n + i) % 8][0], i == 1 and n == 0)
            for i, c in enumerate(caps))))  # fmt: skip
    rows.append(Row("minimax-anthropic", "model", "MiniMax-M2.7", "anthropic", tuple(
        cell(c, False, "inferred") for c in caps)))  # fmt: skip
    return Matrix(
        url="sqlite:////var/lib/toolwire/registry.sqlite3",
        revision=42,
        written_at=datetime(2026, 1, 2, 3, 4, 5),
        capabilities=caps,
        min_evidence=None,
        stale_days=None,
        rows=tuple(rows),
        policy={"live-verified": 90, "documented": 365, "inferred": None, "unverified": None},
    )


def test_the_page_looks_as_it_did(chromium: Tab, tmp_path: Path) -> None:
    """A screenshot of a small fixed matrix against the committed reference picture.

    Pixel-tolerant (anti-aliasing differs between builds): at most 1% of the pixels
    may differ by more than 48 levels in a channel. ``TOOLWIRE_UPDATE_SCREENSHOTS=1``
    writes the reference instead (look at it before committing it).
    """
    from PIL import Image, ImageChops

    path = tmp_path / "matrix.html"
    path.write_text(render_html(_small_matrix()), encoding="utf-8")
    view = Page(chromium, path, width=900, height=560)
    shot = tmp_path / "matrix.png"
    view.page.screenshot(path=str(shot))
    assert view.problems == []
    if os.environ.get("TOOLWIRE_UPDATE_SCREENSHOTS") == "1":
        shutil.copyfile(shot, REFERENCE)
    with Image.open(REFERENCE) as reference, Image.open(shot) as taken:
        assert taken.size == reference.size
        difference = ImageChops.difference(taken.convert("RGB"), reference.convert("RGB"))
        channel = difference.convert("L").point(lambda level: 255 if level > 48 else 0)
        changed = channel.histogram()[255]
    share = changed / (taken.size[0] * taken.size[1])
    assert share <= 0.01, f"{share:.2%} of the pixels differ from {REFERENCE.name} (see {shot})"


def test_the_module_lists_its_public_names() -> None:
    import ast

    from toolwire.registry import matrix

    def ruff_order(name: str) -> tuple[int, str]:
        return (0 if name.isupper() else 1 if name[0].isupper() else 2), name

    assert list(matrix.__all__) == sorted(matrix.__all__, key=ruff_order)
    tree = ast.parse(Path(matrix.__file__).read_text(encoding="utf-8"))
    defined = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defined |= {t.id for t in targets if isinstance(t, ast.Name)}
    public = {name for name in defined if not name.startswith("_")} - {"__all__"}
    assert public == set(matrix.__all__)
