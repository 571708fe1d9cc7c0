"""``toolwire observation list``: the append-only log ``toolwire probe`` writes."""

from __future__ import annotations

import click

from ..vocab import OBSERVATION_OUTCOMES, OBSERVATION_SCENARIOS
from ._common import (
    Context,
    NameChoice,
    check_filters,
    complete_engine,
    complete_model,
    emit,
    format_option,
    pass_ctx,
)

#: The table's columns; JSON and CSV carry every field of an observation.
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


@click.group(name="observation")
def observation_group() -> None:
    """Read the log of live probes (append-only; `toolwire probe` writes it)."""


@observation_group.command(name="list")
@click.argument("engine", required=False, shell_complete=complete_engine)
@click.option("--model", shell_complete=complete_model, default=None, help="Only this model.")
@click.option(
    "--scenario",
    type=NameChoice("scenario", OBSERVATION_SCENARIOS),
    default=None,
    help="Only this scenario.",
)
@click.option(
    "--outcome",
    type=NameChoice("outcome", OBSERVATION_OUTCOMES),
    default=None,
    help="Only this outcome.",
)
@format_option
@pass_ctx
def observation_list(
    obj: Context,
    engine: str | None,
    model: str | None,
    scenario: str | None,
    outcome: str | None,
    fmt: str,
) -> None:
    """List observations, oldest first (of ENGINE when given)."""
    from dataclasses import fields

    from .. import observations as obs

    found = obs.list_observations(
        obj.registry(), engine, model=model, scenario=scenario, outcome=outcome
    )
    if not found:
        check_filters(obj, engine=engine, model=model)
    every = tuple(f.name for f in fields(obs.Observation))
    emit(found, fmt, OBSERVATION_COLUMNS if fmt == "table" else every)


COMMANDS = [observation_group]
