"""Capability vocabulary, retraction, removals, moves, set_claims and the change log (library)."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta

import pytest
from sqlalchemy import text
from toolwire.registry import (
    ClaimInput,
    DuplicateEntry,
    InUse,
    InvalidInput,
    InvalidRule,
    Registry,
    Resolution,
    Resolver,
    UnknownCapability,
    UnknownClaim,
    UnknownEngine,
    UnknownModel,
    UnknownRule,
    evidence,
    observations,
)


def resolve(engine: str, model: str, *, registry: Registry) -> Resolution:
    """Resolve afresh (a new resolver has no cache to wait out)."""
    return Resolver(registry).resolve(engine, model)


EVIDENCE = {"status": "documented", "evidence": "test", "recorded_by": "ops"}


def test_the_vocabulary_is_seeded_with_every_capability_read(registry: Registry) -> None:
    names = {c.name for c in registry.capabilities()}
    assert names >= {
        "image_input",
        "tool_result_images",
        "tool_result_pdf",
        "source_blocks",
        "hoist_media",
        "pdf_input",
        "tool_result_url_sources",
    }
    described = registry.capability("tool_result_url_sources")
    assert "https URL sources" in described.description and described.value_kind == "bool"


def test_an_unknown_capability_is_refused_with_the_closest(registry: Registry) -> None:
    before = registry.revision()
    with pytest.raises(UnknownCapability, match="did you mean 'image_input'") as caught:
        registry.set_claim("openai", "image_inputs", True, **EVIDENCE)
    assert "\n" not in str(caught.value)
    assert registry.revision() == before
    with pytest.raises(UnknownCapability):
        registry.capability("image_inputs")
    registry.add_capability("audio_input", description="reads audio", created_by="ops")
    registry.set_claim("openai", "audio_input", True, **EVIDENCE)
    with pytest.raises(DuplicateEntry):
        registry.add_capability("audio_input", description="again", created_by="ops")
    with pytest.raises(InvalidInput, match="description"):
        registry.add_capability("video_input", description=" ", created_by="ops")


def test_retraction_falls_through_to_the_less_specific_claim(registry: Registry) -> None:
    registry.set_claim("openai", "image_input", False, model="lab-vision-1", **EVIDENCE)
    assert resolve("openai", "lab-vision-1", registry=registry).capabilities["image_input"] is False
    old = registry.unset_claim(
        "openai", "image_input", model="lab-vision-1", evidence="typo", recorded_by="ana"
    )
    assert old.value is False
    found = resolve("openai", "lab-vision-1", registry=registry)
    assert found.capabilities["image_input"] is True
    assert found.trace["image_input"].decided_by == "engine"
    last = registry.claim_history("openai", model="lab-vision-1", capability="image_input")[-1]
    assert (last.action, last.old_value, last.old_status, last.new_value) == (
        "retract",
        False,
        "documented",
        None,
    )
    assert (last.actor, last.reason) == ("ana", "typo")
    with pytest.raises(UnknownClaim):
        registry.unset_claim(
            "openai", "image_input", model="lab-vision-1", evidence="again", recorded_by="ana"
        )


def test_removing_a_rule_changes_resolve_and_leaves_history(registry: Registry) -> None:
    rule = registry.add_rule("openai", "lab-.*", regex=True, created_by="ops")
    registry.set_claim("openai", "image_input", False, rule=rule.id, **EVIDENCE)
    assert resolve("openai", "lab-1", registry=registry).capabilities["image_input"] is False
    other = registry.add_rule("openai", "lab-2", regex=False, created_by="ops")
    assert other.position == rule.position + 1
    registry.remove_rule("openai", rule.id, recorded_by="ana", reason="wrong family")
    assert resolve("openai", "lab-1", registry=registry).capabilities["image_input"] is True
    rules = registry.rules("openai")
    assert rule.id not in {r.id for r in rules}
    assert [r.position for r in rules] == list(range(1, len(rules) + 1))
    history = registry.claim_history("openai")
    assert history[-1].action == "remove" and history[-1].subject_key == f"rule:{rule.id}"
    log = registry.log(engine="openai", limit=3)
    assert any(e.what == "rule remove" and e.subject == f"rule:{rule.id}" for e in log)
    removal = next(e for e in log if e.what == "rule remove")
    assert removal.changes["pattern"] == ("lab-.*", None) and removal.reason == "wrong family"
    with pytest.raises(UnknownRule):
        registry.remove_rule("openai", rule.id, recorded_by="ana")


def test_moving_a_rule_keeps_its_id(registry: Registry) -> None:
    first = registry.add_rule("openai", "m-.*", regex=True, created_by="ops")
    registry.set_claim("openai", "image_input", False, rule=first.id, **EVIDENCE)
    later = registry.add_rule("openai", "m-1", regex=False, created_by="ops")
    registry.set_claim("openai", "image_input", True, rule=later.id, **EVIDENCE)
    assert resolve("openai", "m-1", registry=registry).capabilities["image_input"] is True
    moved = registry.move_rule("openai", first.id, 10_000, recorded_by="ops")
    assert moved.id == first.id and moved.position == len(registry.rules("openai"))
    assert resolve("openai", "m-1", registry=registry).capabilities["image_input"] is False
    entry = registry.log(limit=1)[0]
    assert entry.what == "rule move" and entry.changes["position"] == (
        first.position,
        moved.position,
    )
    top = registry.move_rule("openai", "m-1", 1, recorded_by="ops")
    assert top.position == 1 and registry.rules("openai")[0].id == later.id


def test_a_rule_is_named_by_rule_n_or_n_as_the_cli_shows_it(registry: Registry) -> None:
    rule = registry.add_rule("openai", "ref-.*", regex=True, created_by="ops")
    ref = f"rule:{rule.id}"
    claim = registry.set_claim("openai", "image_input", False, rule=ref, **EVIDENCE)
    assert claim.rule == rule.id and claim.subject_key == ref
    assert resolve("openai", "ref-1", registry=registry).capabilities["image_input"] is False
    with registry.batch() as writer:
        found = writer.claim("openai", "image_input", rule=str(rule.id))
    assert found is not None and found.rule == rule.id and found.value is False
    moved = registry.move_rule("openai", ref, 1, recorded_by="ops")
    assert moved.id == rule.id and registry.rules("openai")[0].id == rule.id
    registry.unset_claim(
        "openai", "image_input", rule=str(rule.id), evidence="test", recorded_by="ops"
    )
    assert resolve("openai", "ref-1", registry=registry).capabilities["image_input"] is True
    removed = registry.remove_rule("openai", ref, recorded_by="ops")
    assert removed.id == rule.id and rule.id not in {r.id for r in registry.rules("openai")}


def test_a_bad_rule_reference_is_refused_and_writes_nothing(registry: Registry) -> None:
    rule = registry.add_rule("openai", "bad-.*", regex=True, created_by="ops")
    before = registry.revision()
    with pytest.raises(InvalidRule, match=r"'rule:x' is not a rule reference \(rule:N\)"):
        registry.set_claim("openai", "image_input", False, rule="rule:x", **EVIDENCE)
    with pytest.raises(InvalidRule, match="rule:N"):
        registry.move_rule("openai", f"rule:{rule.id}x", 1, recorded_by="ops")
    with pytest.raises(UnknownRule, match=r"has no rule 999999$"):
        registry.remove_rule("openai", "rule:999999", recorded_by="ops")
    assert registry.revision() == before
    assert [r.id for r in registry.rules("openai") if r.pattern == "bad-.*"] == [rule.id]


def test_removing_a_model(registry: Registry) -> None:
    registry.set_claim("openai", "image_input", False, model="gpt-4o-typo", **EVIDENCE)
    removed = registry.remove_model("openai", "gpt-4o-typo", recorded_by="ops")
    assert removed.model_id == "gpt-4o-typo"
    assert registry.model("openai", "gpt-4o-typo") is None
    assert registry.claim_history("openai", model="gpt-4o-typo")[-1].action == "remove"
    with pytest.raises(UnknownModel):
        registry.remove_model("openai", "gpt-4o-typo", recorded_by="ops")


def test_removing_an_engine_refuses_while_rows_hang_on_it(registry: Registry) -> None:
    before = registry.revision()
    with pytest.raises(InUse, match="--force"):
        registry.remove_engine("openai", recorded_by="ops")
    assert registry.revision() == before
    registry.remove_engine("openai", force=True, recorded_by="ops", reason="gone")
    with pytest.raises(UnknownEngine):
        registry.engine("openai")
    assert registry.claims(engine="openai-responses")  # others untouched
    kinds = {e.what for e in registry.log(engine="openai")}
    assert {"engine remove", "rule remove", "claim image_input remove"} <= kinds
    assert all(e.action != "set" for e in registry.claim_history("openai")[-3:])
    bare = registry.add_engine(
        "bare", provider="p", family="f", default_wire="openai", kind="shim", created_by="ops"
    )
    assert registry.remove_engine(bare.name, recorded_by="ops").name == "bare"


def test_set_claims_writes_many_with_events_once(registry: Registry) -> None:
    before = registry.revision()
    claims = [
        ClaimInput("openai", "image_input", n % 2 == 0, "inferred", f"bulk {n}", model=f"bulk-{n}")
        for n in range(300)
    ]
    report = registry.set_claims(claims, recorded_by="bulk", reason="load")
    assert (report.added, report.updated, report.kept, report.new_models) == (300, 0, 0, 300)
    assert registry.revision() == before + 1
    assert registry.model("openai", "bulk-7").claims["image_input"].value is False  # type: ignore[union-attr]
    events = [e for e in registry.claim_history("openai") if e.actor == "bulk"]
    assert len(events) == 300 and {e.reason for e in events} == {"load"}
    again = registry.set_claims(claims, recorded_by="bulk")
    assert (again.added, again.updated, again.kept) == (0, 0, 300)
    assert registry.revision() == before + 1
    flipped = registry.set_claims(
        [
            {
                "engine": "openai",
                "capability": "image_input",
                "value": True,
                "status": "documented",
                "evidence": "now",
                "model": "bulk-1",
            }
        ],
        recorded_by="other",
    )
    assert flipped.updated == 1
    kept = registry.set_claims(
        [ClaimInput("openai", "image_input", False, "inferred", "x", model="bulk-1")],
        recorded_by="bulk",
        keep_others=True,
    )
    assert kept.left == 1
    assert registry.model("openai", "bulk-1").claims["image_input"].value is True  # type: ignore[union-attr]


def test_set_claims_rows_read_back_as_set_claims_do(registry: Registry) -> None:
    """The bulk path's rows (one executemany per table, for several engines at once) read
    back as the one-claim path's: the date, the UTC times, the boolean, the model rows and
    every history event."""
    engines = [engine.name for engine in registry.engines()][:2]
    day = date(2026, 1, 2)
    said = {"status": "documented", "evidence": "docs", "source": "s", "verified_at": day}
    for engine in engines:
        registry.set_claim(engine, "pdf_input", True, model="one", recorded_by="ops", **said)
    registry.set_claims(
        [ClaimInput(e, "pdf_input", True, "documented", "docs", "s", day, "bulk") for e in engines],
        recorded_by="ops",
    )
    log = registry.log(by="ops")
    for engine in engines:
        one, bulk = (registry.model(engine, m) for m in ("one", "bulk"))
        assert one is not None and bulk is not None
        assert bulk.created_at.utcoffset() == timedelta(0) and bulk.created_by == "ops"
        mine, theirs = one.claims["pdf_input"], bulk.claims["pdf_input"]
        assert theirs.value is True and theirs.verified_at == day
        assert theirs.recorded_at.utcoffset() == timedelta(0)
        back = replace(theirs, model="one", subject_key="model:one", recorded_at=mine.recorded_at)
        assert back == mine
        events = {e.subject: e for e in registry.claim_history(engine, capability="pdf_input")}
        first, second = events["model one"], events["model bulk"]
        assert second.new_verified_at == day and second.new_value is True
        assert second.occurred_at.utcoffset() == timedelta(0)
        assert (
            replace(
                second,
                id=first.id,
                subject_key=first.subject_key,
                subject=first.subject,
                occurred_at=first.occurred_at,
            )
            == first
        )
        added = [e for e in log if e.engine == engine and e.what == "model add"]
        assert sorted(e.subject for e in added) == ["model bulk", "model one"]
        assert added[0].changes == added[1].changes
    # as stored: the same text form of each value (SQLite keeps times as text and
    # compares them so), not only the same value read back; PostgreSQL's columns are
    # typed (and its text form of a time drops trailing zeros of the microseconds)
    if registry._engine.dialect.name != "sqlite":
        return
    stored = (
        "SELECT CAST(c.recorded_at AS TEXT), CAST(c.verified_at AS TEXT), CAST(c.value AS TEXT),"
        " CAST(m.created_at AS TEXT), CAST(e.occurred_at AS TEXT), CAST(e.new_verified_at AS"
        " TEXT), CAST(e.new_value AS TEXT) FROM claim c JOIN model m ON m.id = c.model_row_id"
        " JOIN claim_event e ON e.claim_id = c.id WHERE c.capability = 'pdf_input'"
        " AND m.model_id = :model"
    )
    with registry._engine.connect() as connection:
        one, bulk = (connection.execute(text(stored), {"model": m}).all() for m in ("one", "bulk"))
    shape = [[(len(v), v[:2]) for v in row] for row in one]
    assert len(one) == len(bulk) == len(engines)
    assert [[(len(v), v[:2]) for v in row] for row in bulk] == shape


def test_set_claims_checks_everything_before_writing(registry: Registry) -> None:
    before = registry.revision()
    good = ClaimInput("openai", "image_input", True, "inferred", "ok", model="fine")
    for bad in (
        ClaimInput("openai", "image_inputz", True, "inferred", "x"),
        ClaimInput("nope", "image_input", True, "inferred", "x"),
        ClaimInput("openai", "image_input", True, "inferred", "x", rule=999_999),
        ClaimInput("openai", "image_input", "yes", "inferred", "x"),  # type: ignore[arg-type]
    ):
        with pytest.raises((InvalidInput, LookupError)):
            registry.set_claims([good, bad], recorded_by="ops")
    assert registry.revision() == before
    assert registry.model("openai", "fine") is None


def test_verified_at_in_the_future_is_refused(registry: Registry) -> None:
    with pytest.raises(InvalidInput, match="future"):
        registry.set_claim(
            "openai", "image_input", True, verified_at=date.today() + timedelta(days=30), **EVIDENCE
        )


def test_log_filters(registry: Registry) -> None:
    registry.set_claim("openai", "image_input", False, model="x-1", **EVIDENCE)
    registry.set_claim(
        "gemini", "image_input", False, model="y-1", **{**EVIDENCE, "recorded_by": "bo"}
    )
    newest = registry.log(limit=1)[0]
    assert newest.engine == "gemini" and newest.actor == "bo"
    assert newest.changes["value"] == (None, False) and "source" not in newest.changes
    assert {e.actor for e in registry.log(by="bo")} == {"bo"}
    assert {e.engine for e in registry.log(engine="openai", since=date.today())} == {"openai"}
    assert registry.log(since=date.today() + timedelta(days=2)) == ()
    with pytest.raises(InvalidInput):
        registry.log(limit=0)


def test_wrong_typed_library_arguments_are_typed_errors(registry: Registry) -> None:
    from toolwire.registry import InvalidModelId, format_for

    with pytest.raises(InvalidInput, match="engine"):
        format_for(None, "gpt-4o", [], registry=registry)  # type: ignore[arg-type]
    with pytest.raises(InvalidModelId):
        format_for("openai", ["x"], [], registry=registry)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="pass a Registry"):
        format_for("openai", "gpt-4o", [], registry="sqlite:///x.db")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="stale_days"):
        registry.audit(stale_days=10**6)
    for bad in (10**6, -1, "5", 2.0, True):  # one check for the store and the observations
        with pytest.raises(InvalidInput, match="stale_days"):
            observations.audit(registry, stale_days=bad)  # type: ignore[arg-type]
    for audit in (registry.audit, lambda **o: observations.audit(registry, **o)):
        with pytest.raises(InvalidInput, match="invalid today "):
            audit(stale_days=5, today="2026-01-01")
    with pytest.raises(InvalidInput, match="invalid on "):
        evidence.stale_claims(registry, on="2026-01-01")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        Registry(123)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="not UTF-8"):
        registry.engine("open\udcffai")


def test_a_claim_from_before_the_vocabulary_can_be_retracted(registry: Registry) -> None:
    from sqlalchemy import insert, select
    from toolwire.registry.tables import claim_table, engine_table, utcnow

    with registry._write_engine.begin() as connection:  # as a registry before 0003 holds it
        engine_id = connection.scalar(
            select(engine_table.c.id).where(engine_table.c.name == "openai")
        )
        connection.execute(
            insert(claim_table).values(
                engine_id=engine_id,
                subject_key="engine",
                capability="image_inputs",
                value=True,
                status="inferred",
                evidence="typo",
                recorded_by="old",
                recorded_at=utcnow(),
            )
        )
    old = registry.unset_claim("openai", "image_inputs", evidence="typo", recorded_by="ops")
    assert old.capability == "image_inputs"
    assert "image_inputs" not in registry.engine_snapshot("openai").claims
    with pytest.raises(UnknownCapability):
        registry.unset_claim("openai", "image_inputs", evidence="again", recorded_by="ops")
