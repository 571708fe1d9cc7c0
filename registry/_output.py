"""Render rows for the CLI as a table, JSON or CSV."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import fields, is_dataclass
from datetime import date, datetime
from typing import Any

__all__ = ["FORMATS", "as_row", "plural", "render"]

FORMATS = ("table", "json", "csv")


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
) -> str:
    """Return ``rows`` rendered in ``fmt`` (one of ``FORMATS``) with ``columns``.

    A table wider than ``width`` characters has its widest columns narrowed and long
    cells cut with ``…`` (None: never cut); JSON and CSV always hold the full values.
    """
    if fmt == "json":
        return json.dumps(
            [{c: row.get(c) for c in columns} for row in rows], indent=2, ensure_ascii=False
        )
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow([_cell(row.get(c)) for c in columns])
        return out.getvalue().rstrip("\n")
    cells = [[_cell(row.get(c)) for c in columns] for row in rows]
    widths = [max([len(c), *(len(line[i]) for line in cells)]) for i, c in enumerate(columns)]
    if width is not None:
        widths = fit(widths, width)
    lines = [
        "  ".join(
            _cut(c.upper(), w).ljust(w) for c, w in zip(columns, widths, strict=True)
        ).rstrip()
    ]
    lines += [
        "  ".join(_cut(v, w).ljust(w) for v, w in zip(line, widths, strict=True)).rstrip()
        for line in cells
    ]
    if not rows:
        lines.append("(none)")
    return "\n".join(lines)


#: A column is never narrowed below this many characters (headers are cut too).
MIN_WIDTH = 4


def fit(widths: list[int], total: int) -> list[int]:
    """Narrow the widest columns, one character at a time, until the table fits ``total``.

    Columns are two spaces apart; none goes below ``MIN_WIDTH`` (a terminal narrower
    than that many columns wraps what is left).
    """
    widths = list(widths)
    floor = [min(w, MIN_WIDTH) for w in widths]
    excess = sum(widths) + 2 * (len(widths) - 1) - total
    while excess > 0:
        widest = max(range(len(widths)), key=lambda i: widths[i] - floor[i])
        if widths[widest] <= floor[widest]:
            break
        widths[widest] -= 1
        excess -= 1
    return widths


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
