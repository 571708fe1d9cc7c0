"""``toolwire probe ENGINE --all-models``: every recorded model, one summary table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .._output import as_row, plural
from ..vocab import OBSERVATION_SCENARIOS
from ._common import echo, echo_json, emit

if TYPE_CHECKING:
    from ..store import Registry
    from ._progress import Progress


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
) -> None:
    """Probe the engine's models, print the summary; exit 1 on an error or an unsent request."""
    from ..probe import probe_engine

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
    failed = [r for _, r in report.results if r.outcome == "error"]
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
