"""Several processes on one registry: writers lose nothing, readers never fail, setup once."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from toolwire.registry.store import Registry

CLAIMS_PER_WRITER = 40

# Each process says "ready" once connected and waits for "go" on stdin, so the
# writers really overlap; each writer records its claims one transaction at a time.
WRITER = textwrap.dedent(
    """
    import sys
    from toolwire.registry.store import Registry

    url, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with Registry(url, setup=False) as registry:
        registry.revision()
        print("ready", flush=True)
        sys.stdin.readline()
        for n in range(count):
            registry.set_claim(
                "openai", f"{name}_{n}", n % 2 == 0, model=f"{name}-model-{n % 5}",
                status="inferred", evidence=f"write {n} of {name}", recorded_by=name,
            )
    """
)

# Each setup process opens a fresh database: exactly one of them migrates and seeds.
SETUP = textwrap.dedent(
    """
    import sys
    from toolwire.registry.store import Registry

    print("ready", flush=True)
    sys.stdin.readline()
    with Registry(sys.argv[1]) as registry:
        print(registry.revision())
    """
)


def _spawn(script: str, *args: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script, *map(str, args)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _start_together(processes: list[subprocess.Popen[str]]) -> None:
    for process in processes:
        assert process.stdout is not None and process.stdout.readline() == "ready\n"
    for process in processes:
        assert process.stdin is not None
        process.stdin.write("go\n")
        process.stdin.close()


def _finish(processes: list[subprocess.Popen[str]]) -> list[str]:
    """Wait for every process and close its pipes, then check each exited 0; their outputs."""
    done = []
    for process in processes:  # stdin is closed already (_start_together)
        assert process.stdout is not None and process.stderr is not None
        with process.stdout, process.stderr:
            out, err = process.stdout.read(), process.stderr.read()
        done.append((process.wait(timeout=120), out, err))
    for returncode, _, err in done:
        assert returncode == 0, err
    return [out for _, out, _ in done]


def test_two_writers_and_a_reader_lose_nothing(registry: Registry) -> None:
    with registry.batch() as writer:
        for name in "ab":
            for n in range(CLAIMS_PER_WRITER):
                writer.add_capability(f"{name}_{n}", description="test", created_by="tests")
    start_revision = registry.revision()
    writers = [_spawn(WRITER, registry.url, name, CLAIMS_PER_WRITER) for name in "ab"]
    _start_together(writers)
    seen: list[int] = []
    while any(w.poll() is None for w in writers):
        seen.append(registry.revision())
        snapshot = registry.engine_snapshot("openai")
        assert snapshot.revision >= seen[-1]
    _finish(writers)

    assert seen == sorted(seen), "the revision never goes back"
    assert registry.revision() == start_revision + 2 * CLAIMS_PER_WRITER
    for name in "ab":
        claims = registry.claims(engine="openai", recorded_by=name)
        assert len(claims) == CLAIMS_PER_WRITER
        events = [e for e in registry.claim_history("openai") if e.actor == name]
        assert len(events) == CLAIMS_PER_WRITER
    models = {m.model_id for m in registry.models("openai")}
    assert {f"{name}-model-{n}" for name in "ab" for n in range(5)} <= models


def test_concurrent_first_use_sets_up_once(database_url: str) -> None:
    processes = [_spawn(SETUP, database_url) for _ in range(3)]
    _start_together(processes)
    revisions = {out.strip() for out in _finish(processes)}
    assert revisions == {"1"}, "one seeding transaction, seen by everyone"
    with Registry(database_url, setup=False) as registry:
        events = registry.claim_history("anthropic")
        assert len(events) == len(registry.claims(engine="anthropic"))
