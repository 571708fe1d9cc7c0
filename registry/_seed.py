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
from collections.abc import Iterable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import date
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy.engine import Connection

from ._public import shown_in_package
from ._rules import compile_rule
from ._write.claims import ClaimInput
from ._write.engines import ENGINE_FIELDS, EngineEntry
from ._write.transaction import CLAIM_FIELDS
from ._writer import Writer
from .errors import InvalidInput, InvalidRule, InvalidSeed
from .vocab import EVIDENCE_STATUSES, POLICY_MAX_DAYS

__all__ = [
    "SEED_ACTOR",
    "SeedData",
    "SeedReport",
    "apply_document",
    "apply_seed",
    "load_seed",
    "parse_documents",
    "seed",
    "seed_connection",
]

SEED_ACTOR = "seed"


class Batches(Protocol):
    """What ``seed`` needs of a registry: a write transaction (``Registry.batch``).

    Typed by what it does, so the seed (below the store: first-use setup runs it)
    does not import the store above it.
    """

    def batch(self) -> AbstractContextManager[Writer]:
        """Open a write transaction and hand out its writer."""
        ...


_ENGINE_KEYS = {"name", *ENGINE_FIELDS, "claim", "rule", "model", "rules_from"}
_CLAIM_KEYS = {"capability", *CLAIM_FIELDS}
_RULE_KEYS = {"exact", "regex", "wire", "note", "claim"}
_MODEL_KEYS = {"id", "wire", "note", "claim"}
_WIRE_FORM_KEYS = {"wire", "kind", "status", "evidence", "source"}
_CAPABILITY_KEYS = {"name", "description", "value_kind", "gates"}
_POLICY_KEYS = {"status", "max_age_days"}
_FILE_KEYS = {"capability", "engine", "wire_form", "evidence_policy", "documentation_date"}


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
    """The parsed seed: engine, wire-form and capability tables, in file order."""

    engines: tuple[Mapping[str, Any], ...]
    wire_forms: tuple[Mapping[str, Any], ...]
    capabilities: tuple[Mapping[str, Any], ...] = ()
    #: ``[[evidence_policy]]`` tables (an export's): status and max_age_days (absent: never)
    policies: tuple[Mapping[str, Any], ...] = ()


def _files() -> list[Path]:
    # A wheel installs toolwire.data as a directory, so these are real paths.
    root = Path(str(resources.files("toolwire.data")))
    return sorted(root.glob("*.toml"))


def load_seed(paths: Iterable[Path] | None = None) -> SeedData:
    """Parse and check the seed files (default: every ``*.toml`` in ``toolwire.data``).

    :raises InvalidSeed: for a file that is not TOML or breaks the seed format.
    """
    documents = []
    for path in _files() if paths is None else paths:
        try:
            documents.append((path.name, tomllib.loads(path.read_text(encoding="utf-8"))))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
            raise InvalidSeed(f"{path.name}: {error}") from error
    return parse_documents(documents)


def parse_documents(
    documents: Iterable[tuple[str, Mapping[str, Any]]], *, require_source: bool = True
) -> SeedData:
    """Check parsed seed-shaped documents (name, data) and return them as one SeedData.

    The shipped seed names a source for every claim; an export may have claims
    without one (``require_source`` false).

    :raises InvalidSeed: for a document that breaks the seed format.
    """
    engines: list[Mapping[str, Any]] = []
    wire_forms: list[Mapping[str, Any]] = []
    capabilities: list[Mapping[str, Any]] = []
    policies: list[Mapping[str, Any]] = []
    for label, document in documents:
        _keys(document, _FILE_KEYS, label)
        read_on = document.get("documentation_date")
        if read_on is not None and type(read_on) is not date:
            raise InvalidSeed(f"{label}: documentation_date must be a TOML date (YYYY-MM-DD)")
        for table in document.get("capability", []):
            _keys(table, _CAPABILITY_KEYS, f"{label}: capability")
            for key in ("name", "description"):
                if not isinstance(table.get(key), str):
                    raise InvalidSeed(f"{label}: capability: {key} is required (a string)")
            capabilities.append(table)
        for table in document.get("engine", []):
            where = f"{label}: engine {table.get('name')!r}"
            _check_engine(table, where, require_source)
            engines.append(table if read_on is None else _dated(table, read_on))
        for table in document.get("wire_form", []):
            _keys(table, _WIRE_FORM_KEYS, f"{label}: wire_form")
            wire_forms.append(table)
        for table in document.get("evidence_policy", []):
            _check_policy(table, f"{label}: evidence_policy")
            policies.append(table)
    names = [e["name"] for e in engines]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise InvalidSeed(f"engines seeded twice: {', '.join(duplicates)}")
    for table in engines:
        source = table.get("rules_from")
        if source is not None and source not in names:
            raise InvalidSeed(f"engine {table['name']!r}: rules_from {source!r} is not seeded")
    statuses = [p["status"] for p in policies]
    twice = sorted({s for s in statuses if statuses.count(s) > 1})
    if twice:
        raise InvalidSeed(f"evidence_policy lists {', '.join(twice)} twice")
    return SeedData(tuple(engines), tuple(wire_forms), tuple(capabilities), tuple(policies))


