"""Tables, CSV and JSON from every command that prints cells: widths, safety, formulas.

A stored text can hold a terminal escape (``ESC ] 52 ; c ; ... BEL`` writes the
reader's clipboard, ``ESC ] 0 ; ... BEL`` retitles the window); a CSV cell can hold a
spreadsheet formula. Every command that prints what the registry stores is run here
with such texts, into a pipe (CliRunner) and on a pseudo-terminal (``on_terminal``).
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import observe_helpers
import pytest
from cli_helpers import failed, ok, on_terminal, ops_runner, run
from click.testing import CliRunner
from toolwire.registry import Registry
from toolwire.registry._output import column_kind, csv_cell, fit, render, safe_json, shown

OSC52 = "\x1b]52;c;aGVsbG8=\x07"
TITLE = "\x1b]0;owned\x07"
CSI_C1 = "\x9b2J"  # the one-byte C1 CSI: clears the screen on terminals that read C1
HOSTILE = f"read {OSC52} and {TITLE} then {CSI_C1}\x7f"
SAFE_HOSTILE = "read ^[]52;c;aGVsbG8=^G and ^[]0;owned^G then \ufffd2J^?"
#: Cells a spreadsheet would run as formulas.
FORMULAS = ('=HYPERLINK("http://x")', "+1+2", "-2+3", "@SUM(A1)", "\tx", "\rx")
MODEL = "claude-hostile-1"
#: Raw bytes that must never reach a reader.
RAW = ("\x1b", "\x07", "\x9b", "\x7f")


@pytest.fixture
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A seeded SQLite registry holding hostile text in every free-text field."""
    path = tmp_path / "registry.sqlite3"
    shutil.copyfile(request.getfixturevalue("seeded_templates").get(request, "sqlite"), path)
    location = f"sqlite:///{path}"
    with Registry(location) as registry:
        registry.add_model("anthropic", MODEL, note=HOSTILE, created_by="ops")
        registry.set_claim(
            "anthropic",
            "image_input",
            True,
            model=MODEL,
            status="documented",
            evidence=HOSTILE,
            source=FORMULAS[0],
            reason=HOSTILE,
            recorded_by="ops",
        )
        for n, formula in enumerate(FORMULAS[1:]):
            registry.set_claim(
                "anthropic",
                "source_blocks",
                bool(n % 2),
                model=f"claude-formula-{n}",
                status="inferred",
                evidence=formula,
                recorded_by="ops",
            )
        registry.add_rule(
            "anthropic", "claude-hostile-9", regex=False, note=HOSTILE, created_by="ops"
        )
        registry.add_engine(
            "hostile-engine",
            provider=HOSTILE,
            family="x",
            default_wire="openai",
            kind="gateway",
            note=HOSTILE,
            created_by="ops",
        )
        registry.add_capability("hostile_words", description=HOSTILE, created_by="ops")
        observe_helpers.observe(
            registry,
            engine="anthropic",
            model=MODEL,
            wire="anthropic",
            scenario="image_input",
            outcome="read",
            excerpt=HOSTILE,
        )
    yield location


#: Every command that prints a stored text, as the arguments after the database URL
#: (conflicts and stale claims list none of the hostile texts: they are checked for
#: raw bytes only).
COMMANDS = [
    ("audit",),
    ("audit", "--engine", "anthropic", "--capability", "image_input"),
    ("audit", "--conflicts"),
    ("log",),
    ("claim", "history", "anthropic", "--model", MODEL),
    ("engine", "show", "anthropic"),
    ("model", "show", "anthropic", MODEL),
    ("model", "list", "--engine", "anthropic"),
    ("rule", "list", "anthropic"),
    ("observation", "list", "anthropic"),
    ("engine", "list"),
    ("capability", "list"),
    ("capability", "show", "hostile_words"),
    ("claim", "set", "anthropic", "image_input", "true", "--model", MODEL, "--status",
     "documented", "--evidence", HOSTILE),
    ("resolve", "anthropic", MODEL, "--explain"),
    ("audit", "--stale", "--engine", "anthropic"),
    ("audit", "--stale-days", "0", "--engine", "anthropic"),
]  # fmt: skip


def _clean(text: str) -> None:
    for raw in RAW:
        assert raw not in text, (raw, text)


