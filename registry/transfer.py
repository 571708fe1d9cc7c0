"""Export, import and compare registries as seed-shaped documents.

A document has the shape of the seed files in ``data/`` (``[[capability]]``,
``[[engine]]`` with its ``claim``, ``rule`` and ``model`` tables): ``export`` writes the
current state as TOML (or JSON), ``import_document`` applies one in a single
transaction through the same code path as the seed, and ``diff`` lists what differs
between two documents. Documents are normalised (sorted, empty values left out), so
the export of a registry built by importing another's export is byte-identical to it.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Connection

from . import _queries as q
from ._seed import SeedData, apply_document, load_seed, parse_documents
from ._wbase import CLAIM_FIELDS, ENGINE_FIELDS
from .errors import InvalidSeed
from .evidence import read_policy
from .records import Claim, EngineSnapshot
from .store import Registry
from .tables import capability_table, engine_table
from .vocab import DEFAULT_EVIDENCE_POLICY, EVIDENCE_STATUSES

__all__ = [
    "Change",
    "ImportReport",
    "diff",
    "dump_json",
    "dump_toml",
    "export",
    "import_document",
    "read_document",
    "seed_document",
]

Document = dict[str, Any]

_ENGINE_FIELDS = ("name", *ENGINE_FIELDS)  # a missing note reads as "" (set apart)
_CLAIM_FIELDS = ("capability", *CLAIM_FIELDS)


@dataclass(frozen=True, slots=True)
class Change:
    """One difference between two documents: ``added``, ``removed`` or ``changed``."""

    kind: str
    entity: str
    subject: str
    detail: str

    def __str__(self) -> str:
        """Return the change as one line (``+``, ``-`` or ``~`` first)."""
        sign = {"added": "+", "removed": "-", "changed": "~"}[self.kind]
        return f"{sign} {self.entity} {self.subject}" + (f": {self.detail}" if self.detail else "")


@dataclass(frozen=True, slots=True)
class ImportReport:
    """What an import changed (or would change, for a dry run)."""

    changes: tuple[Change, ...]
    dry_run: bool
    #: one line per engine whose base URL moves to another host (its probe key follows)
    warnings: tuple[str, ...] = ()


# -- export ---------------------------------------------------------------------------


def export(registry: Registry, engines: Sequence[str] | None = None) -> Document:
    """Return the registry's state (or only ``engines``) as a normalised document.

    :raises UnknownEngine: for a name in ``engines`` the registry does not know.
    """
    with registry._reading("cannot export") as connection:
        return _export(connection, engines)


def _export(connection: Connection, engines: Sequence[str] | None) -> Document:
    names = (
        list(connection.scalars(select(engine_table.c.name).order_by(engine_table.c.name)))
        if engines is None
        else sorted(set(engines))
    )
    capabilities = [
        _drop_empty(
            {
                "name": row.name,
                "description": row.description,
                "value_kind": row.value_kind,
                "gates": row.gates,
            }
        )
        for row in connection.execute(select(capability_table).order_by(capability_table.c.name))
    ]
    tables = [_engine_table(q.snapshot(connection, name)) for name in names]
    policy = _policy_tables(read_policy(connection).items())
    return _drop_empty({"capability": capabilities, "evidence_policy": policy, "engine": tables})


def _policy_tables(policy: Iterable[tuple[str, int | None]]) -> list[Document]:
    """Return the policy as tables in status order, never as an absent max_age_days."""
    found = dict(policy)
    return [
        _drop_empty({"status": status, "max_age_days": found[status]})
        for status in EVIDENCE_STATUSES
        if status in found
    ]


def _engine_table(snapshot: EngineSnapshot) -> Document:
    engine = snapshot.engine
    table: Document = {k: getattr(engine, k) for k in _ENGINE_FIELDS}
    table["claim"] = _claims(snapshot.claims.values())
    table["rule"] = [
        _drop_empty(
            {
                rule.match: rule.pattern,
                "wire": rule.wire,
                "note": rule.note,
                "claim": _claims(rule.claims.values()),
            }
        )
        for rule in snapshot.rules
    ]
    table["model"] = [
        _drop_empty(
            {
                "id": model.model_id,
                "wire": model.wire,
                "note": model.note,
                "claim": _claims(model.claims.values()),
            }
        )
        for _, model in sorted(snapshot.models.items())
    ]
    return _drop_empty(table)


def _claims(claims: Iterable[Claim]) -> list[Document]:
    return [
        _drop_empty({k: getattr(c, k) for k in _CLAIM_FIELDS})
        for c in sorted(claims, key=lambda c: c.capability)
    ]


def _drop_empty(table: Mapping[str, Any]) -> Document:
    return {k: v for k, v in table.items() if v is not None and v != "" and v != []}


def seed_document() -> Document:
    """Return the shipped seed as a normalised document (``rules_from`` expanded).

    It holds the default evidence policy, which a new registry starts with.
    """
    document = normalise(load_seed())
    policy = _policy_tables(DEFAULT_EVIDENCE_POLICY.items())
    return _drop_empty(
        {
            "capability": document.get("capability", []),
            "evidence_policy": policy,
            "engine": document.get("engine", []),
        }
    )


def normalise(data: SeedData) -> Document:
    """Return parsed seed data in the exported document's shape and order."""
    by_name = {t["name"]: t for t in data.engines}
    tables = []
    for name in sorted(by_name):
        table = by_name[name]
        source = table.get("rules_from")
        rules = [*(by_name[source].get("rule", []) if source else []), *table.get("rule", [])]
        entry: Document = {k: table.get(k) for k in _ENGINE_FIELDS}
        entry["note"] = table.get("note", "")
        entry["claim"] = _seed_claims(table.get("claim", []))
        entry["rule"] = [
            _drop_empty(
                {
                    ("regex" if "regex" in r else "exact"): r.get("regex", r.get("exact")),
                    "wire": r.get("wire"),
                    "note": r.get("note"),
                    "claim": _seed_claims(r.get("claim", [])),
                }
            )
            for r in rules
        ]
        entry["model"] = [
            _drop_empty(
                {
                    "id": m["id"],
                    "wire": m.get("wire"),
                    "note": m.get("note"),
                    "claim": _seed_claims(m.get("claim", [])),
                }
            )
            for m in sorted(table.get("model", []), key=lambda m: m["id"])
        ]
        tables.append(_drop_empty(entry))
    capabilities = [
        _drop_empty({k: c.get(k) for k in ("name", "description", "value_kind", "gates")})
        for c in sorted(data.capabilities, key=lambda c: c["name"])
    ]
    policy = _policy_tables((p["status"], p.get("max_age_days")) for p in data.policies)
    return _drop_empty({"capability": capabilities, "evidence_policy": policy, "engine": tables})


