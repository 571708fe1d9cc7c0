"""Registry reads and writes: records, history, revision, typed errors, rollback."""

from __future__ import annotations

import dataclasses
from datetime import UTC, date, timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from toolwire.registry.errors import (
    DuplicateEntry,
    InvalidCapability,
    InvalidInput,
    InvalidModelId,
    InvalidRule,
    InvalidStatus,
    InvalidWire,
    RegistryError,
    UnknownEngine,
    UnknownRule,
)
from toolwire.registry.store import Registry
from toolwire.registry.vocab import EVIDENCE_STATUSES, evidence_rank

CLAIM: dict[str, Any] = {"status": "documented", "evidence": "docs say so", "recorded_by": "ops"}


@pytest.fixture
def lab(registry: Registry) -> Registry:
    """Return the seeded registry with an extra engine 'lab' that has no seed data."""
    registry.add_engine(
        "lab",
        provider="Lab",
        family="openai",
        default_wire="openai",
        kind="self-hosted",
        created_by="ops",
    )
    return registry


def _counts(registry: Registry) -> tuple[int, ...]:
    """Count the rows of every table, and read the revision, in one statement."""
    tables = ("engine", "model", "model_rule", "claim", "claim_event", "wire_form")
    counts = ", ".join(f"(SELECT count(*) FROM {table})" for table in tables)
    engine = sa.create_engine(registry.url)
    try:
        with engine.connect() as connection:
            row = connection.execute(
                sa.text(f"SELECT {counts}, revision FROM registry_state")
            ).one()
    finally:
        engine.dispose()
    return tuple(row)


def test_engine_record(registry: Registry) -> None:
    engine = registry.engine("aki-anthropic")
    assert engine.default_wire == "anthropic"
    assert engine.kind == "shim"
    assert engine.created_by == "seed"
    assert engine.created_at.tzinfo is UTC
    with pytest.raises(dataclasses.FrozenInstanceError):
        engine.name = "other"  # type: ignore[misc]


def test_unknown_engine_names_the_closest(registry: Registry) -> None:
    with pytest.raises(UnknownEngine, match="did you mean 'anthropic'") as caught:
        registry.engine("antropic")
    assert isinstance(caught.value, LookupError)
    assert "anthropic" in caught.value.suggestions


def test_add_engine_bumps_revision_and_refuses_duplicates(registry: Registry) -> None:
    before = registry.revision()
    engine = registry.add_engine(
        "lab",
        provider="Lab",
        family="openai",
        default_wire="hermes",
        kind="self-hosted",
        response_tag="tool_output",
        base_url="http://lab:8000/v1",
        created_by="ops",
    )
    assert engine.response_tag == "tool_output"
    assert registry.revision() == before + 1
    with pytest.raises(DuplicateEntry):
        registry.add_engine(
            "lab",
            provider="x",
            family="openai",
            default_wire="openai",
            kind="gateway",
            created_by="ops",
        )
    assert registry.revision() == before + 1


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"default_wire": "chat"}, InvalidWire),
        ({"kind": "cloud"}, InvalidInput),
        ({"name": "Bad Name"}, InvalidInput),
        ({"provider": ""}, InvalidInput),
        ({"response_tag": "<tag>"}, InvalidInput),
        ({"created_by": ""}, InvalidInput),
    ],
)
def test_add_engine_rejects_bad_values(
    registry: Registry, change: dict[str, Any], error: type[Exception]
) -> None:
    values: dict[str, Any] = {
        "name": "lab",
        "provider": "Lab",
        "family": "openai",
        "default_wire": "openai",
        "kind": "self-hosted",
        "created_by": "ops",
        **change,
    }
    before = _counts(registry)
    with pytest.raises(error):
        registry.add_engine(values.pop("name"), **values)
    assert _counts(registry) == before


def test_add_model_and_read_it_back(lab: Registry) -> None:
    model = lab.add_model("lab", "qwen3-vl:8b", wire="ollama", note="probe", created_by="ops")
    assert (model.engine, model.model_id, model.wire) == ("lab", "qwen3-vl:8b", "ollama")
    assert lab.model("lab", "qwen3-vl:8b") == model
    assert lab.model("lab", "missing") is None
    assert [m.model_id for m in lab.models("lab")] == ["qwen3-vl:8b"]
    with pytest.raises(DuplicateEntry):
        lab.add_model("lab", "qwen3-vl:8b", created_by="ops")