# -- the rules, one by one ------------------------------------------------------------


def test_shown_makes_every_control_character_visible() -> None:
    assert shown(HOSTILE) == SAFE_HOSTILE
    assert shown("a\tb") == "a\tb"  # a tab is kept
    assert shown("a\nb") == "a^Jb" and shown("a\nb", newlines=True) == "a\nb"
    assert shown("\x00\x1f") == "^@^_"
    assert all(shown(chr(c)) == "\ufffd" for c in range(0x80, 0xA0))
    assert shown(shown(HOSTILE)) == shown(HOSTILE)  # shown text is shown as it is


def test_safe_json_keeps_the_value_and_escapes_what_json_leaves_raw() -> None:
    text = safe_json(json.dumps({"e": HOSTILE}, ensure_ascii=False))
    _clean(text)
    assert json.loads(text) == {"e": HOSTILE}


@pytest.mark.parametrize("formula", FORMULAS)
def test_a_csv_formula_is_quoted_unless_raw(formula: str) -> None:
    cell = csv_cell(formula)
    assert cell.startswith("'") and "\r" not in cell
    assert csv_cell(formula, raw=True) == formula
    assert csv_cell("plain -1") == "plain -1" and csv_cell(-1) == "'-1"


def test_fit_keeps_key_columns_whole_and_gives_prose_way_first() -> None:
    columns = ("engine", "subject_key", "capability", "evidence", "verified_at", "recorded_by")
    widths = fit(columns, [18, 25, 18, 120, 10, 11], 110)
    assert widths[:3] == [18, 25, 18]  # whole
    assert widths[4:] == [10, 11] and widths[3] == 110 - 18 - 25 - 18 - 10 - 11 - 10
    assert fit(columns, [18, 25, 18, 120, 10, 11], 100)[3] is None  # too little left for it
    narrow = fit(columns, [18, 25, 18, 120, 10, 11], 80)
    assert narrow[:3] == [18, 25, 18] and None in narrow  # left out rather than cut to nothing
    kept = [w for w in narrow if w is not None]
    assert sum(kept) + 2 * (len(kept) - 1) <= 80
    assert [column_kind(c) for c in ("ENGINE", "evidence", "verified_at")] == [0, 2, 1]


def test_render_fits_a_table_and_says_nothing_is_lost_elsewhere() -> None:
    rows = [{"engine": "e" * 20, "evidence": "x" * 200, "status": "documented"}]
    text = render(rows, "table", ("engine", "evidence", "status"), width=60)
    assert all(len(line) <= 60 for line in text.splitlines())
    assert "e" * 20 in text and "documented" in text and "…" in text
    assert "x" * 200 in render(rows, "csv", ("engine", "evidence", "status"), width=60)


# -- every command ----------------------------------------------------------------------


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a))
def test_no_command_prints_a_raw_control_character(url: str, args: tuple[str, ...]) -> None:
    runner = ops_runner()
    hostile = not ({"--conflicts", "--stale", "--stale-days"} & set(args))
    table = ok(run(runner, url, *args))
    _clean(table)
    assert not hostile or "^[]52;c;aGVsbG8=^G" in table or "^[]0;owned^G" in table
    if "--format" not in _help(runner, url, args):
        return
    as_json = ok(run(runner, url, *args, "--format", "json"))
    _clean(as_json)
    exact = any(HOSTILE in text for text in _strings(json.loads(as_json)))
    assert exact == hostile  # JSON keeps the exact value, escaped
    if "csv" not in _help(runner, url, args):
        return
    # engine show's CSV is the engine alone (its rules show in the table and JSON)
    hostile = hostile and args[:2] != ("engine", "show")
    as_csv = ok(run(runner, url, *args, "--format", "csv"))
    _clean(as_csv)
    assert not hostile or SAFE_HOSTILE in as_csv
    raw = ok(run(runner, url, *args, "--format", "csv", "--csv-raw"))
    assert not hostile or HOSTILE in raw  # the stored bytes, asked for


def _strings(data: object) -> Iterator[str]:
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for value in data.values():
            yield from _strings(value)
    elif isinstance(data, list):
        for value in data:
            yield from _strings(value)