def _seed_claims(claims: Iterable[Mapping[str, Any]]) -> list[Document]:
    return [
        _drop_empty({k: c.get(k) for k in _CLAIM_FIELDS})
        for c in sorted(claims, key=lambda c: c["capability"])
    ]


# -- documents as text ----------------------------------------------------------------


def dump_json(document: Document) -> str:
    """Return the document as JSON (dates as YYYY-MM-DD)."""
    return json.dumps(document, indent=2, ensure_ascii=False, default=_iso) + "\n"


def _iso(value: object) -> str:
    if isinstance(value, date):
        return value.isoformat()
    raise TypeError(f"cannot write {type(value).__name__}")


def dump_toml(document: Document) -> str:
    """Return the document as TOML in the seed files' layout."""
    out: list[str] = ["# toolwire registry export; format: see data/wires.toml"]
    for capability in document.get("capability", []):
        out += ["", "[[capability]]", *_pairs(capability)]
    for policy in document.get("evidence_policy", []):
        out += ["", "[[evidence_policy]]", *_pairs(policy)]
    for engine in document.get("engine", []):
        out += ["", "[[engine]]", *_pairs(engine)]
        for claim in engine.get("claim", []):
            out += ["", "[[engine.claim]]", *_pairs(claim)]
        for rule in engine.get("rule", []):
            out += ["", "[[engine.rule]]", *_pairs(rule)]
            for claim in rule.get("claim", []):
                out += ["", "[[engine.rule.claim]]", *_pairs(claim)]
        for model in engine.get("model", []):
            out += ["", "[[engine.model]]", *_pairs(model)]
            for claim in model.get("claim", []):
                out += ["", "[[engine.model.claim]]", *_pairs(claim)]
    return "\n".join(out) + "\n"


