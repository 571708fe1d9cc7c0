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
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Connection

from . import _queries as q
from ._aging import read_policy
from ._seed import SeedData, _files, apply_document, load_seed, parse_documents
from ._values import show_value
from ._write.engines import ENGINE_FIELDS
from ._write.transaction import CLAIM_FIELDS
from .errors import DatabaseError, InvalidSeed, RevisionConflict
from .records import Claim, EngineSnapshot
from .store import Registry
from .tables import capability_table, engine_table
from .vocab import DEFAULT_EVIDENCE_POLICY, ENGINE_KINDS, EVIDENCE_STATUSES, VALUE_KINDS

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
    #: one line per capability kept though the document describes it otherwise, and per
    #: engine whose base URL moves to another host (its probe key follows)
    warnings: tuple[str, ...] = ()


# -- export ---------------------------------------------------------------------------


def export(registry: Registry, engines: Sequence[str] | None = None) -> Document:
    """Return the registry's state (or only ``engines``) as a normalised document.

    An SQLite file gets SQLite's ``quick_check`` first: a corrupt file is refused
    rather than exported in part.

    :raises UnknownEngine: for a name in ``engines`` the registry does not know.
    :raises DatabaseError: when the database file is corrupt, or cannot be read.
    """
    problems = registry.integrity_problems(quick=True)
    if problems:
        more = f" and {len(problems) - 1} more" if len(problems) > 1 else ""
        raise DatabaseError(
            f"refusing to export {registry.url}: the file is corrupt (quick_check: "
            f"{problems[0]}{more}); run 'toolwire db check'"
        )
    with registry.reading("cannot export") as connection:
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
        _drop_empty({k: _document_value(getattr(c, k)) for k in _CLAIM_FIELDS})
        for c in sorted(claims, key=lambda c: c.capability)
    ]


