"""``toolwire probe ENGINE --all-models``: every recorded model, one summary table."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .._output import as_row, plural, render
from ..vocab import OBSERVATION_SCENARIOS
from ._common import echo, echo_json, emit

if TYPE_CHECKING:
    from ..probe import ProbeResult
    from ..store import Registry
    from ._progress import Progress

DRIFT_COLUMNS = ("model", "capability", "before", "outcome", "after", "flip")


class DriftWatch:
    """The drift report of one ``toolwire probe`` run, when --report or --fail-on-flip asks."""

    def __init__(
        self, registry: Registry, engine: str, report_file: str | None, fail_on_flip: bool
    ) -> None:
        self.registry = registry
        self.engine = engine
        self.report_file = report_file
        self.fail_on_flip = fail_on_flip
        self.wanted = report_file is not None or fail_on_flip
        if report_file is not None and not Path(report_file).absolute().parent.is_dir():
            # checked before any request is sent, not after the run
            raise click.BadParameter(
                f"no directory {str(Path(report_file).absolute().parent)!r}",
                param_hint="--report",
            )
        self._before: dict[Any, Any] = {}

    def before(self, models: Sequence[str]) -> None:
        """Note how the probe flags of ``models`` resolve before the probe."""
        if self.wanted:
            from ..probe import flag_states

            self._before = flag_states(self.registry, self.engine, models)

    def after(self, endpoint: str, results: Iterable[tuple[str, ProbeResult]]) -> bool:
        """Write the report and its table; return True when --fail-on-flip should fail."""
        if not self.wanted:
            return False
        from ..probe import drift, flag_states

        results = list(results)
        models = list(dict.fromkeys(model for model, _ in results))
        after = flag_states(self.registry, self.engine, models)
        report = drift(self.engine, endpoint, self._before, after, results)
        if self.report_file is not None:
            text = json.dumps(report.as_dict(), indent=2, ensure_ascii=False) + "\n"
            Path(self.report_file).write_text(text, encoding="utf-8")
        rows = [
            {
                "model": e.model,
                "capability": e.capability,
                "before": _state(e.before.value, e.before.status),
                "outcome": e.outcome,
                "after": _state(e.after.value, e.after.status),
                "flip": "FLIP" if e.flip else "",
            }
            for e in report.entries
        ]
        if rows:
            echo(render(rows, "table", DRIFT_COLUMNS, width=None), err=True)
        flips = report.flips
        echo(
            f"drift: {plural(len(report.entries), 'probed flag')}, {plural(len(flips), 'flip')}"
            + (f"; report in {self.report_file}" if self.report_file else ""),
            err=True,
        )
        if flips and self.fail_on_flip:
            echo(
                f"Error: {plural(len(flips), 'observation')} "
                f"{'contradicts' if len(flips) == 1 else 'contradict'} the registry "
                f"(--fail-on-flip): "
                + ", ".join(f"{e.model} {e.capability} {e.outcome}" for e in flips[:5])
                + (" ..." if len(flips) > 5 else ""),
                err=True,
            )
            return True
        return False


def _state(value: bool, status: str | None) -> str:
    return ("on" if value else "off") + (f" [{status}]" if status else " [default]")


def probe_all(
    registry: Registry,
    engine: str,
    *,
    recorded_by: str,
    stale: bool,
    jobs: int,
    max_requests: int | None,
    scenarios: Sequence[str],
    base_url: str | None,
    api_key: str | None,
    challenge: str | None,
    record: bool,
    timeout: float,
    progress: Progress,
    fmt: str,
    watch: DriftWatch,
    sigv4: bool = False,
    allow_endpoints: Sequence[str] = (),
) -> None:
    """Probe the engine's models, print the summary; exit 1 on an error or an unsent request."""
    from ..probe import probe_engine

    watch.before([m.model_id for m in registry.models(engine)])
    report = probe_engine(
        registry,
        engine,
        recorded_by=recorded_by,
        stale=stale,
        jobs=jobs,
        max_requests=max_requests,
        scenarios=scenarios,
        base_url=base_url,
        api_key=api_key,
        sigv4=sigv4,
        allow_endpoints=allow_endpoints,
        challenge=challenge,
        record_claims=record,
        timeout=timeout,
        progress=progress,
    )
    progress.finish()
    if fmt == "json":
        echo_json(
            {
                "engine": report.engine,
                "endpoint": report.endpoint,
                "challenge": report.challenge,
                "requests": report.requests,
                "not_sent": [{"model": m, "scenario": s} for m, s in report.not_sent],
                "results": [
                    {
                        "model": model,
                        "scenario": r.scenario,
                        "outcome": r.outcome,
                        "http_status": r.http_status,
                        "latency_ms": r.latency_ms,
                        "excerpt": r.excerpt,
                        "observation_id": r.observation.id,
                        "claim": None if r.claim is None else as_row(r.claim),
                    }
                    for model, r in report.results
                ],
            }
        )
    else:
        by_model: dict[str, dict[str, str]] = {}
        for model, r in report.results:
            by_model.setdefault(model, {})[r.scenario] = r.outcome
        for model, scenario in report.not_sent:
            by_model.setdefault(model, {})[scenario] = "not sent"
        used = [s for s in OBSERVATION_SCENARIOS if any(s in row for row in by_model.values())]
        if fmt == "table":
            echo(
                f"{report.engine}: {plural(len(by_model), 'model')}, "
                f"{plural(report.requests, 'request')} at "
                f"{report.endpoint or '-'}, challenge {report.challenge or '-'}"
            )
        rows = [{"model": model, **outcomes} for model, outcomes in by_model.items()]
        emit(rows, fmt, ("model", *used))
        if record and fmt == "table":
            recorded = sum(1 for _, r in report.results if r.claim is not None)
            echo(f"recorded: {plural(recorded, 'live-verified claim')}")
    flipped = watch.after(report.endpoint, report.results)
    failed = [r for _, r in report.results if r.outcome == "error"]
    if flipped:
        raise SystemExit(1)
    if report.not_sent:
        echo(
            f"Error: {plural(len(report.not_sent), 'request')} not sent: --max-requests "
            f"{max_requests} reached",
            err=True,
        )
        raise SystemExit(1)
    if failed:
        echo(
            f"Error: {len(failed)} of {plural(len(report.results), 'request')} ended in error "
            "(that says nothing about the capability)",
            err=True,
        )
        raise SystemExit(1)