def _pairs(table: Mapping[str, Any]) -> list[str]:
    return [f"{key} = {_value(v)}" for key, v in table.items() if not isinstance(v, list)]


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        # JSON's string escapes are TOML's, except DEL, which TOML wants escaped too.
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def read_document(path: Path) -> tuple[SeedData, Document]:
    """Read an exported (or seed) file, TOML or JSON by its content; return it checked.

    :raises InvalidSeed: for a file that is not TOML/JSON or breaks the seed format.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise InvalidSeed(f"{path.name}: not UTF-8 text") from error
    try:
        document = json.loads(text) if text.lstrip().startswith("{") else tomllib.loads(text)
    except (ValueError, RecursionError) as error:
        raise InvalidSeed(f"{path.name}: {str(error).splitlines()[0]}") from error
    if not isinstance(document, dict):
        raise InvalidSeed(f"{path.name}: expected a table at the top")
    _dates(document)
    data = parse_documents([(path.name, document)], require_source=False)
    return data, normalise(data)


def _dates(document: Any) -> None:
    """Turn JSON's YYYY-MM-DD verified_at strings into dates, in place."""
    if isinstance(document, dict):
        value = document.get("verified_at")
        if isinstance(value, str):
            try:
                document["verified_at"] = date.fromisoformat(value)
            except ValueError:
                raise InvalidSeed(f"verified_at {value!r} is not a date (YYYY-MM-DD)") from None
        for item in document.values():
            _dates(item)
    elif isinstance(document, list):
        for item in document:
            _dates(item)


# -- import ---------------------------------------------------------------------------


class _DryRun(Exception):
    """Raised inside the import's transaction to roll it back."""


def import_document(
    registry: Registry,
    data: SeedData,
    *,
    source: str,
    by: str,
    dry_run: bool = False,
) -> ImportReport:
    """Apply a document in one transaction; every changed claim's event names ``source``.

    Each engine the document lists is made to match it (claims, models and rules it
    does not list are removed, each with a history event); capabilities and engines
    it adds are added. A dry run does the same and rolls it back.

    :raises RegistryError: for a value the registry refuses; nothing is written then.
    """
    changes: list[Change] = []
    moved: list[str] = []
    try:
        with registry.batch() as writer:
            names = [t["name"] for t in data.engines]
            connection = writer._connection
            present = [n for n in names if writer.has_engine(n)]
            before = _export(connection, present)
            apply_document(writer, data, actor=by, reason=f"import {source}", sync=True)
            after = _export(connection, names)
            before_caps = {c["name"] for c in before.get("capability", [])}
            after["capability"] = [
                c for c in after.get("capability", []) if c["name"] not in before_caps
            ]
            before["capability"] = []
            changes = diff(before, after)
            moved = _moved_hosts(before, after)
            if dry_run:
                raise _DryRun
    except _DryRun:
        pass
    return ImportReport(tuple(changes), dry_run, tuple(moved))


def _moved_hosts(before: Document, after: Document) -> list[str]:
    """Return a warning per engine whose base URL the import moves to another host."""
    from ._validate import host_change

    old = {e["name"]: e.get("base_url") for e in before.get("engine", [])}
    found = (
        host_change(f"engine {e['name']}", old[e["name"]], e.get("base_url"))
        for e in after.get("engine", [])
        if e["name"] in old
    )
    return [warning for warning in found if warning]


# -- diff -----------------------------------------------------------------------------


