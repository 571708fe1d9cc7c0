"""The capability matrix: every engine and model against every resolved flag, as one page.

``build(registry)`` resolves each recorded model (and each model a probe was sent to)
of each engine from one snapshot of the engine, and keeps per cell what decided it:
the value, the evidence status of the deciding claim, where that claim sits, its
evidence, source and verified date, what cleared it, and the latest observation of
that capability. Each cell has one *state*, the evidence behind its value:

- ``conflict``: the latest observation contradicts the deciding claim (as ``audit
  --conflicts`` finds it);
- ``stale``: the claim is past the registry's evidence policy for its status, as the
  resolver finds it (``toolwire evidence policy``; the age counts from the latest
  agreeing observation, else ``verified_at``), or, with ``stale_days``, was last checked
  (its latest observation, else its ``verified_at``) more than that many days ago;
- else the deciding claim's evidence status (``live-verified``, ``documented``,
  ``inferred``, ``unverified``), or ``none`` when nobody claims the flag;

and a flag on top, ``unobserved``: the flag resolves to on and no observation is behind
it (as ``audit --unobserved`` finds it).

Each engine has a row of its own claims (they decide for every model nothing more
specific covers), a row per rule with the rule's claims, and a row per model: the
recorded ones, the ids exact rules name and the models a probe was sent to. Each row
also carries its limits (``LIMITS``: the row's own limit claims, or the limits the
resolver decides for the model), listed in the row's details and the CSV download.

On the page a cell's colour says its value (on, off, no claim) and a small mark
(``MARKS``) its state; conflict and stale cells are framed too, as they are rare
and want attention. The header and the engine and model columns stay in place
while the table scrolls; every column sorts, a capability's value filters the rows,
and the rows the filters leave download as CSV (formula-safe, as ``--format csv``).

``render_html(matrix)`` writes one self-contained HTML page: no external asset or
request (a Content-Security-Policy forbids them), so it works from ``file://`` and as a
CI artifact. The data travels as JSON inside the page, and the page's script builds
the table with ``textContent`` and ``title`` only, so every value -- a model id, an
evidence text -- is shown as text, never parsed as HTML; the header is escaped with
``html.escape``. Rows are paged (``PAGE_SIZE`` at a time), so ten thousand models
stay quick to filter and scroll.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, NamedTuple

from toolwire.convert.errors import describe

from ._aging import stale_cutoff
from ._output import FORMULA_START, plural, safe_json
from ._values import show_value
from .evidence import evidence_policy
from .observations import Observation, list_observations
from .records import Claim
from .resolver import FLAGS, LIMITS, Resolution, Resolver
from .store import Registry
from .tables import utcnow
from .vocab import EVIDENCE_OUTCOMES, EVIDENCE_STATUSES, agrees

__all__ = [
    "LEGEND",
    "MARKS",
    "PAGE_SIZE",
    "STATES",
    "Cell",
    "Matrix",
    "Row",
    "build",
    "render_html",
    "shown_url",
]

#: A cell's state: the evidence behind its value (``none``: nobody claims the flag).
STATES: tuple[str, ...] = (*EVIDENCE_STATUSES, "conflict", "stale", "none")
#: What each state (and the ``unobserved`` flag) means, as the legend says it.
LEGEND: dict[str, str] = {
    "live-verified": "checked against the live endpoint",
    "documented": "the provider's documentation says so",
    "inferred": "inferred from related evidence",
    "unverified": "claimed without evidence",
    "conflict": "the latest observation contradicts the claim",
    "stale": "past its evidence policy: last checked too long ago",
    "unobserved": "on, with no observation behind it",
    "none": "nobody claims it (off)",
}
#: The small mark a cell carries for its state (``none`` has none: the cell is blank).
MARKS: dict[str, str] = {
    "live-verified": "\u2714",
    "documented": "\u00b6",
    "inferred": "\u2248",
    "unverified": "?",
    "conflict": "!",
    "stale": "\u25f7",
    "unobserved": "\u25cc",
    "none": "",
}
#: Rows per page of the page's table.
PAGE_SIZE = 100


class Cell(NamedTuple):
    """One capability of one row: the value and what decided it.

    (A named tuple, not a frozen dataclass: a page of 10,000 models makes 70,000.)
    """

    capability: str
    value: bool
    state: str
    unobserved: bool
    #: the deciding claim's status (None: nobody claims it)
    status: str | None
    decided_by: str
    evidence: str | None
    source: str | None
    verified_at: date | None
    #: why a claimed true ended up false (a wire fact), else None
    cleared_by: str | None
    observation: Observation | None


class Row(NamedTuple):
    """An engine's own claims, one rule's claims, or one model's resolution.

    ``kind`` is ``engine``, ``rule`` or ``model``; ``name`` is empty for an engine,
    ``rule:N MATCH PATTERN`` for a rule and the model id for a model.
    """

    engine: str
    kind: str
    name: str
    wire: str
    cells: tuple[Cell, ...]
    #: (limit, "VALUE [status] decided_by") for each limit the row claims or decides
    limits: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Matrix:
    """The matrix of a registry at one revision."""

    url: str
    revision: int
    written_at: datetime
    capabilities: tuple[str, ...]
    min_evidence: str | None
    #: the flat limit given instead of the evidence policy, or None (the policy)
    stale_days: int | None
    rows: tuple[Row, ...]
    #: the evidence policy the stale cells were judged by: status -> days (None: never)
    policy: Mapping[str, int | None] = field(default_factory=dict)


def shown_url(url: str) -> str:
    """Return a database URL without its user name and password."""
    from sqlalchemy.engine import URL, make_url

    try:
        parsed = make_url(url)
    except Exception:  # not a URL SQLAlchemy reads: show nothing of it
        return "(unreadable URL)"
    bare = URL.create(
        parsed.drivername,
        host=parsed.host,
        port=parsed.port,
        database=parsed.database,
        query=parsed.query,
    )
    return bare.render_as_string(hide_password=True)


def build(
    registry: Registry,
    *,
    engines: Sequence[str] | None = None,
    capabilities: Sequence[str] | None = None,
    min_evidence: str | None = None,
    stale_days: int | None = None,
    today: date | None = None,
) -> Matrix:
    """Return the matrix of ``registry``: engines (all, or those named) and their models.

    ``capabilities`` picks the columns among ``FLAGS`` (default: all of them, in the
    resolver's order); ``min_evidence`` resolves as ``resolve --min-evidence`` does.

    :raises UnknownEngine: for an engine the registry does not know.
    ``stale_days`` replaces the evidence policy with one limit for every status
    (counted to ``today``, default the current UTC date), as ``audit --stale-days`` does.

    :raises InvalidInput: for a capability that is not a resolved flag, or a bad
        ``stale_days``.
    :raises InvalidStatus: for an unknown ``min_evidence``.
    """
    from .errors import InvalidInput

    columns = tuple(capabilities) if capabilities else FLAGS
    for name in columns:
        if name not in FLAGS:
            raise InvalidInput(f"{describe(name)} is not a resolved flag; the matrix shows {FLAGS}")
    cutoff = stale_cutoff(stale_days, today)
    revision = registry.revision()
    names = list(dict.fromkeys(engines)) if engines else [e.name for e in registry.engines()]
    for name in names:
        registry.engine(name)  # an unknown engine fails before any work
    latest: dict[tuple[str, str, str], Observation] = {}
    for seen in list_observations(registry):
        if seen.outcome in EVIDENCE_OUTCOMES:
            latest[(seen.engine, seen.model, seen.scenario)] = seen  # ids ascend
    observed: dict[str, set[str]] = {}
    for engine, model, _ in latest:
        observed.setdefault(engine, set()).add(model)
    resolver = Resolver(registry)
    rows: list[Row] = []
    for name in names:
        snapshot = registry.engine_snapshot(name, models=())  # the engine, its claims, rules
        wire = snapshot.engine.default_wire
        rows.append(_claims_row(name, "engine", "", wire, "engine", snapshot.claims, columns))
        for rule in snapshot.rules:
            label = f"rule:{rule.id} {rule.match} {rule.pattern}"
            rows.append(
                _claims_row(name, "rule", label, rule.wire or wire, label, rule.claims, columns)
            )
        resolutions = resolver.resolve_many(name, min_evidence=min_evidence)  # recorded ones
        # and the ids exact rules name, and the models probed: they resolve by the rules
        named = {r.pattern for r in snapshot.rules if r.match == "exact"}
        extra = sorted((named | observed.get(name, set())) - {r.model for r in resolutions})
        if extra:
            resolutions += resolver.resolve_many(name, extra, min_evidence=min_evidence)
        rows += [_model_row(r, columns, latest, cutoff) for r in resolutions]
    return Matrix(
        url=shown_url(registry.url),
        revision=revision,
        written_at=utcnow(),
        capabilities=columns,
        min_evidence=min_evidence,
        stale_days=stale_days,
        rows=tuple(rows),
        policy=dict(evidence_policy(registry)),
    )


def _claims_row(
    engine: str,
    kind: str,
    name: str,
    wire: str,
    where: str,
    claims: Any,
    columns: Iterable[str],
) -> Row:
    """Return the row of an engine's or a rule's own claims (nothing resolved)."""
    cells = []
    for flag in columns:
        claim: Claim | None = claims.get(flag)
        cells.append(
            Cell(
                capability=flag,
                value=bool(claim and claim.value),
                state=claim.status if claim is not None else "none",
                unobserved=False,
                status=claim.status if claim is not None else None,
                decided_by=where if claim is not None else "none",
                evidence=claim.evidence if claim is not None else None,
                source=claim.source if claim is not None else None,
                verified_at=claim.verified_at if claim is not None else None,
                cleared_by=None,
                observation=None,
            )
        )
    limits = tuple(
        (name, _limit_text(claims[name].value, claims[name].status, where))
        for name in LIMITS
        if name in claims
    )
    return Row(engine, kind, name, wire, tuple(cells), limits)


def _limit_text(value: object, status: str, where: str) -> str:
    return f"{show_value(value)} [{status}] {where}"


def _model_row(
    resolution: Resolution,
    columns: Iterable[str],
    latest: dict[tuple[str, str, str], Observation],
    cutoff: date | None,
) -> Row:
    cells = []
    engine, model = resolution.engine, resolution.model
    for flag in columns:
        trace = resolution.trace[flag]
        claim = trace.claim
        seen = latest.get((engine, model, flag)) if latest else None
        value = trace.value
        if claim is None:
            cells.append(
                Cell(flag, value, "none", value, None, trace.decided_by, None, None, None,
                     trace.cleared_by, seen)
            )  # fmt: skip
            continue
        state = claim.status
        checked = seen.observed_at.date() if seen is not None else claim.verified_at
        if seen is not None and not agrees(claim.value, seen.outcome):
            state = "conflict"
        elif (
            (trace.stale is not None)
            if cutoff is None
            else (checked is not None and checked < cutoff)
        ):
            state = "stale"
        cells.append(
            Cell(flag, value, state, value and seen is None, claim.status, trace.decided_by,
                 claim.evidence, claim.source, claim.verified_at, trace.cleared_by, seen)
        )  # fmt: skip
    limits = tuple(
        (name, _limit_text(entry.value, entry.claim.status, entry.decided_by))
        for name, entry in resolution.limit_trace.items()
        if entry.value is not None and entry.claim is not None
    )
    return Row(engine, "model", model, resolution.wire, tuple(cells), limits)


def _payload(matrix: Matrix) -> dict[str, Any]:
    """Return the page's data: rows of compact cells, each detail stored once."""
    details: dict[tuple[Any, ...], int] = {}
    seen_by_id: dict[int, Observation] = {}
    state_index = {state: n for n, state in enumerate(STATES)}
    rows = []
    for row in matrix.rows:
        cells = []
        for cell in row.cells:
            seen = cell.observation
            if seen is not None:
                seen_by_id[seen.id] = seen
            key = (
                cell.status,
                cell.decided_by,
                cell.evidence,
                cell.source,
                cell.verified_at,
                cell.cleared_by,
                None if seen is None else seen.id,
            )
            index = details.setdefault(key, len(details))
            cells.append([int(cell.value), state_index[cell.state], int(cell.unobserved), index])
        limits = [list(limit) for limit in row.limits]
        rows.append([row.engine, row.kind, row.name, row.wire, cells, limits])
    fields = ("status", "decided_by", "evidence", "source", "verified_at", "cleared_by", "seen")

    def detail(key: tuple[Any, ...]) -> dict[str, Any]:
        found = dict(zip(fields, key, strict=True))
        if found["verified_at"] is not None:
            found["verified_at"] = found["verified_at"].isoformat()
        if found["seen"] is not None:
            seen = seen_by_id[found["seen"]]
            found["seen"] = (
                f"#{seen.id} {seen.outcome} on {seen.observed_at.date().isoformat()} "
                f"({seen.wire} wire, {seen.endpoint})"
            )
        return found

    return {
        "capabilities": list(matrix.capabilities),
        "states": list(STATES),
        "details": [detail(key) for key in details],
        "rows": rows,
        "page_size": PAGE_SIZE,
        "marks": MARKS,
        # the CSV download quotes a cell a spreadsheet would run, as --format csv does
        "formula_start": list(FORMULA_START),
    }


def _script_json(data: object) -> str:
    """Return ``data`` as JSON that cannot end the ``<script>`` element holding it."""
    # safe_json: no raw C1 control either, should the page be printed on a terminal
    text = safe_json(json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    for char, escape in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, escape)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def _stale_rule(matrix: Matrix) -> str:
    """Return the header's sentence on what counts as stale."""
    if matrix.stale_days is not None:
        return f"A claim checked more than {plural(matrix.stale_days, 'day')} ago is stale."
    ages = [f"{s} after {plural(d, 'day')}" for s, d in matrix.policy.items() if d is not None]
    return (
        "A claim past its evidence policy ("
        + ("; ".join(ages) if ages else "no status ages")
        + ("; the others never" if len(ages) < len(matrix.policy) else "")
        + ") is stale."
    )


def render_html(matrix: Matrix) -> str:
    """Return the matrix as one self-contained HTML page (see the module docstring)."""
    e = html.escape
    legend = "\n".join(
        f'<li><label><input type="checkbox" data-state="{e(state)}" checked> '
        f'<span class="mark mark-{e(state)}">{e(MARKS[state]) or "&nbsp;"}</span> '
        f"<b>{e(state)}</b>: {e(words)}</label></li>"
        for state, words in LEGEND.items()
    )
    head_cells = "".join(
        f'<th scope="col" class="cap" data-column="{3 + n}" aria-sort="none">'
        f'<button type="button">{e(name)}</button></th>'
        for n, name in enumerate(matrix.capabilities)
    )
    options = "".join(f'<option value="{e(n)}">{e(n)}</option>' for n in matrix.capabilities)
    policy = (
        f", with claims weaker than {e(matrix.min_evidence)} counted as absent"
        if matrix.min_evidence
        else ""
    )
    models = sum(1 for row in matrix.rows if row.kind == "model")
    engines = len({row.engine for row in matrix.rows})
    csp = (
        "default-src 'none'; "
        f"style-src '{_sha256(_STYLE)}'; script-src '{_sha256(_SCRIPT)}'; "
        "img-src 'none'; connect-src 'none'; form-action 'none'; base-uri 'none'"
    )
    return _PAGE.format(
        csp=e(csp),
        style=_STYLE,
        url=e(matrix.url),
        revision=matrix.revision,
        written=e(matrix.written_at.strftime("%Y-%m-%d %H:%M:%S UTC")),
        counts=e(f"{plural(engines, 'engine')}, {plural(models, 'model')}"),
        policy=policy,
        stale=e(_stale_rule(matrix)),
        legend=legend,
        head_cells=head_cells,
        options=options,
        columns=len(matrix.capabilities) + 3,
        data=_script_json(_payload(matrix)),
        script=_SCRIPT,
    )


_STYLE = """
body { font: 14px/1.4 system-ui, "DejaVu Sans", sans-serif; margin: 1.2em; color: #1f2328; }
h1 { font-size: 1.4em; margin: 0 0 .3em; }
header p { margin: .2em 0; color: #57606a; max-width: 60em; }
code { font: 13px ui-monospace, monospace; }
#key { display: flex; flex-wrap: wrap; gap: .3em 2em; align-items: flex-start; margin: .8em 0; }
#key h2 { font-size: 13px; margin: 0 0 .2em; color: #57606a; font-weight: 600; }
#values { list-style: none; padding: 0; margin: 0; display: flex; gap: .8em; }
#values li span.cell { display: inline-block; min-width: 2.6em; text-align: center;
  border-radius: 3px; padding: 0 .3em; }
#legend { list-style: none; padding: 0; margin: 0; display: grid;
  grid-template-columns: repeat(2, max-content); gap: 0 1.6em; font-size: 13px; }
#legend .mark { display: inline-block; width: 1.1em; text-align: center; }
#controls { margin: .8em 0; display: flex; flex-wrap: wrap; gap: .5em 1em; align-items: center; }
#controls input[type=search], #controls select { font: inherit; padding: .2em .4em; }
#filter { width: 16em; }
#scroller { overflow: auto; max-height: calc(100vh - 2em); border: 1px solid #d0d7de; }
table { border-collapse: separate; border-spacing: 0; }
th, td { border-right: 1px solid #eaeef2; border-bottom: 1px solid #eaeef2;
  padding: .2em .5em; text-align: left; white-space: nowrap; background: #fff; }
thead th { position: sticky; top: 0; z-index: 2; background: #f6f8fa;
  border-bottom: 1px solid #d0d7de; font-weight: 600; }
thead th button { font: inherit; background: none; border: 0; padding: 0; cursor: pointer;
  color: inherit; }
thead th[aria-sort=ascending] button::after { content: " \\25b2"; font-size: 10px; }
thead th[aria-sort=descending] button::after { content: " \\25bc"; font-size: 10px; }
th.engine, td.engine { position: sticky; left: 0; z-index: 1; }
th.model, td.model { position: sticky; left: var(--model-left, 9em); z-index: 1;
  border-right: 1px solid #d0d7de; }
thead th.engine, thead th.model { z-index: 3; }
td.model button { font: inherit; background: none; border: 0; padding: 0; cursor: pointer;
  color: #0969da; text-align: left; max-width: 22em; overflow: hidden;
  text-overflow: ellipsis; vertical-align: bottom; }
td.wire { color: #57606a; }
tr.engine td:not(.cell) { background: #f6f8fa; }
tr.engine td.engine, tr.engine td.model button { font-weight: 600; }
tr.rule td.model button { color: #57606a; font-style: italic; }
tr.rule td.engine, tr.row.model td.engine { color: #8c959f; }
td.cell { text-align: center; min-width: 3.6em; cursor: help; position: relative; }
.v-on { background: #aceebb; color: #0a3622; }
.v-off { background: #eef1f4; color: #57606a; }
.v-none { background: #fff; color: #afb8c1; }
tr.engine td.cell.v-none { background: #f6f8fa; }
.mark { color: #6e7781; font-size: 11px; margin-left: .25em; }
.mark-conflict { color: #cf222e; font-weight: 700; font-size: 13px; }
.mark-stale { color: #9a6700; font-size: 13px; }
td.cell.conflict { box-shadow: inset 0 0 0 2px #cf222e; }
td.cell.stale { box-shadow: inset 0 0 0 2px #d4a72c; }
tr.detail td { background: #fbfbfc; font-size: 13px; white-space: normal; }
tr.detail dl { margin: .3em 0; display: grid; grid-template-columns: max-content 1fr;
  gap: .1em .8em; }
tr.detail dt { font-weight: 600; }
tr.detail dd { margin: 0; white-space: pre-wrap; }
"""

_SCRIPT = """
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("matrix-data").textContent);
  var caps = data.capabilities, states = data.states, details = data.details;
  var marks = data.marks, pageSize = data.page_size, risky = data.formula_start;
  var table = document.getElementById("matrix");
  var tbody = document.getElementById("rows");
  var filterBox = document.getElementById("filter");
  var capBox = document.getElementById("cap"), valueBox = document.getElementById("cap-value");
  var claimRows = document.getElementById("claim-rows");
  var info = document.getElementById("page-info");
  var prev = document.getElementById("prev"), next = document.getElementById("next");
  var checks = Array.prototype.slice.call(document.querySelectorAll("input[data-state]"));
  var heads = Array.prototype.slice.call(document.querySelectorAll("thead th[data-column]"));
  var VALUE_RANK = {on: 0, off: 1, none: 2};
  var rows = data.rows.map(function (raw, index) {
    var tags = {};
    raw[4].forEach(function (cell) {
      tags[states[cell[1]]] = true;
      if (cell[2]) { tags.unobserved = true; }
    });
    return {
      index: index, engine: raw[0], kind: raw[1], name: raw[2], wire: raw[3], cells: raw[4],
      limits: raw[5], tags: tags, text: (raw[0] + " " + raw[2]).toLowerCase()
    };
  });
  var matching = rows, page = 0, open = {}, sortColumn = null, sortDown = false;

  function valueOf(cell) {
    if (cell[0]) { return "on"; }
    return details[cell[3]].status === null ? "none" : "off";
  }

  function describe(row, cell, capability) {
    var d = details[cell[3]], value = valueOf(cell);
    var lines = [capability + ": " + (value === "none" ? "off, no claim" : value) +
      " (" + states[cell[1]] + (cell[2] ? ", unobserved" : "") + ")"];
    lines.push("decided by: " + d.decided_by);
    if (d.status !== null) { lines.push("evidence status: " + d.status); }
    if (d.evidence !== null) { lines.push("evidence: " + d.evidence); }
    if (d.source !== null) { lines.push("source: " + d.source); }
    lines.push("verified: " + (d.verified_at === null ? "never" : d.verified_at));
    if (d.cleared_by !== null) { lines.push("cleared: " + d.cleared_by); }
    lines.push("latest observation: " + (d.seen === null ? "none" : d.seen));
    return lines;
  }

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function detailRow(row) {
    var tr = element("tr", "detail"), td = element("td");
    td.colSpan = caps.length + 3;
    caps.forEach(function (capability, i) {
      var dl = element("dl");
      describe(row, row.cells[i], capability).forEach(function (line) {
        var cut = line.indexOf(": ");
        dl.appendChild(element("dt", "", line.slice(0, cut)));
        dl.appendChild(element("dd", "", line.slice(cut + 2)));
      });
      td.appendChild(dl);
    });
    if (row.limits.length) {
      var limits = element("dl", "limits");
      row.limits.forEach(function (limit) {
        limits.appendChild(element("dt", "", limit[0]));
        limits.appendChild(element("dd", "", limit[1]));
      });
      td.appendChild(limits);
    }
    tr.appendChild(td);
    return tr;
  }

  function rowElement(row) {
    var tr = element("tr", "row " + row.kind);
    tr.dataset.index = String(row.index);
    tr.appendChild(element("td", "engine", row.engine));
    var name = element("td", "model"), button = element("button");
    button.type = "button";
    button.textContent = row.kind === "engine" ? "(engine claims)" : row.name;
    button.title = button.textContent;
    button.setAttribute("aria-expanded", open[row.index] ? "true" : "false");
    button.addEventListener("click", function () {
      open[row.index] = !open[row.index];
      render();
    });
    name.appendChild(button);
    tr.appendChild(name);
    tr.appendChild(element("td", "wire", row.wire));
    row.cells.forEach(function (cell, i) {
      var state = states[cell[1]], value = valueOf(cell);
      var alert = state === "conflict" || state === "stale" ? " " + state : "";
      var td = element("td", "cell v-" + value + alert, value === "none" ? "\u2013" : value);
      var mark = marks[state] + (cell[2] ? marks.unobserved : "");
      if (mark) { td.appendChild(element("span", "mark mark-" + state, mark)); }
      td.title = describe(row, cell, caps[i]).join("\\n");
      td.dataset.capability = caps[i];
      td.dataset.state = state;
      td.dataset.value = value;
      tr.appendChild(td);
    });
    return tr;
  }

  function pinModelColumn() {
    var first = table.querySelector("thead th.engine");
    table.style.setProperty("--model-left", first.getBoundingClientRect().width + "px");
  }

  function render() {
    var pages = Math.max(1, Math.ceil(matching.length / pageSize));
    page = Math.min(page, pages - 1);
    var start = page * pageSize, fragment = document.createDocumentFragment();
    matching.slice(start, start + pageSize).forEach(function (row) {
      fragment.appendChild(rowElement(row));
      if (open[row.index]) { fragment.appendChild(detailRow(row)); }
    });
    tbody.textContent = "";
    tbody.appendChild(fragment);
    info.textContent = matching.length === 0 ? "no rows match" :
      "rows " + (start + 1) + "\u2013" + Math.min(start + pageSize, matching.length) +
      " of " + matching.length + " matching (" + rows.length + " in all), page " +
      (page + 1) + " of " + pages;
    prev.disabled = page === 0;
    next.disabled = page >= pages - 1;
    pinModelColumn();
  }

  function sortKey(row, column) {
    if (column === 0) { return [row.engine]; }
    if (column === 1) { return [row.kind === "engine" ? "" : row.name.toLowerCase()]; }
    if (column === 2) { return [row.wire]; }
    var cell = row.cells[column - 3];
    return [VALUE_RANK[valueOf(cell)], states[cell[1]]];
  }

  function compare(a, b) {
    if (sortColumn !== null) {
      var ka = sortKey(a, sortColumn), kb = sortKey(b, sortColumn);
      for (var i = 0; i < ka.length; i += 1) {
        if (ka[i] < kb[i]) { return sortDown ? 1 : -1; }
        if (ka[i] > kb[i]) { return sortDown ? -1 : 1; }
      }
    }
    return a.index - b.index;  // ties keep the registry's order
  }

  function refilter() {
    var needle = filterBox.value.trim().toLowerCase();
    var capIndex = caps.indexOf(capBox.value), wantedValue = valueBox.value;
    var wanted = {};
    checks.forEach(function (box) { if (box.checked) { wanted[box.dataset.state] = true; } });
    matching = rows.filter(function (row) {
      if (!claimRows.checked && row.kind !== "model") { return false; }
      if (needle && row.text.indexOf(needle) < 0) { return false; }
      if (capIndex >= 0 && valueOf(row.cells[capIndex]) !== wantedValue) { return false; }
      return Object.keys(row.tags).some(function (tag) { return wanted[tag]; });
    });
    matching.sort(compare);
    page = 0;
    render();
  }

  function sortBy(column) {
    sortDown = sortColumn === column ? !sortDown : false;
    sortColumn = column;
    heads.forEach(function (th) {
      var mine = Number(th.dataset.column) === column;
      th.setAttribute("aria-sort", mine ? (sortDown ? "descending" : "ascending") : "none");
    });
    refilter();
  }

  function csvCell(text) {
    var safe = risky.indexOf(text.charAt(0)) >= 0 ? "'" + text : text;
    return /[",\\n\\r]/.test(safe) ? '"' + safe.replace(/"/g, '""') + '"' : safe;
  }

  function download() {
    var header = ["engine", "row", "model", "wire"];
    caps.forEach(function (c) { header.push(c, c + " evidence"); });
    header.push("limits");
    var lines = [header.map(csvCell).join(",")];
    matching.forEach(function (row) {
      var line = [row.engine, row.kind, row.name, row.wire];
      row.cells.forEach(function (cell) {
        line.push(valueOf(cell), states[cell[1]] + (cell[2] ? " unobserved" : ""));
      });
      line.push(row.limits.map(function (l) { return l[0] + "=" + l[1]; }).join("; "));
      lines.push(line.map(csvCell).join(","));
    });
    var blob = new Blob([lines.join("\\n") + "\\n"], {type: "text/csv"});
    var link = element("a");
    link.href = URL.createObjectURL(blob);
    link.download = "toolwire-matrix.csv";
    document.body.appendChild(link);
    link.click();
    link.remove();
  }

  heads.forEach(function (th) {
    th.querySelector("button").addEventListener("click", function () {
      sortBy(Number(th.dataset.column));
    });
  });
  filterBox.addEventListener("input", refilter);
  [capBox, valueBox, claimRows].forEach(function (box) {
    box.addEventListener("change", refilter);
  });
  checks.forEach(function (box) { box.addEventListener("change", refilter); });
  prev.addEventListener("click", function () { page -= 1; render(); });
  next.addEventListener("click", function () { page += 1; render(); });
  document.getElementById("download").addEventListener("click", download);
  refilter();
  document.body.dataset.ready = "true";
})();
"""

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>toolwire capability matrix</title>
<style>{style}</style>
</head>
<body>
<header>
<h1>toolwire capability matrix</h1>
<p>registry <code id="registry-url">{url}</code>, revision <span id="revision">{revision}</span>,
written <time id="written">{written}</time></p>
<p>{counts}. Each cell is the value the resolver gives that model{policy}: its colour
says the value, its small mark the evidence behind it. {stale}</p>
</header>
<div id="key">
<div><h2>value</h2>
<ul id="values">
<li><span class="cell v-on">on</span></li>
<li><span class="cell v-off">off</span> claimed off</li>
<li><span class="cell v-none">&ndash;</span> no claim (off)</li>
</ul></div>
<div><h2>evidence (tick to show rows with it)</h2>
<ul id="legend">
{legend}
</ul></div>
</div>
<div id="controls">
<label>Filter <input id="filter" type="search" placeholder="model or engine"
autocomplete="off"></label>
<label>where <select id="cap"><option value="">(any capability)</option>{options}</select></label>
<label>is <select id="cap-value"><option value="on">on</option><option value="off">off</option>
<option value="none">no claim</option></select></label>
<label><input id="claim-rows" type="checkbox" checked> engine and rule rows</label>
<button id="download" type="button">download CSV</button>
<button id="prev" type="button">previous</button>
<button id="next" type="button">next</button>
<span id="page-info"></span>
</div>
<div id="scroller">
<table id="matrix">
<thead><tr><th scope="col" class="engine" data-column="0" aria-sort="none"><button
type="button">engine</button></th><th scope="col" class="model" data-column="1"
aria-sort="none"><button type="button">model</button></th><th scope="col" class="wire"
data-column="2" aria-sort="none"><button type="button">wire</button></th>{head_cells}</tr></thead>
<tbody id="rows"><tr><td colspan="{columns}">(the table needs JavaScript)</td></tr></tbody>
</table>
</div>
<script type="application/json" id="matrix-data">{data}</script>
<script>{script}</script>
</body>
</html>
"""
