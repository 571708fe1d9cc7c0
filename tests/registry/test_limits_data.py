"""The shipped limits: documented values per engine, each with its evidence and source."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from toolwire.registry import LIMITS, Registry
from toolwire.registry._seed import load_seed
from toolwire.registry.snapshot import build_snapshot, schema_text

MIB = 1024 * 1024


def _limit_claims() -> list[tuple[str, str, dict[str, Any]]]:
    """Return (engine, where, claim) for every limit claim of the seed files."""
    found = []
    for engine in load_seed().engines:
        for claim in engine.get("claim", []):
            found.append((engine["name"], "engine", claim))
        for rule in engine.get("rule", []):
            for claim in rule.get("claim", []):
                found.append((engine["name"], rule.get("regex") or rule["exact"], claim))
        for model in engine.get("model", []):
            for claim in model.get("claim", []):
                found.append((engine["name"], model["id"], claim))
    return [f for f in found if f[2]["capability"] in LIMITS]


def test_every_shipped_limit_has_evidence_and_a_source() -> None:
    claims = _limit_claims()
    assert len(claims) == 17  # the shipped set: a new one is added here knowingly
    for engine, where, claim in claims:
        assert claim.get("source", "").strip(), (engine, where, claim["capability"])
        assert claim["evidence"].strip(), (engine, where, claim["capability"])
        assert claim["status"] in ("documented", "inferred"), (engine, where)


def _engine_claims(registry: Registry, engine: str) -> dict[str, object]:
    snapshot = registry.engine_snapshot(engine, models=())
    return {k: c.value for k, c in snapshot.claims.items() if k in LIMITS}


def test_anthropic_first_party_limits(registry: Registry) -> None:
    assert _engine_claims(registry, "anthropic") == {
        "max_image_bytes": 10 * MIB * 3 // 4,  # 10 MB of base64, decoded
        "max_image_side": 8000,
        "max_images": 100,  # the 200k-context value: no context windows are recorded
        "many_images": 20,
        "many_images_max_side": 2000,
        "max_pdf_pages": 100,  # the under-1M-context value, likewise
        "max_pdf_request_bytes": 32 * MIB * 3 // 4,  # a 32 MB request of base64
    }
    evidence = {
        c.capability: c.evidence
        for c in registry.engine_snapshot("anthropic", models=()).claims.values()
    }
    assert "10485760 base64 symbols" in evidence["max_image_bytes"]
    assert "decoded" in evidence["max_image_bytes"]
    assert "no context windows" in evidence["max_images"]


def test_bedrock_limits(registry: Registry) -> None:
    assert _engine_claims(registry, "bedrock") == {
        "max_image_bytes": int(3.75 * MIB),
        "max_image_side": 8000,
        "max_pdf_bytes": int(4.5 * MIB),
        "image_mimes": ("image/gif", "image/jpeg", "image/png", "image/webp"),
    }
    claude = next(r for r in registry.rules("bedrock") if "anthropic" in r.pattern)
    assert claude.claims["max_image_bytes"].value == 5 * MIB * 3 // 4  # 5 MB of base64
    assert "5 MB of base64" in claude.claims["max_image_bytes"].evidence


def test_gemini_limits(registry: Registry) -> None:
    assert _engine_claims(registry, "gemini") == {
        "image_mimes": ("image/jpeg", "image/png", "image/webp"),
        "max_pdf_bytes": 50 * MIB,
        "max_pdf_pages": 1000,
    }


def test_xai_limits(registry: Registry) -> None:
    assert _engine_claims(registry, "xai") == {
        "image_mimes": ("image/jpeg", "image/png"),
        "max_image_bytes": 20 * MIB,
    }


@pytest.mark.parametrize("engine", ["openai", "openai-responses", "ollama", "deepseek"])
def test_engines_without_documented_limits_ship_none(registry: Registry, engine: str) -> None:
    # no value in the field notes for these: the converter's default for the wire applies
    assert _engine_claims(registry, engine) == {}
    assert all(not set(rule.claims) & set(LIMITS) for rule in registry.rules(engine))


def test_the_snapshot_shows_limits_and_validates_against_its_schema(registry: Registry) -> None:
    sonnet_id = "anthropic.claude-sonnet-4-5-20250929-v1:0"
    registry.set_claim(  # records the model, so the snapshot resolves it
        "bedrock",
        "max_images",
        20,
        model=sonnet_id,
        status="unverified",
        evidence="a test",
        recorded_by="tests",
    )
    document = json.loads(build_snapshot(registry).body)
    schema = json.loads(schema_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
    jsonschema.Draft202012Validator(schema, format_checker=checker).validate(document)
    bedrock = document["engines"]["bedrock"]
    assert bedrock["claims"]["image_mimes"]["value"] == [
        "image/gif",
        "image/jpeg",
        "image/png",
        "image/webp",
    ]
    sonnet = bedrock["models"][sonnet_id]
    assert sonnet["limits"]["max_images"]["value"] == 20
    assert sonnet["limits"]["max_images"]["decided_by"] == "model"
    assert sonnet["limits"]["max_image_bytes"]["value"] == 3932160
    assert sonnet["limits"]["max_image_bytes"]["decided_by"].startswith("rule:")
    pdf = sonnet["limits"]["max_pdf_bytes"]
    assert (pdf["value"], pdf["decided_by"], pdf["status"]) == (4718592, "engine", "documented")
    assert pdf["source"].startswith("AWS Bedrock API reference: Converse DocumentBlock")
    assert set(pdf) == {"value", "decided_by", "status", "source", "verified_at", "stale_after"}
    legacy = document["engines"]["anthropic"]["models"]["claude-2.1"]
    assert legacy["limits"]["max_image_bytes"]["value"] == 7864320
    assert set(legacy["limits"]) == {
        "max_image_bytes",
        "max_image_side",
        "max_images",
        "many_images",
        "many_images_max_side",
        "max_pdf_pages",
        "max_pdf_request_bytes",
    }
    # a limit of the wrong kind breaks the schema
    broken = json.loads(json.dumps(document))
    broken["engines"]["bedrock"]["claims"]["max_image_side"]["value"] = 0
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(broken))


def test_the_matrix_rows_carry_their_limits(registry: Registry) -> None:
    from toolwire.registry.matrix import build, render_html

    matrix = build(registry, engines=["bedrock", "anthropic"])
    rows = {(r.engine, r.kind, r.name): r for r in matrix.rows}
    engine = dict(rows[("bedrock", "engine", "")].limits)
    assert engine["image_mimes"] == (
        "image/gif,image/jpeg,image/png,image/webp [documented] engine"
    )
    claude = next(r for r in matrix.rows if r.engine == "bedrock" and "anthropic" in r.name)
    assert dict(claude.limits)["max_image_bytes"].startswith("3932160 [inferred] rule:")
    legacy = dict(rows[("anthropic", "model", "claude-2.1")].limits)
    assert legacy["max_images"] == "100 [documented] engine"
    assert "image_mimes" not in legacy  # no claim: the wire's default, not shown
    page = render_html(matrix)
    assert '["max_images","100 [documented] engine"]' in page
    assert 'header.push("limits")' in page