def _document_value(value: object) -> object:
    """Return a claim field as a document holds it: MIME types as a sorted list."""
    if isinstance(value, (list, tuple)):
        return sorted({str(item).lower() for item in value})
    return value


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
        _drop_empty({k: _document_value(c.get(k)) for k in _CLAIM_FIELDS})
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
    """Return ``key = value`` lines; arrays of tables (claims, rules, models) come later."""
    return [
        f"{key} = {_value(v)}"
        for key, v in table.items()
        if not (isinstance(v, list) and any(isinstance(item, Mapping) for item in v))
    ]


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
    if isinstance(value, (list, tuple)):  # a claim's MIME types
        return "[" + ", ".join(_value(item) for item in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def read_document(path: Path) -> tuple[SeedData, Document]:
    """Read an exported (or seed) file, TOML or JSON; return it checked.

    A ``.json`` file is JSON and a ``.toml`` file TOML; any other name is JSON when it
    parses as JSON (whatever its top level), else TOML. The document's shape is checked
    before anything else reads it: a value of the wrong type is named by its path in the
    file (``t.json: engine[0]: expected a table, got an integer``).

    :raises InvalidSeed: for a file that is not TOML/JSON or breaks the seed format.
    :raises OSError: when the file cannot be read.
    """
    label = path.name
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise InvalidSeed(f"{label}: not UTF-8 text") from error
    document = _parse_text(text, label, suffix=path.suffix.lower())
    _check_document(document, label)
    try:
        data = parse_documents([(label, document)], require_source=False)
    except InvalidSeed as error:
        message = str(error)
        if message.startswith(f"{label}:"):
            raise
        raise InvalidSeed(f"{label}: {message}") from error
    return data, normalise(data)


def _parse_text(text: str, label: str, *, suffix: str = "") -> Any:
    """Return the JSON or TOML document ``text`` holds (see ``read_document``).

    :raises InvalidSeed: for text that is neither.
    """
    as_json = suffix == ".json" or (suffix != ".toml" and _looks_like_json(text))
    try:
        if as_json:
            return json.loads(text)
        return tomllib.loads(text)
    except (ValueError, RecursionError) as error:
        kind = "JSON" if as_json else "TOML"
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise InvalidSeed(f"{label}: not valid {kind}: {first}") from None


def _looks_like_json(text: str) -> bool:
    """Return True when ``text`` parses as JSON, or opens as JSON and not as TOML."""
    stripped = text.lstrip()
    if not stripped.startswith(("{", "[")):
        return False
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        # "[engine]" or "[[engine]]" opens a TOML table; anything else is broken JSON
        return not re.match(r"\[\[?\s*[A-Za-z0-9_.\"' -]+\]\]?\s*($|#|\n)", stripped)
    return True


# -- the document's shape -------------------------------------------------------------

_STRING, _BOOL, _INT, _DATE = "a string", "true or false", "an integer", "a date (YYYY-MM-DD)"
#: A claim's value, by its capability's value kind (a name of no known kind takes any;
#: the registry checks it against its own vocabulary when it is written).
_VALUE = "true or false, an integer or an array of MIME types"
_KIND_VALUE = {"bool": _BOOL, "int": _INT, "mimes": "an array of MIME types"}
_STATUS = "one of " + ", ".join(EVIDENCE_STATUSES)
_CLAIM_SHAPE: dict[str, str] = {
    "capability": _STRING,
    "value": _VALUE,
    "status": _STATUS,
    "evidence": _STRING,
    "source": _STRING,
    "verified_at": _DATE,
}
_ENGINE_SHAPE: dict[str, str] = {
    **{name: _STRING for name in ("name", *ENGINE_FIELDS, "rules_from")},
    "kind": "one of " + ", ".join(ENGINE_KINDS),
    "claim": "claims",
    "rule": "rules",
    "model": "models",
}
_RULE_SHAPE = {
    "exact": _STRING,
    "regex": _STRING,
    "wire": _STRING,
    "note": _STRING,
    "claim": "claims",
}
_MODEL_SHAPE = {"id": _STRING, "wire": _STRING, "note": _STRING, "claim": "claims"}
_CAPABILITY_SHAPE = {k: _STRING for k in ("name", "description", "value_kind", "gates")}
_POLICY_SHAPE = {"status": _STRING, "max_age_days": _INT}
_WIRE_FORM_SHAPE = {k: _STRING for k in ("wire", "kind", "status", "evidence", "source")}
_TOP_SHAPE = {
    "capability": _CAPABILITY_SHAPE,
    "evidence_policy": _POLICY_SHAPE,
    "wire_form": _WIRE_FORM_SHAPE,
    "engine": _ENGINE_SHAPE,
}


@cache
def _shipped_kinds() -> Mapping[str, str]:
    """Return the value kind of each capability of the shipped vocabulary."""
    vocabulary = load_seed([p for p in _files() if p.name == "capabilities.toml"])
    return {c["name"]: c.get("value_kind", "bool") for c in vocabulary.capabilities}


def _check_document(document: Any, label: str) -> None:
    """Check the types of everything an import or diff reads from ``document``.

    JSON's ``verified_at`` strings become dates here, in place. Unknown keys are left
    to ``parse_documents``, which names them. A claim's value is checked against its
    capability's kind where the document or the shipped vocabulary says it.

    :raises InvalidSeed: naming the file, the path in it and what was expected.
    """
    if not isinstance(document, dict):
        raise _wrong(label, "", "a table at the top", document)
    _unknown_keys(document, _TOP_SHAPE, label, "")
    kinds = dict(_shipped_kinds())
    for key, shape in _TOP_SHAPE.items():
        if key not in document:
            continue
        for index, table in enumerate(_array(document[key], label, key)):
            where = f"{key}[{index}]"
            if key == "engine":
                _check_engine_shape(table, label, where, kinds)
            else:
                _check_table(table, shape, label, where)
                if key == "capability" and table.get("value_kind") in VALUE_KINDS:
                    kinds[table.get("name")] = table["value_kind"]


def _check_engine_shape(table: Any, label: str, where: str, kinds: Mapping[str, str]) -> None:
    if not isinstance(table, dict):
        raise _wrong(label, where, "a table", table)
    name = table.get("name")
    engine = f" (engine {name!r})" if isinstance(name, str) else ""
    _check_table(table, _ENGINE_SHAPE, label, where, engine)
    for index, claim in enumerate(_array(table.get("claim", []), label, f"{where}.claim")):
        _check_claim_shape(claim, label, f"{where}.claim[{index}]", engine, kinds)
    for kind, shape in (("rule", _RULE_SHAPE), ("model", _MODEL_SHAPE)):
        for index, entry in enumerate(_array(table.get(kind, []), label, f"{where}.{kind}")):
            at = f"{where}.{kind}[{index}]"
            _check_table(entry, shape, label, at, engine)
            for n, claim in enumerate(_array(entry.get("claim", []), label, f"{at}.claim")):
                _check_claim_shape(claim, label, f"{at}.claim[{n}]", engine, kinds)


def _check_claim_shape(
    claim: Any, label: str, where: str, engine: str, kinds: Mapping[str, str]
) -> None:
    if isinstance(claim, dict) and isinstance(claim.get("verified_at"), str):
        try:
            claim["verified_at"] = date.fromisoformat(claim["verified_at"])
        except ValueError:
            wrong = claim["verified_at"]
            raise _wrong(label, f"{where}.verified_at", _DATE, wrong, engine) from None
    shape = _CLAIM_SHAPE
    if isinstance(claim, dict) and isinstance(claim.get("capability"), str):
        kind = kinds.get(claim["capability"])
        if kind is not None:
            shape = {**_CLAIM_SHAPE, "value": _KIND_VALUE[kind]}
    _check_table(claim, shape, label, where, engine)


def _check_table(
    table: Any, shape: Mapping[str, str], label: str, where: str, engine: str = ""
) -> None:
    if not isinstance(table, dict):
        raise _wrong(label, where, "a table", table, engine)
    _unknown_keys(table, shape, label, where, engine)
    for key, wanted in shape.items():
        if key not in table:
            continue
        value = table[key]
        if wanted in ("claims", "rules", "models"):
            continue  # arrays of tables, checked by the caller
        if not _fits(value, wanted):
            raise _wrong(label, f"{where}.{key}", wanted, value, engine)


def _unknown_keys(
    table: Mapping[str, Any], shape: Mapping[str, object], label: str, where: str, engine: str = ""
) -> None:
    unknown = sorted(map(str, table.keys() - shape.keys()))
    if unknown:
        shown = ", ".join(_short(str(k)) for k in unknown[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        at = f"{label}: {where}: " if where else f"{label}: "
        raise InvalidSeed(f"{at}unknown key(s) {shown}{more}{engine}")


def _fits(value: object, wanted: str) -> bool:
    if wanted == _STRING:
        return isinstance(value, str)
    if wanted == _BOOL:
        return isinstance(value, bool)
    if wanted == _VALUE:
        return _fits(value, _BOOL) or _fits(value, _INT) or _fits(value, _KIND_VALUE["mimes"])
    if wanted == _KIND_VALUE["mimes"]:
        return isinstance(value, list) and all(isinstance(item, str) for item in value)
    if wanted == _INT:
        return type(value) is int
    if wanted == _STATUS:
        return value in EVIDENCE_STATUSES
    if wanted.startswith("one of "):
        return value in ENGINE_KINDS
    return type(value) is date


def _array(value: Any, label: str, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise _wrong(label, where, "an array of tables", value)
    return value


def _wrong(label: str, where: str, wanted: str, got: object, engine: str = "") -> InvalidSeed:
    at = f"{label}: {where}: " if where else f"{label}: "
    return InvalidSeed(f"{at}expected {wanted}, got {_kind(got)}{engine}")


def _kind(value: object) -> str:
    """Name what ``value`` is in a document's words (TOML's), with short values shown."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a float"
    if isinstance(value, date):
        return f"a date ({value.isoformat()})" if type(value) is date else "a date-time"
    if isinstance(value, str):
        return f"a string {_short(value)}"
    return type(value).__name__


def _short(text: str) -> str:
    shown = json.dumps(text if len(text) <= 40 else text[:39] + "…", ensure_ascii=False)
    return shown.encode("utf-8", "backslashreplace").decode("utf-8")


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
    expect_revision: int | None = None,
) -> ImportReport:
    """Apply a document in one transaction; every changed claim's event names ``source``.

    Each engine the document lists is made to match it (claims, models and rules it
    does not list are removed, each with a history event); capabilities and engines
    it adds are added. A dry run does the same and rolls it back. With
    ``expect_revision`` the import is refused unless the registry is still at that
    revision (``Registry.revision()``) when its write transaction starts, so an edit
    made since the document was prepared is never overwritten unseen.

    :raises RevisionConflict: when the registry moved past ``expect_revision``.
    :raises RegistryError: for a value the registry refuses; nothing is written then.
    """
    changes: list[Change] = []
    warnings: list[str] = []
    try:
        with registry.batch() as writer:
            names = [t["name"] for t in data.engines]
            connection = writer._connection
            if expect_revision is not None:
                now = q.revision(connection)
                if now != expect_revision:
                    raise RevisionConflict(
                        f"{source}: the registry is at revision {now}, not "
                        f"{expect_revision}: it changed since; export it again, or import "
                        "without --expect-revision to overwrite"
                    )
            present = [n for n in names if writer.has_engine(n)]
            before = _export(connection, present)
            warnings = _kept_capabilities(before, data)
            apply_document(writer, data, actor=by, reason=f"import {source}", sync=True)
            after = _export(connection, names)
            before_caps = {c["name"] for c in before.get("capability", [])}
            after["capability"] = [
                c for c in after.get("capability", []) if c["name"] not in before_caps
            ]
            before["capability"] = []
            changes = diff(before, after)
            warnings += _moved_hosts(before, after)
            if dry_run:
                raise _DryRun
    except _DryRun:
        pass
    return ImportReport(tuple(changes), dry_run, tuple(warnings))


def _kept_capabilities(held: Document, data: SeedData) -> list[str]:
    """Return a warning per capability the document describes otherwise than the
    registry: the vocabulary is only added to, so such a capability is kept as it is."""
    found = {c["name"]: c for c in held.get("capability", [])}
    warnings = []
    for table in data.capabilities:
        mine = found.get(table["name"])
        if mine is None:
            continue
        differ = [
            key
            for key in ("description", "value_kind", "gates")
            if key in table and table[key] != mine.get(key)
        ]
        if differ:
            warnings.append(
                f"capability {table['name']}: kept as the registry holds it, not the file's "
                f"{', '.join(differ)} (an import adds capabilities, it does not change them)"
            )
    return warnings


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
    if isinstance(value, (bool, list, tuple)):
        return show_value(value)
    return str(value)
