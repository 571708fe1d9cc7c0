"""The ``toolwire probe`` and ``toolwire observation`` commands, and the observation audits.

``registry.cli`` registers these commands and hands ``audit --conflicts``,
``audit --unobserved`` and ``--stale-days`` here; the logic lives in
``toolwire.registry.observations`` and ``toolwire.registry.probe``.
"""

from __future__ import annotations

import os
from dataclasses import fields
from typing import Any

import click

from . import observations as obs
from ._output import as_row
from .cli import (
    CLAIM_COLUMNS,
    _actor,
    _actor_option,
    _Context,
    _echo,
    _echo_json,
    _emit,
    _format_option,
    _pass_ctx,
)
from .models import OBSERVATION_OUTCOMES, OBSERVATION_SCENARIOS

__all__ = ["audit_rows", "explain_observations", "observation_group", "probe_command"]

OBSERVATION_COLUMNS = (
    "id",
    "observed_at",
    "engine",
    "model",
    "wire",
    "scenario",
    "outcome",
    "http_status",
    "latency_ms",
    "endpoint",
    "excerpt",
)
ALL_OBSERVATION_COLUMNS = tuple(f.name for f in fields(obs.Observation))
PROBE_COLUMNS = ("scenario", "outcome", "status", "latency", "observation", "excerpt")
CONFLICT_COLUMNS = (
    "engine",
    "model",
    "capability",
    "value",
    "status",
    "decided_by",
    "observation_id",
    "outcome",
    "observed_at",
)
UNOBSERVED_COLUMNS = ("engine", "model", "capability", "wire", "decided_by", "status")


@click.command(name="probe")
@click.argument("engine")
@click.argument("model")
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
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="Output format.",
)
@_actor_option
@_pass_ctx
def probe_command(
    obj: _Context,
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
    from .probe import key_env, probe

    registry = obj.registry()
    variable = api_key_env or key_env(registry.engine(engine).family)
    key = os.environ.get(variable) or None
    if key is None:
        click.echo(f"note: ${variable} is not set; sending without a key", err=True)
    report = probe(
        registry,
        engine,
        model,
        recorded_by=_actor(actor),
        scenarios=scenarios,
        base_url=base_url,
        api_key=key,
        challenge=challenge,
        record_claims=record,
        max_requests=max_requests,
        timeout=timeout,
    )
    if fmt == "json":
        _echo_json(
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
        _echo(
            f"{report.engine} / {report.model} on the {report.wire} wire at {report.endpoint}, "
            f"challenge {report.challenge}"
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
        _emit(rows, fmt, PROBE_COLUMNS)
        for r in report.results:
            if r.claim is not None:
                value = "true" if r.claim.value else "false"
                _echo(f"recorded: {r.claim.capability}={value} on model {model} [live-verified]")
    failed = [r for r in report.results if r.outcome == "error"]
    if failed:
        click.echo(
            f"Error: {len(failed)} of {len(report.results)} requests ended in error "
            "(that says nothing about the capability)",
            err=True,
        )
        raise SystemExit(1)


@click.group(name="observation")
def observation_group() -> None:
    """Read the log of live probes (append-only; `toolwire probe` writes it)."""


@observation_group.command(name="list")
@click.argument("engine", required=False)
@click.option("--model", default=None, help="Only this model.")
@click.option(
    "--scenario", type=click.Choice(OBSERVATION_SCENARIOS), default=None, help="Only this scenario."
)
@click.option(
    "--outcome", type=click.Choice(OBSERVATION_OUTCOMES), default=None, help="Only this outcome."
)
@_format_option
@_pass_ctx
def observation_list(
    obj: _Context,
    engine: str | None,
    model: str | None,
    scenario: str | None,
    outcome: str | None,
    fmt: str,
) -> None:
    """List observations, oldest first (of ENGINE when given)."""
    found = obs.list_observations(
        obj.registry(), engine, model=model, scenario=scenario, outcome=outcome
    )
    _emit(found, fmt, OBSERVATION_COLUMNS if fmt == "table" else ALL_OBSERVATION_COLUMNS)


def audit_rows(
    obj: _Context,
    *,
    status: str | None,
    capability: str | None,
    engine: str | None,
    enabling: bool,
    stale_days: int | None,
    conflicts: bool,
    unobserved: bool,
    fmt: str,
) -> None:
    """Print what ``toolwire audit`` asked for (claims, conflicts or unobserved flags)."""
    registry = obj.registry()
    if conflicts or unobserved:
        if conflicts and unobserved:
            raise click.UsageError("give --conflicts or --unobserved, not both")
        if status is not None or enabling or stale_days is not None:
            raise click.UsageError(
                "--conflicts and --unobserved take only --engine and --capability"
            )
        if conflicts:
            rows: Any = obs.conflicts(registry, engine=engine, capability=capability)
            _emit(rows, fmt, CONFLICT_COLUMNS)
        else:
            rows = obs.unobserved(registry, engine=engine, capability=capability)
            _emit(rows, fmt, UNOBSERVED_COLUMNS)
        return
    claims = obs.audit(
        registry,
        status=status,
        capability=capability,
        engine=engine,
        enabling=enabling,
        stale_days=stale_days,
    )
    _emit(claims, fmt, CLAIM_COLUMNS)


def explain_observations(obj: _Context, engine: str, model: str) -> dict[str, obs.Observation]:
    """Return the latest informative observation per flag, for ``resolve --explain``."""
    return obs.latest_for(obj.registry(), engine, model)


def register(main: click.Group) -> None:
    """Add the probe and observation commands to the ``toolwire`` group."""
    main.add_command(probe_command)
    main.add_command(observation_group)