def _dated(engine: Mapping[str, Any], read_on: date) -> dict[str, Any]:
    """Return ``engine`` with ``read_on`` as the ``verified_at`` of each documented claim
    that has none: the day the documentation it cites was read is the day it ages from."""

    def claims(table: Mapping[str, Any]) -> dict[str, Any]:
        if "claim" not in table:
            return dict(table)
        return {
            **table,
            "claim": [
                {**claim, "verified_at": read_on}
                if claim["status"] == "documented" and claim.get("verified_at") is None
                else claim
                for claim in table["claim"]
            ],
        }

    dated = claims(engine)
    for key in ("rule", "model"):
        if key in engine:
            dated[key] = [claims(table) for table in engine[key]]
    return dated


def _check_policy(table: object, where: str) -> None:
    _keys(table, _POLICY_KEYS, where)
    assert isinstance(table, dict)
    if table.get("status") not in EVIDENCE_STATUSES:
        raise InvalidSeed(f"{where}: status must be one of {', '.join(EVIDENCE_STATUSES)}")
    days = table.get("max_age_days")
    if days is not None and (type(days) is not int or not 0 <= days <= POLICY_MAX_DAYS):
        raise InvalidSeed(f"{where}: max_age_days must be 0 to {POLICY_MAX_DAYS} (absent: never)")


def _keys(table: object, allowed: set[str], where: str) -> None:
    if not isinstance(table, dict):
        raise InvalidSeed(f"{where}: expected a table")
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise InvalidSeed(f"{where}: unknown key(s) {', '.join(unknown)}")


def _check_engine(table: Mapping[str, Any], where: str, require_source: bool = True) -> None:
    _keys(table, _ENGINE_KEYS, where)
    for key in ("name", "provider", "family", "default_wire", "kind"):
        if not isinstance(table.get(key), str):
            raise InvalidSeed(f"{where}: {key} is required (a string)")
    for claim in table.get("claim", []):
        _check_claim(claim, where, require_source)
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
            _check_claim(
                claim, f"{where} rule {rule.get('regex') or rule.get('exact')!r}", require_source
            )
    for model in table.get("model", []):
        _keys(model, _MODEL_KEYS, f"{where} model")
        if not isinstance(model.get("id"), str):
            raise InvalidSeed(f"{where} model: id is required (a string)")
        for claim in model.get("claim", []):
            _check_claim(claim, f"{where} model {model.get('id')!r}", require_source)


def _check_claim(claim: object, where: str, require_source: bool = True) -> None:
    _keys(claim, _CLAIM_KEYS, f"{where} claim")
    assert isinstance(claim, dict)
    needed = {"capability", "value", "status", "evidence"} | (
        {"source"} if require_source else set()
    )
    missing = sorted(needed - set(claim))
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
    return apply_document(writer, data, actor=SEED_ACTOR, reason="seed", sync=False)


