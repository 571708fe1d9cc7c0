"""Seed the registry from the TOML files shipped in ``toolwire.data``.

The format is described in the header of ``data/wires.toml``. Seeding is
idempotent and runs in one transaction:

- engines, models, rules and wire forms are added when missing and otherwise left
  as they are (new rules go at the end of the engine's list);
- claims are recorded with ``recorded_by="seed"``; a claim an operator recorded
  (``recorded_by`` other than ``seed``) is never touched; a claim still owned by the
  seed whose seed value changed is updated, with a history event.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy.engine import Connection

from ._rules import compile_rule
from ._writer import Writer
from .errors import InvalidRule, InvalidSeed

if TYPE_CHECKING:
    from .store import Registry

__all__ = ["SEED_ACTOR", "SeedReport", "apply_seed", "load_seed", "seed", "seed_connection"]

SEED_ACTOR = "seed"

_ENGINE_KEYS = {
    "name",
    "provider",
    "family",
    "default_wire",
    "kind",
    "base_url",
    "response_tag",
    "note",
    "claim",
    "rule",
    "model",
    "rules_from",
}
_CLAIM_KEYS = {"capability", "value", "status", "evidence", "source", "verified_at"}
_RULE_KEYS = {"exact", "regex", "wire", "note", "claim"}
_MODEL_KEYS = {"id", "wire", "note", "claim"}
_WIRE_FORM_KEYS = {"wire", "kind", "status", "evidence", "source"}
_FILE_KEYS = {"engine", "wire_form"}


@dataclass(slots=True)
class SeedReport:
    """How many seed entries (engines, models, rules, claims, wire forms) were touched."""

    added: int = 0
    updated: int = 0
    kept: int = 0
    #: Claims left alone because an operator recorded them after the seed.
    operator_owned: int = 0
    engines: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class SeedData:
    """The parsed seed: engine tables and wire-form tables, in file order."""

    engines: tuple[Mapping[str, Any], ...]
    wire_forms: tuple[Mapping[str, Any], ...]


def _files() -> list[Path]:
    # A wheel installs toolwire.data as a directory, so these are real paths.
    root = Path(str(resources.files("toolwire.data")))
    return sorted(root.glob("*.toml"))


def load_seed(paths: Iterable[Path] | None = None) -> SeedData:
    """Parse and check the seed files (default: every ``*.toml`` in ``toolwire.data``).

    :raises InvalidSeed: for a file that is not TOML or breaks the seed format.
    """
    engines: list[Mapping[str, Any]] = []
    wire_forms: list[Mapping[str, Any]] = []
    for path in _files() if paths is None else paths:
        try:
            document = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
            raise InvalidSeed(f"{path.name}: {error}") from error
        _keys(document, _FILE_KEYS, path.name)
        for table in document.get("engine", []):
            where = f"{path.name}: engine {table.get('name')!r}"
            _check_engine(table, where)
            engines.append(table)
        for table in document.get("wire_form", []):
            _keys(table, _WIRE_FORM_KEYS, f"{path.name}: wire_form")
            wire_forms.append(table)
    names = [e["name"] for e in engines]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise InvalidSeed(f"engines seeded twice: {', '.join(duplicates)}")
    for table in engines:
        source = table.get("rules_from")
        if source is not None and source not in names:
            raise InvalidSeed(f"engine {table['name']!r}: rules_from {source!r} is not seeded")
    return SeedData(tuple(engines), tuple(wire_forms))


def _keys(table: object, allowed: set[str], where: str) -> None:
    if not isinstance(table, dict):
        raise InvalidSeed(f"{where}: expected a table")
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise InvalidSeed(f"{where}: unknown key(s) {', '.join(unknown)}")


def _check_engine(table: Mapping[str, Any], where: str) -> None:
    _keys(table, _ENGINE_KEYS, where)
    for key in ("name", "provider", "family", "default_wire", "kind"):
        if not isinstance(table.get(key), str):
            raise InvalidSeed(f"{where}: {key} is required (a string)")
    for claim in table.get("claim", []):
        _check_claim(claim, where)
    for rule in table.get("rule", []):
        _keys(rule, _RULE_KEYS, f"{where} rule")
        if ("exact" in rule) == ("regex" in rule):
            raise InvalidSeed(f"{where}: a rule has exactly one of 'exact' or 'regex'")
        if "regex" in rule:
            try:
                compile_rule(rule["regex"])
            except InvalidRule as error:
                raise InvalidSeed(f"{where}: {error}") from None
        for claim in rule.get("claim", []):
            _check_claim(claim, f"{where} rule {rule.get('regex') or rule.get('exact')!r}")
    for model in table.get("model", []):
        _keys(model, _MODEL_KEYS, f"{where} model")
        for claim in model.get("claim", []):
            _check_claim(claim, f"{where} model {model.get('id')!r}")


def _check_claim(claim: object, where: str) -> None:
    _keys(claim, _CLAIM_KEYS, f"{where} claim")
    assert isinstance(claim, dict)
    missing = sorted({"capability", "value", "status", "evidence", "source"} - set(claim))
    if missing:
        raise InvalidSeed(f"{where} claim: missing {', '.join(missing)}")
    verified = claim.get("verified_at")
    if verified is not None and type(verified) is not date:
        raise InvalidSeed(f"{where} claim: verified_at must be a TOML date (YYYY-MM-DD)")


def apply_seed(writer: Writer, data: SeedData | None = None) -> SeedReport:
    """Apply the seed through ``writer``, inside the caller's write transaction.

    :raises InvalidSeed: for a seed file that breaks the format.
    :raises RegistryError: for a seed value the registry refuses (wire, status, ...).
    """
    data = load_seed() if data is None else data
    report = SeedReport()
    for form in data.wire_forms:
        _seed_wire_form(writer, form, report)
    by_name = {table["name"]: table for table in data.engines}
    for table in data.engines:
        _seed_engine(writer, table, report)
        source = table.get("rules_from")
        rules = (
            [*by_name[source].get("rule", []), *table.get("rule", [])]
            if source
            else table.get("rule", [])
        )
        for rule in rules:
            _seed_rule(writer, table["name"], rule, report)
        for model in table.get("model", []):
            _seed_model(writer, table["name"], model, report)
        for claim in table.get("claim", []):
            _seed_claim(writer, table["name"], claim, report)
        report.engines.append(table["name"])
    return report


def seed(registry: Registry) -> SeedReport:
    """Seed ``registry`` from the shipped files in one transaction.

    :raises InvalidSeed: for a seed file that breaks the format.
    :raises RegistryError: for a seed value the registry refuses.
    """
    data = load_seed()
    with registry.batch() as writer:
        return apply_seed(writer, data)


def seed_connection(connection: Connection) -> SeedReport:
    """Seed through ``connection``, which must be inside a write transaction.

    :raises InvalidSeed: for a seed file that breaks the format.
    """
    writer = Writer(connection)
    writer.begin()
    report = apply_seed(writer)
    writer.finish()
    return report


def _seed_wire_form(writer: Writer, form: Mapping[str, Any], report: SeedReport) -> None:
    current = writer.wire_form(form["wire"], form["kind"])
    if current is not None and current.recorded_by != SEED_ACTOR:
        report.kept += 1
        report.operator_owned += 1
        return
    fields: dict[str, Any] = {k: form.get(k) for k in ("status", "evidence", "source")}
    if current is not None and all(getattr(current, k) == v for k, v in fields.items()):
        report.kept += 1
        return
    writer.set_wire_form(form["wire"], form["kind"], **fields, recorded_by=SEED_ACTOR)
    _count(report, current is None)


def _seed_engine(writer: Writer, table: Mapping[str, Any], report: SeedReport) -> None:
    if writer.has_engine(table["name"]):
        report.kept += 1
        return
    writer.add_engine(
        table["name"],
        provider=table["provider"],
        family=table["family"],
        default_wire=table["default_wire"],
        kind=table["kind"],
        base_url=table.get("base_url"),
        response_tag=table.get("response_tag"),
        note=table.get("note", ""),
        created_by=SEED_ACTOR,
    )
    report.added += 1


def _seed_rule(writer: Writer, engine: str, rule: Mapping[str, Any], report: SeedReport) -> None:
    regex = "regex" in rule
    pattern = rule["regex"] if regex else rule["exact"]
    rule_id = writer.rule_id(engine, pattern, regex=regex)
    if rule_id is None:
        rule_id = writer.add_rule(
            engine,
            pattern,
            regex=regex,
            wire=rule.get("wire"),
            note=rule.get("note", ""),
            created_by=SEED_ACTOR,
        ).id
        report.added += 1
    else:
        report.kept += 1
    for claim in rule.get("claim", []):
        _seed_claim(writer, engine, claim, report, rule=rule_id)


def _seed_model(writer: Writer, engine: str, model: Mapping[str, Any], report: SeedReport) -> None:
    if writer.has_model(engine, model["id"]):
        report.kept += 1
    else:
        writer.add_model(
            engine,
            model["id"],
            wire=model.get("wire"),
            note=model.get("note", ""),
            created_by=SEED_ACTOR,
        )
        report.added += 1
    for claim in model.get("claim", []):
        _seed_claim(writer, engine, claim, report, model=model["id"])


def _seed_claim(
    writer: Writer,
    engine: str,
    claim: Mapping[str, Any],
    report: SeedReport,
    *,
    model: str | None = None,
    rule: int | None = None,
) -> None:
    current = writer.claim(engine, claim["capability"], model=model, rule=rule)
    if current is not None and current.recorded_by != SEED_ACTOR:
        report.kept += 1
        report.operator_owned += 1
        return
    keys = ("value", "status", "evidence", "source", "verified_at")
    fields: dict[str, Any] = {k: claim.get(k) for k in keys}
    if current is not None and all(getattr(current, k) == v for k, v in fields.items()):
        report.kept += 1
        return
    writer.set_claim(
        engine,
        claim["capability"],
        fields["value"],
        model=model,
        rule=rule,
        status=fields["status"],
        evidence=fields["evidence"],
        source=fields["source"],
        verified_at=fields["verified_at"],
        recorded_by=SEED_ACTOR,
        reason="seed" if current is None else "seed updated",
    )
    _count(report, current is None)


def _count(report: SeedReport, added: bool) -> None:
    if added:
        report.added += 1
    else:
        report.updated += 1


def seeded_engine_names(data: SeedData | None = None) -> Sequence[str]:
    """Return the names of the engines the shipped seed defines, in file order.

    :raises InvalidSeed: for a seed file that breaks the format.
    """
    data = load_seed() if data is None else data
    return tuple(table["name"] for table in data.engines)
