"""Render rows for the CLI as a table, JSON or CSV, safe to show on a terminal.

Two rules live here and nowhere else:

- **Control characters** (``shown``): C0 controls and DEL are shown in caret notation
  (``ESC`` as ``^[``, ``BEL`` as ``^G``), C1 controls (U+0080 to U+009F) as U+FFFD;
  a tab is kept. Every table cell, every CSV cell and every line the CLI prints goes
  through it, so a stored evidence text or probe reply holding an escape sequence
  (``ESC ] 52 ; c ; ... BEL`` writes the reader's clipboard) reaches no terminal raw,
  on a terminal or into a pipe. JSON keeps the exact value: C1 controls and DEL are
  written as ``\\u`` escapes (json already escapes C0).
- **CSV formulas** (``csv_cell``): a CSV cell starting with ``=``, ``+``, ``-``, ``@``,
  a tab or a carriage return is prefixed with ``'`` so that a spreadsheet shows it as
  text instead of running it; ``raw=True`` (``--csv-raw``) writes the stored bytes.

A table fits the terminal by column *kind* (``column_kind``): key columns (engine,
model, capability, status, value, ...) stay whole; prose columns (evidence, reason,
source, ...) give way first, then the others, and columns that still do not fit are
left out (the caller says which).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import fields, is_dataclass
from datetime import date, datetime
from typing import Any, NamedTuple

__all__ = [
    "FORMATS",
    "FORMULA_START",
    "KEY_COLUMNS",
    "PROSE_COLUMNS",
    "Table",
    "as_row",
    "column_kind",
    "csv_cell",
    "plural",
    "render",
    "safe_json",
    "shown",
    "table",
]

FORMATS = ("table", "json", "csv")

#: Columns that tell rows apart: never cut while anything else can give way.
KEY_COLUMNS = frozenset(
    {
        "engine",
        "name",
        "model",
        "model_id",
        "subject",
        "subject_key",
        "capability",
        "value",
        "status",
        "outcome",
        "scenario",
        "what",
        "action",
        "new_value",
        "new_status",
        "ref",
        "id",
    }
)
#: Free text: the first to be narrowed, and left out before anything else.
PROSE_COLUMNS = frozenset(
    {
        "evidence",
        "reason",
        "source",
        "detail",
        "excerpt",
        "changes",
        "note",
        "description",
        "stale",
        "claims",
        "endpoint",
        "base_url",
        "decided_by",
    }
)

# C0 controls but tab (and newline, which tables and echo handle themselves), DEL, C1.
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f]")
_JSON_UNESCAPED = re.compile("[\x7f-\x9f]")
#: What makes a spreadsheet read a CSV cell as a formula (OWASP's list).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _caret(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return "^" + chr(code + 0x40)
    return "^?" if code == 0x7F else "\ufffd"


def shown(text: str, *, newlines: bool = False) -> str:
    """Return ``text`` with its control characters made visible (``\\x1b`` -> ``^[``).

    C0 controls and DEL become caret notation, C1 controls U+FFFD; a tab stays, and
    so does a newline when ``newlines`` (whole lines of output; a cell has none).
    """
    if newlines:
        return "\n".join(_CONTROL.sub(_caret, line) for line in text.split("\n"))
    return _CONTROL.sub(_caret, text)


def safe_json(text: str) -> str:
    """Return JSON text with DEL and C1 controls as ``\\u`` escapes (the same value)."""
    return _JSON_UNESCAPED.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def csv_cell(value: object, *, raw: bool = False) -> str:
    """Return one CSV cell: formula-safe (a leading ``'``) and control-safe, unless ``raw``."""
    text = _cell(value)
    if raw:
        return text
    return "'" + shown(text) if text.startswith(FORMULA_START) else shown(text)


def plural(count: int, word: str, many: str | None = None) -> str:
    """Return ``count`` and ``word`` agreeing in number: ``1 claim``, ``2 claims``.

    ``many`` is the plural where it is not ``word + "s"`` (``entry``, ``entries``).
    """
    return f"{count} {word if count == 1 else many or word + 's'}"


def as_row(record: object, columns: Sequence[str] | None = None) -> dict[str, Any]:
    """Return a record (dataclass or mapping) as a flat row of JSON-ready values."""
    if is_dataclass(record) and not isinstance(record, type):
        data = {
            f.name: getattr(record, f.name) for f in fields(record) if not f.name.startswith("_")
        }
    elif isinstance(record, Mapping):
        data = dict(record)
    else:
        raise TypeError(f"cannot render {type(record).__name__}")
    if columns is not None:
        data = {key: data.get(key) for key in columns}
    return {key: _plain(value) for key, value in data.items()}


def _plain(value: object) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if is_dataclass(value) and not isinstance(value, type):
        return as_row(value)
    return value


def render(
    rows: Sequence[Mapping[str, Any]],
    fmt: str,
    columns: Sequence[str],
    *,
    width: int | None = None,
    csv_raw: bool = False,
) -> str:
    """Return ``rows`` rendered in ``fmt`` (one of ``FORMATS``) with ``columns``.

    A table wider than ``width`` characters is fitted as ``table`` does (None: never
    cut); JSON and CSV always hold every column and the full values. CSV cells are
    formula-safe and control-safe unless ``csv_raw``.
    """
    if fmt == "json":
        return safe_json(
            json.dumps(
                [{c: row.get(c) for c in columns} for row in rows], indent=2, ensure_ascii=False
            )
        )
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        # csv quotes a cell holding "\n" but not one holding a bare "\r" (raw cells only
        # keep it), which a reader would take for a line end: such a row is quoted whole.
        quoted = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_ALL)
        writer.writerow(columns)
        for row in rows:
            line = [csv_cell(row.get(c), raw=csv_raw) for c in columns]
            (quoted if any("\r" in cell for cell in line) else writer).writerow(line)
        return out.getvalue().rstrip("\n")
    return table(rows, columns, width=width).text


class Table(NamedTuple):
    """A rendered table and the columns left out to fit its width."""

    text: str
    hidden: tuple[str, ...]


def table(
    rows: Sequence[Mapping[str, Any]], columns: Sequence[str], *, width: int | None = None
) -> Table:
    """Return ``rows`` as an aligned text table no wider than ``width`` (None: any width).

    Headers are the column names in capitals; every cell is ``shown`` (a newline
    in a cell, in CSV too, becomes a space). Fitting: see ``fit``.
    """
    cells = [[shown(_cell(row.get(c))) for c in columns] for row in rows]
    natural = [max([len(c), *(len(line[i]) for line in cells)]) for i, c in enumerate(columns)]
    widths: list[int | None] = list(natural)
    if width is not None:
        widths = fit(columns, natural, width)
    keep = [i for i, w in enumerate(widths) if w is not None]
    hidden = tuple(columns[i] for i, w in enumerate(widths) if w is None)

    def line(values: Sequence[str]) -> str:
        return "  ".join(
            _cut(values[i], widths[i] or 0).ljust(widths[i] or 0) for i in keep
        ).rstrip()

    lines = [line([c.upper() for c in columns]), *(line(row) for row in cells)]
    if not rows:
        lines.append("(none)")
    return Table("\n".join(lines), hidden)


def column_kind(name: str) -> int:
    """Return how readily a column gives way: 0 key, 1 ordinary, 2 prose."""
    name = name.lower()
    return 0 if name in KEY_COLUMNS else 2 if name in PROSE_COLUMNS else 1


#: A column is never narrowed below this many characters (headers are cut too).
MIN_WIDTH = 4
#: Prose and ordinary columns are narrowed to this before any is left out (a date and ``…``).
SHORT_WIDTH = 11
#: Key columns that hold a claim's value: a limit or a list of MIME types can be long,
#: so these give way before the other key columns, down to ``false``'s width.
VALUE_COLUMNS = frozenset({"value", "old_value", "new_value"})
_FLAG_WIDTH = len("false")


def fit(columns: Sequence[str], widths: Sequence[int], total: int) -> list[int | None]:
    """Return the widths that make the table fit ``total`` characters (None: left out).

    Columns are two spaces apart. In turn, until the table fits: prose columns are
    narrowed (the widest first) to ``SHORT_WIDTH``, then ordinary ones; then prose
    columns are left out from the right, then ordinary ones; what room that frees
    goes back to the prose columns still shown. Key columns are cut only when they
    alone do not fit: a claim's value first (``VALUE_COLUMNS``, to the width of
    ``false``), then all of them evenly, to ``MIN_WIDTH``.
    """
    kinds = [column_kind(c) for c in columns]
    values = [c.lower() in VALUE_COLUMNS for c in columns]
    shown_w: list[int | None] = list(widths)

    def excess() -> int:
        used = [w for w in shown_w if w is not None]
        return sum(used) + 2 * (len(used) - 1) - total

    def narrow(kind: int, floor: int, only_values: bool = False) -> None:
        over = excess()
        while over > 0:
            room = [
                i
                for i, w in enumerate(shown_w)
                if w is not None
                and kinds[i] == kind
                and w > min(floor, widths[i])
                and (values[i] or not only_values)
            ]
            if not room:
                return
            widest = max(room, key=lambda i: shown_w[i] or 0)
            shown_w[widest] = (shown_w[widest] or 0) - 1
            over -= 1

    narrow(2, SHORT_WIDTH)
    narrow(1, SHORT_WIDTH)
    for kind in (2, 1):
        for i in reversed(range(len(columns))):
            if excess() <= 0:
                break
            if kinds[i] == kind and shown_w[i] is not None:
                shown_w[i] = None
    spare = -excess()
    for i in range(len(columns)):  # give freed room back, leftmost prose first
        w = shown_w[i]
        if spare > 0 and w is not None and kinds[i] == 2 and w < widths[i]:
            grow = min(spare, widths[i] - w)
            shown_w[i] = w + grow
            spare -= grow
    narrow(0, _FLAG_WIDTH, only_values=True)
    narrow(0, MIN_WIDTH)
    return shown_w


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value).replace("\n", " ")