@pytest.mark.parametrize("model_id", ["", " gpt-4o", "gpt 4o", "gpt-4o\n", "a\x00b", "x" * 257])
def test_bad_model_ids_change_nothing(lab: Registry, model_id: str) -> None:
    before = _counts(lab)
    with pytest.raises(InvalidModelId):
        lab.add_model("lab", model_id, created_by="ops")
    with pytest.raises(InvalidModelId):
        lab.set_claim("lab", "image_input", True, model=model_id, **CLAIM)
    assert _counts(lab) == before


def test_model_id_limits_accept_real_ids(lab: Registry) -> None:
    for model_id in ["x" * 256, "NousResearch/Hermes-4-405B", "models/gemini-3-pro", "a:b@c"]:
        lab.add_model("lab", model_id, created_by="ops")
    assert len(lab.models("lab")) == 4


def test_rules_append_and_insert_in_order(lab: Registry) -> None:
    lab.add_rule("lab", ".*", regex=True, created_by="ops")
    lab.add_rule("lab", "llava-13b", regex=False, created_by="ops")
    inserted = lab.add_rule("lab", "(?i)llava.*", regex=True, position=2, created_by="ops")
    assert inserted.position == 2
    rules = lab.rules("lab")
    assert [(r.position, r.pattern) for r in rules] == [
        (1, ".*"),
        (2, "(?i)llava.*"),
        (3, "llava-13b"),
    ]
    assert rules[1].matches("LLaVA-7b") and not rules[2].matches("llava-13b-q4")
    with pytest.raises(DuplicateEntry):
        lab.add_rule("lab", ".*", regex=True, created_by="ops")


def test_regex_rules_use_fullmatch(registry: Registry) -> None:
    gemini3 = next(r for r in registry.rules("gemini") if r.pattern.startswith("gemini-3"))
    assert gemini3.matches("gemini-3-flash-preview")
    assert gemini3.matches("gemini-3.1-pro-preview")
    assert not gemini3.matches("gemini-2.5-flash")
    assert not gemini3.matches("gemini-30-future")
    assert not gemini3.matches("models/gemini-3-pro")  # fullmatch: no partial hits


@pytest.mark.parametrize(
    ("pattern", "regex", "options", "error"),
    [
        ("(unclosed", True, {}, InvalidRule),
        ("", True, {}, InvalidRule),
        ("has space", False, {}, InvalidModelId),
        ("ok.*", True, {"wire": "grpc"}, InvalidWire),
        ("ok.*", True, {"position": 0}, InvalidRule),
    ],
)
def test_bad_rules_change_nothing(
    lab: Registry, pattern: str, regex: bool, options: dict[str, Any], error: type[Exception]
) -> None:
    before = _counts(lab)
    with pytest.raises(error):
        lab.add_rule("lab", pattern, regex=regex, created_by="ops", **options)
    assert _counts(lab) == before


def test_set_claim_records_history_and_bumps_revision(lab: Registry) -> None:
    start = lab.revision()
    first = lab.set_claim("lab", "image_input", False, **CLAIM, reason="default off")
    assert (first.value, first.status, first.subject_key) == (False, "documented", "engine")
    second = lab.set_claim(
        "lab",
        "image_input",
        True,
        status="live-verified",
        evidence="probe saw the image",
        source="live 2026-10-01",
        verified_at=date(2026, 10, 1),
        recorded_by="ana",
        reason="probe",
    )
    assert second.recorded_by == "ana" and second.verified_at == date(2026, 10, 1)
    assert lab.revision() == start + 2
    history = lab.claim_history("lab", capability="image_input")
    assert [(e.old_value, e.new_value, e.actor, e.reason) for e in history] == [
        (None, False, "ops", "default off"),
        (False, True, "ana", "probe"),
    ]
    assert history[1].old_status == "documented"
    assert history[1].new_verified_at == date(2026, 10, 1)
    assert history[1].occurred_at.tzinfo is UTC


def test_identical_claim_is_a_no_op(lab: Registry) -> None:
    lab.set_claim("lab", "image_input", False, **CLAIM)
    revision = lab.revision()
    again = lab.set_claim("lab", "image_input", False, **{**CLAIM, "recorded_by": "bob"})
    assert again.recorded_by == "ops"
    assert lab.revision() == revision
    assert len(lab.claim_history("lab")) == 1