def diff(base: Document, other: Document) -> list[Change]:
    """Return what ``other`` has that ``base`` has not, lacks, or holds differently."""
    changes: list[Change] = []
    _compare(
        changes,
        "capability",
        {c["name"]: c for c in base.get("capability", [])},
        {c["name"]: c for c in other.get("capability", [])},
    )
    if "evidence_policy" in base and "evidence_policy" in other:  # older files hold none
        _compare(
            changes,
            "evidence_policy",
            {p["status"]: p for p in base["evidence_policy"]},
            {p["status"]: p for p in other["evidence_policy"]},
        )
    engines_a = {e["name"]: e for e in base.get("engine", [])}
    engines_b = {e["name"]: e for e in other.get("engine", [])}
    for name in sorted(engines_a.keys() | engines_b.keys()):
        a, b = engines_a.get(name), engines_b.get(name)
        if a is None or b is None:
            changes.append(Change("added" if a is None else "removed", "engine", name, ""))
            continue
        fields_a = {k: v for k, v in a.items() if not isinstance(v, list)}
        fields_b = {k: v for k, v in b.items() if not isinstance(v, list)}
        _compare(changes, "engine", {name: fields_a}, {name: fields_b})
        _compare(changes, "claim", _claims_of(name, "engine", a), _claims_of(name, "engine", b))
        rules_a, rules_b = _rules(a), _rules(b)
        _compare(
            changes,
            "rule",
            {f"{name} {k}": _plain(r) | {"position": i} for k, (i, r) in rules_a.items()},
            {f"{name} {k}": _plain(r) | {"position": i} for k, (i, r) in rules_b.items()},
        )
        for key in rules_a.keys() | rules_b.keys():
            _compare(
                changes,
                "claim",
                _claims_of(name, f"rule {key}", rules_a.get(key, (0, {}))[1]),
                _claims_of(name, f"rule {key}", rules_b.get(key, (0, {}))[1]),
            )
        models_a = {m["id"]: m for m in a.get("model", [])}
        models_b = {m["id"]: m for m in b.get("model", [])}
        _compare(
            changes,
            "model",
            {f"{name} {k}": _plain(m) for k, m in models_a.items()},
            {f"{name} {k}": _plain(m) for k, m in models_b.items()},
        )
        for key in models_a.keys() | models_b.keys():
            _compare(
                changes,
                "claim",
                _claims_of(name, f"model {key}", models_a.get(key, {})),
                _claims_of(name, f"model {key}", models_b.get(key, {})),
            )
    first = ("capability", "evidence_policy")
    return sorted(changes, key=lambda c: (c.entity not in first, c.subject, c.entity))


def _rules(engine: Mapping[str, Any]) -> dict[str, tuple[int, Mapping[str, Any]]]:
    found = {}
    for position, rule in enumerate(engine.get("rule", []), 1):
        match = "regex" if "regex" in rule else "exact"
        found[f"{match} {rule[match]!r}"] = (position, rule)
    return found


def _plain(table: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in table.items() if k != "claim"}


def _claims_of(engine: str, subject: str, table: Mapping[str, Any]) -> dict[str, Any]:
    return {f"{engine} {subject} {c['capability']}": c for c in table.get("claim", [])}


def _compare(
    changes: list[Change], entity: str, a: Mapping[str, Any], b: Mapping[str, Any]
) -> None:
    for key in sorted(a.keys() | b.keys()):
        old, new = a.get(key), b.get(key)
        if old == new:
            continue
        if old is None:
            changes.append(Change("added", entity, key, _summary(new)))
        elif new is None:
            changes.append(Change("removed", entity, key, _summary(old)))
        else:
            fields = sorted(old.keys() | new.keys())
            detail = "; ".join(
                f"{f}: {_show(old.get(f))} -> {_show(new.get(f))}"
                for f in fields
                if old.get(f) != new.get(f)
            )
            changes.append(Change("changed", entity, key, detail))


def _summary(table: Any) -> str:
    if isinstance(table, Mapping) and "value" in table:
        return f"{_show(table['value'])} [{table.get('status')}]"
    return ""


def _show(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