def _help(runner: CliRunner, url: str, args: tuple[str, ...]) -> str:
    words = [a for a in args if not a.startswith("-")][:2]
    words = words if words[0] in ("claim", "engine", "model", "rule", "observation") else words[:1]
    return ok(run(runner, url, *words, "--help"))


@pytest.mark.parametrize(
    "args",
    [("audit",), ("log",), ("observation", "list", "anthropic"), ("engine", "show", "anthropic")],
    ids=lambda a: " ".join(a),
)
def test_a_terminal_gets_no_raw_control_character(url: str, args: tuple[str, ...]) -> None:
    shown_there = on_terminal(url, *args, "--wide", columns=100)
    _clean(shown_there)
    assert "^[]" in shown_there


def test_csv_cells_that_start_a_formula_are_quoted(url: str) -> None:
    runner = ops_runner()
    for args in (("audit", "--engine", "anthropic"), ("log",), ("claim", "history", "anthropic")):
        text = ok(run(runner, url, *args, "--format", "csv"))
        cells = [cell for row in csv.reader(io.StringIO(text)) for cell in row]
        # log puts the evidence inside its changes cell; history has no source
        expected = () if args[0] == "log" else FORMULAS[args[0] == "claim" :]
        for formula in expected:
            assert "'" + shown(formula) in cells
        assert not any(cell.startswith(("=", "+", "-", "@", "\t", "\r")) for cell in cells)
        raw = ok(run(runner, url, *args, "--format", "csv", "--csv-raw"))
        raw_cells = [cell for row in csv.reader(io.StringIO(raw)) for cell in row]
        assert set(expected) <= set(raw_cells)


# -- widths, --columns and the legend ---------------------------------------------------


def test_audit_at_100_columns_keeps_the_key_columns_whole(url: str) -> None:
    shown_there = on_terminal(url, "audit", columns=100)
    lines = shown_there.splitlines()
    assert all(len(line) <= 100 for line in lines)
    header = lines[0].split()
    assert header[:5] == ["ENGINE", "SUBJECT_KEY", "CAPABILITY", "VALUE", "STATUS"]
    with Registry(url) as registry:
        claims = registry.claims()
    for claim in claims:  # every row tells its claim apart: engine, subject, capability whole
        wanted = (claim.engine, claim.subject_key, claim.capability)
        assert any(line.split()[:3] == list(wanted) for line in lines[1:]), wanted
    assert "capabilities:" not in shown_there  # the legend went to stderr


@pytest.mark.parametrize("columns", [100, 120])
def test_log_tells_models_apart(url: str, columns: int) -> None:
    lines = on_terminal(url, "log", columns=columns).splitlines()
    assert all(len(line) <= columns for line in lines)
    header = lines[0].split()
    # ACTOR may give way; at 100 columns OCCURRED_AT too (the longest WHAT, "claim
    # max_pdf_request_bytes set", leaves it no room), at 120 it stays
    wanted = {"ENGINE", "SUBJECT", "WHAT"} | ({"OCCURRED_AT"} if columns >= 120 else set())
    assert wanted <= set(header)
    at = header.index("SUBJECT")  # the columns before it hold no spaces
    subjects = [line for line in lines if "model:claude-formula-" in line]
    assert len(subjects) == len(FORMULAS) - 1
    assert len({s.split("model:claude-formula-")[1][:1] for s in subjects}) == len(subjects)
    assert any(line.split()[at] == f"model:{MODEL}" for line in lines[1:])  # whole


def test_columns_match_the_header_in_any_case(url: str) -> None:
    runner = ops_runner()
    upper = ok(run(runner, url, "audit", "--columns", "ENGINE,Capability", "--format", "csv"))
    assert upper.splitlines()[0] == "engine,capability"
    failed(run(runner, url, "audit", "--columns", "ENGINEE"), "unknown column(s) ENGINEE", code=2)


def test_the_audit_legend_is_no_row(url: str) -> None:
    runner = ops_runner()
    piped = ok(run(runner, url, "audit", "--engine", "anthropic"))
    with Registry(url) as registry:
        count = len(registry.claims(engine="anthropic"))
    assert len(piped.splitlines()) == count + 1  # `audit | wc -l`: header and rows
    legend = ok(run(runner, url, "audit", "--engine", "anthropic", "--legend"))
    assert legend.startswith(piped) and "\ncapabilities:\n  image_input" in legend
