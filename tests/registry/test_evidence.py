"""Evidence that ages: the policy, stale claims in the resolver, audit --stale, transfer.

Ages are measured on a frozen clock (``toolwire.registry.evidence.today`` replaced).
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from cli_helpers import failed, ok, run
from click.testing import CliRunner
from observe_helpers import observe
from toolwire.registry import Registry, Resolver
from toolwire.registry import evidence as ev
from toolwire.registry.transfer import diff, dump_toml, export, import_document, read_document

VERIFIED = date(2026, 1, 1)
FRESH = date(2026, 3, 1)  # 59 days later
LATE = date(2026, 5, 1)  # 120 days later


def _freeze(monkeypatch: pytest.MonkeyPatch, day: date) -> None:
    monkeypatch.setattr(ev, "today", lambda: day)


def _live_claim(registry: Registry, value: bool = True) -> None:
    registry.set_claim(
        "openai-responses",
        "image_input",
        value,
        model="gpt-aged",
        status="live-verified",
        evidence="probe read it",
        verified_at=VERIFIED,
        recorded_by="ops",
    )


def _observe(registry: Registry, outcome: str, when: datetime) -> None:
    observe(
        registry,
        engine="openai-responses",
        model="gpt-aged",
        wire="responses",
        outcome=outcome,
        endpoint="https://api.openai.com/v1",
        observed_at=when,
    )


def test_the_default_policy_and_setting_it(registry: Registry) -> None:
    assert dict(ev.evidence_policy(registry)) == {
        "live-verified": 90,
        "documented": None,
        "inferred": None,
        "unverified": None,
    }
    revision = registry.revision()
    with registry.batch() as writer:
        assert ev.set_evidence_policy(writer, "documented", 365, recorded_by="ops") is True
    assert registry.revision() == revision + 1
    with registry.batch() as writer:
        assert ev.set_evidence_policy(writer, "documented", 365, recorded_by="ops") is False
    assert registry.revision() == revision + 1
    assert ev.evidence_policy(registry)["documented"] == 365
    assert ev.parse_days("never") is None and ev.parse_days("7") == 7
    for bad in ("-1", "36501", "soon", 1.5, True):
        with pytest.raises(ValueError, match="invalid policy age"):
            ev.parse_days(bad)


def test_a_stale_claim_counts_one_tier_lower(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    _live_claim(registry)
    _freeze(monkeypatch, FRESH)
    fresh = Resolver(registry).resolve("openai-responses", "gpt-aged", min_evidence="live-verified")
    assert fresh.trace["image_input"].decided_by == "model"
    assert fresh.trace["image_input"].stale is None
    _freeze(monkeypatch, LATE)
    strict = Resolver(registry).resolve(
        "openai-responses", "gpt-aged", min_evidence="live-verified"
    )
    entry = strict.trace["image_input"]
    assert entry.decided_by != "model"  # set aside: stale live-verified counts as documented
    assert entry.ignored[0][0] == "model"
    assert entry.ignored_stale[0] == "verified 2026-01-01, policy 90 days"
    assert "stale: verified 2026-01-01, policy 90 days" in strict.explain()
    documented = Resolver(registry).resolve(
        "openai-responses", "gpt-aged", min_evidence="documented"
    )
    assert documented.trace["image_input"].decided_by == "model"  # still decides by value
    plain = Resolver(registry).resolve("openai-responses", "gpt-aged")
    assert plain.trace["image_input"].stale == "verified 2026-01-01, policy 90 days"
    assert "      stale: verified 2026-01-01, policy 90 days" in plain.explain()
    assert plain.as_dict()["trace"]["image_input"]["stale"] == "verified 2026-01-01, policy 90 days"


def test_an_agreeing_observation_renews_the_age_a_disagreeing_one_does_not(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    _live_claim(registry)
    _freeze(monkeypatch, LATE)
    _observe(registry, "ignored", datetime(2026, 4, 20, tzinfo=UTC))
    still = Resolver(registry).resolve("openai-responses", "gpt-aged")
    assert still.trace["image_input"].stale == "verified 2026-01-01, policy 90 days"
    _observe(registry, "read", datetime(2026, 4, 25, tzinfo=UTC))
    renewed = Resolver(registry).resolve(
        "openai-responses", "gpt-aged", min_evidence="live-verified"
    )
    assert renewed.trace["image_input"].decided_by == "model"
    assert renewed.trace["image_input"].stale is None


def test_a_claim_verified_after_its_last_agreeing_observation_counts_from_then(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    _observe(registry, "read", datetime(2025, 6, 1, tzinfo=UTC))  # long before VERIFIED
    _live_claim(registry)
    _freeze(monkeypatch, FRESH)  # 59 days after VERIFIED, a year after the observation
    fresh = Resolver(registry).resolve("openai-responses", "gpt-aged")
    assert fresh.trace["image_input"].stale is None
    _freeze(monkeypatch, LATE)
    late = Resolver(registry).resolve("openai-responses", "gpt-aged")
    assert late.trace["image_input"].stale == "verified 2026-01-01, policy 90 days"


def test_a_cached_resolution_sees_a_new_policy(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    _live_claim(registry)
    _freeze(monkeypatch, FRESH)
    resolver = Resolver(registry, max_age=0)
    assert resolver.resolve("openai-responses", "gpt-aged").trace["image_input"].stale is None
    with registry.batch() as writer:
        ev.set_evidence_policy(writer, "live-verified", 30, recorded_by="ops")
    stale = resolver.resolve("openai-responses", "gpt-aged").trace["image_input"].stale
    assert stale == "verified 2026-01-01, policy 30 days"


def test_stale_claims_follow_the_policy(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    _live_claim(registry)
    found = ev.stale_claims(registry, engine="openai-responses", on=LATE)
    assert [(s.claim.model, s.why) for s in found] == [
        ("gpt-aged", "verified 2026-01-01, policy 90 days")
    ]
    assert ev.stale_claims(registry, engine="openai-responses", on=FRESH) == ()
    with registry.batch() as writer:
        ev.set_evidence_policy(writer, "live-verified", None, recorded_by="ops")
    assert ev.stale_claims(registry, engine="openai-responses", on=LATE) == ()


def test_audit_stale_and_the_stale_days_override(
    runner: CliRunner, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Registry(url) as registry:
        _live_claim(registry)
        registry.set_claim(
            "openai-responses",
            "source_blocks",
            False,
            model="gpt-aged",
            status="inferred",
            evidence="assumed",
            recorded_by="ops",
        )
    _freeze(monkeypatch, LATE)
    args = ("audit", "--stale", "--engine", "openai-responses", "--format", "json")
    rows = json.loads(ok(run(runner, url, *args)))
    assert [(r["subject_key"], r["stale"]) for r in rows] == [
        ("model:gpt-aged", "verified 2026-01-01, policy 90 days")
    ]
    # --stale-days stays as the override: every claim not checked in N days, or never
    long = json.loads(ok(run(runner, url, *args, "--stale-days", "36500")))
    # never checked: listed (the seeded claims are dated by their documentation, later)
    assert [(r["subject_key"], r["capability"], r["verified_at"]) for r in long] == [
        ("model:gpt-aged", "source_blocks", None)
    ]
    listed = json.loads(ok(run(runner, url, *args, "--stale-days", "30")))
    assert "model:gpt-aged" in {r["subject_key"] for r in listed}
    failed(run(runner, url, "audit", "--stale", "--conflicts"), "take only --engine")
    failed(run(runner, url, "audit", "--stale", "--engine", "nope"), "unknown engine")


def test_the_policy_commands(runner: CliRunner, url: str) -> None:
    table = ok(run(runner, url, "evidence", "policy"))
    assert "live-verified  90" in table and "documented     never" in table
    assert ok(run(runner, url, "evidence", "policy", "set", "documented", "365")) == (
        "documented: 365 days\n"
    )
    again = ok(run(runner, url, "evidence", "policy", "set", "documented", "365"))
    assert again == "documented: 365 days (unchanged)\n"
    shown = json.loads(ok(run(runner, url, "evidence", "policy", "--format", "json")))
    assert {"status": "documented", "max_age_days": 365} in shown
    ok(run(runner, url, "evidence", "policy", "set", "documented", "never"))
    failed(run(runner, url, "evidence", "policy", "set", "documented", "soon"), "'never'")
    typo = run(runner, url, "evidence", "policy", "set", "documentd", "3")
    failed(typo, "unknown evidence status 'documentd'; did you mean 'documented'?")
    assert typo.exit_code == 1


def test_the_policy_is_exported_imported_and_diffed(
    registry: Registry, tmp_path: Path, second_database_url: str
) -> None:
    with registry.batch() as writer:
        ev.set_evidence_policy(writer, "live-verified", 45, recorded_by="ops")
        ev.set_evidence_policy(writer, "documented", 400, recorded_by="ops")
    document = export(registry)
    assert document["evidence_policy"] == [
        {"status": "live-verified", "max_age_days": 45},
        {"status": "documented", "max_age_days": 400},
        {"status": "inferred"},
        {"status": "unverified"},
    ]
    path = tmp_path / "export.toml"
    path.write_text(dump_toml(document), encoding="utf-8")
    with Registry(second_database_url) as other:
        assert [str(c) for c in diff(export(other), document)] == [
            "~ evidence_policy documented: max_age_days: - -> 400",
            "~ evidence_policy live-verified: max_age_days: 90 -> 45",
        ]
        data, _ = read_document(path)
        report = import_document(other, data, source="export.toml", by="ops")
        assert len(report.changes) == 2
        assert dict(ev.evidence_policy(other)) == dict(ev.evidence_policy(registry))
        assert dump_toml(export(other)) == path.read_text(encoding="utf-8")
        again = import_document(other, data, source="export.toml", by="ops")
        assert again.changes == ()


# -- engine and rule claims, and the seed's documentation date ---------------------------


def test_engine_and_rule_claims_age_from_their_own_dates(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    with registry.batch() as writer:
        ev.set_evidence_policy(writer, "documented", 30, recorded_by="ops")
    registry.set_claim(
        "openai-responses",
        "tool_result_pdf",
        True,
        status="documented",
        evidence="engine docs",
        source="docs",
        verified_at=VERIFIED,
        recorded_by="ops",
    )
    _freeze(monkeypatch, FRESH)  # 59 days: past 30
    engine = Resolver(registry).resolve("openai-responses", "gpt-unrecorded-model")
    assert engine.trace["tool_result_pdf"].decided_by == "engine"
    assert engine.trace["tool_result_pdf"].stale == "verified 2026-01-01, policy 30 days"
    registry.add_rule("openai-responses", "gpt-ruled-.*", regex=True, created_by="ops")
    registry.set_claim(
        "openai-responses",
        "tool_result_pdf",
        False,
        rule="gpt-ruled-.*",
        status="documented",
        evidence="rule docs",
        source="docs",
        verified_at=date(2026, 1, 10),
        recorded_by="ops",
    )
    ruled = Resolver(registry).resolve("openai-responses", "gpt-ruled-1")
    assert ruled.trace["tool_result_pdf"].decided_by.startswith("rule")
    assert ruled.trace["tool_result_pdf"].stale == "verified 2026-01-10, policy 30 days"
    _freeze(monkeypatch, date(2026, 1, 20))  # 19 and 10 days: fresh
    fresh = Resolver(registry)
    assert fresh.resolve("openai-responses", "gpt-x").trace["tool_result_pdf"].stale is None
    assert fresh.resolve("openai-responses", "gpt-ruled-1").trace["tool_result_pdf"].stale is None


def test_seeded_documented_claims_carry_their_documentation_date(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    documented = [c for c in registry.claims() if c.status == "documented"]
    assert documented and all(c.verified_at is not None for c in documented)
    assert {c.verified_at for c in documented} == {date(2026, 9, 30), date(2026, 12, 1)}
    with registry.batch() as writer:
        ev.set_evidence_policy(writer, "documented", 365, recorded_by="ops")
    assert ev.stale_claims(registry, engine="anthropic", on=date(2027, 9, 30)) == ()
    aged = ev.stale_claims(registry, engine="anthropic", on=date(2027, 10, 1))
    assert {s.claim.status for s in aged} == {"documented"}
    read_then = [c for c in documented if c.engine == "anthropic"]
    assert len(aged) == len([c for c in read_then if c.verified_at == date(2026, 9, 30)])
    later = ev.stale_claims(registry, engine="anthropic", on=date(2027, 12, 2))
    assert len(later) == len(read_then)  # the limits, collected 2026-12-01, a year on
    _freeze(monkeypatch, date(2027, 10, 1))
    entry = Resolver(registry).resolve("anthropic", "claude-sonnet-4-5").trace["image_input"]
    assert entry.stale == "verified 2026-09-30, policy 365 days"


def test_a_documentation_date_dates_only_undated_documented_claims(tmp_path: Path) -> None:
    from toolwire.registry._seed import load_seed
    from toolwire.registry.errors import InvalidSeed

    claim = "[[{0}.claim]]\ncapability='c'\nvalue=true\nstatus='{1}'\nevidence='e'\nsource='s'\n"
    path = tmp_path / "dated.toml"
    path.write_text(
        "documentation_date = 2026-05-05\n"
        "[[engine]]\nname='x'\nprovider='p'\nfamily='f'\ndefault_wire='openai'\nkind='shim'\n"
        + claim.format("engine", "documented")
        + claim.format("engine", "inferred")
        + claim.format("engine", "documented")
        + "verified_at = 2026-01-02\n"
        + "[[engine.rule]]\nexact='m'\n"
        + claim.format("engine.rule", "documented")
        + "[[engine.model]]\nid='m2'\n"
        + claim.format("engine.model", "documented"),
        encoding="utf-8",
    )
    (engine,) = load_seed([path]).engines
    assert [c.get("verified_at") for c in engine["claim"]] == [
        date(2026, 5, 5),
        None,
        date(2026, 1, 2),
    ]
    assert engine["rule"][0]["claim"][0]["verified_at"] == date(2026, 5, 5)
    assert engine["model"][0]["claim"][0]["verified_at"] == date(2026, 5, 5)
    path.write_text("documentation_date = '2026-05-05'\n", encoding="utf-8")
    with pytest.raises(InvalidSeed, match="documentation_date must be a TOML date"):
        load_seed([path])
