"""``toolwire snapshot``: valid under its schema, the same bytes twice, agreeing with resolve."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import jsonschema
from click.testing import CliRunner
from served import MODELS, cli
from toolwire.convert import WIRES
from toolwire.registry import FLAGS, Registry, resolve
from toolwire.registry.cli import main
from toolwire.registry.snapshot import build_snapshot, schema_text


def _write(url: str, path: Path, *extra: str) -> bytes:
    done = CliRunner().invoke(main, ["--database-url", url, "snapshot", "-o", str(path), *extra])
    assert done.exit_code == 0, done.output
    return path.read_bytes()


def test_the_snapshot_validates_against_its_schema(seeded_sqlite: str, tmp_path: Path) -> None:
    schema = json.loads(_write(seeded_sqlite, tmp_path / "schema.json", "--schema"))
    assert schema == json.loads(schema_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    document = json.loads(_write(seeded_sqlite, tmp_path / "snapshot.json"))
    checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
    jsonschema.Draft202012Validator(schema, format_checker=checker).validate(document)
    assert schema["$defs"]["wire"]["enum"] == list(WIRES)  # one home: convert's WIRES
    broken = json.loads(json.dumps(document))
    broken["engines"]["anthropic"]["models"]["claude-sonnet-4-5"]["capabilities"]["image_input"][
        "status"
    ] = "rumoured"
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(broken))
    assert errors, "the schema must refuse an evidence status that does not exist"


def test_the_same_registry_gives_the_same_bytes(seeded_sqlite: str, tmp_path: Path) -> None:
    first = _write(seeded_sqlite, tmp_path / "a.json")
    second = _write(seeded_sqlite, tmp_path / "b.json")
    assert first == second
    assert list(json.loads(first)) == sorted(json.loads(first))  # sorted keys
    with Registry(seeded_sqlite, setup=False) as registry:
        found = build_snapshot(registry)
    assert found.body == first
    # the time in it is the registry's last change, so it moves only with a change
    cli(seeded_sqlite, "model", "add", "openai", "gpt-snapshot-test", "--by", "tests")
    changed = json.loads(_write(seeded_sqlite, tmp_path / "c.json"))
    before = json.loads(first)
    assert changed["revision"] == before["revision"] + 1
    assert changed["changed_at"] > before["changed_at"]
    assert "gpt-snapshot-test" in changed["engines"]["openai"]["models"]
    cli(seeded_sqlite, "model", "remove", "openai", "gpt-snapshot-test", "--reason", "test")


def test_the_snapshot_agrees_with_resolve_for_every_engine_and_model(
    seeded_sqlite: str, tmp_path: Path
) -> None:
    document = json.loads(_write(seeded_sqlite, tmp_path / "s.json"))
    today = date(2026, 12, 1)  # the tests' evidence day (tests/conftest.py)
    seen = 0
    with Registry(seeded_sqlite, setup=False) as registry:
        assert set(document["engines"]) == {e.name for e in registry.engines()}
        for engine in registry.engines():
            entry = document["engines"][engine.name]
            assert entry["wire"] == engine.default_wire and entry["id_rule"] == engine.id_rule
            recorded = {m.model_id for m in registry.models(engine.name)}
            assert recorded <= set(entry["models"])
            for model, found in entry["models"].items():
                assert found["recorded"] is (model in recorded)
                resolution = resolve(engine.name, model, registry=registry)
                assert found["wire"] == resolution.wire
                # JSON: the MIME lists of the limits as arrays
                assert found["options"] == json.loads(json.dumps(dict(resolution.options)))
                assert set(found["capabilities"]) == set(FLAGS)
                for flag, trace in resolution.trace.items():
                    cap = found["capabilities"][flag]
                    assert cap["value"] is trace.value
                    assert cap["status"] == trace.status
                    assert cap["decided_by"] == trace.decided_by
                    claim = trace.claim
                    assert cap["source"] == (claim.source if claim else None)
                    verified = claim.verified_at if claim else None
                    assert cap["verified_at"] == (verified.isoformat() if verified else None)
                    last = cap["stale_after"]
                    assert (trace.stale is not None) is (
                        last is not None and today > date.fromisoformat(last)
                    )
                    seen += 1
    assert {(e, m) for e, m, _ in MODELS} <= {
        (e, m) for e, v in document["engines"].items() for m in v["models"]
    }
    assert seen >= len(MODELS) * len(FLAGS)


def test_a_stale_claim_is_stale_after_its_policy(seeded_sqlite: str, tmp_path: Path) -> None:
    cli(
        seeded_sqlite,
        "claim",
        "set",
        "openai",
        "image_input",
        "true",
        "--model",
        "gpt-4o",
        "--status",
        "live-verified",
        "--evidence",
        "probe read the challenge image",
        "--verified-at",
        "2026-01-10",
        "--by",
        "tests",
    )
    try:
        document = json.loads(_write(seeded_sqlite, tmp_path / "s.json"))
        cap = document["engines"]["openai"]["models"]["gpt-4o"]["capabilities"]["image_input"]
        assert cap["verified_at"] == "2026-01-10"
        assert cap["stale_after"] == "2026-04-10"  # live-verified: 90 days (the seed policy)
        assert document["evidence_policy"]["live-verified"] == 90
    finally:
        cli(
            seeded_sqlite,
            "claim",
            "unset",
            "openai",
            "image_input",
            "--model",
            "gpt-4o",
            "--reason",
            "test",
        )


def test_a_file_that_cannot_be_written_is_named_not_its_temporary(
    seeded_sqlite: str, tmp_path: Path
) -> None:
    (tmp_path / "a-file").write_text("kept")
    for path, reason in (
        (tmp_path / "no-such-directory" / "snapshot.json", "No such file or directory"),
        (tmp_path / "a-file" / "snapshot.json", "Not a directory"),
    ):
        args = ["--database-url", seeded_sqlite, "snapshot", "-o", str(path)]
        done = CliRunner().invoke(main, args)
        assert done.exit_code == 1
        assert done.stderr == f"Error: {reason}: {path}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]
