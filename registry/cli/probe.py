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
@click.argument("model", shell_complete=complete_model)
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
    type=click.IntRange(min=1, max=100),
    default=10,
    show_default=True,
    help="Refuse to send more requests than this.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True, max=600),
    default=60.0,
    show_default=True,
    metavar="SECONDS",
    help="How long each request may take.",
)
@format_option
@actor_option
@pass_ctx
def probe_command(
    obj: Context,
    engine: str,
    model: str,
    scenarios: tuple[str, ...],
    base_url: str | None,
    api_key_env: str | None,
    challenge: str | None,
    record: bool,
    max_requests: int,
    timeout: float,
    fmt: str,
    actor: str | None,
) -> None:
    """Ask MODEL on ENGINE to read a code from an image, a PDF or source blocks.

    One request per scenario; each is recorded as an observation (read, ignored,
    rejected or error). Exit 1 when a request ended in error.
    """
    from ..probe import key_env, probe

    registry = obj.registry()
    variable = api_key_env or key_env(registry.engine(engine).family)
    key = os.environ.get(variable) or None
    if key is None:
        echo(f"note: ${variable} is not set; sending without a key", err=True)
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
        max_requests=max_requests,
        timeout=timeout,
    )
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
