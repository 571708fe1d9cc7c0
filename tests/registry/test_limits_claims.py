"""Limit and MIME-type claims: checked by their capability's kind, history, export and import."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from claim_helpers import set_claim as _set
from toolwire.registry import ClaimInput, InvalidInput, InvalidSeed, Registry
from toolwire.registry.transfer import (
    diff,
    dump_json,
    dump_toml,
    export,
    import_document,
    read_document,
    seed_document,
)


@pytest.mark.parametrize(
    ("capability", "value", "message"),
    [
        ("max_images", True, "invalid max_images value True: must be a whole number"),
        ("max_images", 0, "must be a whole number, 1 to"),
        ("max_images", -5, "must be a whole number, 1 to"),
        ("max_images", 2**53, "must be a whole number, 1 to"),
        ("max_images", 1.5, "must be a whole number"),
        ("max_images", "600", "must be a whole number"),
        ("image_input", 1, "invalid image_input value 1: must be true or false"),
        ("image_input", ["image/png"], "must be true or false"),
        ("image_mimes", "image/png", "must be a list of MIME types"),
        ("image_mimes", [], "must name at least one MIME type"),
        ("image_mimes", ["png"], "'png' is not a MIME type"),
        ("image_mimes", ["image/png", 3], "3 is not a MIME type"),
        ("image_mimes", ["image/png, image/jpeg"], "is not a MIME type"),
        ("image_mimes", True, "must be a list of MIME types"),
    ],
)
def test_a_value_of_the_wrong_kind_is_one_line_and_writes_nothing(
    registry: Registry, capability: str, value: Any, message: str
) -> None:
    before = registry.revision()
    with pytest.raises(InvalidInput) as caught:
        _set(registry, "xai", capability, value, model="grok-4")
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)
    assert registry.revision() == before
    with pytest.raises(InvalidInput):  # the bulk path checks the same, before writing
        registry.set_claims(
            [ClaimInput("xai", capability, value, "documented", "e", model="grok-4")],
            recorded_by="tests",
        )
    assert registry.revision() == before


def test_mimes_are_lowercased_sorted_and_distinct(registry: Registry) -> None:
    claim = _set(registry, "xai", "image_mimes", ("image/PNG", "image/jpeg", "image/png"))
    assert claim.value == ("image/jpeg", "image/png")
    stored = registry.claims(engine="xai", capability="image_mimes")
    assert [c.value for c in stored] == [("image/jpeg", "image/png")]


def test_history_records_old_and_new_limits(registry: Registry) -> None:
    _set(registry, "xai", "max_images", 600, model="grok-4")
    _set(registry, "xai", "max_images", 600, model="grok-4")  # identical: no event
    _set(registry, "xai", "max_images", 100, model="grok-4", reason="docs changed")
    _set(registry, "xai", "image_mimes", ["image/png"], model="grok-4")
    _set(registry, "xai", "image_mimes", ["image/png", "image/webp"], model="grok-4")
    registry.unset_claim("xai", "max_images", model="grok-4", evidence="gone", recorded_by="t")
    events = registry.claim_history("xai", model="grok-4")
    seen = [(e.capability, e.action, e.old_value, e.new_value) for e in events]
    assert seen == [
        ("max_images", "set", None, 600),
        ("max_images", "set", 600, 100),
        ("image_mimes", "set", None, ("image/png",)),
        ("image_mimes", "set", ("image/png",), ("image/png", "image/webp")),
        ("max_images", "retract", 100, None),
    ]
    log = [e for e in registry.log(engine="xai") if e.subject == "model:grok-4"]
    values = [e.changes.get("value") for e in log if e.what.startswith("claim max_images")]
    assert (600, 100) in values


def test_bulk_claims_write_limits_and_mimes(registry: Registry) -> None:
    report = registry.set_claims(
        [
            ClaimInput("xai", "max_images", 8, "documented", "e", model="grok-a"),
            ClaimInput("xai", "max_images", 8, "documented", "e", model="grok-b"),
            ClaimInput("xai", "image_mimes", ["image/png"], "documented", "e", model="grok-a"),
            ClaimInput("xai", "image_mimes", ("image/png",), "documented", "e", model="grok-b"),
            ClaimInput("xai", "image_input", True, "documented", "e", model="grok-b"),
        ],
        recorded_by="tests",
    )
    assert report.added == 5
    again = registry.set_claims(
        [ClaimInput("xai", "image_mimes", ["image/PNG"], "documented", "e", model="grok-a")],
        recorded_by="tests",
    )
    assert again.kept == 1 and again.added == again.updated == 0
    changed = registry.set_claims(
        [ClaimInput("xai", "max_images", 9, "documented", "e", model="grok-a")],
        recorded_by="tests",
    )
    assert changed.updated == 1
    model = registry.model("xai", "grok-a")
    assert model is not None
    assert {k: c.value for k, c in model.claims.items()} == {
        "max_images": 9,
        "image_mimes": ("image/png",),
    }


def test_export_and_import_round_trip_limits(
    registry: Registry, second_database_url: str, tmp_path: Path
) -> None:
    _set(registry, "xai", "max_images", 600, model="grok-4", verified_at=None)
    _set(registry, "xai", "image_mimes", ["image/png", "image/jpeg"], model="grok-4")
    document = export(registry)
    xai = next(e for e in document["engine"] if e["name"] == "xai")
    grok = next(m for m in xai["model"] if m["id"] == "grok-4")
    assert {c["capability"]: c["value"] for c in grok["claim"]} == {
        "image_mimes": ["image/jpeg", "image/png"],
        "max_images": 600,
    }
    for name, text in (("a.toml", dump_toml(document)), ("a.json", dump_json(document))):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        data, read = read_document(path)
        assert read == document
        other = Registry(second_database_url)
        try:
            import_document(other, data, source=name, by="tests")
            assert diff(export(other), document) == []
            model = other.model("xai", "grok-4")
            assert model is not None
            assert model.claims["image_mimes"].value == ("image/jpeg", "image/png")
            assert model.claims["max_images"].value == 600
        finally:
            other.close()
    assert 'value = ["image/jpeg", "image/png"]' in dump_toml(document)


def test_an_export_without_limits_still_imports(registry: Registry, tmp_path: Path) -> None:
    limits = {
        c["name"] for c in seed_document()["capability"] if c.get("value_kind", "bool") != "bool"
    }
    document = json.loads(dump_json(export(registry)))
    # as an export written before limits existed: no limit capabilities, no limit claims
    document["capability"] = [c for c in document["capability"] if c["name"] not in limits]
    for capability in document["capability"]:
        capability["value_kind"] = "bool"
    for engine in document["engine"]:
        tables = [engine, *engine.get("rule", []), *engine.get("model", [])]
        for table in tables:
            table["claim"] = [c for c in table.get("claim", []) if c["capability"] not in limits]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    data, _ = read_document(path)
    report = import_document(registry, data, source="old.json", by="tests")
    assert report.changes  # the import made the engines match it: their limits are gone
    assert registry.claims(engine="anthropic", capability="max_images") == ()
    assert {c.name for c in registry.capabilities()} >= limits  # the vocabulary keeps them


def test_import_refuses_a_value_of_the_wrong_kind(registry: Registry, tmp_path: Path) -> None:
    document = json.loads(dump_json(export(registry)))
    anthropic = next(e for e in document["engine"] if e["name"] == "anthropic")
    claim = next(c for c in anthropic["claim"] if c["capability"] == "max_images")
    claim["value"] = True
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(InvalidSeed) as caught:  # the shipped vocabulary knows its kind
        read_document(path)
    assert str(caught.value).startswith("bad.json: engine[")
    assert ".value: expected an integer, got true (engine 'anthropic')" in str(caught.value)

    # a capability of the registry's own, which the document does not declare: the
    # registry checks the value when it is written, and nothing is written
    registry.add_capability(
        "max_audio_seconds", description="longest clip", value_kind="int", created_by="t"
    )
    claim["value"] = 100
    anthropic["claim"].append(
        {"capability": "max_audio_seconds", "value": True, "status": "documented", "evidence": "e"}
    )
    document["capability"] = [c for c in document["capability"] if c["name"] != "max_audio_seconds"]
    path.write_text(json.dumps(document), encoding="utf-8")
    data, _ = read_document(path)
    before = registry.revision()
    with pytest.raises(InvalidInput, match="invalid max_audio_seconds value True"):
        import_document(registry, data, source="bad.json", by="tests")
    assert registry.revision() == before