def apply_document(
    writer: Writer,
    data: SeedData,
    *,
    actor: str,
    reason: str,
    sync: bool,
) -> SeedReport:
    """Apply a seed-shaped document (the seed files, or an export) through ``writer``.

    Capabilities, engines, rules, models and wire forms missing from the registry are
    added; every claim goes through one ``Writer.set_claims`` call. The seed
    (``sync`` false) leaves claims someone else recorded alone and never removes
    anything. An import (``sync`` true) makes each engine it names match the document:
    claims are recorded as given, and claims, models and rules the document does not
    list are removed (each removal a history event), rules put in the document's order.

    :raises RegistryError: for a value the registry refuses; nothing is written then.
    """
    report = SeedReport()
    if data.policies:
        from ._aging import set_evidence_policy  # only exports carry a policy

        for table in data.policies:
            changed = set_evidence_policy(
                writer, table["status"], table.get("max_age_days"), recorded_by=actor
            )
            report.updated += changed
            report.kept += not changed
    added = writer.add_capabilities(data.capabilities, created_by=actor)
    report.added += added.added
    report.kept += added.kept
    forms = writer.seed_wire_forms(data.wire_forms, recorded_by=actor)
    report.added += forms.added
    report.updated += forms.updated
    report.kept += forms.kept
    report.operator_owned += forms.operator_owned
    by_name = {table["name"]: table for table in data.engines}
    entries = [
        EngineEntry(
            table,
            [*by_name[table["rules_from"]].get("rule", []), *table.get("rule", [])]
            if table.get("rules_from")
            else table.get("rule", []),
        )
        for table in data.engines
    ]
    claims: list[ClaimInput] = []
    # The seed adds every engine at once; an import adds and syncs one engine at a time,
    # so its history reads engine by engine.
    for batch in [[e] for e in entries] if sync else [entries]:
        added = writer.add_missing(batch, created_by=actor)
        report.added += added.added
        report.kept += added.kept
        for entry in batch:
            table, name = entry.table, entry.table["name"]
            rule_ids = added.rule_ids[name]
            for rule, rule_id in zip(entry.rules, rule_ids, strict=True):
                claims += [_claim_input(name, c, rule=rule_id) for c in rule.get("claim", [])]
            for model in table.get("model", []):
                claims += [_claim_input(name, c, model=model["id"]) for c in model.get("claim", [])]
            claims += [_claim_input(name, claim) for claim in table.get("claim", [])]
            if sync:
                _sync_engine(writer, name, table, rule_ids, claims, actor, reason)
            report.engines.append(name)
    done = writer.set_claims(claims, recorded_by=actor, reason=reason, keep_others=not sync)
    report.added += done.added
    report.updated += done.updated
    report.kept += done.kept + done.left
    report.operator_owned += done.left
    return report


def seed(registry: Batches) -> SeedReport:
    """Seed ``registry`` (a ``Registry``) from the shipped files in one transaction.

    :raises InvalidSeed: for a seed file that breaks the format.
    :raises RegistryError: for a seed value the registry refuses.
    :raises InvalidInput: for a ``registry`` that is not a ``Registry``.
    """
    if not callable(getattr(registry, "batch", None)):
        raise InvalidInput(
            f"cannot seed {type(registry).__name__}: pass a Registry (e.g. Registry(url))"
        )
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


def _claim_input(
    engine: str, claim: Mapping[str, Any], *, model: str | None = None, rule: int | None = None
) -> ClaimInput:
    return ClaimInput(
        engine=engine,
        capability=claim["capability"],
        value=claim["value"],
        status=claim["status"],
        evidence=claim["evidence"],
        source=claim.get("source"),
        verified_at=claim.get("verified_at"),
        model=model,
        rule=rule,
    )


def _sync_engine(
    writer: Writer,
    engine: str,
    table: Mapping[str, Any],
    rule_ids: list[int],
    claims: list[ClaimInput],
    actor: str,
    reason: str,
) -> None:
    """Remove what the document does not list for ``engine``; order rules as listed.

    Engine, model and rule fields that differ from the document are updated too.
    """
    snapshot = writer.snapshot(engine)
    writer.update_fields(
        engine,
        "engine",
        engine,
        {k: table.get(k, "" if k == "note" else None) for k in ENGINE_FIELDS},
        recorded_by=actor,
        reason=reason,
    )
    for model in table.get("model", []):
        writer.update_fields(
            engine,
            "model",
            model["id"],
            {"wire": model.get("wire"), "note": model.get("note", "")},
            recorded_by=actor,
            reason=reason,
        )
    source = table.get("rules_from")
    for rule, ref in zip(table.get("rule", []) if not source else [], rule_ids, strict=False):
        writer.update_fields(
            engine,
            "rule",
            ref,
            {"wire": rule.get("wire"), "note": rule.get("note", "")},
            recorded_by=actor,
            reason=reason,
        )
    listed_models = {m["id"] for m in table.get("model", [])}
    for gone in sorted(set(snapshot.models) - listed_models):
        writer.remove_model(engine, gone, recorded_by=actor, reason=reason)
    for rule in snapshot.rules:
        if rule.id not in rule_ids:
            writer.remove_rule(engine, rule.id, recorded_by=actor, reason=reason)
    writer.order_rules(engine, rule_ids, recorded_by=actor, reason=reason)
    wanted = {(c.model, c.rule, c.capability) for c in claims if c.engine == engine}
    present: list[tuple[str | None, int | None, str]] = [
        *((None, None, cap) for cap in snapshot.claims),
        *(
            (m, None, cap)
            for m, row in snapshot.models.items()
            if m in listed_models
            for cap in row.claims
        ),
        *((None, r.id, cap) for r in snapshot.rules if r.id in rule_ids for cap in r.claims),
    ]
    for model_id, rule_id, capability in present:
        if (model_id, rule_id, capability) not in wanted:
            writer.remove_claim(
                engine, capability, model=model_id, rule=rule_id, recorded_by=actor, reason=reason
            )


shown_in_package(SeedReport, seed)
