"""``toolwire probe``: ask a model live whether it reads what the wire sends it.

The work is in ``toolwire.registry.probe`` (imported when the command runs: it needs
the ``probe`` extra); this module parses the options and prints the report.
"""

from __future__ import annotations

import os

import click

from .._output import as_row, plural
from ..vocab import OBSERVATION_SCENARIOS
from ._common import (
    Context,
    actor_option,
    complete_engine,
    complete_model,
    echo,
    echo_json,
    emit,
    format_option,
    pass_ctx,
    who,
)

PROBE_COLUMNS = ("scenario", "outcome", "status", "latency", "observation", "excerpt")


@click.command(name="probe")
@click.argument("engine", shell_complete=complete_engine)
@click.argument("model", required=False, shell_complete=complete_model)
@click.option("--all-models", is_flag=True, help="Probe every recorded model of ENGINE (no MODEL).")
@click.option(
    "--stale",
    is_flag=True,
    help="With --all-models: only models whose native-media flag that resolves on is "
    "unobserved or past its evidence policy.",
)
@click.option(
    "--jobs",
    type=click.IntRange(min=1, max=64),
    default=4,
    show_default=True,
    help="With --all-models: requests in flight at once.",
)
@click.option(
    "--scenario",
    "scenarios",
    multiple=True,
    type=click.Choice(OBSERVATION_SCENARIOS),
    help="Probe this scenario (repeatable; default: image_input and every native form "
    "of the wire).",
)
@click.option("--base-url", default=None, help="Endpoint URL (default: the engine's).")
@click.option(
    "--api-key-env",
    default=None,
    metavar="VAR",
    help="Environment variable holding the key (default per family, e.g. ANTHROPIC_API_KEY).",
)
@click.option("--challenge", default=None, metavar="CODE", help="Use this 6-character code.")
@click.option(
    "--record", is_flag=True, help="Also write the live-verified claims the outcomes support."
)
@click.option(
    "--max-requests",
    type=click.IntRange(min=1),
    default=None,
    help="Send no more requests than this, retries included (default: 10 for one model, "
    "at most 100; no limit with --all-models).",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True, max=600),
    default=60.0,
    show_default=True,
    metavar="SECONDS",
    help="How long each request may take.",
)
@click.option("--quiet", is_flag=True, help="No progress lines on stderr.")
@format_option
@actor_option
@pass_ctx
def probe_command(
    obj: Context,
    engine: str,
    model: str | None,
    all_models: bool,
    stale: bool,
    jobs: int,
    scenarios: tuple[str, ...],
    base_url: str | None,
    api_key_env: str | None,
    challenge: str | None,
    record: bool,
    max_requests: int | None,
    timeout: float,
    quiet: bool,
    fmt: str,
    actor: str | None,
) -> None:
    """Ask MODEL on ENGINE to read a code from an image, a PDF or source blocks.

    One request per scenario; each is recorded as an observation (read, ignored,
    rejected or error); 429 and 503 are sent again after Retry-After (3 times at most).
    With --all-models, every recorded model of ENGINE, --jobs requests in flight.
    Progress goes to stderr. Exit 1 when a request ended in error.
    """
    from ..probe import key_env, probe
    from ._progress import Progress

    if all_models == (model is not None):
        raise click.UsageError("give MODEL or --all-models")
    if not all_models and stale:
        raise click.UsageError("--stale goes with --all-models")
    if not all_models and max_requests is not None and max_requests > 100:
        raise click.BadParameter("at most 100 for one model", param_hint="--max-requests")
    registry = obj.registry()
    variable = api_key_env or key_env(registry.engine(engine).family)
    key = os.environ.get(variable) or None
    if key is None:
        echo(f"note: ${variable} is not set; sending without a key", err=True)
    progress = Progress(quiet=quiet)
    if all_models:
        from ._probe_all import probe_all

        probe_all(
            registry,
            engine,
            recorded_by=who(actor),
            stale=stale,
            jobs=jobs,
            max_requests=max_requests,
            scenarios=scenarios,
            base_url=base_url,
            api_key=key,
            challenge=challenge,
            record=record,
            timeout=timeout,
            progress=progress,
            fmt=fmt,
        )
        return
    assert model is not None
    report = probe(
        registry,
        engine,
        model,
        recorded_by=who(actor),
        scenarios=scenarios,
        base_url=base_url,
        api_key=key,
        challenge=challenge,
        record_claims=record,
        max_requests=10 if max_requests is None else max_requests,
        timeout=timeout,
        progress=progress,
    )
    progress.finish()
    if fmt == "json":
        echo_json(
            {
                "engine": report.engine,
                "model": report.model,
                "wire": report.wire,
                "endpoint": report.endpoint,
                "challenge": report.challenge,
                "results": [
                    {
                        "scenario": r.scenario,
                        "outcome": r.outcome,
                        "http_status": r.http_status,
                        "latency_ms": r.latency_ms,
                        "excerpt": r.excerpt,
                        "observation_id": r.observation.id,
                        "claim": None if r.claim is None else as_row(r.claim),
                    }
                    for r in report.results
                ],
            }
        )
    else:
        if fmt == "table":
            echo(
                f"{report.engine} / {report.model} on the {report.wire} wire at "
                f"{report.endpoint}, challenge {report.challenge}"
            )
        rows = [
            {
                "scenario": r.scenario,
                "outcome": r.outcome,
                "status": r.http_status,
                "latency": None if r.latency_ms is None else f"{r.latency_ms} ms",
                "observation": f"#{r.observation.id}",
                "excerpt": r.excerpt,
            }
            for r in report.results
        ]
        emit(rows, fmt, PROBE_COLUMNS)
        for r in report.results:
            if r.claim is not None and fmt == "table":
                value = "true" if r.claim.value else "false"
                echo(f"recorded: {r.claim.capability}={value} on model {model} [live-verified]")
    failed = [r for r in report.results if r.outcome == "error"]
    if failed:
        echo(
            f"Error: {len(failed)} of {plural(len(report.results), 'request')} ended in error "
            "(that says nothing about the capability)",
            err=True,
        )
        raise SystemExit(1)


COMMANDS = [probe_command]
