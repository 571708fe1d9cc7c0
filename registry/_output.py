"""Render rows for the CLI as a table, JSON or CSV."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import fields, is_dataclass
from datetime import date, datetime
from typing import Any

__all__ = ["FORMATS", "as_row", "render"]

FORMATS = ("table", "json", "csv")


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


def render(rows: Sequence[Mapping[str, Any]], fmt: str, columns: Sequence[str]) -> str:
    """Return ``rows`` rendered in ``fmt`` (one of ``FORMATS``) with ``columns``."""
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
    lines = ["  ".join(c.upper().ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip()]
    lines += [
        "  ".join(v.ljust(w) for v, w in zip(line, widths, strict=True)).rstrip() for line in cells
    ]
    if not rows:
        lines.append("(none)")
    return "\n".join(lines)


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value).replace("\n", " ")