def test_any_evidence_change_is_an_event(lab: Registry) -> None:
    lab.set_claim("lab", "image_input", False, **CLAIM)
    lab.set_claim("lab", "image_input", False, **CLAIM, source="docs page")
    lab.set_claim(
        "lab", "image_input", False, **CLAIM, source="docs page", verified_at=date(2026, 1, 2)
    )
    events = lab.claim_history("lab")
    assert [(e.new_source, e.new_verified_at) for e in events] == [
        (None, None),
        ("docs page", None),
        ("docs page", date(2026, 1, 2)),
    ]


def test_claim_on_unrecorded_model_creates_the_model(lab: Registry) -> None:
    claim = lab.set_claim("lab", "image_input", True, model="llava-13b", **CLAIM)
    assert (claim.model, claim.subject_key) == ("llava-13b", "model:llava-13b")
    model = lab.model("lab", "llava-13b")
    assert model is not None and model.created_by == "ops"
    assert model.claims["image_input"] == claim
    assert [e.subject for e in lab.claim_history("lab", model="llava-13b")] == ["model llava-13b"]


def test_claim_on_rule_by_id_or_pattern(lab: Registry) -> None:
    rule = lab.add_rule("lab", "llava.*", regex=True, created_by="ops")
    by_id = lab.set_claim("lab", "image_input", True, rule=rule.id, **CLAIM)
    by_pattern = lab.set_claim("lab", "tool_result_images", True, rule="llava.*", **CLAIM)
    assert by_id.rule == by_pattern.rule == rule.id
    assert set(lab.rules("lab")[0].claims) == {"image_input", "tool_result_images"}
    with pytest.raises(UnknownRule):
        lab.set_claim("lab", "image_input", True, rule="nope.*", **CLAIM)
    with pytest.raises(UnknownRule):
        lab.set_claim("lab", "image_input", True, rule=rule.id + 1000, **CLAIM)


def test_ambiguous_rule_pattern_needs_the_id(lab: Registry) -> None:
    lab.add_rule("lab", "llava", regex=True, created_by="ops")
    lab.add_rule("lab", "llava", regex=False, created_by="ops")
    with pytest.raises(InvalidRule, match="give the rule id"):
        lab.set_claim("lab", "image_input", True, rule="llava", **CLAIM)


@pytest.mark.parametrize(
    ("capability", "value", "options", "error"),
    [
        ("Image_Input", True, {}, InvalidCapability),
        ("9lives", True, {}, InvalidCapability),
        ("a" * 65, True, {}, InvalidCapability),
        ("image_input", True, {"status": "confirmed"}, InvalidStatus),
        ("image_input", 1, {}, InvalidInput),
        ("image_input", True, {"evidence": "  "}, InvalidInput),
        ("image_input", True, {"model": "m", "rule": 1}, InvalidInput),
        ("image_input", True, {"verified_at": "2026-01-01"}, InvalidInput),
    ],
)
def test_bad_claims_change_nothing(
    lab: Registry, capability: str, value: Any, options: dict[str, Any], error: type[Exception]
) -> None:
    before = _counts(lab)
    with pytest.raises(error):
        lab.set_claim("lab", capability, value, **{**CLAIM, **options})
    assert _counts(lab) == before


def test_claim_on_unknown_engine(registry: Registry) -> None:
    with pytest.raises(UnknownEngine):
        registry.set_claim("nope", "image_input", True, **CLAIM)


def test_failed_batch_rolls_back_everything(lab: Registry) -> None:
    before = _counts(lab)
    with pytest.raises(InvalidStatus), lab.batch() as writer:
        writer.add_model("lab", "first", created_by="ops")
        writer.set_claim("lab", "image_input", True, model="first", **CLAIM)
        writer.set_claim("lab", "image_input", True, **{**CLAIM, "status": "rumour"})
    assert _counts(lab) == before


def test_batch_bumps_revision_once(lab: Registry) -> None:
    before = lab.revision()
    with lab.batch() as writer:
        for n in range(5):
            writer.set_claim("lab", "image_input", True, model=f"m{n}", **CLAIM)
    assert lab.revision() == before + 1
    assert len(lab.models("lab")) == 5


def test_snapshot_has_everything_for_one_engine(registry: Registry) -> None:
    registry.set_claim("openai", "image_input", True, model="gpt-5", **CLAIM)
    snapshot = registry.engine_snapshot("openai")
    assert snapshot.engine.name == "openai"
    assert snapshot.revision == registry.revision()
    assert snapshot.claims["image_input"].value is True
    assert snapshot.models["gpt-5"].claims["image_input"].recorded_by == "ops"
    positions = [rule.position for rule in snapshot.rules]
    assert positions == sorted(positions)
    matching = snapshot.matching_rules("gpt-3.5-turbo")
    assert [rule.claims["image_input"].value for rule in matching] == [False]
    with pytest.raises(TypeError):
        snapshot.models["x"] = snapshot.models["gpt-5"]  # type: ignore[index]


def test_snapshot_of_many_models_takes_constant_queries(lab: Registry) -> None:
    with lab.batch() as writer:
        for n in range(300):
            writer.set_claim("lab", "image_input", n % 2 == 0, model=f"model-{n:05}", **CLAIM)
    statements: list[str] = []
    engine = lab._engine
    listener = lambda *args: statements.append(args[2])  # noqa: E731
    sa.event.listen(engine, "before_cursor_execute", listener)
    try:
        snapshot = lab.engine_snapshot("lab")
    finally:
        sa.event.remove(engine, "before_cursor_execute", listener)
    selects = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    assert len(selects) == 4
    assert len(snapshot.models) == 300
    assert snapshot.models["model-00002"].claims["image_input"].value is True


def test_snapshot_limited_to_some_models(lab: Registry) -> None:
    with lab.batch() as writer:
        for n in range(5):
            writer.set_claim("lab", "image_input", n % 2 == 0, model=f"model-{n}", **CLAIM)
        writer.set_claim("lab", "image_input", True, **CLAIM)
    snapshot = lab.engine_snapshot("lab", models=("model-1", "unrecorded"))
    assert list(snapshot.models) == ["model-1"]
    assert snapshot.models["model-1"].claims["image_input"].value is False
    assert snapshot.claims["image_input"].value is True  # engine claims stay
    assert lab.engine_snapshot("lab", models=()).models == {}
    assert len(lab.engine_snapshot("lab").models) == 5


def test_claims_filters(registry: Registry) -> None:
    live = registry.claims(status="live-verified")
    assert live and all(c.status == "live-verified" for c in live)
    aki = registry.claims(engine="aki-anthropic", capability="source_blocks")
    assert [(c.value, c.status) for c in aki] == [(False, "live-verified")]
    with pytest.raises(InvalidStatus):
        registry.claims(status="maybe")


def test_audit_enabling_lists_weak_claims_that_enable_media(registry: Registry) -> None:
    enabling = registry.audit(enabling=True)
    assert enabling
    for claim in enabling:
        assert claim.value is True
        assert claim.capability in {
            "image_input",
            "tool_result_images",
            "tool_result_pdf",
            "source_blocks",
        }
        assert claim.status != "live-verified"
    keys = {(c.engine, c.capability) for c in enabling}
    assert ("minimax-anthropic", "tool_result_images") in keys
    assert ("minimax-anthropic", "source_blocks") not in keys  # live-verified


def test_audit_stale(lab: Registry) -> None:
    today = date(2026, 10, 31)
    for capability, verified in [("a", today - timedelta(days=40)), ("b", today), ("c", None)]:
        lab.add_capability(capability, description="a test capability", created_by="tests")
        lab.set_claim("lab", capability, True, verified_at=verified, **CLAIM)
    stale = lab.audit(engine="lab", stale_days=30, today=today)
    assert [c.capability for c in stale] == ["a", "c"]
    with pytest.raises(InvalidInput):
        lab.audit(stale_days=-1)


def test_evidence_rank_orders_statuses() -> None:
    ranks = [evidence_rank(status) for status in EVIDENCE_STATUSES]
    assert ranks == sorted(ranks, reverse=True)
    assert evidence_rank("live-verified") > evidence_rank("unverified")
    with pytest.raises(InvalidStatus):
        evidence_rank("rumour")


def test_every_error_is_a_registry_error() -> None:
    for error in (UnknownEngine("x"), InvalidModelId("x"), DuplicateEntry("x")):
        assert isinstance(error, RegistryError)
    assert issubclass(InvalidWire, ValueError) and issubclass(UnknownRule, LookupError)


def test_wire_forms_cover_the_native_forms(registry: Registry) -> None:
    from toolwire.convert import WIRES, carries_native

    forms = {(form.wire, form.kind): form for form in registry.wire_forms()}
    native = {(w, k) for w in WIRES for k in ("image", "pdf") if carries_native(w, k)}
    assert set(forms) == native
    assert {form.status for form in forms.values()} == {"documented"}
